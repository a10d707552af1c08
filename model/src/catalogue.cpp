#include "kvaddr/model/catalogue.hpp"

#include <array>

namespace kvaddr::model {

namespace {
using K = PlantKind;

constexpr std::array<CatalogueEntry, 31> kCatalogue{{
    // ---- §6.1 SGLang history ----------------------------------------------------------------------
    {"B01", "fa3 missing from the page-major full-attention allowlist", "backend_gate",
     "Kimi-Linear, unified memory, no --attention-backend, Hopper -> fa3", "startup assertion", "C", K::wiring_variant, "b01_fa3_not_allowlisted",
     "breaks kimi_linear_hopper_default only"},
    {"B02", "eager funnel passed a rank-2 table to a 1-D-only translate", "eager_funnel",
     "fa3 eager path, default page size 1", "crash", "P+D", K::translate_variant, "b02_rank2_index_select",
     ""},
    {"B03", "unified pool detected via kernel_page_multiplier > 1", "backend_gate",
     "hybrid MLA rank owning one full-attention layer (PP), M = 1", "block table and write loc left virtual, silent", "A+P", K::wiring_variant, "b03_detect_multiplier",
     "also DetectVariant::b03_multiplier_gt_one (verify: backend_gate.b03_single_layer_rank)"},
    {"B04", "full-prefill graph table built as page_indices div ps without remap", "full_prefill_table",
     "unified memory + FULL prefill cuda graph on fa3/fa4", "wrong pages after compaction, silent", "C", K::translate_variant, "b04_prefill_no_remap, b04_prefill_graph_no_remap",
     "route variant b04_prefill_no_remap; wiring variant breaks dense_swa_fa3_full_prefill_graph"},
    {"B05", "flashinfer_mla decode updater rebound kv_indices to a fresh tensor", "kv_indices_inplace",
     "flashinfer MLA with cuda graphs", "captured wrapper read virtual ids", "D", K::translate_variant, "b05_rebind_fresh",
     "plus a pointer-stability check"},
    {"B06", "dense write-loc capture buffer kept a stale tail", "write_loc",
     "trtllm_mla graph replay with a smaller batch", "padded rows scatter garbage into live pages", "P", K::translate_variant, "b06_stale_tail",
     ""},
    {"B07", "stale page bytes read by MLA kernels; zeroing predicate M > 1 missed the single-layer shard", "page_lifecycle",
     "unified MLA + DSPARK / long runs; single-layer MLA rank", "NaN (0 * NaN)", "P+A", K::wiring_variant, "b07_zero_predicate_multiplier",
     "the stale-bytes half: SubPoolOptions{.zero_on_alloc = false} on a fill()-poisoned pool"},
    {"B08", "CuTe int32 slot-stride wrap", "token_translate",
     "large dense MLA views", "NaN / corruption", "A", K::shares, "E03",
     "same int32 wrap shape as e03_int32_offset; I8 bound in Geometry::kernel_ids_fit_int32"},
    {"B09", "canonical table read v2p[-1] at ps = 1", "canonical_page_table, read_table, flashmla_block_table, decode_metadata",
     "req_to_token padding -1 with ps = 1", "out-of-bounds read before v2p", "A+P", K::translate_variant, "b09_no_padding_guard",
     ""},
    {"B10", "read-table GPU kernel bounded columns by n_pages only", "read_table",
     "verify widening near the context limit, n_pages > max_pages", "writes spill into the next row", "D", K::translate_variant, "b10_no_max_pages_bound",
     ""},
    {"B11", "pool-level SWA translate had no tombstone clamp", "swa_translate",
     "unified hybrid SWA, tokens slid out of the window", "negative ids, out-of-bounds under graph replay", "P+D", K::translate_variant, "b11_swa_no_clamp",
     ""},
    {"B12", "non-owner SWA v2p sized by its own page count", "swa_translate",
     "gemma-4-31b-it, 2xH100, mem-fraction 0.8", "device-side index assert mid-serving", "A", K::pool_option, "SwaOptions::b12_swa_sized_by_own_pages",
     ""},
    {"B13", "wrapper backends did not forward kv_index_translator", "backend_gate",
     "Kimi-Linear chunked-prefix / one-shot MHA path, flashinfer, TP2", "translation silently skipped", "C", K::wiring_variant, "b13_wrapper_drops_translator",
     "breaks kimi_linear_tp2_flashinfer_wrapper only"},
    {"B14", "unified + DCP half-translated", "dcp_read_translate",
     "DCP > 1", "eager DCP branches never translated", "C", K::translate_variant, "b14_dcp_untranslated, b14_dcp_half_translated",
     "route variant + wiring variant (breaks mla_dcp2_eager)"},
    {"B15", "hand-built capture batch had out_cache_loc_virtual = None", "write_loc",
     "#37926 (DCP performance) at cuda-graph capture", "captured KV write used a None loc", "C", K::wiring_variant, "b15_capture_none_write_loc",
     "breaks mla_dcp2_graph_capture only"},
    {"B16", "PD transfer used virtual req_to_token ids as physical offsets", "transfer_ids",
     "unified pool + PD disaggregation, long high-concurrency runs", "KV corruption after compaction", "C", K::translate_variant, "b16_virtual_as_physical, b16_pd_virtual_ids",
     "route variant + wiring variant (breaks mla_pd_disaggregated)"},
    {"B17", "docstring formula of translate_kv_loc_for_kernel omits v2p", "token_translate",
     "documentation", "misleading model of the translate", "A+D", K::translate_variant, "b17_doc_formula",
     ""},
    {"B18", "reserved sink floor covered one slot envelope, not the page-0 envelope", "layout",
     "Era A pool at ps > 1 with a peer sub-pool", "slot-0 dummy writes overlap the peer", "A", K::pool_option, "reserved_floor_era_a",
     "layout.hpp: reserved_floor_era_a vs reserved_floor_era_c"},
    {"G1", "free without the double-free assert", "page_lifecycle",
     "allocator guard (precondition)", "an id recycled twice: two requests share a virtual page", "P", K::pool_bug, "double_free_unchecked",
     ""},
    {"G2", "free_unbind_inplace with duplicate ids", "page_lifecycle",
     "allocator guard (precondition)", "p2v race, the page holed twice, compaction breaks", "P", K::pool_bug, "duplicate_free_ids",
     ""},
    // ---- §6.2 other engines ---------------------------------------------------------------------
    {"E01", "column mask by token validity only, not by the table's column range", "read_table, canonical_page_table",
     "vLLM #53982: narrower per-group block tables (MI325X)", "GPU memory fault", "D+P", K::translate_variant, "e01_no_column_bound",
     "host routes read_table and canonical_page_table (the verify grid's narrow max_pages = 3 table catches it); decode_metadata SWA narrower table: not modelled (the host route takes one column bound for both tables)"},
    {"E02", "-1 used as block-table padding instead of the null block 0", "read_table, write_loc, canonical_page_table",
     "vLLM PR #35431", "two sentinels with different meanings", "P", K::translate_variant, "e02_minus_one_sentinel",
     "read_table zero_tail -1, write_loc tail -1, canonical table without clamp"},
    {"E03", "row * stride in int32 wraps at >= 2^31", "token_translate, write_loc",
     "vLLM #57030: 1M context, >= 2149 requests", "out of bounds or silent write to row 0", "A+D", K::translate_variant, "e03_int32_offset",
     "lanes.hpp wraps P*S + o to int32 with kv_wrap32 on host and device alike (then clamps at 0); the verify grid's large-id run (v2p values past 2^21) catches it; row offsets row*s0 not modelled (host matrices that large cannot be allocated)"},
    {"E04", "physical -> logical inversion assumed unique logical ids", "page_lifecycle",
     "vLLM PR #30915: sliding-window block reuse", "compaction rewrites one alias only", "P", K::pool_bug, "e04_alias_bind",
     "duplicate-id frees: G2"},
    {"E05", "padded rows with NaN poisoned the shared padding slot 0", "write_loc",
     "SGLang PR #36003", "NaN in later readers", "P", K::not_modelled, "",
     "needs a value-carrying store with NaN arithmetic; the simulator stores integer tags and no route combines sink rows arithmetically (a consumer property for props/)"},
    {"E06", "attention block larger than the KV page spans a page boundary", "flashmla_block_table, canonical_page_table, read_table",
     "PyTorch #182593", "output depends on physical placement", "A+P+D", K::not_modelled, "",
     "a consumer tiling property (tile within one page); kvaddr has no tile-loading consumer to plant it in"},
    {"E07", "FA2 paged KV reads stale block-table tail entries", "decode_metadata, canonical_page_table",
     "vLLM #42494", "stale or relocated pages read", "P+D", K::not_modelled, "",
     "prefix-only tables keep stale tails by design (spec §7 Q4); the bug is a consumer reading past cache_seqlens, and kvaddr models no consumer; the write-side analogue is b06_stale_tail"},
    {"E08", "the null block got a non-zero id / block 0 handed to a live request", "page_lifecycle",
     "kvcached PR #398", "deterministic garbage", "P", K::pool_option, "e08_sink_handed_out",
     "min_page_index = 0 and clear() without the v2p[0] = 0 pin; check_invariants reports (b)"},
    {"E09", "no upper-bound mask when kv_len is not a multiple of the block", "flashmla_block_table, read_table",
     "PyTorch PR #160861", "wrong results, invalid memory access", "P+D", K::translate_variant, "e09_floor_pages",
     "packed-stream per-token bound not modelled (the stream is built from indptr)"},
    {"E10", "physical_to_logical indexed by batch position instead of the real slot", "flashmla_block_table, canonical_page_table, read_table, decode_metadata",
     "attention-gym #189", "wrong rows for non-contiguous active slots", "P", K::translate_variant, "e10_batch_index_rows",
     ""},
    {"E11", "padding relied on out-of-bounds indices being ignored", "canonical_page_table, read_table, mamba_translate",
     "vLLM TPU _PAD_SLOT_ID", "out-of-bounds reads", "A", K::shares, "B09",
     "page tables: the B09 shape (b09_no_padding_guard); mamba_translate has no variant slot in its contract, and its production host route already reports the -1 read as OutOfRange (spec §7 Q3)"},
}};
}  // namespace

std::string_view to_string(PlantKind k) noexcept {
  switch (k) {
    case K::translate_variant: return "translate_variant";
    case K::lane_variant: return "lane_variant";
    case K::wiring_variant: return "wiring_variant";
    case K::pool_bug: return "pool_bug";
    case K::pool_option: return "pool_option";
    case K::shares: return "shares";
    case K::not_modelled: return "not_modelled";
  }
  return "unknown";
}

std::span<const CatalogueEntry> bug_catalogue() noexcept { return kCatalogue; }

const CatalogueEntry* find_bug(std::string_view id) noexcept {
  for (const CatalogueEntry& e : kCatalogue)
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace kvaddr::model
