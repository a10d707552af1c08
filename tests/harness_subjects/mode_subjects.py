"""Triton subjects of the upstream call modes (issue 35 item 3), written from the address model (spec I10, §4.3,
§4.5), each in its upstream call form (kvaddr.upstream.FORMS): the static pool (v2p None), the dense pool, the
canonical-source mode of the decode metadata kernel, the token-level full -> SWA slot map, int32 or int64 index
arrays. Subjects only, not kvaddr code (tests/harness_subjects/test_mode_subjects.py checks them)."""
import torch
import triton
import triton.language as tl


def _cdiv(a, b):
    return (a + b - 1) // b


# ---- §4.3 build_kernel_page_table: static (STATIC) or dense --------------------------------------
@triton.jit
def _page_table(r2t_ptr, r2t_s0, r2t_s1, rows_ptr, rows_stride, lens_ptr, lens_stride, v2p_ptr, out_ptr, out_s0, ps, mult,
                max_pages, BLOCK: tl.constexpr, STATIC: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    row = tl.load(rows_ptr + b * rows_stride).to(tl.int64)  # int32 or int64 row ids
    n = (tl.load(lens_ptr + b * lens_stride).to(tl.int64) + ps - 1) // ps
    mask = c < tl.minimum(n, max_pages)
    tok = tl.load(r2t_ptr + row * r2t_s0 + c.to(tl.int64) * ps * r2t_s1, mask=mask, other=0).to(tl.int64)
    if STATIC:  # I10: no table, M = 1: the pre-unified entry tok / ps (truncating)
        e = tok // ps
    else:
        page = tl.where(tok < 0, 0, tok // ps)
        e = tl.maximum(tl.load(v2p_ptr + page, mask=mask, other=0) * mult, 0)
    tl.store(out_ptr + b.to(tl.int64) * out_s0 + c, e.to(tl.int32), mask=mask)


def build_kernel_page_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, max_pages, out,
                            kernel_page_multiplier=1):
    b = req_pool_indices.numel()
    if b == 0 or max_pages == 0:
        return
    assert out.stride(1) == 1
    static = v2p is None
    _page_table[(b, _cdiv(max_pages, 64))](
        req_to_token, req_to_token.stride(0), req_to_token.stride(1), req_pool_indices, req_pool_indices.stride(0), seq_lens, seq_lens.stride(0),
        req_to_token if static else v2p, out, out.stride(0), page_size, kernel_page_multiplier, max_pages, BLOCK=64,
        STATIC=static)


# ---- §4.5 normal_decode_set_metadata: static, Era B remap, Era C source rows, the SWA token map ----
@triton.jit
def _lengths(seq_ptr, seq_stride, cs_ptr, cu_ptr, bs, delta, BLOCK: tl.constexpr):
    run = tl.sum(tl.zeros([BLOCK], tl.int32), axis=0)
    tl.store(cu_ptr, run)
    for s0 in range(0, bs, BLOCK):
        idx = s0 + tl.arange(0, BLOCK)
        m = idx < bs
        s = (tl.load(seq_ptr + idx * seq_stride, mask=m, other=0).to(tl.int64) + delta).to(tl.int32)
        tl.store(cs_ptr + idx, s, mask=m)
        tl.store(cu_ptr + 1 + idx, tl.cumsum(s, axis=0) + run, mask=m)
        run += tl.sum(s, axis=0)


@triton.jit
def _decode_rows(seq_ptr, seq_stride, r2t_ptr, r2t_s0, r2t_s1, rows_ptr, rows_stride, v2p_ptr, pt_ptr, pt_s0, map_ptr,
                 swa_ptr, swa_s0, max_seq_pages, delta, mult, LOG2PS: tl.constexpr, BLOCK: tl.constexpr,
                 SRC: tl.constexpr, REMAP: tl.constexpr, SWA_MAP: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    length = tl.load(seq_ptr + b * seq_stride).to(tl.int64) + delta
    live = tl.minimum((length + (1 << LOG2PS) - 1) >> LOG2PS, max_seq_pages)
    row = tl.load(rows_ptr + b * rows_stride).to(tl.int64)
    mask = c < live
    if SRC:  # Era C: the row is a canonical kernel page-table row; column c is copied as it is
        e = tl.load(r2t_ptr + row * r2t_s0 + c.to(tl.int64) * r2t_s1, mask=mask, other=0).to(tl.int64)
    else:
        tok = tl.load(r2t_ptr + row * r2t_s0 + (c.to(tl.int64) << LOG2PS) * r2t_s1, mask=mask, other=0).to(tl.int64)
        if REMAP:  # Era B: guarded, clamped remap of the page value
            page = tl.where(tok < 0, 0, tok >> LOG2PS)
            e = tl.maximum(tl.load(v2p_ptr + page, mask=mask, other=0) * mult, 0)
        else:  # the static call: the shift alone
            e = tok >> LOG2PS
        if SWA_MAP:  # the static SWA pool: token -> SWA slot, padding -> slot 0 (unmapped), then a page
            slot = tl.load(map_ptr + tl.where(tok < 0, 0, tok), mask=mask, other=0)
            tl.store(swa_ptr + b.to(tl.int64) * swa_s0 + c, (slot >> LOG2PS).to(tl.int32), mask=mask)
    tl.store(pt_ptr + b.to(tl.int64) * pt_s0 + c, e.to(tl.int32), mask=mask)


def normal_decode_set_metadata(cache_seqlens, cu_seqlens_k, page_table, seq_lens, req_to_token, req_pool_indices,
                               max_seq_pages, page_size, seq_len_delta=0, v2p_page_table=None, kernel_page_multiplier=1,
                               src_is_kernel_page_table=False, swa_page_table=None, full_to_swa_index_mapping=None):
    bs = seq_lens.numel()
    if bs == 0:
        return
    _lengths[(1,)](seq_lens, seq_lens.stride(0), cache_seqlens, cu_seqlens_k, bs, seq_len_delta, BLOCK=1024)
    if max_seq_pages == 0:
        return
    assert page_table.stride(1) == 1
    swa_map = full_to_swa_index_mapping is not None
    if swa_map:
        assert swa_page_table is not None and swa_page_table.stride(1) == 1
    remap = v2p_page_table is not None
    _decode_rows[(bs, _cdiv(max_seq_pages, 64))](
        seq_lens, seq_lens.stride(0), req_to_token, req_to_token.stride(0), req_to_token.stride(1), req_pool_indices,
        req_pool_indices.stride(0), v2p_page_table if remap else seq_lens, page_table, page_table.stride(0),
        full_to_swa_index_mapping if swa_map else seq_lens, swa_page_table if swa_map else page_table,
        (swa_page_table if swa_map else page_table).stride(0), max_seq_pages, seq_len_delta, kernel_page_multiplier,
        LOG2PS=page_size.bit_length() - 1, BLOCK=64, SRC=bool(src_is_kernel_page_table), REMAP=remap,
        SWA_MAP=swa_map)


# ---- compositions in the harness calling convention ---------------------------------------------
def era_c_decode_metadata(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta,
                          multiplier, cache_seqlens, cu_seqlens_k, page_table):
    """decode_metadata as Era C runs it (spec §5.2 @1222cf40): the canonical table of the batch rows (lengths
    widened by seq_len_delta), then normal_decode_set_metadata(src_is_kernel_page_table=True) over its rows
    0..B-1. The production route of decode_metadata computes the same (agree.fa3_canonical_flashmla)."""
    b = seq_lens.numel()
    canonical = torch.zeros((b, max(max_seq_pages, 1)), dtype=torch.int32, device=seq_lens.device)
    build_kernel_page_table(req_to_token, req_pool_indices, seq_lens + seq_len_delta, v2p, page_size, max_seq_pages,
                            canonical, kernel_page_multiplier=multiplier)
    rows = torch.arange(b, dtype=torch.int32, device=seq_lens.device)
    normal_decode_set_metadata(cache_seqlens, cu_seqlens_k, page_table, seq_lens, canonical, rows, max_seq_pages,
                               page_size, seq_len_delta, src_is_kernel_page_table=True)


def canonical_page_table_int32(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    """canonical_page_table with its index arrays handed over as int32, as SGLang often holds them."""
    build_kernel_page_table(req_to_token, req_pool_indices.to(torch.int32), seq_lens.to(torch.int32), v2p, page_size,
                            max_pages, out, kernel_page_multiplier=multiplier)


def decode_metadata_any_mode(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta,
                             multiplier, cache_seqlens, cu_seqlens_k, page_table, src_is_kernel_page_table=False,
                             full_to_swa_index_mapping=None, swa_page_table=None):
    """normal_decode_set_metadata in the harness calling convention of decode_metadata plus the arguments of the
    call modes kvaddr.check(..., mode=) hands over (v2p None: the static call; src_is_kernel_page_table; the
    token-level SWA map and its table)."""
    normal_decode_set_metadata(cache_seqlens, cu_seqlens_k, page_table, seq_lens, req_to_token, req_pool_indices,
                               max_seq_pages, page_size, seq_len_delta, v2p_page_table=v2p,
                               kernel_page_multiplier=multiplier, src_is_kernel_page_table=src_is_kernel_page_table,
                               swa_page_table=swa_page_table, full_to_swa_index_mapping=full_to_swa_index_mapping)


def canonical_page_table_any_mode(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    """build_kernel_page_table in the harness calling convention of canonical_page_table (v2p None: the static
    call of kvaddr.check(..., mode="static"))."""
    build_kernel_page_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, max_pages, out,
                            kernel_page_multiplier=multiplier)
