"""Racing spills (kvaddr.races): two rows of a grid_spill table store to the same lanes, so the
kernel's buffer may hold either row's value there. Buffers are computed by hand."""
import numpy as np

import kvaddr
from kvaddr import cases as C
from kvaddr import harness, races


def overlap_case():
    # canonical_page_table, ps 1, max_pages 1, a packed [4, 1] table, req_to_token {0, 1, 2 | 3, 4, 5},
    # seq_lens {3, 2}, v2p {10, ..., 15}. Under grid_spill@4 row 0 stores 10, 11, 12 at lanes 0..2 and
    # row 1 stores 13, 14 at lanes 1, 2: lane 1 may hold 11 or 13, lane 2 12 or 14.
    return C.Case(route="canonical_page_table", scalars={"page_size": 1, "multiplier": 1, "max_pages": 1},
                  inputs={"req_to_token": np.array([[0, 1, 2], [3, 4, 5]], np.int32),
                          "req_pool_indices": np.array([0, 1], np.int64), "seq_lens": np.array([3, 2], np.int64),
                          "v2p": np.arange(10, 16, dtype=np.int64)},
                  outputs={"out": np.full((4, 1), -1, np.int32)})


def test_writes_per_row_and_the_race():
    case = overlap_case()
    assert races.writes(case, "grid_spill@4", table_guards=False) == {
        0: [(0, 10)], 1: [(0, 11), (1, 13)], 2: [(0, 12), (1, 14)]}
    r = races.race(case, "grid_spill@4", np.array([[10], [11], [14], [-1]], np.int32), table_guards=False)
    assert r["consistent"]
    assert [c["index"] for c in r["cells"]] == [(1, 0), (2, 0)]
    assert r["cells"][0]["possible"] == [11, 13] and r["cells"][0]["recorded"] == 11
    assert races.writes(case, "production") is None  # production stops at max_pages: no spill
    short = overlap_case()
    short.inputs["seq_lens"] = np.array([1, 1], np.int64)  # one page per row: no row leaves its own
    assert races.writes(short, "grid_spill@4") is None


def test_each_possible_value_matches_and_a_third_does_not():
    case = overlap_case()
    for lane1 in (11, 13):
        for lane2 in (12, 14):
            got = np.array([[10], [lane1], [lane2], [-1]], np.int32)
            assert races.matches_up_to_race(case, "grid_spill@4", {"out": got})
    assert not races.matches_up_to_race(case, "grid_spill@4", np.array([[10], [99], [14], [-1]], np.int32))
    assert not races.matches_up_to_race(case, "grid_spill@4", np.array([[15], [11], [14], [-1]], np.int32))
    assert not races.matches_up_to_race(case, "production", np.array([[10], [13], [-1], [-1]], np.int32))


def test_behaves_like_names_a_racing_spill():
    case = overlap_case()
    # Row 0's stores landed last in both lanes: not the host's row order, still the spill.
    got = {"out": np.array([[10], [11], [12], [-1]], np.int32)}
    exact = kvaddr.canonical_page_table(case.inputs["req_to_token"], case.inputs["req_pool_indices"],
                                        case.inputs["seq_lens"], case.inputs["v2p"], page_size=1, max_pages=1,
                                        out=np.full((4, 1), -1, np.int32), variant="grid_spill")
    assert exact.ravel().tolist() == [10, 13, 14, -1]
    names = harness.behaves_like(case, got, "production")
    assert "grid_spill" in names and "e01_no_column_bound" in names
    assert harness.behaves_like(case, {"out": np.array([[10], [11], [77], [-1]], np.int32)}, "production") == []


def test_read_table_zero_tail_and_padded_rows():
    # read_table, max_pages 2, zero_tail, [3, 2] table, seq_lens {4, 1}: row 0 stores 10..13 at lanes
    # 0..3; row 1 stores 14 at lane 2 and its tail 0 at lane 3; the padded-row fill stores 0 at 4, 5.
    case = C.Case(route="read_table",
                  scalars={"page_size": 1, "multiplier": 1, "max_pages": 2, "seq_len_delta": 0, "zero_tail": True},
                  inputs={"req_to_token": np.arange(8, dtype=np.int32).reshape(2, 4),
                          "req_pool_indices": np.array([0, 1], np.int64), "seq_lens": np.array([4, 1], np.int64),
                          "v2p": np.arange(10, 18, dtype=np.int64)},
                  outputs={"out": np.full((3, 2), -1, np.int32)})
    w = races.writes(case, "grid_spill@4", table_guards=False)
    assert w == {0: [(0, 10)], 1: [(0, 11)], 2: [(0, 12), (1, 14)], 3: [(0, 13), (1, 0)], 4: [(-1, 0)], 5: [(-1, 0)]}
    assert races.matches_up_to_race(case, "grid_spill@4", np.array([[10, 11], [12, 13], [0, 0]], np.int32), False)
    assert not races.matches_up_to_race(case, "grid_spill@4", np.array([[10, 11], [12, 13], [0, 5]], np.int32), False)
