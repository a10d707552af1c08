#!/usr/bin/env python3
"""Unit test of scripts/include_cycles.py on small trees: a loop through a "kvaddr/..." include, a
relative include and a private-folder include is found and printed in include order; the same tree
without the closing include passes; system includes and unknown names are no edges."""
import contextlib
import importlib.util
import io
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("include_cycles", ROOT / "scripts" / "include_cycles.py")
ic = importlib.util.module_from_spec(spec)
sys.modules["include_cycles"] = ic
spec.loader.exec_module(ic)


def write(root, rel, text):
    p = Path(root) / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def tree(root, closing):
    write(root, "a/include/kvaddr/a/x.hpp", '#pragma once\n#include <vector>\n#include "kvaddr/a/y.hpp"\n')
    write(root, "a/include/kvaddr/a/y.hpp", '#pragma once\n#include "z.hpp"\n#include "nowhere.hpp"\n')
    write(root, "a/include/kvaddr/a/z.hpp", '#pragma once\n' + ('#include "helper.hpp"\n' if closing else ''))
    write(root, "a/src/helper.hpp", '#pragma once\n#include "kvaddr/a/x.hpp"\n')
    write(root, "a/src/use.cpp", '#include "helper.hpp"\n')
    write(root, "build/a/include/kvaddr/a/x.hpp", '#include "kvaddr/a/x.hpp"\n')  # a build folder: skipped
    (Path(root) / "build" / "CMakeCache.txt").write_text("")


def run(root):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = ic.main(["--root", root])
    return rc, out.getvalue()


class IncludeCycles(unittest.TestCase):
    def test_loop_is_printed_and_fails(self):
        with tempfile.TemporaryDirectory() as root:
            tree(root, closing=True)
            rc, out = run(root)
            self.assertEqual(rc, 1)
            self.assertIn("include cycle: a/include/kvaddr/a/x.hpp -> a/include/kvaddr/a/y.hpp -> "
                          "a/include/kvaddr/a/z.hpp -> a/src/helper.hpp -> a/include/kvaddr/a/x.hpp", out)
            self.assertIn("5 files, 5 project includes, 1 include cycle(s)", out)

    def test_no_loop_passes(self):
        with tempfile.TemporaryDirectory() as root:
            tree(root, closing=False)
            rc, out = run(root)
            self.assertEqual(rc, 0)
            self.assertIn("5 files, 4 project includes, 0 include cycle(s)", out)

    def test_self_include_is_a_cycle(self):
        with tempfile.TemporaryDirectory() as root:
            write(root, "b/src/self.hpp", '#include "self.hpp"\n')
            rc, out = run(root)
            self.assertEqual(rc, 1)
            self.assertIn("include cycle: b/src/self.hpp -> b/src/self.hpp", out)


if __name__ == "__main__":
    unittest.main()
