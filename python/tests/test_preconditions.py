"""Production preconditions the kernels do not enforce (kvaddr.broken_preconditions): each one on both sides of
its boundary, and kvaddr.check reporting a failing case that breaks one, with its row and numbers, before the
variant the kernel's output matches."""
import numpy as np
import pytest

import kvaddr
import np_kernels as K
from kvaddr import cases as C
from kvaddr.conventions import broken_preconditions

R2T = np.arange(8, dtype=np.int32).reshape(1, 8)
ROW0 = np.array([0], np.int64)
GUARD_MSG = "a kernel without the padding guard reads before v2p"


def pre(route, **kw):
    return kvaddr.broken_preconditions(route, **kw)


def test_n_pages_against_max_pages_on_both_sides():
    # KV length 4 at ps 2: 2 pages == max_pages 2; KV length 5: 3 pages > 2
    kw = dict(req_to_token=R2T, req_pool_indices=ROW0, page_size=2, max_pages=2)
    assert pre("canonical_page_table", seq_lens=np.array([4]), **kw) == []
    assert pre("canonical_page_table", seq_lens=np.array([5]), **kw) == [
        "row 0: n_pages = 3 > max_pages = 2 (KV length 5, page_size 2)"]
    # read_table counts seq_len + seq_len_delta
    assert pre("read_table", seq_lens=np.array([3]), seq_len_delta=1, **kw) == []
    assert pre("read_table", seq_lens=np.array([3]), seq_len_delta=2, **kw) == [
        "row 0: n_pages = 3 > max_pages = 2 (KV length 5, page_size 2)"]


def test_padding_token_floor_on_both_sides():
    r2t = R2T.copy()
    kw = dict(req_pool_indices=ROW0, seq_lens=np.array([4]), page_size=2, max_pages=2)
    r2t[0, 2] = -1  # column 1: -1 / 2 truncates to page 0
    assert pre("read_table", req_to_token=r2t, **kw) == []
    r2t[0, 2] = -2  # -2 / 2 = -1: v2p[-1] without the guard
    assert pre("read_table", req_to_token=r2t, **kw) == [f"row 0 column 1: padding token -2 < -1 ({GUARD_MSG})"]
    # at ps 1 the floor is 0: -1 already reads v2p[-1]
    r1 = np.array([[0, -1, 2]], np.int32)
    assert pre("canonical_page_table", req_to_token=r1, req_pool_indices=ROW0, seq_lens=np.array([1]), page_size=1,
               max_pages=3) == []  # the -1 lies past the row's live column
    assert pre("canonical_page_table", req_to_token=r1, req_pool_indices=ROW0, seq_lens=np.array([2]), page_size=1,
               max_pages=3) == [f"row 0 column 1: padding token -1 < 0 ({GUARD_MSG})"]


def test_decode_metadata_lengths_and_the_fa3_shift():
    big = np.array([2**31 - 2], np.int64)
    assert pre("decode_metadata", seq_lens=big, page_size=1, max_pages=0, seq_len_delta=1) == []
    assert pre("decode_metadata", seq_lens=big, page_size=1, max_pages=0, seq_len_delta=2) == [
        "row 0: seq_len + delta = 2147483648 (prefix sum 2147483648) does not fit the int32 cache_seqlens / "
        "cu_seqlens_k"]
    r2t = np.array([[0, -1, 2, 3]], np.int32)
    kw = dict(req_to_token=r2t, req_pool_indices=ROW0, page_size=1, max_pages=2, v2p=np.arange(4, dtype=np.int64))
    assert pre("decode_metadata", seq_lens=np.array([1]), **kw) == []
    assert pre("decode_metadata", seq_lens=np.array([2]), **kw) == [
        "row 0 column 1: padding token -1 < 0 (the fa3 shift without the guard reads v2p[-1] or before)"]
    # a given kernel_page_table: the shift reads no v2p, so a padding token breaks nothing
    assert pre("decode_metadata", seq_lens=np.array([2]), kernel_page_table=True, **kw) == []


def test_routes_without_preconditions_and_bad_arguments():
    assert pre("token_translate", seq_lens=np.array([5]), page_size=1, max_pages=0) == []
    with pytest.raises(kvaddr.InvalidArgument, match=r"^route = nope: unknown route$"):
        pre("nope", seq_lens=np.array([5]), page_size=1, max_pages=0)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^req_to_token = None: required array$"):
        pre("read_table", seq_lens=np.array([5]), page_size=1, max_pages=0)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^page_size = 0: page size must be >= 1$"):
        pre("read_table", req_to_token=R2T, req_pool_indices=ROW0, seq_lens=np.array([5]), page_size=0, max_pages=1)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^seq_len_delta = 1: only read_table and decode_metadata"):
        pre("canonical_page_table", req_to_token=R2T, req_pool_indices=ROW0, seq_lens=np.array([5]), page_size=1,
            max_pages=1, seq_len_delta=1)


def test_a_case_is_checked_under_its_manifest_names():
    case = C.Case("read_table", {"page_size": 2, "multiplier": 1, "max_pages": 2, "seq_len_delta": 1,
                                 "zero_tail": False},
                  {"req_to_token": R2T, "req_pool_indices": ROW0, "seq_lens": np.array([4], np.int64),
                   "v2p": np.arange(4, dtype=np.int64)}, {"out": np.zeros((1, 2), np.int32)})
    assert broken_preconditions(case) == ["row 0: n_pages = 3 > max_pages = 2 (KV length 5, page_size 2)"]
    case.scalars["seq_len_delta"] = 0
    assert broken_preconditions(case) == []
    assert broken_preconditions(C.draw("token_translate", 1, 0)) == []


def _pages(length, ps):
    return -(-length // ps)


def test_grid_spill_case_names_the_broken_bound_then_the_variant():
    # seed 4: the spill lands inside the packed table (a mismatch; at seed 1 it lands past it, out_of_bounds)
    rep = kvaddr.check("canonical_page_table", K.canonical_grid_spill, cases=300, seed=4, lanes=4096)
    f = rep.failure
    assert f.kind == "mismatch" and "grid_spill" in f.behaves_like
    ps, m = f.case.scalars["page_size"], f.case.scalars["max_pages"]
    length = int(f.case.inputs["seq_lens"][0])
    assert f.case.inputs["req_pool_indices"].size == 1 and _pages(length, ps) > m
    text = f"row 0: n_pages = {_pages(length, ps)} > max_pages = {m} (KV length {length}, page_size {ps})"
    assert f.preconditions == [text] == ["row 0: n_pages = 3 > max_pages = 2 (KV length 7, page_size 3)"]
    assert f.first[0].index == (1, 0)  # the spilled column 2 lands in the next row of the packed table
    lines = str(rep).splitlines()
    at = lines.index("  precondition broken at " + text)
    assert lines[at + 1] == "  behaves like " + ", ".join(f.behaves_like)
    assert rep.to_dict()["failure"]["preconditions"] == [text]


def test_read_before_the_table_names_the_padding_token_then_b09():
    rep = kvaddr.check("canonical_page_table", K.canonical_no_guard, cases=300, seed=1, lanes=4096)
    f = rep.failure
    assert f.kind == "mismatch" and f.behaves_like == ["b09_no_padding_guard"]
    ps = f.case.scalars["page_size"]
    r2t = f.case.inputs["req_to_token"][f.case.inputs["req_pool_indices"][0]]
    n = min(_pages(int(f.case.inputs["seq_lens"][0]), ps), f.case.scalars["max_pages"])
    col = next(c for c in range(n) if r2t[c * ps] < 1 - ps)  # the first live column a guard-less kernel misreads
    text = f"row 0 column {col}: padding token {r2t[col * ps]} < {1 - ps} ({GUARD_MSG})"
    assert f.preconditions == [text] == [f"row 0 column 9: padding token -1 < 0 ({GUARD_MSG})"]
    lane = f.first[0]
    # the kernel read v2p[-1]: the last guard page before the table (times the multiplier 1)
    assert lane.index == (0, col) and lane.expected == 0
    assert lane.actual == int(C.guarded_table(f.case.inputs["v2p"])[0][C.TABLE_GUARD - 1])
    lines = str(rep).splitlines()
    at = lines.index("  precondition broken at " + text)
    assert lines[at + 1] == "  behaves like b09_no_padding_guard"


def test_a_failure_inside_the_preconditions_lists_none():
    rep = kvaddr.check("token_translate", K.translate_v2p_doc_formula, cases=50, seed=1)
    assert rep.failure.preconditions == [] and "precondition broken" not in str(rep)
    rep = kvaddr.check("read_table", K.read_table, cases=40, seed=5, lanes=2048)
    assert rep.ok


def test_read_table_spill_counts_the_delta_in_the_broken_bound():
    rep = kvaddr.check("read_table", K.read_table_no_bound, cases=300, seed=1, lanes=4096)
    f = rep.failure
    assert "b10_no_max_pages_bound" in f.behaves_like
    s = f.case.scalars
    length = int(f.case.inputs["seq_lens"][0]) + s["seq_len_delta"]
    assert _pages(length, s["page_size"]) > s["max_pages"]
    assert f.preconditions == [f"row 0: n_pages = {_pages(length, s['page_size'])} > max_pages = {s['max_pages']} "
                               f"(KV length {length}, page_size {s['page_size']})"]
