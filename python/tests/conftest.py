import os
import pathlib

import pytest

DATA = pathlib.Path(
    os.environ.get("KVADDR_REPLAY_DATA_DIR", pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "replay")
)


@pytest.fixture
def example_dir():
    return DATA / "example"
