#pragma once
// Route spec of canonical_page_table (spec §4.3).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::canonical_page_table> {
  static constexpr Route id = Route::canonical_page_table;
  static constexpr std::string_view name = "canonical_page_table";
  using Args = CanonicalPageTableArgs;
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
    return b == Behaviour::b09_no_padding_guard ||
           b == Behaviour::e02_minus_one_sentinel ||
           b == Behaviour::e10_batch_index_rows ||
           b == Behaviour::e01_no_column_bound ||
           b == Behaviour::era_b_unclamped ||
           b == Behaviour::grid_spill ||
           b == Behaviour::int32_wrap;
  }

  // The req_to_token row batch lane b reads: its pool row in production; E10 reads row b itself.
  template <class I, class PoolRow>
  KVADDR_HD static constexpr I row(I b, PoolRow&& pool_row, Variant v) {
    return has(v, Behaviour::e10_batch_index_rows) ? b : pool_row(b);
  }
  // Live columns of a row of KV length len: ceil(len / ps) bounded by max_pages (lanes::table_columns:
  // E01 drops the bound, grid_spill widens it to the launch grid's column extent).
  template <class I>
  KVADDR_HD static constexpr I columns(I len, I ps, I max_pages, Variant v) {
    return lanes::table_columns(len, ps, max_pages, v);
  }
  // E01 / grid_spill: loads and stores at flat addresses (a column past the row lands in the next row).
  KVADDR_HD static constexpr bool flat_addresses(Variant v) {
    return has(v, Behaviour::e01_no_column_bound) || has(v, Behaviour::grid_spill);
  }
  // Untouched: columns [columns, width) keep the caller's values (prefix-only).
};

}  // namespace kvaddr
