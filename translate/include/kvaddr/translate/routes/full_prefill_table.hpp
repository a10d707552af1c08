#pragma once
// Route spec of full_prefill_table (spec §4.11).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::full_prefill_table> {
  static constexpr Route id = Route::full_prefill_table;
  static constexpr std::string_view name = "full_prefill_table";
  using Args = FullPrefillTableArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("req_to_token", &A::req_to_token),
        required_arg("req_pool_indices", &A::req_pool_indices),
        required_arg("seq_lens", &A::seq_lens),
        required_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        optional_arg("multiplier", &A::multiplier),
        required_arg("max_pages", &A::max_pages),
        required_arg("out", &A::out),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b04_prefill_no_remap;
  }

  // The req_to_token row batch lane b reads: always its pool row.
  template <class I, class PoolRow>
  KVADDR_HD static constexpr I row(I b, PoolRow&& pool_row, Variant) {
    return pool_row(b);
  }
  // Live columns: ceil(len / ps) bounded by max_pages; B04 acts in the entry lane only.
  template <class I>
  KVADDR_HD static constexpr I columns(I len, I ps, I max_pages, Variant) {
    return lanes::table_columns(len, ps, max_pages, Variant{});
  }
  // Untouched: columns [columns, width) keep the caller's values (prefix-only).
};

}  // namespace kvaddr
