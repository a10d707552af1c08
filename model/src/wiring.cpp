#include "kvaddr/model/wiring.hpp"

#include <array>
#include <cstddef>
#include <iterator>
#include <utility>

namespace kvaddr::model {

bool detect_unified(const PoolHooks& hooks, DetectVariant variant) {
  switch (variant) {
    case DetectVariant::production: return hooks.has_full_v2p_page_table;
    case DetectVariant::b03_multiplier_gt_one: return hooks.kernel_page_multiplier > 1;
  }
  return false;
}

HookSet unified_mla_hooks(const PoolHooks& hooks, DetectVariant variant) {
  if (!detect_unified(hooks, variant)) return HookSet{};
  return HookSet{true, hooks.has_full_v2p_page_table, hooks.has_full_v2p_page_table, hooks.kernel_page_multiplier};
}

namespace {
// Lookups in a table whose rows each name one enumerator (members `value` and `name`).
template <class Rows, class E>
constexpr const auto* row_of(const Rows& rows, E value) noexcept {
  for (const auto& row : rows)
    if (row.value == value) return &row;
  return static_cast<decltype(&*std::begin(rows))>(nullptr);
}
template <class Rows>
constexpr std::string_view name_of(const Rows& rows, decltype(std::begin(rows)->value) value) noexcept {
  const auto* row = row_of(rows, value);
  return row ? row->name : "unknown";
}
template <class Rows>
constexpr auto value_named(const Rows& rows, std::string_view name) noexcept
    -> std::optional<decltype(std::begin(rows)->value)> {
  for (const auto& row : rows)
    if (row.name == name) return row.value;
  return std::nullopt;
}
// The `value` of every row, in row order.
template <class Row, std::size_t N>
constexpr auto values_of(const std::array<Row, N>& rows) noexcept {
  std::array<decltype(Row::value), N> all{};
  for (std::size_t i = 0; i < N; ++i) all[i] = rows[i].value;
  return all;
}
template <class E>
struct NameRow {
  E value;
  std::string_view name;
};

// Every backend once, in Backend order: its name and its Era B gate row (always allowed, allowed
// for unified MLA).
struct BackendRow {
  Backend value;
  std::string_view name;
  bool always;
  bool unified_mla;
};
constexpr std::array<BackendRow, 11> kBackends{{
    {Backend::triton, "triton", true, true},
    {Backend::fa3, "fa3", false, true},
    {Backend::fa4, "fa4", false, false},
    {Backend::flashinfer, "flashinfer", false, true},
    {Backend::trtllm_mla, "trtllm_mla", false, true},
    {Backend::cutedsl_mla, "cutedsl_mla", false, true},
    {Backend::tokenspeed_mla, "tokenspeed_mla", false, true},
    {Backend::flashmla, "flashmla", false, false},
    {Backend::cutlass_mla, "cutlass_mla", false, false},
    {Backend::trtllm_mha, "trtllm_mha", false, false},
    {Backend::aiter, "aiter", false, false},
}};

constexpr auto kAll = values_of(kBackends);
}  // namespace

std::string_view to_string(Backend b) noexcept { return name_of(kBackends, b); }

std::optional<Backend> backend_from_string(std::string_view name) noexcept { return value_named(kBackends, name); }

std::span<const Backend> all_backends() noexcept { return kAll; }

bool backend_allowed(Backend backend, bool is_mla, bool unified) noexcept {
  const BackendRow* row = row_of(kBackends, backend);
  return row && (row->always || (row->unified_mla && is_mla && unified));
}

}  // namespace kvaddr::model

// ================================================================================================
// Path coverage (§4.15) and the wiring bug variants
// ================================================================================================
namespace kvaddr::model {

namespace {

constexpr std::array<NameRow<AttentionKind>, 3> kKindNames{{
    {AttentionKind::mla, "mla"},
    {AttentionKind::dense_mha, "dense_mha"},
    {AttentionKind::strided_mha, "strided_mha"},
}};

constexpr std::array<NameRow<IdUse>, 10> kUseNames{{
    {IdUse::kv_write, "kv_write"},
    {IdUse::decode_read, "decode_read"},
    {IdUse::prefill_read, "prefill_read"},
    {IdUse::prefill_graph_read, "prefill_graph_read"},
    {IdUse::capture_write, "capture_write"},
    {IdUse::dcp_read, "dcp_read"},
    {IdUse::swa_read, "swa_read"},
    {IdUse::mamba_state, "mamba_state"},
    {IdUse::pd_transfer, "pd_transfer"},
    {IdUse::page_handout, "page_handout"},
}};

struct VariantRow {
  WiringVariant value;
  std::string_view name;
  std::string_view exposing;
};
constexpr std::array<VariantRow, 9> kVariants{{
    {WiringVariant::production, "production", ""},
    {WiringVariant::b01_fa3_not_allowlisted, "b01_fa3_not_allowlisted", "kimi_linear_hopper_default"},
    {WiringVariant::b03_detect_multiplier, "b03_detect_multiplier", "mla_pp_single_layer_rank"},
    {WiringVariant::b04_prefill_graph_no_remap, "b04_prefill_graph_no_remap", "dense_swa_fa3_full_prefill_graph"},
    {WiringVariant::b07_zero_predicate_multiplier, "b07_zero_predicate_multiplier", "mla_pp_single_layer_rank"},
    {WiringVariant::b13_wrapper_drops_translator, "b13_wrapper_drops_translator", "kimi_linear_tp2_flashinfer_wrapper"},
    {WiringVariant::b14_dcp_half_translated, "b14_dcp_half_translated", "mla_dcp2_eager"},
    {WiringVariant::b15_capture_none_write_loc, "b15_capture_none_write_loc", "mla_dcp2_graph_capture"},
    {WiringVariant::b16_pd_virtual_ids, "b16_pd_virtual_ids", "mla_pd_disaggregated"},
}};

constexpr auto kAllWiring = values_of(kVariants);

// The configuration table. M = 24 is the spec's multi-layer MLA test value (§5.2); dense MHA uses
// M = 2L with L = 4 here. Every row passes the production gate.
constexpr std::array<WiringConfig, 9> kConfigs{{
    {"kimi_linear_hopper_default",
     "Kimi-Linear, --enable-unified-memory, no --attention-backend, Hopper (H100/H200): resolves to fa3 (B01, §5.7)",
     Backend::fa3, true, AttentionKind::mla, GateEra::era_b_allowlist, 1, 24, GraphMode::decode_graphs, false, false,
     1, false, false, true},
    {"kimi_linear_triton_pinned",
     "Kimi-Linear e2e as first written: --attention-backend triton, TP2, chunked prefill 2048 (§5.7)",
     Backend::triton, false, AttentionKind::mla, GateEra::era_b_allowlist, 1, 24, GraphMode::decode_graphs, false,
     false, 1, false, false, true},
    {"kimi_linear_tp2_flashinfer_wrapper",
     "Kimi-Linear MLA, flashinfer, TP2: chunked-prefix / one-shot MHA path through a wrapper backend (B13)",
     Backend::flashinfer, false, AttentionKind::mla, GateEra::era_b_allowlist, 1, 24, GraphMode::decode_graphs, false,
     true, 1, false, false, true},
    {"mla_pp_single_layer_rank",
     "hybrid MLA under pipeline parallelism, a rank owning exactly one full-attention layer (M = 1), trtllm_mla",
     Backend::trtllm_mla, false, AttentionKind::mla, GateEra::era_b_allowlist, 64, 1, GraphMode::decode_graphs, false,
     false, 1, false, false, true},
    {"mla_dcp2_eager", "unified MLA + decode context parallelism 2, trtllm_mla, eager decode (B14)",
     Backend::trtllm_mla, false, AttentionKind::mla, GateEra::three_way, 64, 24, GraphMode::eager, false, false, 2,
     false, false, false},
    {"mla_dcp2_graph_capture", "unified MLA + DCP 2 with cuda-graph capture (#37926 DCP performance work, B15)",
     Backend::trtllm_mla, false, AttentionKind::mla, GateEra::three_way, 64, 24, GraphMode::decode_graphs, false,
     false, 2, false, false, false},
    {"dense_swa_fa3_full_prefill_graph",
     "dense MHA/SWA hybrid on fa3 with the FULL prefill cuda graph (#37418, B04)", Backend::fa3, false,
     AttentionKind::dense_mha, GateEra::three_way, 64, 8, GraphMode::decode_graphs, true, false, 1, false, true, false},
    {"mla_pd_disaggregated",
     "unified MLA pool + PD disaggregation (DeepSeek-V4 on AMD with mori in the report, B16); triton here",
     Backend::triton, false, AttentionKind::mla, GateEra::three_way, 64, 24, GraphMode::decode_graphs, false, false, 1,
     true, false, false},
    {"strided_mha_swa_triton", "Era A strided MHA/SWA hybrid (M = 1), Triton kernels with explicit strides",
     Backend::triton, false, AttentionKind::strided_mha, GateEra::era_b_allowlist, 1, 1, GraphMode::decode_graphs,
     false, false, 1, false, true, false},
}};

// Decode read route of a backend (§4.2-§4.7): Era B per-backend remaps, Era C canonical table.
std::string_view decode_route(const WiringConfig& c) {
  if (c.backend == Backend::triton) return "kv_indices_inplace";  // Triton: in-place kv_indices translate
  if (c.gate == GateEra::three_way) return "canonical_page_table";
  switch (c.backend) {
    case Backend::fa3: return "decode_metadata";
    case Backend::flashinfer: return "kv_indices_inplace";
    default: return "flashmla_block_table";  // trtllm_mla, cutedsl_mla, tokenspeed_mla
  }
}

std::string_view prefill_route(const WiringConfig& c) {
  if (c.wrapper_backend) return "kv_indices_inplace";
  if (c.gate == GateEra::era_b_allowlist && c.backend == Backend::fa3) return "eager_funnel";
  return decode_route(c);
}

}  // namespace

std::string_view to_string(AttentionKind k) noexcept { return name_of(kKindNames, k); }

std::string_view to_string(IdUse u) noexcept { return name_of(kUseNames, u); }

std::string_view to_string(WiringVariant v) noexcept { return name_of(kVariants, v); }

std::optional<WiringVariant> wiring_variant_from_string(std::string_view name) noexcept {
  return value_named(kVariants, name);
}

std::span<const WiringVariant> all_wiring_variants() noexcept { return kAllWiring; }

std::string_view exposing_config(WiringVariant v) noexcept {
  const VariantRow* row = row_of(kVariants, v);
  return row ? row->exposing : "";
}

std::span<const WiringConfig> wiring_configs() noexcept { return kConfigs; }

bool backend_allowed_three_way(Backend backend, AttentionKind kind, bool unified) noexcept {
  if (!unified) return true;
  switch (kind) {
    case AttentionKind::mla:
      return backend == Backend::triton || backend == Backend::fa3 || backend == Backend::trtllm_mla ||
             backend == Backend::flashinfer || backend == Backend::cutedsl_mla ||
             backend == Backend::tokenspeed_mla || backend == Backend::flashmla;
    case AttentionKind::dense_mha:
      return backend == Backend::triton || backend == Backend::fa3 || backend == Backend::fa4 ||
             backend == Backend::flashinfer || backend == Backend::trtllm_mha;
    case AttentionKind::strided_mha: return backend == Backend::triton;
  }
  return false;
}

bool gate_allows(const WiringConfig& c, WiringVariant v) {
  if (c.gate == GateEra::three_way) return backend_allowed_three_way(c.backend, c.kind, true);
  // B01: the Era B allowlist before #33046 had no fa3 entry.
  if (v == WiringVariant::b01_fa3_not_allowlisted && c.backend == Backend::fa3) return false;
  return backend_allowed(c.backend, c.kind == AttentionKind::mla, true);
}

std::vector<WiringHop> resolve_hops(const WiringConfig& c, WiringVariant v) {
  std::vector<WiringHop> hops;
  // MLA backends translate through the hook set; detection must not depend on M (B03).
  const DetectVariant detect =
      v == WiringVariant::b03_detect_multiplier ? DetectVariant::b03_multiplier_gt_one : DetectVariant::production;
  const bool mla = c.kind == AttentionKind::mla;
  const bool hooks = !mla || unified_mla_hooks(PoolHooks{true, c.multiplier}, detect).enabled;
  const bool dcp = c.dcp_size > 1;
  const bool graphs = c.graphs == GraphMode::decode_graphs;

  hops.push_back({IdUse::kv_write, "write_loc", hooks});
  if (dcp) {
    // B14: only the graph buffer happened to be translated; eager DCP reads stayed virtual.
    const bool applied = hooks && !(v == WiringVariant::b14_dcp_half_translated && !graphs);
    hops.push_back({IdUse::dcp_read, "dcp_read_translate", applied});
  } else {
    hops.push_back({IdUse::decode_read, decode_route(c), hooks});
  }
  // B13: the wrapper's kv_index_translator keeps its class default None (no translation).
  hops.push_back({IdUse::prefill_read, prefill_route(c),
                  hooks && !(c.wrapper_backend && v == WiringVariant::b13_wrapper_drops_translator)});
  if (c.full_prefill_graph) {
    hops.push_back({IdUse::prefill_graph_read, "full_prefill_table", v != WiringVariant::b04_prefill_graph_no_remap});
  }
  if (graphs) {
    // B15: the hand-built DCP capture batch carries out_cache_loc_virtual = None.
    hops.push_back({IdUse::capture_write, "write_loc", hooks && !(dcp && v == WiringVariant::b15_capture_none_write_loc)});
  }
  if (c.swa) hops.push_back({IdUse::swa_read, "swa_translate", true});
  if (c.mamba) hops.push_back({IdUse::mamba_state, "mamba_translate", true});
  if (c.pd) hops.push_back({IdUse::pd_transfer, "transfer_ids", v != WiringVariant::b16_pd_virtual_ids});
  if (mla) {
    // Zeroing at hand-out is keyed on the pool type (UnifiedMLATokenToKVPool); B07 keyed it on M > 1.
    const bool zeroed = v == WiringVariant::b07_zero_predicate_multiplier ? c.multiplier > 1 : true;
    hops.push_back({IdUse::page_handout, "page_lifecycle", zeroed});
  }
  return hops;
}

WiringFinding check_config(const WiringConfig& c, WiringVariant v) {
  WiringFinding f;
  f.config = c.name;
  f.starts = gate_allows(c, v);
  if (!f.starts) {
    f.detail = "startup gate rejects backend " + std::string(to_string(c.backend)) + " for " +
               std::string(to_string(c.kind)) + " under unified memory";
    return f;
  }
  f.hops = resolve_hops(c, v);
  f.ok = true;
  for (const WiringHop& h : f.hops) {
    if (h.applied) continue;
    f.ok = false;
    f.detail = std::string(to_string(h.use)) + " via " + std::string(h.route) +
               (h.use == IdUse::page_handout ? ": page envelopes not zeroed at hand-out"
                                             : ": ids reach the consumer untranslated");
    break;
  }
  return f;
}

std::vector<WiringFinding> check_wiring(WiringVariant v) {
  std::vector<WiringFinding> out;
  out.reserve(kConfigs.size());
  for (const WiringConfig& c : kConfigs) out.push_back(check_config(c, v));
  return out;
}

}  // namespace kvaddr::model
