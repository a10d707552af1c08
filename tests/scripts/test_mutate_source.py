#!/usr/bin/env python3
"""Unit test of scripts/mutate-source.py's mutation operators on a sample C++ text (no build)."""
import importlib.util
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("mutate_source", ROOT / "scripts" / "mutate-source.py")
ms = importlib.util.module_from_spec(spec)
sys.modules["mutate_source"] = ms
spec.loader.exec_module(ms)

SAMPLE = "\n".join([
    '#include <vector>  // a < b',                       # 1: preprocessor line: never mutated
    'int f(int a, int b) {',                              # 2
    '  if (a < b && b >= 0) return a + b - 1;',           # 3
    '  require(a == 0, "a", a, "x < y + 1");',            # 4: the string is masked
    '  return std::max(a, b) != 1 ? a : -b;  // a + b',   # 5: the comment is masked
    '  throw InvalidArgument("a", "1", "bad");',          # 6
    '  std::vector<int> v; v.push_back(a->x);',           # 7: template brackets and -> untouched
    '  /* a + b */ return a || b;',                       # 8
    '}',
])


def muts(text=SAMPLE):
    return ms.mutants_of_text(text, "sample.cpp", "test")


def by(line, op):
    return [m.mutated for m in muts() if m.line == line and m.op == op]


class Operators(unittest.TestCase):
    def test_relational_boundary_and_logic(self):
        self.assertEqual(by(3, "rel_boundary"), ["  if (a <= b && b >= 0) return a + b - 1;",
                                                 "  if (a < b && b > 0) return a + b - 1;"])
        self.assertEqual(by(3, "logic_swap"), ["  if (a < b || b >= 0) return a + b - 1;"])
        self.assertEqual(by(8, "logic_swap"), ["  /* a + b */ return a && b;"])

    def test_arith_swap_and_drop_one(self):
        self.assertEqual(by(3, "arith_swap"), ["  if (a < b && b >= 0) return a - b - 1;",
                                               "  if (a < b && b >= 0) return a + b + 1;"])
        self.assertEqual(by(3, "drop_one"), ["  if (a < b && b >= 0) return a + b;"])

    def test_constants_in_comparisons(self):
        self.assertEqual(by(3, "cmp_const"), ["  if (a < b && b >= 1) return a + b - 1;"])
        self.assertEqual(by(4, "cmp_const"), ['  require(a == 1, "a", a, "x < y + 1");'])
        self.assertEqual(by(5, "cmp_const"), ["  return std::max(a, b) != 0 ? a : -b;  // a + b"])

    def test_eq_minmax_throw_require(self):
        self.assertEqual(by(4, "eq_negate"), ['  require(a != 0, "a", a, "x < y + 1");'])
        self.assertEqual(by(5, "eq_negate"), ["  return std::max(a, b) == 1 ? a : -b;  // a + b"])
        self.assertEqual(by(5, "minmax_swap"), ["  return std::min(a, b) != 1 ? a : -b;  // a + b"])
        self.assertEqual(by(6, "drop_throw"), ['  (void)InvalidArgument("a", "1", "bad");'])
        self.assertEqual(by(4, "skip_require"), ['  require(true || a == 0, "a", a, "x < y + 1");'])

    def test_strings_comments_preprocessor_templates_untouched(self):
        self.assertFalse([m for m in muts() if m.line == 1])
        self.assertFalse([m for m in muts() if m.line == 7])
        # line 4's string holds "<" and "+ 1"; line 5's and 8's comments hold "+": none is mutated
        self.assertEqual(sorted(m.op for m in muts() if m.line == 4), ["cmp_const", "eq_negate", "skip_require"])
        self.assertEqual(sorted(m.op for m in muts() if m.line == 8), ["logic_swap"])
        self.assertNotIn("arith_swap", {m.op for m in muts() if m.line == 5})

    def test_apply_changes_one_line_and_checks_it(self):
        m = by(3, "drop_one")
        self.assertEqual(len(m), 1)
        mu = [x for x in muts() if x.line == 3 and x.op == "drop_one"][0]
        out = ms.apply_mutant(SAMPLE, mu).split("\n")
        self.assertEqual(out[2], "  if (a < b && b >= 0) return a + b;")
        self.assertEqual(out[:2] + out[3:], SAMPLE.split("\n")[:2] + SAMPLE.split("\n")[3:])
        with self.assertRaises(RuntimeError):
            ms.apply_mutant(SAMPLE.replace("a + b - 1", "a + b - 2"), mu)

    def test_sample_is_deterministic_and_per_layer(self):
        ms_all = [ms.Mutant("x", f"f{i}.cpp", i, "op", 0, "", "") for i in range(50)] + \
                 [ms.Mutant("y", f"g{i}.cpp", i, "op", 0, "", "") for i in range(5)]
        a = ms.sample(ms_all, "x", 10, 7)
        self.assertEqual(a, ms.sample(list(reversed(ms_all)), "x", 10, 7))
        self.assertEqual(len(a), 10)
        self.assertTrue(all(m.layer == "x" for m in a))
        self.assertNotEqual(a, ms.sample(ms_all, "x", 10, 8))
        self.assertEqual(len(ms.sample(ms_all, "y", 10, 7)), 5)  # fewer than N: all of them

    def test_score_counts_timeouts_as_killed_and_skips_build_failures(self):
        r = [{"layer": "L", "status": s} for s in ("killed", "survived", "timeout", "build_failed")]
        self.assertEqual(ms.score(r)["L"], {"mutants": 4, "killed": 1, "survived": 1, "build_failed": 1,
                                            "timeout": 1, "score": 66.7})


if __name__ == "__main__":
    unittest.main()
