#pragma once
// Route spec of flashmla_block_table (spec §4.2): the kv_indices table, as wide as the caller's buffer.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(flashmla_block_table, FlashmlaBlockTableArgs, : spec_rules::PoolRowOrBatchIndex)
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
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::era_b_unclamped, Behaviour::b09_no_padding_guard, Behaviour::e09_floor_pages,
                  Behaviour::e10_batch_index_rows, Behaviour::int32_wrap);
  }
  // Live columns: ceil(len / ps) pages (E09: floor), never past the table width W; columns
  // [live, W) keep the caller's -1.
  template <class I>
  KVADDR_HD static constexpr I pages(I len, I ps, Variant v) {
    return lanes::page_count(len, ps, v);
  }
  template <class I>
  KVADDR_HD static constexpr I columns(I pages, I width) {
    using lanes::kv_pick;  // builtin integers; a symbolic I brings its own by argument-dependent lookup
    return kv_pick(pages < width, pages, width);
  }
};

}  // namespace kvaddr
