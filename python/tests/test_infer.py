"""Issue 33 in the Python harness: claims with parameters and the inferred behaviours are claimable, and a
claimed variant that reads before v2p is compared on the guard pages the kernel read, not rejected."""
import numpy as np
import pytest

import kvaddr
import np_kernels as K
from kvaddr import _core


def test_require_variant_spells_and_rejects_claims():
    assert _core.require_variant("read_table", "grid_spill@2") == "grid_spill@2"
    assert _core.require_variant("decode_metadata", "era_d_read_table@4+int32_lengths") == \
        "int32_lengths+era_d_read_table@4"
    assert _core.require_variant("decode_metadata", "b09_no_padding_guard+era_b_unclamped+int32_wrap") == \
        "pr33046_as_written"
    with pytest.raises(kvaddr.InvalidArgument, match="era_d_read_table@0"):
        _core.require_variant("decode_metadata", "era_d_read_table@0")
    assert _core.require_variant("decode_metadata", "era_d_read_table@1") == "era_d_read_table@1"
    with pytest.raises(kvaddr.InvalidArgument, match="int32_lengths is not a variant of route read_table"):
        _core.require_variant("read_table", "int32_lengths")


def test_inferred_behaviours_are_listed():
    names = kvaddr.variants("decode_metadata")
    for v in ("int32_lengths", "full_width_page_table", "swa_no_padding_guard", "era_d_read_table"):
        assert v in names
    assert "int32_lengths" not in kvaddr.variants("read_table")


def test_check_accepts_parametrised_claims_and_names_bad_ones():
    with pytest.raises(ValueError, match="variant = 'grid_spill@0'"):
        kvaddr.check("read_table", K.canonical_no_guard, variant="grid_spill@0", cases=1)
    with pytest.raises(ValueError, match="variant = 'int32_lengths'"):
        kvaddr.check("read_table", K.canonical_no_guard, variant="int32_lengths", cases=1)


def test_claimed_unguarded_decode_is_compared_on_the_guard_pages():
    # The kernel as PR #33046 wrote it, claimed as such: its padding tokens read v2p[-1] (a guard page), and
    # the claimed reference reads the same page, so those cases are compared and pass, none rejected.
    rep = kvaddr.check("decode_metadata", K.decode_metadata_as_written, variant="pr33046_as_written", cases=300,
                       seed=1, lanes=4096)
    assert rep.ok, str(rep)
    assert "OutOfRange(v2p)" not in rep.rejections, rep.rejections
    assert rep.cases + rep.rejected == 300 and rep.cases >= 270, str(rep)


def _grid_spill_kernel(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    """canonical_page_table with the upstream grid's spill (256 columns a block, flat stores): a store past the
    guarded allocation is dropped (on a GPU it would land in memory nobody records)."""
    backing = out.base if out.base is not None else out
    start = (out.__array_interface__["data"][0] - backing.__array_interface__["data"][0]) // out.itemsize
    grid = -(-max_pages // 256) * 256
    for b in range(len(req_pool_indices)):
        n = min(-(-int(seq_lens[b]) // page_size), grid)
        for c in range(n):
            tok = int(req_to_token[req_pool_indices[b], c * page_size])
            flat = start + b * out.shape[1] + c
            if flat < backing.size:
                backing[flat] = max(int(v2p[0 if tok < 0 else tok // page_size]) * multiplier, 0)


def test_a_spill_past_every_guard_is_inferred_from_its_recording():
    # Row 1 has 70 pages, max_pages 1: its grid spill covers lanes 1..70 of a 2-lane table, the 64 guard lanes
    # after it and 5 lanes past them. The grown-by-the-guard naming cannot reproduce it; replay's inference can.
    from kvaddr import cases as C
    from kvaddr import harness as H
    from kvaddr.arrays import family

    r2t = (np.arange(160, dtype=np.int32) % 8).reshape(2, 80)
    case = C.Case("canonical_page_table", {"page_size": 1, "multiplier": 1, "max_pages": 1},
                  {"req_to_token": r2t, "req_pool_indices": np.array([0, 1]), "seq_lens": np.array([1, 70]),
                   "v2p": np.arange(10, 18, dtype=np.int64)},
                  {"out": np.full((2, 1), -1, np.int32)})
    res = H.run_case(family("cpu", None), _grid_spill_kernel, case, kvaddr.conventions.reference(case))
    assert res.kind == "out_of_bounds"
    assert H._names(case, res, "production") == []  # the grown-by-the-guard naming
    named, lines, why = H._inferred(case, res, "production", 0, 0, False, None)
    assert named == [] and why == ""
    assert lines == ["spills past max_pages = 1 up to column 256 of the launch grid (column block 256); 5 of its "
                     "stores land past the recorded memory (claim grid_spill; reproduces every recorded lane)"]


def _first_id_everywhere(virt, v2p, page_size, page_stride, out):
    """A translate kernel handed its ids with stride 0: every lane translates the first id."""
    t = np.full(np.shape(virt), np.asarray(virt).ravel()[0], dtype=np.int64)
    page = np.where(t < 0, 0, t // page_size)
    out[...] = np.where(t < 0, 0, np.maximum(v2p[page] * page_stride + t % page_size, 0))


def test_a_kernel_reading_its_ids_with_stride_zero_is_inferred():
    rep = kvaddr.check("token_translate", _first_id_everywhere, cases=200, seed=3, lanes=4096)
    f = rep.failure
    assert f is not None and f.kind == "mismatch" and f.behaves_like == []
    assert f.inferred == ["reads ids with stride 0 (every lane reads its first element) (claim stride0(ids); "
                          "reproduces every recorded lane)"], str(rep)
    assert "  inferred: reads ids with stride 0" in str(rep)


def test_a_run_rejecting_more_than_the_stated_share_says_so():
    from kvaddr.report import REJECTED_SHARE, Report

    assert REJECTED_SHARE == 0.10
    rep = Report("read_table", 0, "production", "cpu", "numpy", False, cases=90, rejected=10,
                 rejections={"InvalidArgument(out)": 10})
    assert "checked on few cases" not in str(rep)  # 10 of 100: at the share
    rep = Report("read_table", 0, "production", "cpu", "numpy", False, cases=89, rejected=11,
                 rejections={"InvalidArgument(out)": 11})
    assert "11 drawn cases the claimed contract rejects: InvalidArgument(out) 11 (11 % of 100 drawn, more than " \
           "10 %: the claim is checked on few cases)" in str(rep)


def test_int32_lane_offsets_is_claimable_on_the_per_id_routes_only():
    # Below 2^31 lanes the claim writes what production writes: a correct kernel passes under it; decode_metadata
    # (no per-id launch) rejects the claim, naming it.
    for route in ("token_translate", "write_loc"):
        assert "int32_lane_offsets" in kvaddr.variants(route)
        assert _core.require_variant(route, "int32_lane_offsets") == "int32_lane_offsets"
    assert "int32_lane_offsets" not in kvaddr.variants("decode_metadata")
    with pytest.raises(kvaddr.InvalidArgument, match="int32_lane_offsets is not a variant of route decode_metadata"):
        _core.require_variant("decode_metadata", "int32_lane_offsets")
    rep = kvaddr.check("token_translate", K.translate_v2p, variant="int32_lane_offsets", cases=50, seed=3)
    assert rep.ok and rep.cases + rep.rejected == 50, str(rep)
