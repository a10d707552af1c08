#pragma once
// The variant selector shared by translate/ (host), kernels/ (device) and proofs/ (Z3).
// `production` is the newest fixed semantics of a route; every other value re-introduces one
// historical bug of spec §6 so that the checks can be shown to catch it.
#include <cstdint>

namespace kvaddr {

enum class Variant : std::int32_t {
  production = 0,
  b02_rank2_index_select,  // eager_funnel: rank-2 table passed to a 1-D-only translate at ps = 1 (crash)
  b04_prefill_no_remap,    // full_prefill_table: page_indices div ps, no v2p remap
  b05_rebind_fresh,        // kv_indices_inplace: result goes to a fresh buffer, bound buffer keeps virtual ids
  b06_stale_tail,          // write_loc: lanes [N, out_width) are not zeroed
  b09_no_padding_guard,    // page-granular routes: no sign test, truncating division (ps = 1 reads v2p[-1])
  b10_no_max_pages_bound,  // read_table: columns bounded by n_pages only, not by max_pages
  b11_swa_no_clamp,        // swa_translate: no tombstone clamp (Era A pool-level SWA translate)
  b14_dcp_untranslated,    // dcp_read_translate: ids collapsed but never translated
  b16_virtual_as_physical, // transfer_ids: virtual ids used as physical offsets
  b17_doc_formula,         // token_translate: the docstring formula, without the v2p gather
  era_b_unclamped,         // flashmla_block_table / decode_metadata remap: tombstone yields -M
  // ---- appended by the bug zoo (spec §6.2); the values above are frozen ----------------------
  e01_no_column_bound,     // read_table / canonical_page_table: loads and stores masked by n_pages only,
                           // no c < max_pages and no c*ps < width bound (flat addresses spill into the next row)
  e02_minus_one_sentinel,  // -1 used where the sink 0 belongs: read_table zero_tail fills -1, write_loc fills
                           // its tail [N, out_width) with -1, canonical_page_table drops the clamp (tombstone -> -M)
  e03_int32_offset,        // token_translate / write_loc: P*S + o computed in int32 (wraps once >= 2^31)
  e09_floor_pages,         // flashmla_block_table / read_table: n_pages = floor(len / ps), partial last page lost
  e10_batch_index_rows,    // page-table routes read req_to_token row b instead of req_pool_indices[b] / row_ids[b]
};

inline constexpr Variant kAllVariants[] = {
    Variant::production,           Variant::b02_rank2_index_select, Variant::b04_prefill_no_remap,
    Variant::b05_rebind_fresh,     Variant::b06_stale_tail,         Variant::b09_no_padding_guard,
    Variant::b10_no_max_pages_bound, Variant::b11_swa_no_clamp,     Variant::b14_dcp_untranslated,
    Variant::b16_virtual_as_physical, Variant::b17_doc_formula,     Variant::era_b_unclamped,
    Variant::e01_no_column_bound,  Variant::e02_minus_one_sentinel, Variant::e03_int32_offset,
    Variant::e09_floor_pages,      Variant::e10_batch_index_rows,
};

// The spec's stable route identifiers (§4 section titles).
enum class Route : std::int32_t {
  token_translate = 0,
  flashmla_block_table,
  canonical_page_table,
  read_table,
  decode_metadata,
  eager_funnel,
  kv_indices_inplace,
  write_loc,
  swa_translate,
  mamba_translate,
  full_prefill_table,
  dcp_read_translate,
  transfer_ids,
};

inline constexpr Route kAllRoutes[] = {
    Route::token_translate,  Route::flashmla_block_table, Route::canonical_page_table, Route::read_table,
    Route::decode_metadata,  Route::eager_funnel,         Route::kv_indices_inplace,   Route::write_loc,
    Route::swa_translate,    Route::mamba_translate,      Route::full_prefill_table,   Route::dcp_read_translate,
    Route::transfer_ids,
};

// Which variants a route accepts (production always). Host entry points reject the others
// with InvalidArgument("variant", ...). constexpr so kernels and proofs can use it too.
// Every accepted variant is caught by `kvaddr verify`'s grid (E03 by its large-id run, E01 on the
// canonical table by its narrow-table run).
constexpr bool route_accepts(Route r, Variant v) {
  if (v == Variant::production) return true;
  switch (r) {
    case Route::token_translate: return v == Variant::b17_doc_formula || v == Variant::e03_int32_offset;
    case Route::flashmla_block_table:
      return v == Variant::era_b_unclamped || v == Variant::b09_no_padding_guard || v == Variant::e09_floor_pages ||
             v == Variant::e10_batch_index_rows;
    case Route::canonical_page_table:
      return v == Variant::b09_no_padding_guard || v == Variant::e02_minus_one_sentinel ||
             v == Variant::e10_batch_index_rows || v == Variant::e01_no_column_bound;
    case Route::read_table:
      return v == Variant::b10_no_max_pages_bound || v == Variant::b09_no_padding_guard ||
             v == Variant::e01_no_column_bound || v == Variant::e02_minus_one_sentinel ||
             v == Variant::e09_floor_pages || v == Variant::e10_batch_index_rows;
    case Route::decode_metadata:
      return v == Variant::era_b_unclamped || v == Variant::b09_no_padding_guard || v == Variant::e10_batch_index_rows;
    case Route::eager_funnel: return v == Variant::b02_rank2_index_select;
    case Route::kv_indices_inplace: return v == Variant::b05_rebind_fresh;
    case Route::write_loc:
      return v == Variant::b06_stale_tail || v == Variant::e02_minus_one_sentinel || v == Variant::e03_int32_offset;
    case Route::swa_translate: return v == Variant::b11_swa_no_clamp;
    case Route::mamba_translate: return false;
    case Route::full_prefill_table: return v == Variant::b04_prefill_no_remap;
    case Route::dcp_read_translate: return v == Variant::b14_dcp_untranslated;
    case Route::transfer_ids: return v == Variant::b16_virtual_as_physical;
  }
  return false;
}

// Routes whose lane arithmetic (lanes.hpp) or host loop carries a variant. Today every planted
// lane is also accepted by its host route, so this equals route_accepts; it stays a separate name
// for proofs and kernels that instantiate lanes directly.
constexpr bool lane_plants(Route r, Variant v) { return route_accepts(r, v); }

}  // namespace kvaddr
