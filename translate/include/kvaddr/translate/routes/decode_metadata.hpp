#pragma once
// Route spec of decode_metadata (spec §4.5).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::decode_metadata> {
  static constexpr Route id = Route::decode_metadata;
  static constexpr std::string_view name = "decode_metadata";
  using Args = DecodeMetadataArgs;
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::era_b_unclamped ||
           b == Behaviour::b09_no_padding_guard ||
           b == Behaviour::e10_batch_index_rows ||
           b == Behaviour::int32_wrap;
  }

  // The req_to_token row batch lane b reads: its pool row in production; E10 reads row b itself.
  template <class I, class PoolRow>
  KVADDR_HD static constexpr I row(I b, PoolRow&& pool_row, Variant v) {
    return has(v, Behaviour::e10_batch_index_rows) ? b : pool_row(b);
  }
  // Live columns of the fa3 kernels, by shift (lanes::decode_columns); columns past them are untouched.
  template <class I>
  KVADDR_HD static constexpr I columns(I len, I ps, int log2_ps, I max_seq_pages) {
    return lanes::decode_columns(len, ps, log2_ps, max_seq_pages);
  }
};

}  // namespace kvaddr
