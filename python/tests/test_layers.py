"""scripts/python_layers.py: python/kvaddr is a stack of layers, and the check fails on a planted fault."""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "python_layers.py"
PACKAGE = ROOT / "python" / "kvaddr"


def run(*args):
    p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout.strip().splitlines()


@pytest.fixture
def copy(tmp_path):
    dst = tmp_path / "kvaddr"
    shutil.copytree(PACKAGE, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def plant(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_the_package_is_a_stack_without_cycles():
    rc, out = run("--check-doc")
    assert rc == 0, "\n".join(out)
    assert out[-1].endswith(", 0 cycles, 0 function-level sibling imports, 0 findings")
    assert out[-1].startswith(f"{len(list(PACKAGE.glob('*.py')))} modules in 13 layers, ")


def test_an_upward_import_is_a_finding_and_closes_a_cycle(copy):
    assert run("--package", str(copy))[0] == 0
    plant(copy / "cases.py", "from . import adjacent\n", "from . import adjacent\nfrom . import harness  # planted\n")
    rc, out = run("--package", str(copy))
    assert rc == 1
    line = next(x for x in out if x.startswith("cases.py:"))
    assert line == ("cases.py:22 imports harness (layer harness), not below cases (layer cases): a module imports only "
                    "modules of lower layers")
    cycle = next(x for x in out if x.startswith("import cycle: "))
    assert "cases" in cycle.split(": ")[1].split(" <-> ") and "harness" in cycle
    assert out[-1].endswith(", 1 cycles, 0 function-level sibling imports, 2 findings")


def test_an_import_of_the_same_layer_is_a_finding(copy):
    plant(copy / "shrink.py", "from . import _core\n",
          "from . import _core\nfrom .conventions import reference  # noqa: F401 planted\n")
    rc, out = run("--package", str(copy))
    assert rc == 1
    assert out[:-1] == ["shrink.py:11 imports conventions (layer conventions), not below shrink (layer conventions): a "
                        "module imports only modules of lower layers"]


def test_an_import_hidden_in_a_function_is_a_finding(copy):
    # a downward import, legal at module level, still fails inside a function
    plant(copy / "record.py", "def load_case(directory, *, allow_outside=False):\n",
          "def load_case(directory, *, allow_outside=False):\n    from . import cases  # noqa: F401 planted\n")
    rc, out = run("--package", str(copy))
    assert rc == 1
    assert len(out) == 2 and out[0].endswith(" imports cases inside a function or class (imports go at module level)")
    assert out[0].startswith("record.py:")
    assert out[-1].endswith(", 0 cycles, 1 function-level sibling imports, 1 findings")


def test_absolute_imports_of_the_package_count(copy):
    plant(copy / "arrays.py", "import numpy as np\n", "import numpy as np\n\nimport kvaddr.cases  # noqa: F401\n")
    rc, out = run("--package", str(copy))
    assert rc == 1
    assert [x.split(" ", 1)[1] for x in out if x.startswith("arrays.py:")] == [
        "imports cases (layer cases), not below arrays (layer base): a module imports only modules of lower layers"]


def test_a_module_outside_the_table_is_a_finding(copy):
    (copy / "newthing.py").write_text('"""A module nobody placed."""\n')
    rc, out = run("--package", str(copy))
    assert rc == 1
    assert out[0] == "newthing.py: not in the layer table (scripts/python_layers.py LAYERS): place it in a layer"


def test_the_doc_table_is_checked(tmp_path):
    doc = tmp_path / "architecture.md"
    text = (ROOT / "docs" / "architecture.md").read_text()
    begin = "<!-- pylayers:begin (scripts/python_layers.py --write) -->\n"
    doc.write_text(text.replace(begin, begin + "| stale row |\n", 1))
    rc, out = run("--doc", str(doc), "--check-doc")
    assert rc == 1 and out[-1].endswith("the Python layer table differs from the package; "
                                        "run scripts/python_layers.py --write")
    assert run("--doc", str(doc), "--write")[0] == 0
    assert doc.read_text() == text
