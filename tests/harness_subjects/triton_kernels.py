"""Test subjects for kvaddr.check on the GPU: Triton kernels written from the spec (§4.1, 4.2, 4.3, 4.4,
4.5, 4.8, 4.9, 4.12, 4.13), each in the route's production calling convention (docs/harness.md), plus planted-bug
versions (one catalogue bug per kernel, and one graph-capture bug). Not kvaddr code: subjects only."""
import torch
import triton
import triton.language as tl


def _cdiv(a, b):
    return (a + b - 1) // b


# ---- §4.1 translate_v2p -------------------------------------------------------------------------
@triton.jit
def _lane_offsets(BLOCK: tl.constexpr, INT32_OFFS: tl.constexpr):
    """The launch lanes of this program. INT32_OFFS (issue 33): `pid * BLOCK + arange` kept in int32, as the
    upstream translate_v2p / write_loc kernels form it: from lane 2^31 on the offset is negative (lane i gets
    i - 2^32). Formed here by an explicit truncation of the int64 offset (the same values, with no reliance on
    how the compiler treats a signed int32 overflow)."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    if INT32_OFFS:
        offs = offs.to(tl.int32)
    return offs


@triton.jit
def _lane_mask(offs, n, INT32_OFFS: tl.constexpr):
    """Lanes below n. With INT32_OFFS the negative offsets are masked off too: upstream's kernels load and store
    them 16 GiB before the buffers (wherever that lands); a subject that did so would corrupt, or fault on, the
    other allocations of the device, so here those lanes are simply not written, which is what kvaddr's
    int32_lane_offsets says of the buffer (docs/variants.md)."""
    mask = offs < n
    if INT32_OFFS:
        mask = mask & (offs >= 0)
    return mask


@triton.jit
def _translate(virt_ptr, virt_stride, v2p_ptr, out_ptr, n, ps, stride, BLOCK: tl.constexpr, DOC: tl.constexpr,
               INT32_OFFS: tl.constexpr):
    offs = _lane_offsets(BLOCK, INT32_OFFS)
    mask = _lane_mask(offs, n, INT32_OFFS)
    t = tl.load(virt_ptr + offs * virt_stride, mask=mask, other=0).to(tl.int64)
    neg = t < 0
    tt = tl.where(neg, 0, t)
    page = tt // ps
    if DOC:  # B17: the docstring formula, without the v2p gather
        phys = page
    else:
        phys = tl.load(v2p_ptr + page, mask=mask, other=0)
    d = tl.maximum(phys * stride + tt % ps, 0)
    tl.store(out_ptr + offs, tl.where(neg, 0, d).to(out_ptr.dtype.element_ty), mask=mask)


def _translate_launch(virt, v2p, page_size, page_stride, out, doc, int32_offs=False):
    n = virt.numel()
    if n == 0:
        return
    if virt.dim() == 1:
        src, sstride = virt, virt.stride(0)
    else:
        src, sstride = virt.contiguous().view(-1), 1
    assert out.is_contiguous(), "strided out is rejected"
    _translate[(_cdiv(n, 1024),)](src, sstride, v2p, out.view(-1), n, page_size, page_stride, BLOCK=1024, DOC=doc,
                                  INT32_OFFS=int32_offs)


def translate_v2p(virt, v2p, page_size, page_stride, out):
    _translate_launch(virt, v2p, page_size, page_stride, out, False)


def translate_v2p_b17(virt, v2p, page_size, page_stride, out):
    _translate_launch(virt, v2p, page_size, page_stride, out, True)


def translate_v2p_int32_offs(virt, v2p, page_size, page_stride, out):
    """int32_lane_offsets (issue 33): the lane offsets in int32; lanes at or past 2^31 are left unwritten."""
    _translate_launch(virt, v2p, page_size, page_stride, out, False, int32_offs=True)


# ---- §4.3 canonical_page_table / §4.4 read_table ---------------------------------------------
@triton.jit
def _table(r2t_ptr, r2t_s0, rows_ptr, rows_stride, lens_ptr, v2p_ptr, out_ptr, out_s0, ps, mult, max_pages, delta,
           BLOCK: tl.constexpr, BATCH_ROWS: tl.constexpr, NO_BOUND: tl.constexpr, ZERO_TAIL: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    if BATCH_ROWS:  # E10: the batch index used as the req_to_token row
        row = b.to(tl.int64)
    else:
        row = tl.load(rows_ptr + b * rows_stride).to(tl.int64)
    n = (tl.load(lens_ptr + b) + delta + ps - 1) // ps
    if NO_BOUND:  # B10: columns bounded by the page count only (flat store: spills into the next row)
        live = n
    else:
        live = tl.minimum(n, max_pages)
    mask = c < live
    tok = tl.load(r2t_ptr + row * r2t_s0 + c.to(tl.int64) * ps, mask=mask, other=0)
    page = tl.where(tok < 0, 0, tok // ps)
    e = tl.maximum(tl.load(v2p_ptr + page, mask=mask, other=0) * mult, 0)
    dst = out_ptr + b.to(tl.int64) * out_s0 + c
    tl.store(dst, e.to(tl.int32), mask=mask)
    if ZERO_TAIL:
        tl.store(dst, tl.zeros_like(e).to(tl.int32), mask=(c >= live) & (c < max_pages))


def _table_launch(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out, delta=0,
                  zero_tail=False, batch_rows=False, no_bound=False, block=32):
    b = req_pool_indices.numel()
    if zero_tail:
        out[b:, :max_pages] = 0
    if b == 0 or max_pages == 0:
        return
    assert out.stride(1) == 1
    grid = (b, _cdiv(max_pages, block))
    _table[grid](req_to_token, req_to_token.stride(0), req_pool_indices, req_pool_indices.stride(0), seq_lens, v2p,
                 out, out.stride(0), page_size, multiplier, max_pages, delta, BLOCK=block, BATCH_ROWS=batch_rows,
                 NO_BOUND=no_bound, ZERO_TAIL=zero_tail)


def canonical_page_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    _table_launch(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out)


def canonical_page_table_e10(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    _table_launch(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out,
                  batch_rows=True)


def read_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, seq_len_delta,
               zero_tail, out):
    _table_launch(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out, seq_len_delta,
                  zero_tail)


def read_table_b10(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, seq_len_delta,
                   zero_tail, out):
    _table_launch(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out, seq_len_delta,
                  zero_tail, no_bound=True)


# ---- §4.2 Era-B flashmla block table (unclamped) ---------------------------------------------
@triton.jit
def _flashmla(r2t_ptr, r2t_s0, rows_ptr, rows_stride, lens_ptr, start_ptr, v2p_ptr, out_ptr, out_s0, width, ps, mult,
              BLOCK: tl.constexpr, HAS_START: tl.constexpr, FLOOR: tl.constexpr):
    b = tl.program_id(0)
    i = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    row = tl.load(rows_ptr + b * rows_stride).to(tl.int64)
    start = 0
    if HAS_START:
        start = tl.load(start_ptr + b)
    ln = tl.load(lens_ptr + b)
    if FLOOR:  # E09: floor pages (drops a partial last page)
        n = ln // ps
    else:
        n = (ln + ps - 1) // ps
    mask = i < tl.minimum(n, width)
    tok = tl.load(r2t_ptr + row * r2t_s0 + start + i.to(tl.int64) * ps, mask=mask, other=0)
    page = tl.where(tok < 0, 0, tok // ps)
    e = tl.load(v2p_ptr + page, mask=mask, other=0) * mult  # Era B: no clamp (a tombstone gives -M)
    tl.store(out_ptr + b.to(tl.int64) * out_s0 + i, e.to(tl.int32), mask=mask)


def _flashmla_launch(req_to_token, req_pool_indices, page_kernel_lens, v2p, kv_start_idx, page_size, multiplier,
                     kv_indices, floor):
    b, w = req_pool_indices.numel(), kv_indices.shape[1]
    if b == 0 or w == 0:
        return
    block = max(16, 4096 // page_size)
    block = 1 << (block.bit_length() - 1)
    start = kv_start_idx if kv_start_idx is not None else page_kernel_lens
    _flashmla[(b, _cdiv(w, block))](req_to_token, req_to_token.stride(0), req_pool_indices, req_pool_indices.stride(0),
                                    page_kernel_lens, start, v2p, kv_indices, kv_indices.stride(0), w, page_size,
                                    multiplier, BLOCK=block, HAS_START=kv_start_idx is not None, FLOOR=floor)


def flashmla_block_table(req_to_token, req_pool_indices, page_kernel_lens, v2p, kv_start_idx, page_size, multiplier,
                         kv_indices):
    _flashmla_launch(req_to_token, req_pool_indices, page_kernel_lens, v2p, kv_start_idx, page_size, multiplier,
                     kv_indices, False)


def flashmla_block_table_e09(req_to_token, req_pool_indices, page_kernel_lens, v2p, kv_start_idx, page_size,
                             multiplier, kv_indices):
    _flashmla_launch(req_to_token, req_pool_indices, page_kernel_lens, v2p, kv_start_idx, page_size, multiplier,
                     kv_indices, True)


# ---- §4.8 write_loc_to_kernel_ids with DCP ---------------------------------------------------
@triton.jit
def _write_loc_lanes(loc_ptr, loc_stride, v2p_ptr, i, n, ps, stride, dcp, rank, INT32_OFFS: tl.constexpr):
    """The kernel ids of lanes i: 0 for padding, another rank's loc and lanes past n (and, with INT32_OFFS, lanes
    with a negative offset: _lane_mask). Called with ps and dcp as constexprs, the divisions are compiled for those
    values."""
    in_n = _lane_mask(i, n, INT32_OFFS)
    loc = tl.load(loc_ptr + i * loc_stride, mask=in_n, other=0)
    keep = (loc > 0) & (loc % dcp == rank) & in_n
    t = tl.where(keep, loc // dcp, 0)
    phys = tl.load(v2p_ptr + t // ps, mask=keep, other=0)
    return tl.where(keep, tl.maximum(phys * stride + t % ps, 0), 0)


@triton.jit
def _write_loc(loc_ptr, loc_stride, v2p_ptr, out_ptr, n, width, ps, stride, dcp, rank, BLOCK: tl.constexpr,
               STALE: tl.constexpr, INT32_OFFS: tl.constexpr):
    i = _lane_offsets(BLOCK, INT32_OFFS)
    d = _write_loc_lanes(loc_ptr, loc_stride, v2p_ptr, i, n, ps, stride, dcp, rank, INT32_OFFS)
    if STALE:  # B06: the lanes [N, out_width) keep stale values
        tl.store(out_ptr + i, d, mask=_lane_mask(i, n, INT32_OFFS))
    else:
        tl.store(out_ptr + i, d, mask=_lane_mask(i, width, INT32_OFFS))


def _write_loc_launch(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width, stale, int32_offs=False):
    if out_width == 0:
        return
    _write_loc[(_cdiv(out_width, 512),)](loc, loc.stride(0), v2p, out, loc.numel(), out_width, page_size, stride,
                                         dcp_size, dcp_rank, BLOCK=512, STALE=stale, INT32_OFFS=int32_offs)


def write_loc(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width):
    _write_loc_launch(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width, False)


def write_loc_b06(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width):
    _write_loc_launch(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width, True)


def write_loc_int32_offs(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width):
    """int32_lane_offsets (issue 33): the lane offsets in int32; lanes at or past 2^31 (the zeroed tail's included)
    are left unwritten."""
    _write_loc_launch(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width, False, int32_offs=True)


# ---- §4.5 fa3 fused decode metadata with the Era-B v2p remap (guarded, clamped) ---------------
@triton.jit
def _seqlens(seq_ptr, cs_ptr, cu_ptr, bs, delta, BLOCK: tl.constexpr):
    run = tl.sum(tl.zeros([BLOCK], tl.int32), axis=0)
    tl.store(cu_ptr, run)
    for s0 in range(0, bs, BLOCK):
        idx = s0 + tl.arange(0, BLOCK)
        m = idx < bs
        s = (tl.load(seq_ptr + idx, mask=m, other=0) + delta).to(tl.int32)
        tl.store(cs_ptr + idx, s, mask=m)
        tl.store(cu_ptr + 1 + idx, tl.cumsum(s, axis=0) + run, mask=m)
        run += tl.sum(s, axis=0)


@triton.jit
def _decode_table(seq_ptr, r2t_ptr, r2t_s0, rows_ptr, rows_stride, v2p_ptr, pt_ptr, pt_s0, max_seq_pages, delta,
                  mult, col_cap, LOG2PS: tl.constexpr, BLOCK: tl.constexpr, BATCH_ROWS: tl.constexpr,
                  INT32_LEN: tl.constexpr):
    b = tl.program_id(0)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    if INT32_LEN:  # int32_lengths (issue 33): seq_len.to(int32), the page count in int32 arithmetic: it wraps from
        # seq + ps - 1 >= 2^31 on and the row writes no column (the truncations give the int32 values explicitly)
        seq = (tl.load(seq_ptr + b) + delta).to(tl.int32)
        live = (seq.to(tl.int64) + (1 << LOG2PS) - 1).to(tl.int32) >> LOG2PS
    else:
        live = (tl.load(seq_ptr + b) + delta + (1 << LOG2PS) - 1) >> LOG2PS
    live = tl.minimum(tl.minimum(live, max_seq_pages), col_cap)
    if BATCH_ROWS:  # E10
        row = b.to(tl.int64)
    else:
        row = tl.load(rows_ptr + b * rows_stride).to(tl.int64)
    mask = c < live
    tok = tl.load(r2t_ptr + row * r2t_s0 + (c.to(tl.int64) << LOG2PS), mask=mask, other=0)
    page = tl.where(tok < 0, 0, tok >> LOG2PS)
    e = tl.maximum(tl.load(v2p_ptr + page, mask=mask, other=0) * mult, 0)
    tl.store(pt_ptr + b.to(tl.int64) * pt_s0 + c, e.to(tl.int32), mask=mask)


def _decode_launch(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta, multiplier,
                   cache_seqlens, cu_seqlens_k, page_table, batch_rows=False, col_cap=None, int32_len=False):
    bs = seq_lens.numel()
    if bs == 0:
        cu_seqlens_k[0] = 0
        return
    _seqlens[(1,)](seq_lens, cache_seqlens, cu_seqlens_k, bs, seq_len_delta, BLOCK=1024)
    if max_seq_pages == 0:
        return
    cap = max_seq_pages if col_cap is None else col_cap
    _decode_table[(bs, _cdiv(max_seq_pages, 64))](
        seq_lens, req_to_token, req_to_token.stride(0), req_pool_indices, req_pool_indices.stride(0), v2p, page_table,
        page_table.stride(0), max_seq_pages, seq_len_delta, multiplier, cap, LOG2PS=page_size.bit_length() - 1,
        BLOCK=64, BATCH_ROWS=batch_rows, INT32_LEN=int32_len)


def decode_metadata(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta, multiplier,
                    cache_seqlens, cu_seqlens_k, page_table):
    _decode_launch(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta, multiplier,
                   cache_seqlens, cu_seqlens_k, page_table)


def decode_metadata_int32_lengths(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size,
                                  seq_len_delta, multiplier, cache_seqlens, cu_seqlens_k, page_table):
    """int32_lengths (issue 33): the fa3 metadata kernel counting live pages from seq_len.to(int32) in int32."""
    _decode_launch(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta, multiplier,
                   cache_seqlens, cu_seqlens_k, page_table, int32_len=True)


def decode_metadata_e10(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta,
                        multiplier, cache_seqlens, cu_seqlens_k, page_table):
    _decode_launch(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta, multiplier,
                   cache_seqlens, cu_seqlens_k, page_table, batch_rows=True)


class DecodeMetadataBakedColumns:
    """Graph-capture bug: the wrapper bounds columns by the longest row's page count, read on the host
    (eagerly exact); under capture it cannot sync, so it reuses the value of the last eager call, and the
    graph bakes it in: replays with longer rows miss their last columns."""

    def __init__(self):
        self.cols = None

    def __call__(self, seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta,
                 multiplier, cache_seqlens, cu_seqlens_k, page_table):
        if not torch.cuda.is_current_stream_capturing():
            pages = (seq_lens + seq_len_delta + page_size - 1) // page_size
            self.cols = int(pages.max().item()) if seq_lens.numel() else 0
        _decode_launch(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta,
                       multiplier, cache_seqlens, cu_seqlens_k, page_table, col_cap=self.cols)


# ---- §4.9 swa_translate, §4.12 dcp_read_translate, §4.13 transfer_ids -------------------------
# Written as upstream writes its Triton token kernels: BLOCK and the page size (and the DCP size) are
# constexprs, so their divisions are by compile-time constants; one program per BLOCK lanes.
@triton.jit
def _token_remap(ids_ptr, v2p_ptr, out_ptr, n, stride, PAGE_SIZE: tl.constexpr, DCP_SIZE: tl.constexpr,
                 BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w = tl.load(ids_ptr + offs, mask=mask, other=0)
    if DCP_SIZE == 1:
        t = w
    else:  # §4.12: the DCP-widened id collapses to the owner's token (padding stays negative)
        t = tl.where(w < 0, -1, w // DCP_SIZE)
    live = t >= 0
    tt = tl.where(live, t, 0)
    phys = tl.load(v2p_ptr + tt // PAGE_SIZE, mask=mask & live, other=0)
    d = tl.maximum(phys * stride + tt % PAGE_SIZE, 0)
    tl.store(out_ptr + offs, tl.where(live, d, 0), mask=mask)


def _token_remap_launch(ids, v2p, page_size, stride, dcp_size, out):
    n = ids.numel()
    if n == 0:
        return
    src = ids.reshape(-1) if ids.is_contiguous() else ids.contiguous().view(-1)
    assert out.is_contiguous(), "strided out is rejected"
    _token_remap[(_cdiv(n, 1024),)](src, v2p, out.view(-1), n, stride, PAGE_SIZE=page_size, DCP_SIZE=dcp_size,
                                    BLOCK=1024)


def swa_translate(ids, swa_v2p, page_size, swa_multiplier, out):
    _token_remap_launch(ids, swa_v2p, page_size, page_size * swa_multiplier, 1, out)


def dcp_read_translate(ids, v2p, page_size, multiplier, dcp_size, out):
    _token_remap_launch(ids, v2p, page_size, page_size * multiplier, dcp_size, out)


def transfer_ids(ids, v2p, page_size, out):
    _token_remap_launch(ids, v2p, page_size, page_size, 1, out)


def translate_v2p_constexpr(virt, v2p, page_size, page_stride, out):
    """§4.1 with the page size a constexpr (translate_v2p above takes it at run time)."""
    _token_remap_launch(virt, v2p, page_size, page_stride, 1, out)


# write_loc with the page size and DCP size as constexprs (the upstream form of the same kernel as
# write_loc above, whose scalars are run-time values); the performance peer of kvaddr's write_loc.
@triton.jit
def _write_loc_constexpr(loc_ptr, loc_stride, v2p_ptr, out_ptr, n, width, stride, rank, PAGE_SIZE: tl.constexpr,
                         DCP_SIZE: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    d = _write_loc_lanes(loc_ptr, loc_stride, v2p_ptr, i, n, PAGE_SIZE, stride, DCP_SIZE, rank, False)
    tl.store(out_ptr + i, d, mask=i < width)


def write_loc_constexpr(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width):
    if out_width == 0:
        return
    _write_loc_constexpr[(_cdiv(out_width, 1024),)](loc, loc.stride(0), v2p, out, loc.numel(), out_width, stride,
                                                    dcp_rank, PAGE_SIZE=page_size, DCP_SIZE=dcp_size, BLOCK=1024)


# ---- §4.5 in upstream's launch shape: one fused launch ----------------------------------------
# The fa3 decode-metadata kernel as the spec describes upstream's structure: a single launch over the grid
# (B, cdiv(max_seq_pages, BLOCK_COLS)); program (0, 0) first walks the batch serially, writing cache_seqlens[b]
# and the running sum cu_seqlens_k[b] (cu_seqlens_k[B] = the total), then every program writes its column
# chunk of the page table, bounded by the row's live page count (prefix-only) and remapped through v2p with the
# padding guard and the sink clamp (the intended contract). decode_metadata above splits the prefix sums into
# a launch of their own with a vector cumsum; this one is the performance peer of upstream's form.
@triton.jit
def _decode_fused(seq_ptr, r2t_ptr, r2t_s0, rows_ptr, rows_stride, v2p_ptr, cs_ptr, cu_ptr, pt_ptr, pt_s0, bs,
                  max_seq_pages, delta, mult, LOG2PS: tl.constexpr, BLOCK_COLS: tl.constexpr):
    b = tl.program_id(0)
    chunk = tl.program_id(1)
    if (b == 0) & (chunk == 0):
        run = tl.sum(tl.zeros([2], tl.int32), axis=0)
        for j in range(bs):
            s = (tl.load(seq_ptr + j) + delta).to(tl.int32)
            tl.store(cs_ptr + j, s)
            tl.store(cu_ptr + j, run)
            run += s
        tl.store(cu_ptr + bs, run)
    if b < bs:
        c = chunk * BLOCK_COLS + tl.arange(0, BLOCK_COLS)
        live = (tl.load(seq_ptr + b) + delta + (1 << LOG2PS) - 1) >> LOG2PS
        mask = c < tl.minimum(live, max_seq_pages)
        row = tl.load(rows_ptr + b * rows_stride).to(tl.int64)
        tok = tl.load(r2t_ptr + row * r2t_s0 + (c.to(tl.int64) << LOG2PS), mask=mask, other=0)
        page = tl.where(tok < 0, 0, tok >> LOG2PS)
        e = tl.maximum(tl.load(v2p_ptr + page, mask=mask, other=0) * mult, 0)
        tl.store(pt_ptr + b.to(tl.int64) * pt_s0 + c, e.to(tl.int32), mask=mask)


def decode_metadata_fused(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta,
                          multiplier, cache_seqlens, cu_seqlens_k, page_table):
    """Upstream's launch parameters: BLOCK_COLS 256 and 8 warps at ps = 1, 128 and 4 warps otherwise; a (1, 1)
    grid when there are no columns, so that program (0, 0) still writes the prefix sums."""
    bs = seq_lens.numel()
    if bs == 0:
        cu_seqlens_k[0] = 0
        return
    block, warps = (256, 8) if page_size == 1 else (128, 4)
    grid = (bs, _cdiv(max_seq_pages, block)) if max_seq_pages > 0 else (1, 1)
    _decode_fused[grid](seq_lens, req_to_token, req_to_token.stride(0), req_pool_indices, req_pool_indices.stride(0),
                        v2p, cache_seqlens, cu_seqlens_k, page_table, page_table.stride(0), bs, max_seq_pages,
                        seq_len_delta, multiplier, LOG2PS=page_size.bit_length() - 1, BLOCK_COLS=block,
                        num_warps=warps, num_stages=3)


# The page tables in upstream's grid: 256-column blocks (§4.3 / §4.4's non-strided kernel); the PRODUCTION
# canonical_page_table / read_table above use 32-column programs.
def canonical_page_table_grid256(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    _table_launch(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out, block=256)


def read_table_grid256(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, seq_len_delta,
                       zero_tail, out):
    _table_launch(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out, seq_len_delta,
                  zero_tail, block=256)


PRODUCTION = {
    "token_translate": translate_v2p,
    "canonical_page_table": canonical_page_table,
    "read_table": read_table,
    "flashmla_block_table": flashmla_block_table,
    "write_loc": write_loc,
    "decode_metadata": decode_metadata,
    "swa_translate": swa_translate,
    "dcp_read_translate": dcp_read_translate,
    "transfer_ids": transfer_ids,
}
# Performance peers (bench/peer.py) that are not the PRODUCTION subject of their route.
PEERS = {"write_loc_constexpr": ("write_loc", write_loc_constexpr),
         "translate_v2p_constexpr": ("token_translate", translate_v2p_constexpr),
         "decode_metadata_fused": ("decode_metadata", decode_metadata_fused),
         "canonical_page_table_grid256": ("canonical_page_table", canonical_page_table_grid256),
         "read_table_grid256": ("read_table", read_table_grid256)}
# route -> (kernel, the variant check() claims, the variant the planted bug must be named as (or a tuple of names, one
# of which must be named, in behaves_like or as an inferred claim))
PLANTED = {
    "translate_v2p_b17": ("token_translate", translate_v2p_b17, "production", "b17_doc_formula"),
    "canonical_page_table_e10": ("canonical_page_table", canonical_page_table_e10, "production", "e10_batch_index_rows"),
    # B10 as a Triton launch: the spill is bounded by the launch grid (columns < 32 * ceil(max_pages / 32)), so
    # it is b10 where the spill stays inside the grid and the grid-bounded spill (grid_spill@G) past it
    "read_table_b10": ("read_table", read_table_b10, "production", ("b10_no_max_pages_bound", "grid_spill")),
    "flashmla_block_table_e09": ("flashmla_block_table", flashmla_block_table_e09, "era_b_unclamped",
                                 "e09_floor_pages"),
    "write_loc_b06": ("write_loc", write_loc_b06, "production", "b06_stale_tail"),
    "decode_metadata_e10": ("decode_metadata", decode_metadata_e10, "production", "e10_batch_index_rows"),
}
CLAIMS = {"flashmla_block_table": "era_b_unclamped"}

def planted_named(failure, want):
    """Whether a failure names a planted subject's bug: `want` (one name or a tuple of names) in its behaves_like
    (also as NAME@G) or as the claim of one of its inferred behaviours."""
    wants = (want,) if isinstance(want, str) else want
    names = list(failure.behaves_like) + list(failure.inferred or [])
    return any(n == w or n.startswith(w + "@") or f"claim {w}" in n for n in names for w in wants)

