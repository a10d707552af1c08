#!/usr/bin/env python3
"""Unit test of scripts/architecture_deps.py on a small `cmake --graphviz` text (no build): the rows, the
closure, the check against a doc (equal, one cell wrong, a library missing) and the consumer rule."""
import importlib.util
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("architecture_deps", ROOT / "scripts" / "architecture_deps.py")
ad = importlib.util.module_from_spec(spec)
sys.modules["architecture_deps"] = ad
spec.loader.exec_module(ad)

DOT = """digraph "kvaddr" {
    "node0" [ label = "kvaddr_model\\n(kvaddr::model)", shape = octagon ];
    "node1" [ label = "kvaddr_translate\\n(kvaddr::translate)", shape = octagon ];
    "node2" [ label = "kvaddr_lanes\\n(kvaddr::lanes)", shape = pentagon ];
    "node3" [ label = "fmt::fmt", shape = doubleoctagon ];
    "node4" [ label = "kvaddr_replay", shape = octagon ];
    "node5" [ label = "kvaddr_warnings", shape = pentagon ];
    "node6" [ label = "kvaddr", shape = egg ];
    "node1" -> "node0" [ style = dotted ] // kvaddr_translate -> kvaddr_model
    "node1" -> "node2"  // kvaddr_translate -> kvaddr_lanes
    "node1" -> "node5" [ style = dotted ] // settings only
    "node4" -> "node1" [ style = dotted ] // kvaddr_replay -> kvaddr_translate
    "node4" -> "node3" [ style = dotted ] // kvaddr_replay -> fmt::fmt
    "node6" -> "node4" // the executable is no library
}
"""


class Rows(unittest.TestCase):
    def test_rows(self):
        r = ad.rows(DOT)
        self.assertEqual(sorted(r), ["kvaddr_lanes", "kvaddr_model", "kvaddr_replay", "kvaddr_translate"])
        self.assertEqual(r["kvaddr_translate"], ("`kvaddr_translate`", "translate/", "`kvaddr_lanes`, `kvaddr_model`",
                                                 "—", "`kvaddr_replay`"))
        # the closure: replay reaches model through translate; fmt is external; the settings target is left out
        self.assertEqual(r["kvaddr_replay"], ("`kvaddr_replay`", "replay/", "`kvaddr_translate`", "fmt", "—"))
        self.assertEqual(r["kvaddr_model"][2:], ("—", "—", "`kvaddr_lanes`, `kvaddr_replay`, `kvaddr_translate`"))

    def _check(self, doc_text, dot=DOT):
        with tempfile.TemporaryDirectory() as tmp:
            doc, dotf = Path(tmp) / "a.md", Path(tmp) / "d.dot"
            doc.write_text(doc_text)
            dotf.write_text(dot)
            return ad.main(["--dot", str(dotf), "--check", "--doc", str(doc)])

    def _doc(self, dot=DOT):
        return f"# x\n{ad.BEGIN}\n{ad.table(ad.rows(dot))}\n{ad.END}\ntail\n"

    def test_check_passes_on_the_generated_table(self):
        self.assertEqual(self._check(self._doc()), 0)

    def test_check_fails_on_a_wrong_cell(self):
        wrong = self._doc().replace("| `kvaddr_replay` | replay/ | `kvaddr_translate` | fmt |",
                                    "| `kvaddr_replay` | replay/ | `kvaddr_translate` | — |")
        self.assertNotEqual(wrong, self._doc())
        self.assertEqual(self._check(wrong), 1)

    def test_check_skips_a_partial_configuration(self):
        partial = DOT.replace('"node4" -> "node3" [ style = dotted ] // kvaddr_replay -> fmt::fmt\n', "") \
            .replace('"node4" [ label = "kvaddr_replay", shape = octagon ];\n', "") \
            .replace('"node4" -> "node1" [ style = dotted ] // kvaddr_replay -> kvaddr_translate\n', "") \
            .replace('"node6" -> "node4" // the executable is no library\n', "")
        self.assertEqual(self._check(self._doc(), partial), 77)

    def test_a_library_reaching_a_consumer_fails(self):
        dot = DOT.replace('}\n', '    "node7" [ label = "kvaddr_cli_lib", shape = octagon ];\n'
                                 '    "node0" -> "node7"\n}\n')
        # model, and everything that reaches model
        self.assertEqual(sorted(ad.consumer_violations(dot)),
                         [f"{t} reaches the consumer kvaddr_cli_lib" for t in ("kvaddr_model", "kvaddr_replay",
                                                                                "kvaddr_translate")])
        self.assertEqual(self._check(self._doc(dot), dot), 1)
        self.assertEqual(ad.consumer_violations(DOT), [])


if __name__ == "__main__":
    unittest.main()
