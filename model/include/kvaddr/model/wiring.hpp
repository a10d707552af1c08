#pragma once
// Small `backend_gate` wiring model (spec §4.15, §5.4, §5.7, I10) and its planted configuration
// bugs (B01, B03, B04, B07 predicate, B13, B14, B15, B16).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvaddr::model {

// What an allocator exposes to the attention backends (`unified_mem_hooks.py`).
struct PoolHooks {
  bool has_full_v2p_page_table = false;    // allocator exposes full_v2p_page_table
  std::int64_t kernel_page_multiplier = 1;  // M
};

enum class DetectVariant {
  production,               // enabled iff the allocator exposes a v2p table
  b03_multiplier_gt_one,    // bug B03: enabled iff M > 1 (misses the single-layer PP rank)
};

// The hook set a backend receives. Disabled = the static set of I10: no v2p, no translate, M = 1.
struct HookSet {
  bool enabled = false;
  bool has_v2p = false;
  bool has_translate = false;
  std::int64_t multiplier = 1;
  friend bool operator==(const HookSet&, const HookSet&) = default;
};

bool detect_unified(const PoolHooks& hooks, DetectVariant variant = DetectVariant::production);
HookSet unified_mla_hooks(const PoolHooks& hooks, DetectVariant variant = DetectVariant::production);

enum class Backend {
  triton,
  fa3,
  fa4,
  flashinfer,
  trtllm_mla,
  cutedsl_mla,
  tokenspeed_mla,
  flashmla,
  cutlass_mla,
  trtllm_mha,
  aiter,
};

std::string_view to_string(Backend b) noexcept;
std::optional<Backend> backend_from_string(std::string_view name) noexcept;
std::span<const Backend> all_backends() noexcept;

// Era B page-major allowlist (`_handle_page_major_kv_layout`, §4.15 / §5.4): triton always; fa3,
// trtllm_mla, flashinfer, cutedsl_mla, tokenspeed_mla only for MLA under unified memory; every other
// backend (flashmla, cutlass_mla, trtllm_mha, aiter, fa4) rejected.
bool backend_allowed(Backend backend, bool is_mla, bool unified) noexcept;

// ---- path coverage (spec §4.15 obligation, §5.4, §5.7) ------------------------------------------
// A configuration is one row of the table below: the backend it resolves to and the knobs that
// decide which code paths produce and consume ids. For each configuration the model lists every
// use of an id (a "hop"), the §4 route that serves it, and whether translation is applied there.

enum class AttentionKind { mla, dense_mha, strided_mha };
std::string_view to_string(AttentionKind k) noexcept;

// Which startup gate is in force: the Era B page-major allowlist (backend_allowed), or the later
// three-way gate (backend_allowed_three_way).
enum class GateEra { era_b_allowlist, three_way };

// Later three-way gate (§4.15, §5.4 "later version"): MLA -> triton, fa3, trtllm_mla, flashinfer,
// cutedsl_mla, tokenspeed_mla, flashmla (ps snapped to 64); dense MHA/SWA -> triton, fa3, fa4,
// flashinfer, trtllm_mha; strided -> triton only. Without unified memory the gate does not apply.
bool backend_allowed_three_way(Backend backend, AttentionKind kind, bool unified) noexcept;

enum class GraphMode { eager, decode_graphs };

struct WiringConfig {
  std::string_view name;
  std::string_view upstream;      // who runs it upstream (model, hardware, flags)
  Backend backend;                // the backend the configuration resolves to
  bool backend_by_default;        // true: no --attention-backend, the host default picks it
  AttentionKind kind;
  GateEra gate;
  std::int64_t page_size;
  std::int64_t multiplier;        // M of the full-attention pool; 1 = single-layer MLA rank / strided
  GraphMode graphs;
  bool full_prefill_graph;        // FULL prefill cuda graph (fa3/fa4 only under unified memory)
  bool wrapper_backend;           // a wrapper backend serves part of the forward (chunked prefix, one-shot MHA)
  std::int64_t dcp_size;          // decode context parallelism
  bool pd;                        // prefill/decode disaggregation (ids cross the PD boundary)
  bool swa;                       // hybrid SWA composite
  bool mamba;                     // hybrid Mamba state slots
};

// Every producer / consumer of an id that the model tracks.
enum class IdUse {
  kv_write,            // write locs of the forward (translated once per ForwardBatch)
  decode_read,         // decode attention's page table / indices
  prefill_read,        // extend / prefill attention (eager)
  prefill_graph_read,  // FULL prefill cuda-graph tables (#37418)
  capture_write,       // write loc of the hand-built cuda-graph capture batch
  dcp_read,            // DCP decode reads (collapsed ids)
  swa_read,            // SWA side of the composite
  mamba_state,         // Mamba state slots
  pd_transfer,         // KV envelopes crossing the PD boundary
  page_handout,        // page envelopes handed out by alloc (MLA pools zero them, #33974)
};
std::string_view to_string(IdUse u) noexcept;

struct WiringHop {
  IdUse use;
  std::string_view route;  // spec §4 route identifier ("page_lifecycle" for page_handout)
  bool applied;            // translation applied (page_handout: the envelope is zeroed)
  friend bool operator==(const WiringHop&, const WiringHop&) = default;
};

enum class WiringVariant {
  production,
  b01_fa3_not_allowlisted,        // Era B allowlist without fa3: the Hopper default fails at startup
  b03_detect_multiplier,          // unified detected by M > 1: the single-layer rank runs untranslated
  b04_prefill_graph_no_remap,     // FULL prefill graph table = page_indices / ps, no v2p remap
  b07_zero_predicate_multiplier,  // page zeroing keyed on M > 1: single-layer MLA rank hands out stale pages
  b13_wrapper_drops_translator,   // wrapper backends keep kv_index_translator = None
  b14_dcp_half_translated,        // DCP: eager reads never translated (the graph buffer only, incidentally)
  b15_capture_none_write_loc,     // DCP capture batch built with out_cache_loc_virtual = None
  b16_pd_virtual_ids,             // PD transfer ships virtual req_to_token ids as physical offsets
};
std::string_view to_string(WiringVariant v) noexcept;
std::optional<WiringVariant> wiring_variant_from_string(std::string_view name) noexcept;
std::span<const WiringVariant> all_wiring_variants() noexcept;
// The configuration (a WiringConfig::name) that exposed the bug upstream; "" for production.
std::string_view exposing_config(WiringVariant v) noexcept;

struct WiringFinding {
  std::string_view config;
  bool starts = false;            // passes the startup gate
  std::vector<WiringHop> hops;    // empty when the configuration does not start
  bool ok = false;                // starts and every hop applies translation
  std::string detail;             // why not ok ("" when ok)
};

std::span<const WiringConfig> wiring_configs() noexcept;
bool gate_allows(const WiringConfig& c, WiringVariant v = WiringVariant::production);
std::vector<WiringHop> resolve_hops(const WiringConfig& c, WiringVariant v = WiringVariant::production);
WiringFinding check_config(const WiringConfig& c, WiringVariant v = WiringVariant::production);
// One finding per configuration of wiring_configs(), in table order.
std::vector<WiringFinding> check_wiring(WiringVariant v = WiringVariant::production);

}  // namespace kvaddr::model
