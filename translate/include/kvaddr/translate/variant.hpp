#pragma once
// The variant selector shared by translate/ (host), kernels/ (device) and proofs/ (Z3).
//
// A variant is a SET of catalogue behaviours (spec §6): `production` is the empty set, the newest
// fixed semantics of a route; every behaviour re-introduces one historical bug or one observed
// edge behaviour of an upstream kernel. Real kernels carry several at once, so behaviours compose
// (`Variant::b09_no_padding_guard | Variant::era_b_unclamped`). Lanes test membership with
// `has(v, Behaviour::...)`, identically on the host, the device and in Z3.
//
// `Variant::b09_no_padding_guard` etc. stay valid expressions (the single-behaviour variants).
#include <cstdint>

#if !defined(KVADDR_HD)
#if defined(__CUDACC__)
#define KVADDR_HD __host__ __device__
#else
#define KVADDR_HD
#endif
#endif

namespace kvaddr {

// One catalogue behaviour = one bit of a Variant. The values are frozen (bit positions).
enum class Behaviour : std::uint8_t {
  b02_rank2_index_select = 0,  // eager_funnel: rank-2 table passed to a 1-D-only translate at ps = 1 (crash)
  b04_prefill_no_remap,    // full_prefill_table: page_indices div ps, no v2p remap
  b05_rebind_fresh,        // kv_indices_inplace: result goes to a fresh buffer, bound buffer keeps virtual ids
  b06_stale_tail,          // write_loc: lanes [N, out_width) are not zeroed
  b09_no_padding_guard,    // page-granular routes: no sign test before the load (ps = 1 reads v2p[-1];
                           // the fa3 shift reads v2p[-1] at every ps, v2p[-2] for -17 at ps = 16)
  b10_no_max_pages_bound,  // read_table: columns bounded by n_pages only, not by max_pages
  b11_swa_no_clamp,        // swa_translate: no tombstone clamp (Era A pool-level SWA translate)
  b14_dcp_untranslated,    // dcp_read_translate: ids collapsed but never translated
  b16_virtual_as_physical, // transfer_ids: virtual ids used as physical offsets
  b17_doc_formula,         // token_translate: the docstring formula, without the v2p gather
  era_b_unclamped,         // page entries without the clamp: a tombstone yields -M
  e01_no_column_bound,     // read_table / canonical_page_table: loads and stores masked by n_pages only
  e02_minus_one_sentinel,  // -1 used where the sink 0 belongs
  e03_int32_offset,        // token_translate / write_loc: P*S + o computed in int32
  e09_floor_pages,         // flashmla_block_table / read_table: n_pages = floor(len / ps)
  e10_batch_index_rows,    // page-table routes read req_to_token row b instead of the pool row
  // ---- observed edge behaviours of the upstream kernels (spec §2.7, §4.3-§4.5) -----------------
  grid_spill,              // canonical_page_table / read_table: columns written up to
                           // min(n_pages, G * ceil(max_pages / G)), G = the grid's column block
  int32_wrap,              // int32 stores wrap silently (two's complement) instead of raising
  // ---- behaviours inferred from recorded calls of the upstream kernels (issue 33) ---------------
  int32_lengths,           // decode_metadata: the KV length is taken as int32 (seq_len.to(int32)) and the
                           // lengths, prefix sums and page counts are int32 arithmetic (they wrap; a
                           // negative page count writes no column, the row keeps its stale values)
  full_width_page_table,   // decode_metadata: every column below max_seq_pages of every row is written
                           // (the older kernel), not only the live prefix
  swa_no_padding_guard,    // decode_metadata: the SWA gather has no padding guard (reads swa_v2p[-1])
  era_d_read_table,        // decode_metadata (Era D composition): the page table is built by
                           // build_kv_read_table(seq_lens=cache_seqlens, out=page_table), so its
                           // columns run up to min(n_pages, G * ceil(max_seq_pages / G)) at flat
                           // addresses (the read-table grid's spill, G = column_block)
  int32_lane_offsets,      // token_translate / write_loc: the launch's lane offset (offs = pid * BLOCK + arange)
                           // is int32: lane i loads and stores element wrap32(i), so lanes [2^31, 2^32) store
                           // before the buffer (their own element stays unwritten) and lane i >= 2^32
                           // rewrites element i - 2^32 (lanes::launch_lane)
  kCount
};
inline constexpr int kBehaviourCount = static_cast<int>(Behaviour::kCount);

// The column block of the upstream table kernels' launch grid (grid_spill's G).
inline constexpr std::int32_t kDefaultColumnBlock = 256;

// The behaviours that read Variant::column_block (the launch grid's column block G).
inline constexpr std::uint32_t kColumnBlockBits = (std::uint32_t{1} << static_cast<unsigned>(Behaviour::grid_spill)) |
                                                  (std::uint32_t{1} << static_cast<unsigned>(Behaviour::era_d_read_table));

// The behaviours that act only on launches of 2^31 lanes or more (int32_lane_offsets): on every call the
// host can hold they equal production, so the behaves-like searches leave them out (they would match
// every call production matches); replay infers them from the differing lanes (docs/variants.md).
inline constexpr std::uint32_t kLaunchSizeBits = std::uint32_t{1} << static_cast<unsigned>(Behaviour::int32_lane_offsets);

struct Variant {
  std::uint32_t bits = 0;
  std::int32_t column_block = kDefaultColumnBlock;  // G of grid_spill / era_d_read_table (meaningful only with them)

  static const Variant production;
  static const Variant b02_rank2_index_select, b04_prefill_no_remap, b05_rebind_fresh, b06_stale_tail,
      b09_no_padding_guard, b10_no_max_pages_bound, b11_swa_no_clamp, b14_dcp_untranslated,
      b16_virtual_as_physical, b17_doc_formula, era_b_unclamped, e01_no_column_bound, e02_minus_one_sentinel,
      e03_int32_offset, e09_floor_pages, e10_batch_index_rows, grid_spill, int32_wrap, int32_lengths,
      full_width_page_table, swa_no_padding_guard, era_d_read_table, int32_lane_offsets;
  // Named composites: the upstream kernels as they were written.
  static const Variant pr33046_as_written;       // fa3 decode remap of PR #33046 (decode_metadata)
  static const Variant flashmla_era_b_as_written;  // Era-B flashmla block table, same shape

  KVADDR_HD static constexpr Variant of(Behaviour b) { return Variant{std::uint32_t{1} << static_cast<unsigned>(b)}; }
  KVADDR_HD constexpr bool empty() const { return bits == 0; }
  KVADDR_HD constexpr int size() const {
    int n = 0;
    for (std::uint32_t b = bits; b != 0; b &= b - 1) ++n;
    return n;
  }
  KVADDR_HD friend constexpr bool operator==(const Variant& a, const Variant& b) {
    return a.bits == b.bits && ((a.bits & kColumnBlockBits) == 0 || a.column_block == b.column_block);
  }
  KVADDR_HD friend constexpr bool operator!=(const Variant& a, const Variant& b) { return !(a == b); }
  // Union of behaviours; the grid block of whichever side carries a column-block behaviour.
  KVADDR_HD friend constexpr Variant operator|(const Variant& a, const Variant& b) {
    const bool a_spill = (a.bits & kColumnBlockBits) != 0;
    return Variant{a.bits | b.bits, a_spill ? a.column_block : b.column_block};
  }
  // Set difference / subset.
  KVADDR_HD friend constexpr Variant operator-(const Variant& a, const Variant& b) {
    return Variant{a.bits & ~b.bits, a.column_block};
  }
  KVADDR_HD constexpr bool contains(const Variant& sub) const { return (bits & sub.bits) == sub.bits; }
  // A strict total order (for sorted containers): by size, then bits, then block.
  friend constexpr bool operator<(const Variant& a, const Variant& b) {
    if (a.size() != b.size()) return a.size() < b.size();
    if (a.bits != b.bits) return a.bits < b.bits;
    return a.column_block < b.column_block;
  }
};

KVADDR_HD constexpr bool has(Variant v, Behaviour b) { return ((v.bits >> static_cast<unsigned>(b)) & 1u) != 0; }
KVADDR_HD constexpr Variant with_column_block(Variant v, std::int32_t g) { return Variant{v.bits, g}; }

inline constexpr Variant Variant::production{0};
inline constexpr Variant Variant::b02_rank2_index_select = Variant::of(Behaviour::b02_rank2_index_select);
inline constexpr Variant Variant::b04_prefill_no_remap = Variant::of(Behaviour::b04_prefill_no_remap);
inline constexpr Variant Variant::b05_rebind_fresh = Variant::of(Behaviour::b05_rebind_fresh);
inline constexpr Variant Variant::b06_stale_tail = Variant::of(Behaviour::b06_stale_tail);
inline constexpr Variant Variant::b09_no_padding_guard = Variant::of(Behaviour::b09_no_padding_guard);
inline constexpr Variant Variant::b10_no_max_pages_bound = Variant::of(Behaviour::b10_no_max_pages_bound);
inline constexpr Variant Variant::b11_swa_no_clamp = Variant::of(Behaviour::b11_swa_no_clamp);
inline constexpr Variant Variant::b14_dcp_untranslated = Variant::of(Behaviour::b14_dcp_untranslated);
inline constexpr Variant Variant::b16_virtual_as_physical = Variant::of(Behaviour::b16_virtual_as_physical);
inline constexpr Variant Variant::b17_doc_formula = Variant::of(Behaviour::b17_doc_formula);
inline constexpr Variant Variant::era_b_unclamped = Variant::of(Behaviour::era_b_unclamped);
inline constexpr Variant Variant::e01_no_column_bound = Variant::of(Behaviour::e01_no_column_bound);
inline constexpr Variant Variant::e02_minus_one_sentinel = Variant::of(Behaviour::e02_minus_one_sentinel);
inline constexpr Variant Variant::e03_int32_offset = Variant::of(Behaviour::e03_int32_offset);
inline constexpr Variant Variant::e09_floor_pages = Variant::of(Behaviour::e09_floor_pages);
inline constexpr Variant Variant::e10_batch_index_rows = Variant::of(Behaviour::e10_batch_index_rows);
inline constexpr Variant Variant::grid_spill = Variant::of(Behaviour::grid_spill);
inline constexpr Variant Variant::int32_wrap = Variant::of(Behaviour::int32_wrap);
inline constexpr Variant Variant::int32_lengths = Variant::of(Behaviour::int32_lengths);
inline constexpr Variant Variant::full_width_page_table = Variant::of(Behaviour::full_width_page_table);
inline constexpr Variant Variant::swa_no_padding_guard = Variant::of(Behaviour::swa_no_padding_guard);
inline constexpr Variant Variant::era_d_read_table = Variant::of(Behaviour::era_d_read_table);
inline constexpr Variant Variant::int32_lane_offsets = Variant::of(Behaviour::int32_lane_offsets);
inline constexpr Variant Variant::pr33046_as_written =
    Variant::b09_no_padding_guard | Variant::era_b_unclamped | Variant::int32_wrap;
inline constexpr Variant Variant::flashmla_era_b_as_written =
    Variant::b09_no_padding_guard | Variant::era_b_unclamped | Variant::int32_wrap;

// The catalogue's single-behaviour variants (and production): the building blocks every check
// (kill matrix, verify, properties) iterates.
inline constexpr Variant kAllVariants[] = {
    Variant::production,           Variant::b02_rank2_index_select, Variant::b04_prefill_no_remap,
    Variant::b05_rebind_fresh,     Variant::b06_stale_tail,         Variant::b09_no_padding_guard,
    Variant::b10_no_max_pages_bound, Variant::b11_swa_no_clamp,     Variant::b14_dcp_untranslated,
    Variant::b16_virtual_as_physical, Variant::b17_doc_formula,     Variant::era_b_unclamped,
    Variant::e01_no_column_bound,  Variant::e02_minus_one_sentinel, Variant::e03_int32_offset,
    Variant::e09_floor_pages,      Variant::e10_batch_index_rows,
};
// The observed edge behaviours of the upstream kernels (issue 17), single: checked by the
// composite tests and the proofs, composed with the catalogue ones by "behaves like".
inline constexpr Variant kEdgeVariants[] = {Variant::grid_spill, Variant::int32_wrap};
// The behaviours inferred from recorded upstream calls (issue 33): claimable and searched by "behaves
// like" (replay, the harnesses), checked by the composite tests and the proofs; one kill-matrix row per
// (behaviour, route) (zoo/src/matrix.cpp).
inline constexpr Variant kInferredVariants[] = {Variant::int32_lengths, Variant::full_width_page_table,
                                                Variant::swa_no_padding_guard, Variant::era_d_read_table,
                                                Variant::int32_lane_offsets};

// The spec's stable route identifiers (§4 section titles). Each enumerator has one RouteSpec
// (kvaddr/translate/routes/<name>.hpp), listed in kvaddr/translate/route_list.hpp.
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
#if defined(KVADDR_TEST_ROUTE)
  test_route,  // test-only (CMake option KVADDR_TEST_ROUTE): routes/test_route.hpp
#endif
};

// A named composite: the registered spelling of a set of behaviours, and the routes it is for.
struct NamedComposite {
  Variant variant;
  const char* name;
  Route route;
};
inline constexpr NamedComposite kNamedComposites[] = {
    {Variant::pr33046_as_written, "pr33046_as_written", Route::decode_metadata},
    {Variant::flashmla_era_b_as_written, "flashmla_era_b_as_written", Route::flashmla_block_table},
};

// Pairs of behaviours that cannot hold together on one kernel (both define the same thing
// differently). Returns the first conflicting pair of `v`, or false.
struct BehaviourConflict {
  Behaviour a, b;
  const char* why;
};
inline constexpr BehaviourConflict kConflicts[] = {
    {Behaviour::b10_no_max_pages_bound, Behaviour::e01_no_column_bound, "both set the column bound"},
    {Behaviour::b10_no_max_pages_bound, Behaviour::grid_spill, "both set the column bound"},
    {Behaviour::e01_no_column_bound, Behaviour::grid_spill, "both set the column bound"},
    {Behaviour::full_width_page_table, Behaviour::era_d_read_table, "both set the column bound"},
    {Behaviour::b06_stale_tail, Behaviour::e02_minus_one_sentinel, "one keeps the tail, the other fills it with -1"},
};
constexpr const BehaviourConflict* variant_conflict(Variant v) {
  for (const auto& c : kConflicts)
    if (has(v, c.a) && has(v, c.b)) return &c;
  return nullptr;
}

}  // namespace kvaddr
