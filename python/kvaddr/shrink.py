"""Greedy shrinking of a failing recipe: the shrinker of gen/shrink.hpp, through kvaddr._core.

The candidate list (fewest rows, shortest lengths, fewest pages, smallest ids, presentation flags cleared) and
the greedy loop with its time budget are C++, the same the C++ harness uses; this module only adapts the
harness's predicate: a candidate whose case cannot be presented (ValueError / IndexError, e.g. an adjacent
layout that would misalign an argument) counts as not failing.
"""
from __future__ import annotations

from . import _core


def candidates(route, recipe):
    """The candidates of `recipe`, in the order shrink_recipe tries them (kvaddr._core.shrink_candidates)."""
    return _core.shrink_candidates(route, recipe)


def shrink_recipe(route, recipe, result, still_fails, seconds, max_steps=5000):
    """Shrink `recipe` while `still_fails(candidate)` returns a result; returns (recipe, result, steps)."""
    def keeps_failing(candidate):
        try:
            return still_fails(candidate)
        except (ValueError, IndexError):
            return None

    shrunk, last, steps = _core.shrink_recipe(route, recipe, keeps_failing, float(seconds), int(max_steps))
    return shrunk, (result if last is None else last), steps
