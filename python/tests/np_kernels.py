"""Numpy kernels written from the spec (§4), in each route's production calling convention, used as
test subjects for kvaddr.check: a correct one per route and planted-bug ones (catalogue bugs, an
out-of-bounds writer, one that raises, one returning the wrong dtype)."""
import numpy as np


def _entry(v2p, page, mult, clamp=True):
    e = load(v2p, page) * mult if np.ndim(page) == 0 else v2p[page] * mult
    return np.maximum(e, 0) if clamp else e


def i32(x):
    """An int32 store of x as a GPU kernel makes it: the low 32 bits, two's complement."""
    return (int(x) + 2**31) % 2**32 - 2**31


def load(v2p, i):
    """v2p[i] read like a kernel's pointer load: an index outside the view reads the parent array
    the view was sliced from (IndexError outside the parent), never numpy's wrap-around."""
    i = int(i)
    if 0 <= i < v2p.size:
        return int(v2p[i])
    base = v2p.base
    off = (v2p.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // v2p.itemsize
    if not 0 <= off + i < base.size:
        raise IndexError(f"v2p[{i}] outside the parent allocation")
    return int(base[off + i])


# ---- token routes -------------------------------------------------------------------------------
def translate_v2p(virt, v2p, page_size, page_stride, out):
    t = np.asarray(virt).astype(np.int64)
    page = np.where(t < 0, 0, t // page_size)
    d = np.maximum(v2p[page] * page_stride + t % page_size, 0)
    out[...] = np.where(t < 0, 0, d)


def translate_v2p_doc_formula(virt, v2p, page_size, page_stride, out):
    """B17: the docstring formula (t // ps) * stride + t % ps, without the v2p gather."""
    t = np.asarray(virt).astype(np.int64)
    out[...] = np.where(t < 0, 0, np.maximum((t // page_size) * page_stride + t % page_size, 0))


def translate_v2p_int32(virt, v2p, page_size, page_stride, out):
    """E03: the offset v2p[p] * stride + o computed in int32 (wraps past 2^31)."""
    t = np.asarray(virt).astype(np.int64)
    page = np.where(t < 0, 0, t // page_size)
    wide = v2p[page] * page_stride + t % page_size
    d = np.maximum(wide.astype(np.int32).astype(np.int64), 0)
    out[...] = np.where(t < 0, 0, d)


def translate_v2p_oob(virt, v2p, page_size, page_stride, out):
    """Correct lanes, then one store just past the end of out (through the allocation out lives in)."""
    translate_v2p(virt, v2p, page_size, page_stride, out)
    base = out
    while base.base is not None and isinstance(base.base, np.ndarray):
        base = base.base
    flat = base.reshape(-1)
    start = flat.__array_interface__["data"][0]
    end = out.__array_interface__["data"][0] + out.nbytes  # out is contiguous
    k = (end - start) // flat.itemsize
    if k < flat.size:
        flat[k] = 12345


def translate_v2p_raises(virt, v2p, page_size, page_stride, out):
    if np.asarray(virt).size > 3:
        raise RuntimeError("kernel launch failed: too many ids")
    translate_v2p(virt, v2p, page_size, page_stride, out)


def translate_v2p_wrong_dtype(virt, v2p, page_size, page_stride, out):
    res = np.zeros(np.asarray(virt).shape, dtype=np.int32)
    tmp = np.zeros(res.shape, dtype=np.int64)
    translate_v2p(virt, v2p, page_size, page_stride, tmp)
    res[...] = tmp
    return res


# ---- tables ------------------------------------------------------------------------------------
def canonical_page_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out,
                         *, guard=True, column_bound=True):
    for b in range(len(req_pool_indices)):
        n = -(-int(seq_lens[b]) // page_size)
        if column_bound:
            n = min(n, max_pages)
        for c in range(n):
            tok = int(req_to_token[req_pool_indices[b], c * page_size])
            page = (0 if tok < 0 else tok // page_size) if guard else int(np.trunc(tok / page_size))
            out[b, c] = i32(max(load(v2p, page) * multiplier, 0))


def canonical_no_guard(**kw):
    """B09: truncating division, no padding guard (a -1 token at ps = 1 reads v2p[-1])."""
    canonical_page_table(**kw, guard=False)


def read_table(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, seq_len_delta,
               zero_tail, out, *, bound=True):
    rows = out.shape[0]
    for b in range(len(req_pool_indices)):
        n = -(-(int(seq_lens[b]) + seq_len_delta) // page_size)
        live = min(n, max_pages) if bound else n
        for c in range(live):
            tok = int(req_to_token[req_pool_indices[b], c * page_size])
            page = 0 if tok < 0 else tok // page_size
            if c < out.shape[1]:
                out[b, c] = i32(max(int(v2p[page]) * multiplier, 0))
            else:  # a flat store past the row: the next row (or past the buffer)
                flat_row = b + c // out.shape[1]
                if flat_row < rows:
                    out[flat_row, c % out.shape[1]] = i32(max(int(v2p[page]) * multiplier, 0))
        if zero_tail:
            out[b, min(n, max_pages):max_pages] = 0
    if zero_tail:
        out[len(req_pool_indices):, :max_pages] = 0


def read_table_no_bound(**kw):
    """B10: columns bounded by n_pages only."""
    read_table(**kw, bound=False)


def flashmla_block_table(req_to_token, req_pool_indices, page_kernel_lens, v2p, kv_start_idx, page_size, multiplier,
                         kv_indices, *, clamp=False, floor_pages=False):
    """Era B (unclamped): v2p[tok // ps] * M for i < ceil(len / ps)."""
    for b in range(len(req_pool_indices)):
        start = 0 if kv_start_idx is None else int(kv_start_idx[b])
        ln = int(page_kernel_lens[b])
        n = ln // page_size if floor_pages else -(-ln // page_size)
        for i in range(min(n, kv_indices.shape[1])):
            tok = int(req_to_token[req_pool_indices[b], start + i * page_size])
            page = 0 if tok < 0 else tok // page_size
            kv_indices[b, i] = i32(_entry(v2p, page, multiplier, clamp))


def flashmla_floor_pages(**kw):
    """E09: floor(len / ps) pages (drops the partial last page)."""
    flashmla_block_table(**kw, floor_pages=True)


def decode_metadata(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta, multiplier,
                    cache_seqlens, cu_seqlens_k, page_table, *, guard=True, clamp=True, batch_rows=False):
    cs = (np.asarray(seq_lens) + seq_len_delta).astype(np.int64)
    cache_seqlens[...] = cs.astype(np.int32)
    cu_seqlens_k[0] = 0
    cu_seqlens_k[1:] = np.cumsum(cs).astype(np.int32)
    shift = int(page_size).bit_length() - 1
    for b in range(len(seq_lens)):
        live = min((int(cs[b]) + page_size - 1) >> shift, max_seq_pages)
        row = b if batch_rows else int(req_pool_indices[b])
        for c in range(live):
            tok = int(req_to_token[row, c * page_size])
            page = (0 if tok < 0 else tok >> shift) if guard else tok >> shift
            page_table[b, c] = i32(_entry(v2p, page, multiplier, clamp))


def decode_metadata_as_written(**kw):
    """PR #33046 as written: no padding guard (B09) and unclamped entries (Era B)."""
    decode_metadata(**kw, guard=False, clamp=False)


def decode_metadata_no_guard(**kw):
    """B09: a padding token -1 shifts to page -1 and reads v2p[-1]."""
    decode_metadata(**kw, guard=False)


def decode_metadata_batch_rows(**kw):
    """E10: the batch index used as the req_to_token row."""
    decode_metadata(**kw, batch_rows=True)


def write_loc(loc, v2p, page_size, stride, dcp_size, dcp_rank, out, out_width, *, zero_tail=True):
    loc = np.asarray(loc).astype(np.int64)
    n = loc.size
    keep = (loc > 0) & (loc % dcp_size == dcp_rank)
    t = np.where(keep, loc // dcp_size, 0)
    d = np.maximum(v2p[t // page_size] * stride + t % page_size, 0)
    out[:n] = np.where(keep, d, 0)
    if zero_tail:
        out[n:out_width] = 0


def write_loc_stale_tail(**kw):
    """B06: the lanes [N, out_width) are not cleared."""
    write_loc(**kw, zero_tail=False)


def canonical_batch_rows(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out):
    """E10: the batch index used as the req_to_token row."""
    canonical_page_table(req_to_token, np.arange(len(req_pool_indices)), seq_lens, v2p, page_size, multiplier,
                         max_pages, out)


def translate_v2p_writes_input(virt, v2p, page_size, page_stride, out):
    """Correct output, but it clears the v2p entry of the last page."""
    translate_v2p(virt, v2p, page_size, page_stride, out)
    if np.asarray(virt).size and not np.shares_memory(virt, out):
        v2p[-1] = 0 if v2p[-1] != 0 else 1


def _flat(out):
    """The allocation out lives in (flat) and out's first element's index in it."""
    base = out
    while base.base is not None and isinstance(base.base, np.ndarray):
        base = base.base
    flat = base.reshape(-1)
    return flat, (out.__array_interface__["data"][0] - flat.__array_interface__["data"][0]) // flat.itemsize


def read_table_flat_spill(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages,
                          seq_len_delta, zero_tail, out):
    """B10 as a GPU kernel has it: columns up to the page count, stored at row * stride + column through the
    allocation (past the last row: past the buffer)."""
    flat, off = _flat(out)
    rs = out.strides[0] // out.itemsize
    for b in range(len(req_pool_indices)):
        n = -(-(int(seq_lens[b]) + seq_len_delta) // page_size)
        for c in range(n):
            tok = int(req_to_token[req_pool_indices[b], c * page_size])
            k = off + b * rs + c
            if k < flat.size:
                flat[k] = i32(max(int(v2p[0 if tok < 0 else tok // page_size]) * multiplier, 0))


def kv_indices_inplace(kv_indices, kv_indptr, batch_size, v2p, page_size, multiplier, *, rebind=False):
    """§4.7: kv_indices[:kv_indptr[batch_size]] translated in place (d(t), int32); the tail untouched."""
    n = int(kv_indptr[batch_size])
    t = kv_indices[:n].astype(np.int64)
    page = np.where(t < 0, 0, t // page_size)
    d = np.where(t < 0, 0, np.maximum(v2p[page] * page_size * multiplier + t % page_size, 0)).astype(np.int32)
    if rebind:  # B05: the translated ids go to a fresh buffer; the bound one keeps the virtual ids
        kv_indices = d
    else:
        kv_indices[:n] = d


def kv_indices_rebind(**kw):
    kv_indices_inplace(**kw, rebind=True)


# ---- eager_funnel ------------------------------------------------------------------------------
def _translate_flat(t, v2p, page_size, multiplier):
    page = np.where(t < 0, 0, t // page_size)
    return np.where(t < 0, 0, np.maximum(v2p[page] * page_size * multiplier + t % page_size, 0))


def eager_funnel(page_table, v2p, page_size, multiplier, out):
    """§4.6: flatten, token-translate (clamped), reshape, divide by ps."""
    t = np.asarray(page_table).astype(np.int64)
    d = _translate_flat(t.reshape(-1), v2p, page_size, multiplier).reshape(t.shape)
    out[...] = d // page_size


def eager_funnel_fresh(page_table, v2p, page_size, multiplier, out):
    """The same, returning a fresh tensor (eager paths may) instead of writing out."""
    t = np.asarray(page_table).astype(np.int64)
    return _translate_flat(t.reshape(-1), v2p, page_size, multiplier).reshape(t.shape) // page_size


def _index_select(v2p, index):
    if index.ndim != 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return v2p[index]


def eager_funnel_b02(page_table, v2p, page_size, multiplier, out):
    """B02: the rank-2 table passed straight in; the ps = 1 path gathers with a 1-D-only index_select."""
    t = np.asarray(page_table).astype(np.int64)
    if page_size == 1:
        d = np.where(t < 0, 0, np.maximum(_index_select(v2p, np.where(t < 0, 0, t)) * multiplier, 0))
    else:
        d = _translate_flat(t.reshape(-1), v2p, page_size, multiplier).reshape(t.shape)
    out[...] = d // page_size


def eager_funnel_unclamped(page_table, v2p, page_size, multiplier, out):
    """v2p[p] * M without the clamp: a tombstone gives -M (the flashmla Era-B entry, wrong here)."""
    t = np.asarray(page_table).astype(np.int64)
    page = np.where(t < 0, 0, t // page_size)
    out[...] = np.where(t < 0, 0, v2p[page] * multiplier)


def canonical_grid_spill(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out,
                         *, block=256):
    """The grid-bounded spill as the upstream kernel has it: a grid of ceil(max_pages / block) column blocks
    of `block` lanes stores columns up to min(n_pages, block * ceil(max_pages / block)) at row * stride +
    column through the allocation (into the next rows, or past the buffer)."""
    flat, off = _flat(out)
    rs = out.strides[0] // out.itemsize
    bound = block * (-(-int(max_pages) // block))
    for b in range(len(req_pool_indices)):
        n = min(-(-int(seq_lens[b]) // page_size), bound)
        for c in range(n):
            tok = int(req_to_token[req_pool_indices[b], c * page_size])
            k = off + b * rs + c
            if k < flat.size:
                flat[k] = i32(max(int(v2p[0 if tok < 0 else tok // page_size]) * multiplier, 0))


def decode_metadata_oob(**kw):
    """Correct metadata, then one int32 store just past the end of cache_seqlens (through its allocation): in a
    workspace where cu_seqlens_k follows, it lands on cu_seqlens_k[0]."""
    decode_metadata(**kw)
    cs = kw["cache_seqlens"]
    flat, off = _flat(cs)
    k = (cs.__array_interface__["data"][0] + cs.nbytes - flat.__array_interface__["data"][0]) // flat.itemsize
    if k < flat.size:
        flat[k] = 12345
