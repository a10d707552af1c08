#pragma once
// A decode_metadata call's arguments from its batch inputs (decode_batch) and its three outputs
// (set_decode_outputs); the caller sets v2p, the multiplier and the other options by name.
#include <cstdint>

#include "kvaddr/translate/contracts.hpp"

namespace kvaddr {

inline DecodeMetadataArgs decode_batch(Vec<const std::int64_t> seq_lens, Mat<const std::int32_t> req_to_token,
                                       Vec<const std::int64_t> req_pool_indices, std::int64_t max_seq_pages,
                                       std::int64_t page_size) {
  DecodeMetadataArgs a;
  a.seq_lens = seq_lens;
  a.req_to_token = req_to_token;
  a.req_pool_indices = req_pool_indices;
  a.max_seq_pages = max_seq_pages;
  a.page_size = page_size;
  return a;
}

inline void set_decode_outputs(DecodeMetadataArgs& a, Vec<std::int32_t> cache_seqlens, Vec<std::int32_t> cu_seqlens_k,
                               Mat<std::int32_t> page_table) {
  a.cache_seqlens = cache_seqlens;
  a.cu_seqlens_k = cu_seqlens_k;
  a.page_table = page_table;
}

}  // namespace kvaddr
