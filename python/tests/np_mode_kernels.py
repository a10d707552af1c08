"""Numpy subjects of the upstream call modes (written from the spec, §4.3 / §4.5), in the harness calling
convention of their route plus the mode's arguments (kvaddr.check(..., mode=)); each with a planted fault that
shows only in its mode:

* static pool (v2p None): ``canonical_static_floor`` divides the padding token with numpy's floor division
  (-1 // ps = -1) where the static entry truncates (0 for ps > 1);
* canonical source (``src_is_kernel_page_table``): ``decode_canonical_batch_rows`` copies row b of the canonical
  table for batch lane b instead of row req_pool_indices[b] (E10);
* token-level SWA map (``full_to_swa_index_mapping``): ``decode_swa_map_no_guard`` gathers the map at a padding
  token without the guard, reading map[-1] (the guard page before the map in the harness's parent; the guard
  reads map[0]): named swa_no_padding_guard;
* ``decode_static_full_width``: the static decode table written in every column below max_seq_pages.
``decode_modes`` is the correct kernel of every decode mode."""
import numpy as np

from np_kernels import decode_metadata, i32, load


def canonical_static(req_to_token, req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages, out, *,
                     floor=False):
    assert v2p is None and multiplier == 1  # the static call
    for b in range(len(req_pool_indices)):
        for c in range(min(-(-int(seq_lens[b]) // page_size), max_pages)):
            tok = int(req_to_token[req_pool_indices[b], c * page_size])
            out[b, c] = tok // page_size if floor else int(np.trunc(tok / page_size))


def canonical_static_floor(**kw):
    canonical_static(**kw, floor=True)


def decode_modes(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta, multiplier,
                 cache_seqlens, cu_seqlens_k, page_table, src_is_kernel_page_table=False,
                 full_to_swa_index_mapping=None, swa_page_table=None, *, batch_rows=False, map_guard=True,
                 full_width=False):
    if v2p is not None and not src_is_kernel_page_table:  # the dense page table: the dense subject
        decode_metadata(seq_lens, req_to_token, req_pool_indices, v2p, max_seq_pages, page_size, seq_len_delta,
                        multiplier, cache_seqlens, cu_seqlens_k, page_table)
    else:
        cs = np.asarray(seq_lens).astype(np.int64) + seq_len_delta
        cache_seqlens[...] = cs.astype(np.int32)
        cu_seqlens_k[0] = 0
        cu_seqlens_k[1:] = np.cumsum(cs).astype(np.int32)
    shift = int(page_size).bit_length() - 1
    for b in range(len(seq_lens)):
        cs = int(seq_lens[b]) + seq_len_delta
        live = max_seq_pages if full_width else min((cs + page_size - 1) >> shift, max_seq_pages)
        row = b if batch_rows else int(req_pool_indices[b])
        for c in range(live):
            if src_is_kernel_page_table:
                page_table[b, c] = req_to_token[row, c]
                continue
            tok = int(req_to_token[row, c * page_size])
            if v2p is None:
                page_table[b, c] = tok >> shift
            if full_to_swa_index_mapping is not None:
                slot = full_to_swa_index_mapping[max(tok, 0)] if map_guard else load(full_to_swa_index_mapping, tok)
                swa_page_table[b, c] = i32(int(slot) >> shift)


def decode_canonical_batch_rows(**kw):
    decode_modes(**kw, batch_rows=True)


def decode_swa_map_no_guard(**kw):
    decode_modes(**kw, map_guard=False)


def decode_static_full_width(**kw):
    decode_modes(**kw, full_width=True)
