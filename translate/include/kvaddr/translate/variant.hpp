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
};

inline constexpr Variant kAllVariants[] = {
    Variant::production,           Variant::b02_rank2_index_select, Variant::b04_prefill_no_remap,
    Variant::b05_rebind_fresh,     Variant::b06_stale_tail,         Variant::b09_no_padding_guard,
    Variant::b10_no_max_pages_bound, Variant::b11_swa_no_clamp,     Variant::b14_dcp_untranslated,
    Variant::b16_virtual_as_physical, Variant::b17_doc_formula,     Variant::era_b_unclamped,
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
constexpr bool route_accepts(Route r, Variant v) {
  if (v == Variant::production) return true;
  switch (r) {
    case Route::token_translate: return v == Variant::b17_doc_formula;
    case Route::flashmla_block_table: return v == Variant::era_b_unclamped || v == Variant::b09_no_padding_guard;
    case Route::canonical_page_table: return v == Variant::b09_no_padding_guard;
    case Route::read_table: return v == Variant::b10_no_max_pages_bound || v == Variant::b09_no_padding_guard;
    case Route::decode_metadata: return v == Variant::era_b_unclamped || v == Variant::b09_no_padding_guard;
    case Route::eager_funnel: return v == Variant::b02_rank2_index_select;
    case Route::kv_indices_inplace: return v == Variant::b05_rebind_fresh;
    case Route::write_loc: return v == Variant::b06_stale_tail;
    case Route::swa_translate: return v == Variant::b11_swa_no_clamp;
    case Route::mamba_translate: return false;
    case Route::full_prefill_table: return v == Variant::b04_prefill_no_remap;
    case Route::dcp_read_translate: return v == Variant::b14_dcp_untranslated;
    case Route::transfer_ids: return v == Variant::b16_virtual_as_physical;
  }
  return false;
}

}  // namespace kvaddr
