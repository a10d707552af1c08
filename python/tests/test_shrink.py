"""The one shrinker (gen/shrink.hpp) through kvaddr._core.shrink_recipe and kvaddr.shrink: the same minimal recipe
as the C++ tests reach (gen/tests/shrink_test.cpp), Python-only entries carried through, exceptions propagated,
arguments validated."""
import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr import shrink


def plain(r):
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in r.items()}


def token(ids, v2p, **kw):
    r = {"page_size": 2, "multiplier": 1, "overlap": 0, "alias": True, "rank2": False, "strided": False,
         "ids": np.array(ids, np.int64), "v2p": np.array(v2p, np.int64)}
    r.update(kw)
    return r


def test_the_hand_made_token_case_shrinks_as_from_cpp():
    # Shrink.GreedyLoopReachesTheSmallestFailingRecipe: fails while some id is >= 4
    seen = []

    def fails(c):
        seen.append(c)
        return "still" if np.any(c["ids"] >= 4) else None

    r, last, steps = _core.shrink_recipe("token_translate", token([9, 1, 13, -1, 6], [4, 0, 3, 1, 2, 6, 5, -1]),
                                         fails, 60.0)
    assert plain(r) == plain(token([4], [0, 0, 0, 5], alias=False))
    assert last == "still" and steps > 3 and len(seen) > steps


def test_a_drawn_table_case_shrinks_as_from_cpp():
    # Shrink.DrawnTableCaseShrinksAsFromPython: the same draw, the same predicate, the same recipe in 27 steps
    r0 = _core.draw_recipe("read_table", 5, 3, 256)

    def fails(c):
        return True if len(c["lens"]) and c["lens"].max() >= 5 and c["v2p"].max() >= 3 else None

    r, last, steps = _core.shrink_recipe("read_table", r0, fails, 60.0)
    want = plain(r0)
    want.update(extra_rows=0, multiplier=1, seq_len_delta=0, width=1, lens=[5], rows=[0], v2p=[0, 3],
                req_to_token=[list(range(16))])
    assert plain(r) == want and steps == 27 and last is True
    assert r["req_to_token"].dtype == np.int32 and r["lens"].dtype == np.int64


def test_the_adjacent_layout_is_a_flag_and_a_contract_travels_unchanged():
    layout, contract = (("ids", "out"), 0), object()
    r = token([5, -1], [3, -1, -1], adjacent=layout, contract=contract)
    cands = shrink.candidates("token_translate", r)
    cleared = [c for c in cands if c["adjacent"] is None]
    # the flags in their order: alias, then adjacent (each cleared alone)
    assert [c["alias"] for c in cleared] == [True] and cands.index(cleared[0]) == 5
    assert all(c["adjacent"] is layout for c in cands if c is not cleared[0])
    assert all(c["contract"] is contract for c in cands)
    assert "adjacent" not in r or r["adjacent"] is layout  # the input is not modified
    plain_r = token([5, -1], [3, -1, -1], adjacent=None)
    assert all(c["adjacent"] is None for c in shrink.candidates("token_translate", plain_r))


def test_no_step_returns_the_input_and_no_result():
    r = token([1], [0, -1])
    out, last, steps = _core.shrink_recipe("token_translate", r, lambda c: None, 60.0)
    assert plain(out) == plain(r) and last is None and steps == 0
    assert shrink.shrink_recipe("token_translate", r, "orig", lambda c: None, 60.0)[1:] == ("orig", 0)


def test_exceptions_of_the_predicate_propagate():
    r = token([9, 1, 13], [4, 0, 3, -1])

    def boom(c):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        _core.shrink_recipe("token_translate", r, boom, 60.0)

    def interrupt(c):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _core.shrink_recipe("token_translate", r, interrupt, 60.0)
    with pytest.raises(KeyboardInterrupt):
        shrink.shrink_recipe("token_translate", r, None, interrupt, 60.0)

    class Undecided:
        def __bool__(self):
            raise RuntimeError("no truth value")

    with pytest.raises(RuntimeError, match="no truth value"):
        _core.shrink_recipe("token_translate", r, lambda c: Undecided(), 60.0)


def test_a_candidate_that_cannot_be_presented_counts_as_passing():
    r = token([9, 1, 13], [4, 0, 3, -1])
    calls = []

    def misaligned(c):
        calls.append(c)
        raise ValueError("misaligned")

    out, res, steps = shrink.shrink_recipe("token_translate", r, "orig", misaligned, 60.0)
    assert plain(out) == plain(r) and res == "orig" and steps == 0 and calls


def test_arguments_are_validated():
    r = token([1], [0, -1])
    assert _core.shrink_recipe("token_translate", r, lambda c: None, 0.0, 0)[2] == 0
    with pytest.raises(kvaddr.InvalidArgument, match="seconds"):
        _core.shrink_recipe("token_translate", r, lambda c: None, -0.5)
    with pytest.raises(kvaddr.InvalidArgument, match="max_steps"):
        _core.shrink_recipe("token_translate", r, lambda c: None, 1.0, -1)
    with pytest.raises(kvaddr.InvalidArgument, match="v2p"):
        _core.shrink_recipe("token_translate", {"page_size": 2, "ids": np.zeros(1, np.int64)}, lambda c: None, 1.0)
    with pytest.raises(kvaddr.InvalidArgument, match="recipe"):
        _core.shrink_candidates("token_translate", [1, 2])
    with pytest.raises(kvaddr.InvalidArgument, match="page_size"):
        _core.shrink_candidates("token_translate", token([1], [0, -1], page_size=0))
