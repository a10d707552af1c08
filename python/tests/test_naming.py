"""Kernels whose bug reads outside the v2p table (B09) or wraps in int32 (E03, int32_wrap) are named:
the harness hands the host variant the same parent memory around v2p that the kernel read."""
import re

import numpy as np
import pytest

import kvaddr
import np_kernels as K
from kvaddr import _core
from kvaddr import cases as C
from kvaddr import conventions, harness


def test_table_view_reads_its_parent():
    parent = np.array([41, 5, 6, 7, 43], dtype=np.int64)
    r2t = np.array([[0, 1, -1, 2]], dtype=np.int32)
    args = (r2t, np.array([0]), np.array([4]))
    kw = dict(page_size=1, max_pages=4, variant="b09_no_padding_guard")
    out = kvaddr.read_table(*args, parent[1:4], out=np.zeros((1, 4), np.int32), **kw)
    assert out.tolist() == [[5, 6, 41, 7]]  # the -1 token reads parent[0], the element before the view
    with pytest.raises(kvaddr.OutOfRange, match="v2p = -1"):  # a standalone table has nothing before it
        kvaddr.read_table(*args, parent[1:4].copy(), out=np.zeros((1, 4), np.int32), **kw)
    with pytest.raises(kvaddr.OutOfRange, match="v2p = -1"):  # a view at the parent's start neither
        kvaddr.read_table(*args, parent[0:3], out=np.zeros((1, 4), np.int32), **kw)
    out = kvaddr.read_table(*args, parent[1:4], out=np.zeros((1, 4), np.int32), page_size=1, max_pages=4)
    assert out.tolist() == [[5, 6, 5, 7]]  # production guards the padding token: the parent is never read
    ids = np.array([2, 3])
    with pytest.raises(kvaddr.OutOfRange, match="v2p = 3: read outside the table of length 3"):  # past the end
        kvaddr.token_translate(ids, parent[1:4], page_size=1, out=np.full(2, 77, np.int64))
    assert kvaddr.token_translate(ids[:1], parent[1:4], page_size=1).tolist() == [7]
    out = np.full(2, 77, np.int64)
    with pytest.raises(kvaddr.OutOfRange):
        kvaddr.token_translate(ids, parent[1:4], page_size=1, out=out)
    assert out.tolist() == [77, 77]  # untouched by the failing call


def test_guarded_table_layout():
    parent, view = C.guarded_table(np.array([3, 4], dtype=np.int64))
    assert view.tolist() == [3, 4] and view.base is parent
    assert parent[C.TABLE_GUARD - 1] == C.TABLE_GUARD_PAGE + 1 and parent[C.TABLE_GUARD + 2] == C.TABLE_GUARD_PAGE + 1
    assert parent.size == 2 + 2 * C.TABLE_GUARD


def test_b09_kernel_is_named():
    rep = kvaddr.check("canonical_page_table", K.canonical_no_guard, cases=300, seed=1, lanes=4096)
    f = rep.failure
    assert f.kind == "mismatch" and "b09_no_padding_guard" in f.behaves_like
    lane = f.first[0]
    assert f.case.scalars["page_size"] == 1
    m = f.case.scalars["multiplier"]
    assert lane.actual == (C.TABLE_GUARD_PAGE + 1) * m  # v2p[-1]: the guard page just before the table
    assert lane.expected == max(int(f.case.inputs["v2p"][0]) * m, 0)  # production reads page 0


def test_e03_kernel_is_named():
    rep = kvaddr.check("token_translate", K.translate_v2p_int32, cases=300, seed=1, lanes=4096)
    f = rep.failure
    assert f.kind == "mismatch" and "e03_int32_offset" in f.behaves_like
    lane = f.first[0]
    wide = lane.expected
    assert wide >= 2**31
    wrapped = (wide + 2**31) % 2**32 - 2**31
    assert lane.actual == max(wrapped, 0)


def test_b09_decode_metadata_is_named():
    # seed 2: its shrunk case has no tombstone (at seed 1 one remains and pr33046_as_written differs)
    rep = kvaddr.check("decode_metadata", K.decode_metadata_no_guard, cases=300, seed=2, lanes=4096)
    f = rep.failure
    assert f.kind == "mismatch"
    assert f.behaves_like == ["b09_no_padding_guard", "pr33046_as_written"]  # no tombstone: the composite agrees
    lane = f.first[0]
    assert lane.output == "page_table" and lane.expected == 0  # production: the padding token maps to page 0
    assert lane.actual == (C.TABLE_GUARD_PAGE + 1) * f.case.scalars["multiplier"]


def test_pr33046_as_written_kernel_is_named():
    # seed 13: its first differing lane is a tombstone at column 1
    rep = kvaddr.check("decode_metadata", K.decode_metadata_as_written, cases=300, seed=13, lanes=4096)
    f = rep.failure
    assert f.kind == "mismatch" and "pr33046_as_written" in f.behaves_like
    lane = f.first[0]
    assert (lane.output, lane.index, lane.expected, lane.actual) == ("page_table", (0, 1), 0, -1)  # a tombstone, unclamped


def test_the_naming_list_is_the_cpp_harness_list():
    # harness/tests/harness_naming_test.cpp asserts the same lists (kvaddr/harness/naming.hpp)
    assert _core.naming_variants("token_translate", "production") == ["b17_doc_formula", "e03_int32_offset", "int32_wrap"]
    assert _core.naming_variants("write_loc", "production") == ["b06_stale_tail", "e02_minus_one_sentinel",
                                                                "e03_int32_offset"]
    assert _core.naming_variants("write_loc", "b06_stale_tail") == ["production", "e02_minus_one_sentinel",
                                                                    "e03_int32_offset"]
    decode = ["b09_no_padding_guard", "era_b_unclamped", "e10_batch_index_rows", "int32_wrap", "int32_lengths",
              "full_width_page_table", "swa_no_padding_guard", "era_d_read_table", "pr33046_as_written"]
    assert _core.naming_variants("decode_metadata", "production") == decode
    assert _core.naming_variants("decode_metadata", "pr33046_as_written") == ["production"] + decode[:-1]
    assert _core.naming_variants("mamba_translate", "production") == []
    with pytest.raises(kvaddr.InvalidArgument):
        _core.naming_variants("nope", "production")
    with pytest.raises(kvaddr.InvalidArgument):
        _core.naming_variants("write_loc", "nope")
    assert _core.crash_variants("eager_funnel", "production") == ["b02_rank2_index_select"]
    assert _core.crash_variants("eager_funnel", "b02_rank2_index_select") == []
    assert _core.crash_variants("token_translate", "production") == []


def token_case_names(claimed, reference, actual=0, guard=0, guard_row=None):
    """_core.name_case on a one-row [1, 4] token_translate buffer of zeros whose reference is `reference` (a
    recorder), the kernel's buffer `actual` everywhere; with `guard` lanes on each side (before: -7), the first row
    after it `guard_row` where given."""
    before = np.zeros((1, 4), np.int64)
    backings = None
    if guard:
        g = np.full(guard, -7, np.int64)
        after = np.concatenate([g, np.full(4, actual, np.int64), g])
        if guard_row is not None:
            after[guard + 4:guard + 8] = guard_row
        backings = {"out": (np.concatenate([g, before.ravel(), g]), after)}
    return _core.name_case("token_translate", claimed, inputs={"ids": np.zeros(1, np.int64), "v2p": np.zeros(1, np.int64)},
                           scalars={"page_size": 1, "multiplier": 1}, outputs={"out": before},
                           actual={"out": np.full((1, 4), actual, np.int64)}, backings=backings, reference=reference)


def test_name_case_decides_the_forms():
    # the engine (kvaddr/harness/naming.hpp name_case, the C++ harness's too) decides from the buffers and backings
    # handed in: the plain form where the buffer differs from the claimed variant's and the guards are intact, the
    # grown form (the buffer grown by the whole rows of its after-guard: 8 lanes = 2 rows of 4) where there is one.
    # The recorder tells the forms apart by their rows; e03 writes 1 on the plain form, int32_wrap the kernel's row
    # 5 on the grown one, every other call leaves the buffer as it was.
    calls = []

    def reference(v, outputs):
        out = outputs["out"].copy()
        form = "plain" if out.shape[0] == 1 else "grown"
        calls.append(f"{v}/{form}")
        if (v, form) == ("e03_int32_offset", "plain"):
            out[...] = 1
        if (v, form) == ("int32_wrap", "grown"):
            out[1] = 5
        return {"out": out}

    def run(**kw):
        calls.clear()
        return token_case_names("production", reference, **kw)

    # the buffer is the claimed variant's and nothing around it changed: nothing to name, only the claim runs
    assert run() == [] and calls == ["production/plain"]
    assert run(guard=8) == [] and calls == ["production/plain"]
    # a wrong buffer without backings: the plain form only
    assert run(actual=1) == ["e03_int32_offset"]
    assert calls == ["production/plain", "b17_doc_formula/plain", "e03_int32_offset/plain", "int32_wrap/plain"]
    # the same with intact guards of two rows: both forms, in order
    assert run(actual=1, guard=8) == ["e03_int32_offset"]
    assert calls == ["production/plain", "b17_doc_formula/plain", "b17_doc_formula/grown", "e03_int32_offset/plain",
                     "int32_wrap/plain", "int32_wrap/grown"]
    # a right buffer whose after-guard row changed: the grown form only
    assert run(guard=8, guard_row=5) == ["int32_wrap"]
    assert calls == ["production/plain", "b17_doc_formula/grown", "e03_int32_offset/grown", "int32_wrap/grown"]
    # a wrong buffer and a changed guard: the plain form is not reproduced (its guards changed), the grown one is
    assert run(actual=1, guard=8, guard_row=5) == []
    assert calls == ["production/plain", "b17_doc_formula/grown", "e03_int32_offset/grown", "int32_wrap/grown"]
    # a guard shorter than a row: no grown form (boundary: 4 lanes = one row grows, 3 do not)
    assert run(actual=1, guard=3) == ["e03_int32_offset"]
    assert calls == ["production/plain", "b17_doc_formula/plain", "e03_int32_offset/plain", "int32_wrap/plain"]
    run(actual=1, guard=4)
    assert "b17_doc_formula/grown" in calls
    # the claim is never a candidate: every other variant writes the kernel's 1
    assert token_case_names("e03_int32_offset", lambda v, o: {"out": o["out"] + (v != "e03_int32_offset")},
                            actual=1) == ["production", "b17_doc_formula", "int32_wrap"]


def test_name_case_validates_the_backings():
    ref = lambda v, o: {"out": o["out"]}  # noqa: E731
    base = dict(inputs={"ids": np.zeros(1, np.int64), "v2p": np.zeros(1, np.int64)}, scalars={"page_size": 1, "multiplier": 1},
                outputs={"out": np.zeros(4, np.int64)}, actual={"out": np.ones(4, np.int64)}, reference=ref)
    g = np.zeros(8, np.int64)
    assert _core.name_case("token_translate", "production", backings={"out": (g, g)}, **base) == []  # 2 lanes a side
    for bad, arg in (([g], "backings"), ({"nope": (g, g)}, "backings"), ({"out": (g, g[:6])}, "backings['out']"),
                     ({"out": (g[:7], g[:7])}, "backings['out']"), ({"out": (g[:2], g[:2])}, "backings['out']"),
                     ({"out": g}, "backings['out']")):
        with pytest.raises(kvaddr.InvalidArgument, match=re.escape(arg)):
            _core.name_case("token_translate", "production", backings=bad, **base)


def test_a_spill_into_the_guard_of_one_of_several_outputs_is_named():
    # One rule for the grown form (kvaddr/harness/naming.hpp grown_form): each 2-D output grows by its after-guard
    # rows, the others stay as drawn. decode_metadata has two 1-D outputs beside its page table; the kernel runs
    # era_d_read_table on the page table grown into its guard, and on case 42 of seed 3 (lanes 256) it stores one lane
    # past the table. Python's old rule grew the buffers only when every output could grow, so this was unnamed there
    # (the C++ harness's rule named it).
    from numpy.lib.stride_tricks import as_strided

    host = conventions.host_kernel("decode_metadata", "era_d_read_table")

    def spilling(**kw):
        pt = kw["page_table"]
        rows = pt.shape[0] + C.GUARD // (pt.strides[0] // pt.itemsize)  # the rows the guard after it holds
        kw["page_table"] = as_strided(pt, shape=(rows, pt.shape[1]), strides=pt.strides)
        return host(**kw)

    case = C.draw("decode_metadata", 3, 42, 256, None)
    res = kvaddr.check_case(spilling, case, isolate=False)
    assert res.kind == "out_of_bounds" and [lane.region for lane in res.first] == ["guard_after"]
    assert harness._names(case, res, "production") == ["era_d_read_table"]
    assert kvaddr.behaves_like(case, res.actual, "production", res) == ["era_d_read_table"]
    assert kvaddr.behaves_like(case, res.actual, "production") == []  # without the backings: no grown form


def test_name_case_passes_the_references_error_on():
    def boom(v, outputs):
        raise KeyError(v)

    with pytest.raises(KeyError):
        token_case_names("production", boom)
    with pytest.raises(kvaddr.InvalidArgument, match="route"):
        _core.name_case("no_such_route", "production", inputs={}, scalars={}, outputs={"out": np.zeros(1)},
                        actual={"out": np.zeros(1)})
    with pytest.raises(kvaddr.InvalidArgument, match="variant"):
        token_case_names("no_such_variant", None)
    with pytest.raises(kvaddr.InvalidArgument, match="reference"):
        token_case_names("production", 3)  # not a callable
    with pytest.raises(kvaddr.InvalidArgument, match="reference"):  # a callable answering other than a dict / None
        token_case_names("production", lambda v, o: "yes")


def test_crash_names_runs_each_crash_variants_reference():
    # harness/src/naming.inc name_raises and kvaddr.check's crash_variants: kvaddr/harness/naming.hpp name_crash
    def names(page_size, claimed="production", reference=None):
        return _core.crash_names("eager_funnel", claimed, inputs={"page_table": np.array([[0]], np.int64),
                                                                  "v2p": np.array([5, 6], np.int64)},
                                 scalars={"page_size": page_size, "multiplier": 1},
                                 outputs={"out": np.zeros((1, 1), np.int64)}, reference=reference)

    assert names(1) == ["b02_rank2_index_select"]  # the rank-2 table reaches a 1-D-only gather at page size 1
    assert names(2) == []
    assert names(1, claimed="b02_rank2_index_select") == []
    assert names(2, reference=lambda v, f: None) == ["b02_rank2_index_select"]  # the reference rejects: a crash
    with pytest.raises(kvaddr.InvalidArgument, match="reference"):
        names(1, reference=lambda v, f: "yes")
    with pytest.raises(kvaddr.InvalidArgument, match="inputs"):
        _core.crash_names("eager_funnel", "production", inputs={"nope": np.zeros(1)}, scalars={},
                          outputs={"out": np.zeros(1)})


def test_name_case_refuses_a_uint64_lane_past_int64_and_takes_the_largest_that_fits():
    # the lanes are read as int64: 2^63 would wrap to -2^63 silently; 2^63 - 1 is read as it is
    def names(value):
        return _core.name_case("token_translate", "production", inputs={"ids": np.zeros(1, np.int64),
                                                                        "v2p": np.zeros(1, np.int64)},
                               scalars={"page_size": 1, "multiplier": 1}, outputs={"out": np.zeros(1, np.int64)},
                               actual={"out": np.array([value], np.uint64)})

    assert names(2**63 - 1) == []  # read, and no candidate writes it
    with pytest.raises(kvaddr.InvalidArgument, match="9223372036854775808"):
        names(2**63)
