"""kvaddr.adjacent's arithmetic through kvaddr._core (kvaddr/harness/adjacent.hpp): the binding's own validation on
both sides of each rule, a hand-computed layout and attribution, and the candidate lists read off the route specs
(the per-id rule checked against each per-id route's field list; no route is named here)."""
import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr import adjacent as A
from kvaddr import route_tables as R

TOKEN = [("out", 2, [2], True, None), ("ids", 2, [2], False, None)]


def test_layout_of_two_int64_members():
    assert _core.adjacent_layout(TOKEN, 0, 64) == ([("out", 128, 132), ("ids", 132, 136)], 264)


def test_misaligned_int64_member_is_an_invalid_argument_naming_it():
    with pytest.raises(kvaddr.InvalidArgument, match=r"^adjacent = slots \(int64\) would start at int32 lane 67: "):
        _core.adjacent_layout([("out", 1, [3], True, None), ("slots", 2, [2], False, None)], 0, 64)
    assert _core.adjacent_layout([("out", 1, [4], True, None), ("slots", 2, [2], False, None)], 0, 64)[1] == 200


def test_width_must_be_a_2d_outputs_and_not_negative():
    assert _core.adjacent_layout([("t", 1, [2, 3], True, 0)], 0, 1)[1] == 8
    assert _core.adjacent_layout([("t", 1, [2, 3], True, 3)], 0, 1)[1] == 8
    with pytest.raises(kvaddr.InvalidArgument, match=r"^t\.width = -1"):
        _core.adjacent_layout([("t", 1, [2, 3], True, -1)], 0, 1)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^t\.width = 4"):
        _core.adjacent_layout([("t", 1, [2, 3], True, 4)], 0, 1)


def test_attribution_of_a_store_into_the_neighbour():
    exp = np.arange(264, dtype=np.int32)
    exp[132:134] = 0  # ids[0] = 0
    got = exp.copy()
    got[132] = 12345
    lanes, count, oob, changed = _core.adjacent_attribute(TOKEN, 0, 64, exp, got)
    assert lanes == [("out", (0,), "neighbour_after", 0, 12345, "ids[0]")]
    assert (count, oob, changed) == (1, True, [])
    assert _core.adjacent_attribute(TOKEN, 0, 64, exp, got, 0)[0] == []


def test_attribution_checks_its_backings_and_limit():
    exp = np.zeros(264, np.int32)
    assert _core.adjacent_attribute(TOKEN, 0, 64, exp, exp, 0)[1] == 0
    with pytest.raises(kvaddr.InvalidArgument, match=r"^limit = -1"):
        _core.adjacent_attribute(TOKEN, 0, 64, exp, exp, -1)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^expected = 263 lanes"):
        _core.adjacent_attribute(TOKEN, 0, 64, exp[:263], exp)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^actual = 265 lanes"):
        _core.adjacent_attribute(TOKEN, 0, 64, exp, np.zeros(265, np.int32))
    with pytest.raises(kvaddr.InvalidArgument, match=r"^actual = int64"):
        _core.adjacent_attribute(TOKEN, 0, 64, exp, exp.astype(np.int64))


def test_per_id_routes_follow_the_rule_and_every_route_has_candidates():
    for r in R.per_id_routes():
        ids, table, *_ = R.token_row(r)
        assert A.ADMITTED[r] == ((ids, "out"), ("out", ids), (table, "out"), ("out", table), (ids, table, "out")), r
    assert set(A.ADMITTED) == set(_core.routes())
    for r, cands in A.REJECTED.items():
        assert cands and all(len(names) == 2 and shared >= 1 for names, shared in cands), r
    assert A.pool(next(iter(A.REJECTED)), admitted=False) == tuple(A.REJECTED[next(iter(A.REJECTED))])
    with pytest.raises(kvaddr.InvalidArgument, match="route"):
        _core.adjacent_candidates("no_such_route")


def test_choose_skips_absent_and_misaligned_candidates():
    arrays = [("ids", 2, [3], False, None), ("out", 1, [3], True, None), ("v2p", 2, [4], False, None)]
    cands = [(["ids", "out"], 0), (["out", "ids"], 0), (["kv_start_idx", "out"], 0), (["v2p", "out"], 0)]
    assert _core.adjacent_choose(cands, 0, arrays, 64) == (("ids", "out"), 0)
    assert _core.adjacent_choose(cands, 1, arrays, 64) == (("v2p", "out"), 0)  # out | ids misaligns ids
    assert _core.adjacent_choose(cands[1:3], 0, arrays, 64) is None
    with pytest.raises(kvaddr.InvalidArgument, match=r"^k = -1"):
        _core.adjacent_choose(cands, -1, arrays, 64)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^arrays = ids: names an array twice"):
        _core.adjacent_choose(cands, 0, arrays + [("ids", 2, [1], False, None)], 64)
