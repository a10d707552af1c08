#pragma once
// Row and column rules that several page-table route specs follow; a spec inherits the ones it
// follows, so each rule is written once for the host, the device and every consumer.
#include <tuple>

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
};

// The fields of a page-table route over (req_to_token, req_pool_indices, seq_lens) with a
// max_pages bound and one out table (canonical_page_table, full_prefill_table).
template <class A>
constexpr auto bounded_table_fields() {
  return std::tuple{required_arg("req_to_token", &A::req_to_token), required_arg("req_pool_indices", &A::req_pool_indices).widening(),
                    required_arg("seq_lens", &A::seq_lens).widening(), required_arg("v2p", &A::v2p),
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
