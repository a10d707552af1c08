#pragma once
// Route spec of read_table (spec §4.4).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(read_table, ReadTableArgs, : spec_rules::TableRoute<ReadTableArgs>, spec_rules::PoolRowOrBatchIndex,
                  spec_rules::BoundedTableColumns)
  // The arguments, by spec / manifest name (req_pool_indices fills row_ids).
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("req_to_token", &A::req_to_token), required_arg("req_pool_indices", &A::row_ids).widening(),
                      required_arg("seq_lens", &A::seq_lens).widening(), optional_arg("seq_len_delta", &A::seq_len_delta),
                      required_arg("max_pages", &A::max_pages), optional_arg("v2p", &A::v2p),
                      required_arg("page_size", &A::page_size), optional_arg("multiplier", &A::multiplier),
                      required_arg("out", &A::out), optional_arg("zero_tail", &A::zero_tail),
                      optional_arg("variant", &A::variant)};
  }
  static constexpr std::string_view doc = "§4.4 build_kv_read_table; req_pool_indices are the row ids.";
  static constexpr const auto& adjacent_admitted = spec_rules::kPoolTableAdjacent;  // harness/adjacent.hpp
  static constexpr AdjacentLayout adjacent_rejected[] = {{"req_to_token out", 1}};
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::b10_no_max_pages_bound, Behaviour::b09_no_padding_guard, Behaviour::e01_no_column_bound,
                  Behaviour::e02_minus_one_sentinel, Behaviour::e09_floor_pages, Behaviour::e10_batch_index_rows,
                  Behaviour::era_b_unclamped, Behaviour::grid_spill, Behaviour::int32_wrap);
  }

  // The behaviours that act inside the entry lane (B09, era_b_unclamped); the others act on the
  // row loop (E02 here is the tail fill, not the clamp).
  KVADDR_HD static constexpr Variant entry_variant(Variant v) {
    return Variant{v.bits & (Variant::of(Behaviour::b09_no_padding_guard).bits |
                             Variant::of(Behaviour::era_b_unclamped).bits)};
  }
  // The table runner (spec_rules::TableRoute): rows from row_ids, KV lengths seq_lens + seq_len_delta,
  // stores at flat addresses (B10 / E01 spill into the next row; past the buffer is OutOfRange("out")),
  // loads at flat addresses under E01 / grid_spill; only B09 and era_b_unclamped act in the entry lane.
  static constexpr std::string_view rows_name = "row_ids";
  template <class T>
  KVADDR_HD static constexpr const auto& row_ids(const T& a) { return a.row_ids; }
  static constexpr spec_rules::TableRowArgs row_args(const Args& a) {
    return {a.max_pages, a.seq_len_delta, a.zero_tail, a.variant};
  }
  template <class I, class G>
  KVADDR_HD static constexpr I entry(I tok, G&& v2p, I ps, I mult, Variant v, bool) {
    return lanes::page_entry_lane(tok, v2p, ps, mult, entry_variant(v));
  }
  static constexpr bool flat_loads(Variant v) { return flat_addresses(v); }
  static constexpr bool flat_stores(Variant) { return true; }
  // zero_tail: columns [live, max_pages) of each row and [0, max_pages) of rows [B, out.rows) get
  // the sink 0; E02 fills the slot-map pad -1 instead. Without zero_tail they are untouched.
  static constexpr bool kMayHaveTail = true;  // row_args(a).tail = zero_tail
  template <class I>
  KVADDR_HD static constexpr I tail_fill(Variant v) {
    return has(v, Behaviour::e02_minus_one_sentinel) ? I(-1) : I(0);
  }
  // The end of the columns a row writes: the live prefix, or max_pages with zero_tail.
  template <class I>
  KVADDR_HD static constexpr I written_columns(I live, I max_pages, bool zero_tail) {
    using lanes::kv_pick;  // builtin integers; a symbolic I brings its own by argument-dependent lookup
    return zero_tail ? kv_pick(live < max_pages, max_pages, live) : live;
  }
  template <class I>
  KVADDR_HD static constexpr I written(const spec_rules::TableRowArgs& r, I live) {
    return written_columns(live, I(r.bound), r.tail);
  }
  // B10 drops the max_pages bound: the launch grid spans the output's columns.
  static constexpr std::int64_t grid_columns(const Args& a) {
    return has(a.variant, Behaviour::b10_no_max_pages_bound) ? a.out.cols : a.max_pages;
  }
};

}  // namespace kvaddr
