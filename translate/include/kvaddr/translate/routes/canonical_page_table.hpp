#pragma once
// Route spec of canonical_page_table (spec §4.3): a max_pages-bounded page table, prefix only.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(canonical_page_table, CanonicalPageTableArgs,
                  : spec_rules::PoolRowOrBatchIndex, spec_rules::BoundedTableColumns)
  static constexpr auto fields() { return spec_rules::bounded_table_fields<Args>(); }
  static constexpr std::string_view doc = "§4.3, prefix-only; out int32 [>= B, >= max_pages].";
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::b09_no_padding_guard, Behaviour::e02_minus_one_sentinel, Behaviour::e10_batch_index_rows,
                  Behaviour::e01_no_column_bound, Behaviour::era_b_unclamped, Behaviour::grid_spill,
                  Behaviour::int32_wrap);
  }
  // Untouched: columns [columns, width) keep the caller's values (prefix-only).
};

}  // namespace kvaddr
