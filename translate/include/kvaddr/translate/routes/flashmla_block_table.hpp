#pragma once
// Route spec of flashmla_block_table (spec §4.2): the kv_indices table, as wide as the caller's buffer.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(flashmla_block_table, FlashmlaBlockTableArgs,
                  : spec_rules::TableRoute<FlashmlaBlockTableArgs>, spec_rules::PoolRowOrBatchIndex)
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("req_to_token", &A::req_to_token), required_arg("req_pool_indices", &A::req_pool_indices).widening(),
                      required_arg("page_kernel_lens", &A::page_kernel_lens).widening(), optional_arg("kv_start_idx", &A::kv_start_idx).widening(),
                      optional_arg("v2p", &A::v2p), required_arg("page_size", &A::page_size),
                      optional_arg("multiplier", &A::multiplier), required_arg("kv_indices", &A::kv_indices),
                      optional_arg("variant", &A::variant)};
  }
  static constexpr std::string_view doc =
      "§4.2 (kv_indices): lanes c < ceil(len/ps) get v2p[tok // ps]*M (clamped in production); others untouched. "
      "out=None: a fresh [B, max pages] int32 table of -1.";
  // Adjacent layouts (harness/adjacent.hpp); rejected: kv_indices sharing req_to_token's last lane.
  static constexpr AdjacentLayout adjacent_admitted[] = {{"kv_indices req_to_token"}, {"req_to_token kv_indices"},
                                                         {"page_kernel_lens kv_indices"}, {"kv_indices page_kernel_lens"},
                                                         {"req_pool_indices page_kernel_lens kv_start_idx kv_indices"}};
  static constexpr AdjacentLayout adjacent_rejected[] = {{"req_to_token kv_indices", 1}};
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::era_b_unclamped, Behaviour::b09_no_padding_guard, Behaviour::e09_floor_pages,
                  Behaviour::e10_batch_index_rows, Behaviour::int32_wrap);
  }
  // The table runner (spec_rules::TableRoute): lengths page_kernel_lens, each row from its
  // kv_start_idx; live columns ceil(len / ps) pages (E09: floor), clipped to the table width W
  // (columns [live, W) keep the caller's -1); without a v2p the static entry tok / ps (spec_rules::table_entry).
  static constexpr std::string_view lens_name = "page_kernel_lens";
  static constexpr std::string_view out_name = "kv_indices";
  template <class T>
  KVADDR_HD static constexpr const auto& lens(const T& a) { return a.page_kernel_lens; }
  template <class T>
  KVADDR_HD static constexpr const auto& out(const T& a) { return a.kv_indices; }
  static constexpr bool kHasStarts = true;
  KVADDR_HD static constexpr Vec<const std::int64_t> starts(const Args& a) { return a.kv_start_idx; }
  template <class I>
  KVADDR_HD static constexpr I pages(I len, I ps, Variant v) {
    return lanes::page_count(len, ps, v);
  }
  template <class I>
  KVADDR_HD static constexpr I columns(I pages, I width) {
    using lanes::kv_pick;  // builtin integers; a symbolic I brings its own by argument-dependent lookup
    return kv_pick(pages < width, pages, width);
  }
  // The row rules' bound is the table width W.
  static constexpr spec_rules::TableRowArgs row_args(const Args& a) { return {a.kv_indices.cols, 0, false, a.variant}; }
  template <class I>
  KVADDR_HD static constexpr I live(const spec_rules::TableRowArgs& r, I len, I ps) {
    return pages(len, ps, r.variant);
  }
  KVADDR_HD static constexpr std::int64_t clip(const spec_rules::TableRowArgs& r, std::int64_t n) {
    return columns(n, r.bound);
  }
  template <class I, class G>
  KVADDR_HD static constexpr I entry(I tok, G&& v2p, I ps, I mult, Variant v, bool) {
    return lanes::page_entry_lane(tok, v2p, ps, mult, v);
  }
  static constexpr std::int64_t grid_columns(const Args& a) { return a.kv_indices.cols; }
};

}  // namespace kvaddr
