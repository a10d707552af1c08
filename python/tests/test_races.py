"""Racing spills in kvaddr.check's naming: two rows of a grid_spill table store to the same lanes, so the kernel's
buffer may hold either row's value there. The rule is the C++ one every front end uses (kvaddr/replay/races.hpp
through kvaddr/harness/naming.hpp name_case, here kvaddr._core.name_case; replay/tests/race_test.cpp checks the
stores per lane). Buffers are computed by hand."""
import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr import cases as C
from kvaddr import conventions, harness

SPILLING = ["e01_no_column_bound", "grid_spill"]  # canonical_page_table's spilling behaviours (no b10 there)


def overlap_case():
    # canonical_page_table, ps 1, max_pages 1, a packed [4, 1] table, req_to_token {0, 1, 2 | 3, 4, 5},
    # seq_lens {3, 2}, v2p {10, ..., 15}. Under grid_spill@4 row 0 stores 10, 11, 12 at lanes 0..2 and
    # row 1 stores 13, 14 at lanes 1, 2: lane 1 may hold 11 or 13, lane 2 12 or 14.
    return C.Case(route="canonical_page_table", scalars={"page_size": 1, "multiplier": 1, "max_pages": 1},
                  inputs={"req_to_token": np.array([[0, 1, 2], [3, 4, 5]], np.int32),
                          "req_pool_indices": np.array([0, 1], np.int64), "seq_lens": np.array([3, 2], np.int64),
                          "v2p": np.arange(10, 16, dtype=np.int64)},
                  outputs={"out": np.full((4, 1), -1, np.int32)})


def name(case, got, claimed="production", **kw):
    return _core.name_case(case.route, claimed, inputs=case.inputs, scalars=case.scalars, outputs=case.outputs,
                           actual={"out": np.array(got, np.int32)}, **kw)


def test_each_possible_value_matches_and_a_third_does_not():
    case = overlap_case()
    exact = kvaddr.canonical_page_table(case.inputs["req_to_token"], case.inputs["req_pool_indices"],
                                        case.inputs["seq_lens"], case.inputs["v2p"], page_size=1, max_pages=1,
                                        out=np.full((4, 1), -1, np.int32), variant="grid_spill")
    assert exact.ravel().tolist() == [10, 13, 14, -1]  # the host's row order: row 1 stores last
    for lane1 in (11, 13):
        for lane2 in (12, 14):
            got = [[10], [lane1], [lane2], [-1]]
            assert name(case, got) == SPILLING
            assert harness.behaves_like(case, {"out": np.array(got, np.int32)}, "production") == SPILLING
    assert name(case, [[10], [99], [14], [-1]]) == []  # 99 is stored by no row
    assert name(case, [[15], [11], [14], [-1]]) == []  # lane 0 has one writer (10)
    assert name(case, [[10], [11], [14], [7]]) == []  # lane 3 is stored by no row: it keeps -1
    # claimed grid_spill: production's output (no spill) is named by the variants that do not spill here
    assert name(case, [[10], [13], [-1], [-1]], claimed="grid_spill") == [
        "production", "b09_no_padding_guard", "era_b_unclamped", "e02_minus_one_sentinel", "e10_batch_index_rows",
        "int32_wrap"]


def test_rows_that_stay_in_their_own_columns_do_not_race():
    case = overlap_case()
    case.inputs["seq_lens"] = np.array([1, 1], np.int64)  # one page per row: no row leaves its own
    # production's [10, 13, -1, -1] is the claim's output: nothing is named (the engine decides)
    assert name(case, [[10], [13], [-1], [-1]]) == []
    # the spilling claims equal production here: the rows swapped are no race of theirs
    assert name(case, [[13], [10], [-1], [-1]]) == []
    assert name(case, [[13], [10], [-1], [-1]], claimed="grid_spill") == []


def test_read_table_zero_tail_and_padded_rows():
    # read_table, max_pages 2, zero_tail, [3, 2] table, seq_lens {4, 1}: row 0 stores 10..13 at lanes
    # 0..3; row 1 stores 14 at lane 2 and its tail 0 at lane 3; the padded-row fill stores 0 at 4, 5.
    case = C.Case(route="read_table",
                  scalars={"page_size": 1, "multiplier": 1, "max_pages": 2, "seq_len_delta": 0, "zero_tail": True},
                  inputs={"req_to_token": np.arange(8, dtype=np.int32).reshape(2, 4),
                          "req_pool_indices": np.array([0, 1], np.int64), "seq_lens": np.array([4, 1], np.int64),
                          "v2p": np.arange(10, 18, dtype=np.int64)},
                  outputs={"out": np.full((3, 2), -1, np.int32)})
    host = kvaddr.read_table(**case.inputs, page_size=1, max_pages=2, zero_tail=True, out=np.full((3, 2), -1, np.int32),
                             variant="grid_spill")
    assert host.tolist() == [[10, 11], [14, 0], [0, 0]]
    spilling = ["b10_no_max_pages_bound", "e01_no_column_bound", "grid_spill"]
    assert name(case, [[10, 11], [12, 13], [0, 0]]) == spilling  # row 0's stores landed last
    assert name(case, [[10, 11], [14, 13], [0, 0]]) == spilling
    assert name(case, [[10, 11], [12, 13], [0, 5]]) == []  # lane 5: only the padded-row fill's 0


def test_the_grown_form_races_too():
    # The last row spills past the buffer: only the form grown by the after-guard rows holds its stores. The
    # buffer of 2 rows has 2 guard lanes (-1) on each side, so the grown form has 4 rows.
    case = overlap_case()
    case.outputs = {"out": np.full((2, 1), -1, np.int32)}
    before = np.full(6, -1, np.int32)

    for lanes in ([10, 11, 12, -1], [10, 13, 14, -1]):
        backing = np.array([-1, -1, *lanes], np.int32)
        assert name(case, [lanes[:1], lanes[1:2]], backings={"out": (before, backing)}) == SPILLING
    assert name(case, [[10], [11]], backings={"out": (before, np.array([-1, -1, 10, 11, 77, -1], np.int32))}) == []
    assert name(case, [[10], [11]]) == []  # without the backing: no grown form


def test_a_layout_without_a_cxx_form_hands_in_its_reference():
    # The reference replaces the route call (None: the route rejects the call under that variant); the race
    # split still runs on the case's arrays.
    case = overlap_case()
    seen = []

    def reference(variant, outputs):
        seen.append((variant, outputs["out"].shape))
        return {"out": np.array([[10], [13], [14], [-1]], np.int32)} if variant in SPILLING else None

    assert name(case, [[10], [11], [12], [-1]], reference=reference) == SPILLING  # up to the race
    assert seen == [(v, (4, 1)) for v in ["production", *_core.naming_variants("canonical_page_table", "production")]]
    seen.clear()
    assert name(case, [[10], [11], [12], [-1]], reference=lambda v, o: {"out": np.array([[10], [11], [12], [-1]])}) == []
    # (the claim reproduces it: nothing is named); every candidate but the claim equals it exactly: all are named
    assert name(case, [[10], [11], [12], [-1]], reference=lambda v, o: {"out": np.array([[10], [11], [12], [-1]])
                                                                        if v != "production" else o["out"]}) == \
        _core.naming_variants("canonical_page_table", "production")
    for bad in ({"other": np.zeros(4, np.int32)}, {"out": np.zeros(4)}, [1]):  # not the outputs as integer arrays
        with pytest.raises(kvaddr.InvalidArgument, match="reference"):
            name(case, [[10], [11], [12], [-1]], reference=lambda v, f, bad=bad: bad)


def test_name_case_validates_its_arguments():
    case = overlap_case()
    with pytest.raises(kvaddr.InvalidArgument, match="route"):
        _core.name_case("nope", "production", inputs={}, scalars={}, outputs=case.outputs, actual=case.outputs)
    with pytest.raises(kvaddr.InvalidArgument, match="variant"):
        _core.name_case(case.route, "nope", inputs={}, scalars={}, outputs=case.outputs, actual=case.outputs)
    with pytest.raises(kvaddr.InvalidArgument, match="outputs"):
        _core.name_case(case.route, "production", inputs=case.inputs, scalars=case.scalars, outputs={}, actual={})
    with pytest.raises(kvaddr.InvalidArgument, match="actual"):
        _core.name_case(case.route, "production", inputs=case.inputs, scalars=case.scalars, outputs=case.outputs,
                        actual={"out": np.zeros((4, 2), np.int32)})
    with pytest.raises(kvaddr.InvalidArgument, match="actual"):
        _core.name_case(case.route, "production", inputs=case.inputs, scalars=case.scalars, outputs=case.outputs,
                        actual={"out": np.zeros((4, 1), np.float32)})
    with pytest.raises(kvaddr.InvalidArgument, match="actual"):
        _core.name_case(case.route, "production", inputs=case.inputs, scalars=case.scalars, outputs=case.outputs,
                        actual={"cache_seqlens": np.zeros((4, 1), np.int32)})
    with pytest.raises(kvaddr.InvalidArgument, match="inputs"):
        _core.name_case(case.route, "production", inputs={"nope": case.inputs["v2p"]}, scalars=case.scalars,
                        outputs=case.outputs, actual=case.outputs)
    with pytest.raises(kvaddr.InvalidArgument, match="scalars"):
        _core.name_case(case.route, "production", inputs=case.inputs, scalars={"nope": 1}, outputs=case.outputs,
                        actual=case.outputs)
    with pytest.raises(kvaddr.InvalidArgument, match=r"inputs\['v2p'\]"):  # an integer array or None
        _core.name_case(case.route, "production", inputs=dict(case.inputs, v2p=np.zeros(6)), scalars=case.scalars,
                        outputs=case.outputs, actual=case.outputs)
    with pytest.raises(kvaddr.InvalidArgument, match=r"scalars\['page_size'\]"):
        _core.name_case(case.route, "production", inputs=case.inputs, scalars=dict(case.scalars, page_size=1.0),
                        outputs=case.outputs, actual=case.outputs)
    with pytest.raises(kvaddr.InvalidArgument, match=r"outputs\['out'\]"):
        _core.name_case(case.route, "production", inputs=case.inputs, scalars=case.scalars,
                        outputs={"out": np.zeros((4, 1))}, actual={"out": np.zeros((4, 1))})
    assert name(case, [[10], [11], [12], [-1]], backings=None) == SPILLING  # the same with int / bool / numpy int / None accepted:
    assert _core.name_case(case.route, "production", inputs=dict(case.inputs, v2p=None),
                           scalars=dict(case.scalars, page_size=True, max_pages=np.int64(1)), outputs=case.outputs,
                           actual={"out": np.array([[10], [11], [12], [-1]], np.int32)}) == []
    with pytest.raises(kvaddr.InvalidArgument, match="backings"):
        name(case, [[10], [11], [12], [-1]], backings=({}, ))
    with pytest.raises(kvaddr.InvalidArgument, match="reference"):
        name(case, [[10], [11], [12], [-1]], reference=3)
    # the accepted side of each rule: the same call with well-formed arguments names the case
    assert name(case, [[10], [11], [12], [-1]], backings=None, reference=None) == SPILLING


def test_the_check_accepts_a_racing_output_of_the_spilling_claim():
    # The comparison's race rule (kvaddr._core.race_allows, the C++ harness's run_case and replay's): a kernel that
    # runs the rows of a grid_spill table one at a time, the last row first, leaves the first row's value where two
    # rows store to one lane (the host's order keeps the last's). Claimed grid_spill it passes every case, claimed
    # production it fails (harness/tests/harness_races_test.cpp asserts the same of the C++ harness). On the old
    # tree the grid_spill claim failed as a mismatch.
    from numpy.lib.stride_tricks import as_strided

    host = conventions.host_kernel("canonical_page_table", "grid_spill")
    raced = []

    def last_row_first(**kw):
        out = kw["out"]  # the whole row stride, as the reference writes it (a spill past the width lands in padding)
        out = as_strided(out, shape=(out.shape[0], out.strides[0] // out.itemsize), strides=out.strides)
        host_order = np.array(out, copy=True)
        host(**dict(kw, out=host_order))
        for b in reversed(range(len(kw["seq_lens"]))):
            host(**dict(kw, req_pool_indices=kw["req_pool_indices"][b:b + 1], seq_lens=kw["seq_lens"][b:b + 1],
                        out=out[b:]))
        raced.append(not np.array_equal(host_order, out))

    rep = kvaddr.check("canonical_page_table", last_row_first, variant="grid_spill", cases=200, seed=3, isolate=False)
    assert rep.ok, rep
    assert any(raced)  # some calls did race, and passed
    rep = kvaddr.check("canonical_page_table", last_row_first, cases=200, seed=3, isolate=False, shrink=False)
    assert not rep.ok and rep.failure.kind == "mismatch"
