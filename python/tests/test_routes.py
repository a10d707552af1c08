"""Host routes over numpy arrays: hand-computed values, in-place / out semantics, dtype and layout
checks, error messages (spec §4)."""
import numpy as np
import pytest

import kvaddr

V2P = np.array([0, 4, 1, -1, 2, 5, -1], dtype=np.int64)  # ps 2; page 3 tombstone
R2T = np.array(
    [[2, 3, 8, 9, 4, 5, -1, -1], [6, 7, 0, 1, 10, 11, -1, -1], [-1] * 8],
    dtype=np.int32,
)
ROWS = np.array([1, 0], dtype=np.int64)
SEQ = np.array([5, 7], dtype=np.int64)


def test_token_translate_values_and_fresh_out():
    ids = np.array([5, 9, -1, 2, 7, 0, 11], dtype=np.int64)
    out = kvaddr.token_translate(ids, V2P, page_size=2, multiplier=3)
    # 5 -> page 2 (P 1) o 1 -> 7; 9 -> page 4 (P 2) o 1 -> 13; 2 -> page 1 (P 4) -> 24;
    # 7 -> page 3 tombstone -> 0; 11 -> page 5 (P 5) o 1 -> 31
    np.testing.assert_array_equal(out, [7, 13, 0, 24, 0, 0, 31])
    assert out.dtype == np.int64


def test_token_translate_returns_out_in_place_and_may_alias():
    ids = np.array([[5, 9], [2, 11]], dtype=np.int64)
    out = np.full((2, 2), -7, dtype=np.int64)
    r = kvaddr.token_translate(ids, V2P, 2, 3, out=out)
    assert r is out
    np.testing.assert_array_equal(out, [[7, 13], [24, 31]])
    same = ids.copy()
    assert kvaddr.token_translate(same, V2P, 2, 3, out=same) is same
    np.testing.assert_array_equal(same, out)


def test_token_translate_int32_out_and_upstream_aliases():
    ids = np.array([5, 11], dtype=np.int64)
    out32 = np.zeros(2, dtype=np.int32)
    kvaddr.token_translate(ids, V2P, 2, 3, out=out32)
    np.testing.assert_array_equal(out32, [7, 31])
    np.testing.assert_array_equal(kvaddr.translate_v2p(ids, V2P, 2, 6), [7, 31])
    np.testing.assert_array_equal(kvaddr.translate_kv_loc_for_kernel(ids, V2P, 2, 3), [7, 31])
    np.testing.assert_array_equal(kvaddr.translate_kv_loc(ids, V2P, 2), [3, 11])
    np.testing.assert_array_equal(kvaddr.token_translate(np.array([], dtype=np.int64), V2P, 2), [])


def test_token_translate_b17_variant():
    ids = np.array([5], dtype=np.int64)
    # docstring formula without the gather: (5 // 2) * 6 + 1
    np.testing.assert_array_equal(kvaddr.token_translate(ids, V2P, 2, 3, variant="b17_doc_formula"), [13])


def test_dtype_contiguity_and_writeability_checks():
    ids = np.array([5, 9], dtype=np.int64)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^v2p = int32: dtype must be int64$"):
        kvaddr.token_translate(ids, V2P.astype(np.int32), 2)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^ids = float64: dtype must be int64 \(or int32\)$"):
        kvaddr.token_translate(ids.astype(np.float64), V2P, 2)
    with pytest.raises(kvaddr.InvalidArgument, match="out = float32: dtype must be int64"):
        kvaddr.token_translate(ids, V2P, 2, out=np.zeros(2, dtype=np.float32))
    with pytest.raises(kvaddr.InvalidArgument, match="must be C-contiguous"):
        kvaddr.token_translate(np.arange(8, dtype=np.int64)[::2], V2P, 2)
    with pytest.raises(kvaddr.InvalidArgument, match="must be C-contiguous"):
        kvaddr.read_table(np.asfortranarray(R2T), ROWS, SEQ, V2P, 2, max_pages=4)
    ro = np.zeros(2, dtype=np.int64)
    ro.setflags(write=False)
    with pytest.raises(kvaddr.InvalidArgument, match="out = read-only array"):
        kvaddr.token_translate(ids, V2P, 2, out=ro)
    with pytest.raises(kvaddr.InvalidArgument, match="expected a numpy.ndarray"):
        kvaddr.token_translate([5, 9], V2P, 2)
    with pytest.raises(kvaddr.InvalidArgument, match="req_to_token = int64: dtype must be int32"):
        kvaddr.read_table(R2T.astype(np.int64), ROWS, SEQ, V2P, 2, max_pages=4)
    # int32 index inputs are widened
    np.testing.assert_array_equal(kvaddr.token_translate(ids.astype(np.int32), V2P, 2), [3, 5])


def _at_offset(values, dtype, offset):
    """`values` as a C-contiguous `dtype` array whose data starts `offset` bytes into an aligned buffer."""
    item = np.dtype(dtype).itemsize
    raw = np.zeros(len(values) * item + 16, np.uint8)
    start = (-raw.ctypes.data) % 16 + offset  # 16-byte aligned, then `offset` bytes on
    a = np.frombuffer(raw.data, dtype=np.uint8, count=len(values) * item, offset=start).view(dtype)
    a[:] = values
    return a


def test_misaligned_arrays_are_refused_and_aligned_ones_at_any_element_offset_are_not():
    # read and written through int64_t* / int32_t*: data off the element alignment is an InvalidArgument naming the
    # argument (an input, a widened int32 input, an output), the output untouched; one element on is accepted
    ids = _at_offset([5, 9], np.int64, 1)
    assert not ids.flags.aligned and ids.flags.c_contiguous
    with pytest.raises(kvaddr.InvalidArgument, match=r"^ids = misaligned array: its data must be aligned"):
        kvaddr.token_translate(ids, V2P, 2)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^ids = misaligned array"):
        kvaddr.token_translate(_at_offset([5, 9], np.int32, 2), V2P, 2)
    out = _at_offset([-1, -1], np.int64, 4)
    with pytest.raises(kvaddr.InvalidArgument, match=r"^out = misaligned array"):
        kvaddr.token_translate(np.array([5, 9]), V2P, 2, out=out)
    assert out.tolist() == [-1, -1]
    np.testing.assert_array_equal(kvaddr.token_translate(_at_offset([5, 9], np.int64, 8), V2P, 2), [3, 5])
    np.testing.assert_array_equal(kvaddr.token_translate(_at_offset([5, 9], np.int32, 4), V2P, 2), [3, 5])
    out = _at_offset([-1, -1], np.int64, 8)
    kvaddr.token_translate(np.array([5, 9]), V2P, 2, out=out)
    assert out.tolist() == [3, 5]


def test_route_errors_keep_the_cpp_messages():
    with pytest.raises(kvaddr.BufferTooSmall, match=r"^out = 1: needs at least 2 elements$"):
        kvaddr.token_translate(np.array([1, 2], dtype=np.int64), V2P, 2, out=np.zeros(1, dtype=np.int64))
    with pytest.raises(kvaddr.OutOfRange, match=r"^v2p = 50: read outside the table of length 7$"):
        kvaddr.token_translate(np.array([100], dtype=np.int64), V2P, 2)
    with pytest.raises(kvaddr.InvalidArgument, match="not a variant of route token_translate"):
        kvaddr.token_translate(np.array([1], dtype=np.int64), V2P, 2, variant="b10_no_max_pages_bound")
    with pytest.raises(kvaddr.InvalidArgument, match="unknown variant"):
        kvaddr.token_translate(np.array([1], dtype=np.int64), V2P, 2, variant="b99")
    with pytest.raises(kvaddr.Error):  # every kvaddr error derives from kvaddr.Error
        kvaddr.token_translate(np.array([1], dtype=np.int64), V2P, 0)


def test_read_table_one_line_assert_and_zero_tail():
    before = np.full((3, 4), 55, dtype=np.int32)
    mine = np.array([[0, 0, 15, 55], [12, 6, 3, 0], [55, 55, 55, 55]], dtype=np.int32)
    np.testing.assert_array_equal(
        mine,
        kvaddr.read_table(req_to_token=R2T, req_pool_indices=ROWS, seq_lens=SEQ, v2p=V2P, page_size=2,
                          multiplier=3, max_pages=4, out=before),
    )
    assert before[0, 3] == 55  # prefix-only: the tail is untouched
    zt = kvaddr.read_table(R2T, ROWS, SEQ, V2P, page_size=2, max_pages=4, zero_tail=True,
                           out=np.full((3, 4), 55, dtype=np.int32))
    np.testing.assert_array_equal(zt, [[0, 0, 5, 0], [4, 2, 1, 0], [0, 0, 0, 0]])
    fresh = kvaddr.read_table(R2T, ROWS, SEQ, V2P, page_size=2, max_pages=4, seq_len_delta=1)
    assert fresh.shape == (2, 4) and fresh.dtype == np.int32


def test_read_table_b10_spill_and_guard():
    out = np.full((3, 2), 77, dtype=np.int32)
    kvaddr.read_table(R2T, ROWS, SEQ, V2P, page_size=2, multiplier=3, max_pages=2, seq_len_delta=1, out=out)
    np.testing.assert_array_equal(out[2], [77, 77])
    spill = np.full((3, 2), 77, dtype=np.int32)
    kvaddr.read_table(R2T, ROWS, SEQ, V2P, page_size=2, multiplier=3, max_pages=2, seq_len_delta=1, out=spill,
                      variant="b10_no_max_pages_bound")
    np.testing.assert_array_equal(spill[2], [3, 0])


def test_flashmla_canonical_full_prefill():
    kv = kvaddr.flashmla_block_table(R2T, ROWS, SEQ, v2p=V2P, page_size=2, multiplier=3)
    np.testing.assert_array_equal(kv, [[0, 0, 15, -1], [12, 6, 3, 0]])
    unclamped = kvaddr.flashmla_block_table(R2T, ROWS, SEQ, v2p=V2P, page_size=2, multiplier=3,
                                            variant="era_b_unclamped")
    assert unclamped[0, 0] == -3
    static = kvaddr.flashmla_block_table(R2T, ROWS, SEQ, page_size=2)
    np.testing.assert_array_equal(static, [[3, 0, 5, -1], [1, 4, 2, 0]])
    cpt = kvaddr.canonical_page_table(R2T, ROWS, SEQ, V2P, page_size=2, multiplier=3, max_pages=4)
    np.testing.assert_array_equal(cpt, [[0, 0, 15, 0], [12, 6, 3, 0]])
    fpt = kvaddr.full_prefill_table(R2T, ROWS, SEQ, V2P, page_size=2, multiplier=3, max_pages=4,
                                    out=np.full((3, 4), 44, dtype=np.int32))
    np.testing.assert_array_equal(fpt, [[0, 0, 15, 44], [12, 6, 3, 0], [44] * 4])
    b04 = kvaddr.full_prefill_table(R2T, ROWS, SEQ, V2P, page_size=2, multiplier=3, max_pages=4,
                                    variant="b04_prefill_no_remap")
    np.testing.assert_array_equal(b04, [[3, 0, 5, 0], [1, 4, 2, 0]])


def test_decode_metadata_era_b_remap():
    r = kvaddr.decode_metadata(seq_lens=SEQ, req_to_token=R2T, req_pool_indices=ROWS, max_seq_pages=4, page_size=2,
                               seq_len_delta=1, v2p=V2P, multiplier=3)
    np.testing.assert_array_equal(r["cache_seqlens"], [6, 8])
    np.testing.assert_array_equal(r["cu_seqlens_k"], [0, 6, 14])
    np.testing.assert_array_equal(r["page_table"], [[0, 0, 15, 0], [12, 6, 3, 0]])
    assert r["swa_page_table"] is None
    only = kvaddr.decode_metadata(SEQ, max_seq_pages=4, page_size=2, skip_page_table=True)
    assert only["page_table"] is None
    with pytest.raises(kvaddr.InvalidArgument, match="power-of-two"):
        kvaddr.decode_metadata(SEQ, R2T, ROWS, max_seq_pages=2, page_size=3)


def test_eager_funnel_and_read_stream():
    table = np.array([[2, 8, 4, -1], [6, 0, 10, -1]], dtype=np.int64)
    np.testing.assert_array_equal(kvaddr.eager_funnel(table, V2P, 2, 3), [[12, 6, 3, 0], [0, 0, 15, 0]])
    with pytest.raises(kvaddr.InvalidArgument, match="bug B02"):
        kvaddr.eager_funnel(table, V2P, 1, 3, variant="b02_rank2_index_select")
    t = np.array([[5, 1], [2, 0]], dtype=np.int32)
    s = kvaddr.read_stream(t, np.array([0, 3, 4], dtype=np.int32), page_size=2)
    np.testing.assert_array_equal(s, [10, 11, 2, 4])


def test_kv_indices_inplace_prefix_translated_tail_untouched():
    kv = np.array([2, 3, 8, 6, 7, 1 << 30, 1 << 30], dtype=np.int32)
    r = kvaddr.kv_indices_inplace(kv, np.array([0, 3, 5], dtype=np.int32), 2, V2P, page_size=2, multiplier=3)
    assert r is kv
    np.testing.assert_array_equal(kv, [24, 25, 12, 0, 0, 1 << 30, 1 << 30])
    stale = np.array([2, 3], dtype=np.int32)
    kvaddr.kv_indices_inplace(stale, np.array([0, 2], dtype=np.int32), 1, V2P, 2, 3, variant="b05_rebind_fresh")
    np.testing.assert_array_equal(stale, [2, 3])


def test_write_loc_dcp_and_out_width():
    loc = np.array([0, 5, 9, 4, 21], dtype=np.int64)
    out = np.full(8, 123, dtype=np.int64)
    r = kvaddr.write_loc(loc, V2P, page_size=2, multiplier=3, dcp_size=2, dcp_rank=1, out=out)
    assert r is out
    np.testing.assert_array_equal(out, [0, 24, 6, 0, 30, 0, 0, 0])
    stale = np.full(8, 123, dtype=np.int64)
    kvaddr.write_loc(loc, V2P, 2, 3, 2, 1, out=stale, variant="b06_stale_tail")
    np.testing.assert_array_equal(stale[5:], [123, 123, 123])
    w = kvaddr.write_loc_to_kernel_ids(loc, V2P, 2, 6, 2, 1, out_width=6)
    np.testing.assert_array_equal(w, [0, 24, 6, 0, 30, 0])
    with pytest.raises(kvaddr.InvalidArgument, match=r"^dcp_rank = 2: "):
        kvaddr.write_loc(loc, V2P, 2, dcp_size=2, dcp_rank=2)
    with pytest.raises(kvaddr.BufferTooSmall, match=r"^out_width = 3: must be >= len\(loc\) = 5$"):
        kvaddr.write_loc(loc, V2P, 2, out_width=3)


def test_swa_mamba_dcp_transfer_moves():
    swa_v2p = np.array([0, -1, 3, -1, 1, 2, -1], dtype=np.int64)
    ids = np.array([2, 3, 4, 8, 9, -1, 10], dtype=np.int64)
    np.testing.assert_array_equal(kvaddr.swa_translate(ids, swa_v2p, 2, 2), [0, 0, 12, 4, 5, 0, 8])
    np.testing.assert_array_equal(kvaddr.swa_translate(ids, swa_v2p, 2, 2, variant="b11_swa_no_clamp")[:2], [-4, -3])
    out32 = np.zeros(7, dtype=np.int32)
    kvaddr.swa_translate(ids, swa_v2p, 2, 2, out=out32)
    np.testing.assert_array_equal(out32, [0, 0, 12, 4, 5, 0, 8])
    m = kvaddr.mamba_translate(np.array([1, 2, 3, 0], dtype=np.int64), np.array([0, 3, 1, 2, -1], dtype=np.int64))
    assert m.dtype == np.int32
    np.testing.assert_array_equal(m, [3, 1, 2, 0])
    d = kvaddr.dcp_read_translate(np.array([4, 5, 18, 19, -1, 13], dtype=np.int64), V2P, 2, dcp_size=2)
    np.testing.assert_array_equal(d, [8, 8, 5, 5, 0, 0])
    np.testing.assert_array_equal(kvaddr.transfer_ids(np.array([2, 3, 10], dtype=np.int64), V2P, 2), [8, 9, 10])
    np.testing.assert_array_equal(
        kvaddr.transfer_ids(np.array([2, 3], dtype=np.int64), V2P, 2, variant="b16_virtual_as_physical"), [2, 3])
    dst, src = kvaddr.envelope_moves(np.array([4, 5, 8, 9], dtype=np.int64), np.array([10, 11, 2, 3], dtype=np.int64), 2)
    np.testing.assert_array_equal(dst, [2, 4])
    np.testing.assert_array_equal(src, [5, 1])


def test_scalar_parameters_take_no_bool_as_an_int_and_only_bools_as_flags():
    """pybind11's int64 took True as 1 and its bool took None / 0.5 / 7 as flags: the route bindings take an integer
    parameter from an int or a numpy integer and a flag from True / False / numpy.bool_ only; anything else fails
    overload resolution (TypeError, as a string does), the output untouched."""
    ids = np.array([5, 9], dtype=np.int64)
    for page_size in (2, np.int64(2), np.int32(2)):
        np.testing.assert_array_equal(kvaddr.token_translate(ids, V2P, page_size, 3), [7, 13])
    out = np.full(2, -1, np.int64)
    for bad in (True, np.True_, 2.0):
        with pytest.raises(TypeError, match="incompatible function arguments"):
            kvaddr.token_translate(ids, V2P, bad, out=out)
        assert out.tolist() == [-1, -1]
    for z in (True, False, np.True_, np.False_):
        assert kvaddr.read_table(R2T, ROWS, SEQ, V2P, 2, max_pages=4, zero_tail=z).shape == (2, 4)
    for z in (None, 0.5, 7, 1, 0, "True"):
        with pytest.raises(TypeError, match="incompatible function arguments"):
            kvaddr.read_table(R2T, ROWS, SEQ, V2P, 2, max_pages=4, zero_tail=z)
    # write_loc's out_width: an int or None; not a bool
    np.testing.assert_array_equal(kvaddr.write_loc(np.array([1], np.int64), V2P, 1, out_width=1), [4])  # v2p[1]
    with pytest.raises(TypeError, match="incompatible function arguments"):
        kvaddr.write_loc(np.array([1], np.int64), V2P, 1, out_width=True)


def test_the_other_bindings_flags_are_bools_too():
    from kvaddr import _core

    r = _core.Rng(1, 1)
    assert r.v2p(4, big=True).shape == (5,) and r.v2p(4, big=np.False_).shape == (5,)
    assert _core.model.mamba_slot(np.array([3, 4]), 1, True) == 4
    for call in (lambda: r.v2p(4, big=None), lambda: r.v2p(4, big=1),
                 lambda: _core.model.mamba_slot(np.array([3, 4]), 1, 0.5),
                 lambda: _core.replay_read_manifest("/nonexistent", allow_outside=None),
                 lambda: _core.adjacent_candidates("read_table", 1)):
        with pytest.raises(TypeError, match="incompatible function arguments"):
            call()
