#pragma once
// Route spec of canonical_page_table (spec §4.3): a max_pages-bounded page table, prefix only.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(canonical_page_table, CanonicalPageTableArgs,
                  : spec_rules::TableRoute<CanonicalPageTableArgs>, spec_rules::PoolRowOrBatchIndex,
                    spec_rules::BoundedTableColumns)
  static constexpr auto fields() { return spec_rules::bounded_table_fields<Args>(); }
  static constexpr std::string_view doc = "§4.3, prefix-only; out int32 [>= B, >= max_pages].";
  static constexpr const auto& adjacent_admitted = spec_rules::kPoolTableAdjacent;  // harness/adjacent.hpp
  static constexpr AdjacentLayout adjacent_rejected[] = {{"req_to_token out", 1}};
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::b09_no_padding_guard, Behaviour::e02_minus_one_sentinel, Behaviour::e10_batch_index_rows,
                  Behaviour::e01_no_column_bound, Behaviour::era_b_unclamped, Behaviour::grid_spill,
                  Behaviour::int32_wrap);
  }
  // The table runner's entry lane and addresses (spec_rules::TableRoute; its live columns are
  // BoundedTableColumns::live); columns [live, width) keep the caller's values (prefix-only).
  // E01 / grid_spill: flat loads and stores.
  template <class I, class G>
  KVADDR_HD static constexpr I entry(I tok, G&& v2p, I ps, I mult, Variant v, bool) {
    return lanes::page_entry_lane(tok, v2p, ps, mult, v);
  }
  static constexpr bool flat_loads(Variant v) { return flat_addresses(v); }
  static constexpr bool flat_stores(Variant v) { return flat_addresses(v); }
};

}  // namespace kvaddr
