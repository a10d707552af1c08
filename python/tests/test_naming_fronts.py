"""The same planted case is named identically by the three front ends: kvaddr.check (here), the C++ harness
(harness/tests/harness_fronts_test.cpp, HarnessFronts.EveryFrontEndNamesThePlantedCaseAlike, asserts the very same
table) and kvaddr's replay of the directory the failure is written to. The planted kernel is the host route under
the planted variant (kvaddr.conventions.host_kernel); one subject per route family. Case i of a seed is gen/'s
recipe (seed, i) in both harnesses with big_entries and long_rows False, so the shrunk case agrees."""
import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr.conventions import host_kernel

# (route, planted variant, seed): kind, case index, names, first lane (output, index, expected, actual) or None, differing
SUBJECTS = [
    ("token_translate", "b17_doc_formula", 1, "mismatch", 0, ["b17_doc_formula"], ("out", (0,), 14, 0), 1),
    ("swa_translate", "b11_swa_no_clamp", 1, "mismatch", 0, ["b11_swa_no_clamp"], ("out", (0,), 0, -7), 1),
    ("write_loc", "b06_stale_tail", 1, "mismatch", 1, ["b06_stale_tail"], ("out", (1,), 0, -707395585), 1),
    ("kv_indices_inplace", "b05_rebind_fresh", 1, "mismatch", 0, ["b05_rebind_fresh"], ("kv_indices", (0,), 1183, 0), 1),
    ("eager_funnel", "b02_rank2_index_select", 1, "raised", 0, ["b02_rank2_index_select"], None, 0),
    ("canonical_page_table", "e10_batch_index_rows", 1, "mismatch", 1, ["e10_batch_index_rows"], ("out", (0, 0), 15, 0), 1),
    ("read_table", "e10_batch_index_rows", 1, "mismatch", 2, ["e10_batch_index_rows"], ("out", (0, 0), 1, 0), 1),
    # a spill past the row's columns (seed 2): named by the three spilling behaviours
    ("read_table", "b10_no_max_pages_bound", 2, "mismatch", 11,
     ["b10_no_max_pages_bound", "e01_no_column_bound", "grid_spill"], ("out", (1, 0), -707395586, 0), 1),
    ("flashmla_block_table", "e09_floor_pages", 1, "mismatch", 0, ["e09_floor_pages"],
     ("kv_indices", (0, 0), 0, -707395584), 1),
    ("decode_metadata", "e10_batch_index_rows", 1, "mismatch", 0, ["e10_batch_index_rows"], ("page_table", (0, 0), 1, 0), 1),
]


@pytest.mark.parametrize("route,planted,seed,kind,index,names,first,differing", SUBJECTS, ids=[f"{s[0]}-{s[1]}" for s in SUBJECTS])
def test_every_front_end_names_the_planted_case_alike(tmp_path, route, planted, seed, kind, index, names, first, differing):
    rep = kvaddr.check(route, host_kernel(route, planted), cases=100, seed=seed, lanes=4096,
                       params={"big_entries": False, "long_rows": False}, replay_dir=str(tmp_path))
    f = rep.failure
    assert (f.kind, f.case_index, f.behaves_like, f.differing) == (kind, index, names, differing)
    if first is None:
        assert f.first == []
        return
    lane = f.first[0]
    assert (lane.output, lane.index, lane.expected, lane.actual) == first
    # replay names the recorded case the same way
    assert _core.replay(f.replay_dir, allow_outside=False)["calls"][0]["matching_variants"] == names


def racing_rows(**kw):
    """A canonical_page_table kernel whose rows race (harness_fronts_test.cpp's racing_rows): where grid_spill's rows
    store to the same lanes with different values and its programs running last-row-first leave another table than
    the host's row order, it leaves that one (a device may); elsewhere it is production."""
    out = kw.pop("out")
    args = {k: np.ascontiguousarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    # the table's whole rows (a padded table's columns past its visible width included), where a spill lands
    full = np.lib.stride_tricks.as_strided(out, shape=(out.shape[0], out.strides[0] // out.itemsize),
                                           strides=(out.strides[0], out.itemsize))
    in_order = np.array(full, copy=True)
    backwards = in_order.copy()
    try:
        kvaddr.canonical_page_table(**args, out=in_order, variant="grid_spill")
        for r in reversed(range(len(args["seq_lens"]))):
            part = dict(args, req_pool_indices=args["req_pool_indices"][r:r + 1], seq_lens=args["seq_lens"][r:r + 1])
            kvaddr.canonical_page_table(**part, out=backwards[r:], variant="grid_spill")
    except kvaddr.Error:
        backwards = in_order  # a spill past the buffer: no race to plant
    if np.array_equal(backwards, in_order):
        host_kernel("canonical_page_table")(**kw, out=out)
    else:
        full[...] = backwards


def test_racing_rows_are_named_alike(tmp_path):
    # seed 1's minimal case: two rows of pool row 0, 9 and 4 pages of 64, max_pages 5; row 0 spills its pages 5..8
    # onto row 1's columns 0..3, which row 1 stores too: only up to the race do the spilling behaviours reproduce
    # the table (their host order leaves row 1's values there, as production does)
    rep = kvaddr.check("canonical_page_table", racing_rows, cases=100, seed=1, lanes=4096,
                       params={"big_entries": False, "long_rows": False}, replay_dir=str(tmp_path))
    f = rep.failure
    assert (f.kind, f.case_index, f.behaves_like, f.differing) == ("mismatch", 2, ["e01_no_column_bound", "grid_spill"], 1)
    lane = f.first[0]
    assert (lane.output, lane.index, lane.expected, lane.actual) == ("out", (1, 3), 0, 10)
    assert f.case.inputs["seq_lens"].tolist() == [513, 193] and f.case.scalars["max_pages"] == 5
    assert _core.replay(f.replay_dir, allow_outside=False)["calls"][0]["matching_variants"] == f.behaves_like
