#pragma once
// Route spec of canonical_page_table (spec §4.3).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::canonical_page_table> : spec_rules::PoolRowOrBatchIndex, spec_rules::BoundedTableColumns {
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

  // Untouched: columns [columns, width) keep the caller's values (prefix-only).
};

}  // namespace kvaddr
