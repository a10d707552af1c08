#pragma once
// Route spec of full_prefill_table (spec §4.11): canonical_page_table's table for a full prefill.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(full_prefill_table, FullPrefillTableArgs, : spec_rules::TableRoute<FullPrefillTableArgs>)
  static constexpr auto fields() { return spec_rules::bounded_table_fields<Args>(); }
  static constexpr const auto& adjacent_admitted = spec_rules::kPoolTableAdjacent;  // harness/adjacent.hpp
  static constexpr AdjacentLayout adjacent_rejected[] = {{"req_to_token out", 1}};
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b04_prefill_no_remap; }
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
  // The table runner's live columns and entry lane (spec_rules::TableRoute); columns [live, width)
  // keep the caller's values (prefix-only).
  template <class I>
  KVADDR_HD static constexpr I live(const spec_rules::TableRowArgs& r, I len, I ps) {
    return columns(len, ps, I(r.bound), r.variant);
  }
  template <class I, class G>
  KVADDR_HD static constexpr I entry(I tok, G&& v2p, I ps, I mult, Variant v, bool) {
    return lanes::full_prefill_entry_lane(tok, v2p, ps, mult, v);
  }
};

}  // namespace kvaddr
