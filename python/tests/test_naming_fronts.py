"""The same planted case is named identically by the three front ends: kvaddr.check (here), the C++ harness
(harness/tests/harness_fronts_test.cpp, HarnessFronts.EveryFrontEndNamesThePlantedCaseAlike, asserts the very same
table) and kvaddr's replay of the directory the failure is written to. The planted kernel is the host route under
the planted variant (kvaddr.conventions.host_kernel); one subject per route family. Case i of a seed is gen/'s
recipe (seed, i) in both harnesses with big_entries and long_rows False, so the shrunk case agrees."""
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
