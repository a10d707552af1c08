#pragma once
// Route spec of decode_metadata (spec §4.5).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::decode_metadata> : spec_rules::PoolRowOrBatchIndex {
  static constexpr Route id = Route::decode_metadata;
  static constexpr std::string_view name = "decode_metadata";
  using Args = DecodeMetadataArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("seq_lens", &A::seq_lens),
        optional_arg("req_to_token", &A::req_to_token),
        optional_arg("req_pool_indices", &A::req_pool_indices),
        required_arg("max_seq_pages", &A::max_seq_pages),
        optional_arg("seq_len_delta", &A::seq_len_delta),
        required_arg("page_size", &A::page_size),
        optional_arg("v2p", &A::v2p),
        optional_arg("multiplier", &A::multiplier),
        optional_arg("kernel_page_table", &A::kernel_page_table),
        optional_arg("skip_page_table", &A::skip_page_table),
        required_arg("cache_seqlens", &A::cache_seqlens),
        required_arg("cu_seqlens_k", &A::cu_seqlens_k),
        optional_arg("page_table", &A::page_table),
        optional_arg("swa_v2p", &A::swa_v2p),
        optional_arg("swa_multiplier", &A::swa_multiplier),
        optional_arg("swa_page_table", &A::swa_page_table),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::era_b_unclamped ||
           b == Behaviour::b09_no_padding_guard ||
           b == Behaviour::e10_batch_index_rows ||
           b == Behaviour::int32_wrap;
  }

  // Live columns of the fa3 kernels, by shift (lanes::decode_columns); columns past them are untouched.
  template <class I>
  KVADDR_HD static constexpr I columns(I len, I ps, int log2_ps, I max_seq_pages) {
    return lanes::decode_columns(len, ps, log2_ps, max_seq_pages);
  }
};

}  // namespace kvaddr
