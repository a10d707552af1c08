#pragma once
// Route spec of flashmla_block_table (spec §4.2).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::flashmla_block_table> : spec_rules::PoolRowOrBatchIndex {
  static constexpr Route id = Route::flashmla_block_table;
  static constexpr std::string_view name = "flashmla_block_table";
  using Args = FlashmlaBlockTableArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("req_to_token", &A::req_to_token),
        required_arg("req_pool_indices", &A::req_pool_indices),
        required_arg("page_kernel_lens", &A::page_kernel_lens),
        optional_arg("kv_start_idx", &A::kv_start_idx),
        optional_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        optional_arg("multiplier", &A::multiplier),
        required_arg("kv_indices", &A::kv_indices),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::era_b_unclamped ||
           b == Behaviour::b09_no_padding_guard ||
           b == Behaviour::e09_floor_pages ||
           b == Behaviour::e10_batch_index_rows ||
           b == Behaviour::int32_wrap;
  }

  // Live columns: ceil(len / ps) pages (E09: floor), never past the table width W; columns
  // [live, W) keep the caller's -1.
  template <class I>
  KVADDR_HD static constexpr I pages(I len, I ps, Variant v) {
    return lanes::page_count(len, ps, v);
  }
  template <class I>
  KVADDR_HD static constexpr I columns(I pages, I width) {
    using lanes::kv_pick;  // builtin integers; a symbolic I brings its own by argument-dependent lookup
    return kv_pick(pages < width, pages, width);
  }
};

}  // namespace kvaddr
