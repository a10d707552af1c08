#pragma once
// Route spec of decode_metadata (spec §4.5).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(decode_metadata, DecodeMetadataArgs, : spec_rules::PoolRowOrBatchIndex)
  // The arguments, by spec / manifest name; cu_seqlens_k has B + 1 lanes; swa_page_table is given
  // exactly when swa_v2p or full_to_swa_index_mapping is (made fresh only with swa_v2p).
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("seq_lens", &A::seq_lens).widening(), optional_arg("req_to_token", &A::req_to_token),
                      optional_arg("req_pool_indices", &A::req_pool_indices).widening(),
                      required_arg("max_seq_pages", &A::max_seq_pages), optional_arg("seq_len_delta", &A::seq_len_delta),
                      required_arg("page_size", &A::page_size), optional_arg("v2p", &A::v2p),
                      optional_arg("multiplier", &A::multiplier), optional_arg("kernel_page_table", &A::kernel_page_table),
                      optional_arg("skip_page_table", &A::skip_page_table), required_arg("cache_seqlens", &A::cache_seqlens),
                      required_arg("cu_seqlens_k", &A::cu_seqlens_k).with_lanes_past_batch(1), optional_arg("page_table", &A::page_table),
                      optional_arg("swa_v2p", &A::swa_v2p), optional_arg("swa_multiplier", &A::swa_multiplier),
                      optional_arg("swa_page_table", &A::swa_page_table).given_with("swa_v2p"),
                      optional_arg("src_is_kernel_page_table", &A::src_is_kernel_page_table),
                      optional_arg("full_to_swa_index_mapping", &A::full_to_swa_index_mapping),
                      optional_arg("variant", &A::variant)};
  }
  // The inputs whose need depends on others: req_to_token and req_pool_indices are needed unless the
  // page table is skipped (skip_page_table) or taken from kernel_page_table with no SWA table to
  // build (swa_v2p or the token map). `given(name)` says whether the call gives a field (a flag: gives
  // it true).
  template <class Given>
  static constexpr bool needs(std::string_view field, Given&& given) {
    if (field != "req_to_token" && field != "req_pool_indices") return false;
    const bool swa = given("swa_v2p") || given("full_to_swa_index_mapping");
    return !given("skip_page_table") && (!given("kernel_page_table") || swa);
  }
  static constexpr std::string_view doc =
      "§4.5 fa3 metadata; returns {'cache_seqlens', 'cu_seqlens_k', 'page_table', 'swa_page_table'}.";
  // Adjacent layouts (harness/adjacent.hpp): the fa3 metadata workspace carves cache_seqlens | cu_seqlens_k |
  // page_table out of one buffer; rejected: an output sharing a lane with the argument before it.
  static constexpr AdjacentLayout adjacent_admitted[] = {
      {"cache_seqlens cu_seqlens_k page_table"}, {"page_table cache_seqlens cu_seqlens_k"}, {"cu_seqlens_k cache_seqlens"},
      {"seq_lens cache_seqlens cu_seqlens_k"},   {"page_table req_to_token"},                {"cu_seqlens_k page_table"}};
  static constexpr AdjacentLayout adjacent_rejected[] = {
      {"cache_seqlens cu_seqlens_k", 1}, {"req_to_token page_table", 1}, {"cu_seqlens_k page_table", 1}};
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::era_b_unclamped, Behaviour::b09_no_padding_guard, Behaviour::e10_batch_index_rows,
                  Behaviour::int32_wrap, Behaviour::int32_lengths, Behaviour::full_width_page_table,
                  Behaviour::swa_no_padding_guard, Behaviour::era_d_read_table);
  }

  // Live columns of the fa3 kernels, by shift (lanes::decode_columns); columns past them are untouched.
  template <class I>
  KVADDR_HD static constexpr I columns(I len, I ps, int log2_ps, I max_seq_pages) {
    return lanes::decode_columns(len, ps, log2_ps, max_seq_pages);
  }
  // The same under a variant (lanes::decode_columns with v): full_width_page_table, era_d_read_table's
  // grid, int32_lengths' wrapped page count.
  template <class I>
  KVADDR_HD static constexpr I columns(I len, I ps, int log2_ps, I max_seq_pages, Variant v) {
    return lanes::decode_columns(len, ps, log2_ps, max_seq_pages, v);
  }
  // era_d_read_table stores (and loads req_to_token) at flat addresses: a column past the row lands in
  // the next row, as build_kv_read_table's grid does.
  KVADDR_HD static constexpr bool flat_addresses(Variant v) { return has(v, Behaviour::era_d_read_table); }
  // The variant of the SWA gather's entry lane: swa_no_padding_guard drops its padding guard.
  KVADDR_HD static constexpr Variant swa_entry_variant(Variant v) {
    return has(v, Behaviour::swa_no_padding_guard) ? Variant::of(Behaviour::b09_no_padding_guard) : Variant{};
  }
};

}  // namespace kvaddr
