"""The int32_lengths flow of tests/harness_subjects/int32_cases.py on the CPU (issue 33): kvaddr's host route under
int32_lengths stands in for the Triton subject decode_metadata_int32_lengths (run on a GPU by
tests/harness_subjects/test_int32_subjects.py); production's own host kernel is not named."""
import pathlib
import sys

import pytest

import kvaddr
from kvaddr.conventions import host_kernel

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "harness_subjects"))
import int32_cases as E  # noqa: E402


def test_int32_lengths_stand_in_fails_as_production_and_is_named(tmp_path):
    rep = E.check_int32_lengths_subject(host_kernel("decode_metadata", "int32_lengths"), "cpu", tmp_path)
    assert rep["summary"] == {"calls": 1, "differs": 1, "equal": 0, "error": 0}


def test_production_writes_the_capped_row():
    res = kvaddr.check_case(host_kernel("decode_metadata"), E.int32_lengths_case(), device="cpu")
    assert res.kind == "ok"
    with pytest.raises(AssertionError):
        E.check_int32_lengths_subject(host_kernel("decode_metadata"), "cpu", None)
