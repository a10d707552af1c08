#pragma once
// Row and column rules that several page-table route specs follow; a spec inherits the ones it
// follows, so each rule is written once for the host, the device and every consumer.
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "kvaddr/translate/arg_field.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/variant.hpp"

namespace kvaddr::spec_rules {

// The req_to_token row batch lane b reads: its pool row in production; E10 reads row b itself.
struct PoolRowOrBatchIndex {
  template <class I, class PoolRow>
  KVADDR_HD static constexpr I row(I b, PoolRow&& pool_row, Variant v) {
    return has(v, Behaviour::e10_batch_index_rows) ? b : pool_row(b);
  }
};

// The scalars of a page-table call that its row rules read (TableRoute: live, clip, written, the
// KV length), apart from its views: Spec::row_args(a) makes them once, the host runner passes them
// to the rules, and the row kernel carries them at the front of its parameter block (with the views'
// pointers and strides, not the whole Args: docs/performance.md, stop 28).
struct TableRowArgs {
  std::int64_t bound = 0;      // the column bound: max_pages, or the table width (flashmla_block_table)
  std::int64_t len_delta = 0;  // added to every KV length (read_table's seq_len_delta)
  bool tail = false;           // columns past the live prefix, and the padded rows, get tail_fill
  Variant variant{};
};

// Live columns of a row of KV length len: lanes::table_columns (ceil(len / ps) bounded by max_pages;
// B10 / E01 drop the bound, grid_spill widens it to the launch grid's column extent, E09 floors the
// page count). Under E01 / grid_spill loads and stores use flat addresses: a column past the row
// lands in the next row.
struct BoundedTableColumns {
  template <class I>
  KVADDR_HD static constexpr I columns(I len, I ps, I max_pages, Variant v) {
    return lanes::table_columns(len, ps, max_pages, v);
  }
  KVADDR_HD static constexpr bool flat_addresses(Variant v) {
    return has(v, Behaviour::e01_no_column_bound) || has(v, Behaviour::grid_spill);
  }
  // The table runner's live columns of a call (TableRoute): columns() against its max_pages
  // (TableRowArgs::bound).
  template <class I>
  KVADDR_HD static constexpr I live(const TableRowArgs& r, I len, I ps) {
    return columns(len, ps, I(r.bound), r.variant);
  }
};

// A page-table route as the table runner (host, translate/src/routes_tables.ipp) and the row kernel
// (device, kernels/src/kernels_rows.cu) run it. Batch lane b < B reads req_to_token row row(b) (the
// spec's row rule over its row ids) from KV column start(b); with r = row_args(a) (TableRowArgs),
// its live columns c < clip(r, live(r, len_b + r.len_delta, ps)) get entry(page-start token of
// column c) (the token at column start(b) + c * ps); where r.tail, columns [live, written(r, live))
// of each row and [0, written(r, 0)) of the padded rows [B, out.rows) get tail_fill (written(r,
// live): the end of the columns a row writes, at least live); every other column is untouched. A
// spec opts in by inheriting TableRoute<Args> (the defaults below: the pool tables over
// req_pool_indices, seq_lens and out, from column 0, bound max_pages, no tail, element addresses
// checked against the row) and defining
//   live(r, len, ps)                 the live page count over the lane integer I (its arithmetic
//                                    sites; BoundedTableColumns has one); clip(r, n) the buffer
//                                    bound after it (plain int64);
//   entry(tok, v2p, ps, mult, v, remap)  the entry lane of a page-start token (remap: v2p present).
// Optional: row_ids / lens / starts / out with their names, row_args (the bound, the length delta,
// the tail), written / tail_fill, flat_loads / flat_stores (loads and stores at flat addresses: a
// column past the row lands in the next row), grid_columns (the launch grid's column extent).
template <class A>
struct TableRoute {
  static constexpr bool table_runner = true;
  static constexpr std::string_view rows_name = "req_pool_indices";
  static constexpr std::string_view lens_name = "seq_lens";
  static constexpr std::string_view starts_name = "kv_start_idx";
  static constexpr std::string_view out_name = "out";
  template <class T>
  KVADDR_HD static constexpr const auto& row_ids(const T& a) { return a.req_pool_indices; }
  template <class T>
  KVADDR_HD static constexpr const auto& lens(const T& a) { return a.seq_lens; }
  template <class T>
  KVADDR_HD static constexpr const auto& out(const T& a) { return a.out; }
  static constexpr bool kHasStarts = false;  // every row from column 0 (starts(a) absent)
  KVADDR_HD static constexpr Vec<const std::int64_t> starts(const A&) { return {}; }
  // The row rules' scalars: bound max_pages, no length delta, no tail.
  template <class T>
  static constexpr TableRowArgs row_args(const T& a) { return {a.max_pages, 0, false, a.variant}; }
  KVADDR_HD static constexpr std::int64_t clip(const TableRowArgs&, std::int64_t n) { return n; }
  // The tail: never, 0, the sink unless a spec says otherwise (read_table's zero_tail).
  static constexpr bool kMayHaveTail = false;
  template <class I>
  KVADDR_HD static constexpr I written(const TableRowArgs&, I live) { return live; }  // the columns a row writes
  template <class I>
  KVADDR_HD static constexpr I tail_fill(Variant) { return I(0); }
  static constexpr bool flat_loads(Variant) { return false; }
  static constexpr bool flat_stores(Variant) { return false; }
  static constexpr std::int64_t grid_columns(const A& a) { return a.max_pages; }
};

// Whether Spec is run by the table runner and the row kernel (it inherits TableRoute).
template <class Spec>
inline constexpr bool is_table_route = std::is_base_of_v<TableRoute<typename Spec::Args>, Spec>;

// The entry lane the table runner, the row kernel and the proofs run for a page-table route: the
// spec's entry through the pool's v2p when the call gives one (remap), else the static pool's entry
// (spec I10: v2p absent, M = 1; validate rejects another multiplier): lanes::static_entry_lane, tok / ps,
// the pre-unified table for every table route, whatever its variant.
template <class Spec, class I, class G>
KVADDR_HD constexpr I table_entry(I tok, G&& v2p, I ps, I mult, Variant v, bool remap) {
  return remap ? Spec::entry(tok, v2p, ps, mult, v, true) : lanes::static_entry_lane(tok, ps);
}

// The adjacent layouts (harness/adjacent.hpp) the pool-table routes admit (canonical_page_table,
// full_prefill_table, read_table): the table beside req_to_token, seq_lens or v2p.
inline constexpr AdjacentLayout kPoolTableAdjacent[] = {{"out req_to_token"}, {"req_to_token out"}, {"seq_lens out"},
                                                        {"out seq_lens"},     {"req_pool_indices seq_lens out"},
                                                        {"out v2p"}};

// The fields of a page-table route over (req_to_token, req_pool_indices, seq_lens) with a
// max_pages bound and one out table (canonical_page_table, full_prefill_table); v2p absent = static pool.
template <class A>
constexpr auto bounded_table_fields() {
  return std::tuple{required_arg("req_to_token", &A::req_to_token), required_arg("req_pool_indices", &A::req_pool_indices).widening(),
                    required_arg("seq_lens", &A::seq_lens).widening(), optional_arg("v2p", &A::v2p),
                    required_arg("page_size", &A::page_size), optional_arg("multiplier", &A::multiplier),
                    required_arg("max_pages", &A::max_pages), required_arg("out", &A::out),
                    optional_arg("variant", &A::variant)};
}

// The per-id Lane of token_translate (Swa false) and swa_translate (Swa true): the token lane of an id
// through a table with stride S = ps * M (swa: B11 leaves a tombstone unclamped). Its one divisor is
// the page size (position 0 of lanes::divisor_at).
template <class I, class D, bool Swa>
struct TokenLane {
  lanes::divisor_at_t<D, 0> ps;
  I stride;
  Variant v;
  template <class G>
  KVADDR_HD I operator()(I t, G&& table) const {
    if constexpr (Swa) return lanes::swa_translate_lane<I, lanes::divisor_at_t<D, 0>>(t, table, ps, stride, v);
    else return lanes::token_translate_lane<I, lanes::divisor_at_t<D, 0>>(t, table, ps, stride, v);
  }
};

}  // namespace kvaddr::spec_rules
