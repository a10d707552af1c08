#include "kvaddr/model/wiring.hpp"

#include <array>
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
constexpr std::array<std::pair<Backend, std::string_view>, 11> kNames{{
    {Backend::triton, "triton"},
    {Backend::fa3, "fa3"},
    {Backend::fa4, "fa4"},
    {Backend::flashinfer, "flashinfer"},
    {Backend::trtllm_mla, "trtllm_mla"},
    {Backend::cutedsl_mla, "cutedsl_mla"},
    {Backend::tokenspeed_mla, "tokenspeed_mla"},
    {Backend::flashmla, "flashmla"},
    {Backend::cutlass_mla, "cutlass_mla"},
    {Backend::trtllm_mha, "trtllm_mha"},
    {Backend::aiter, "aiter"},
}};

constexpr std::array<Backend, 11> kAll{Backend::triton,      Backend::fa3,           Backend::fa4,
                                       Backend::flashinfer,  Backend::trtllm_mla,    Backend::cutedsl_mla,
                                       Backend::tokenspeed_mla, Backend::flashmla,   Backend::cutlass_mla,
                                       Backend::trtllm_mha,  Backend::aiter};

// Era B gate rows: {backend, always allowed, allowed for unified MLA}.
struct GateRow {
  Backend backend;
  bool always;
  bool unified_mla;
};
constexpr std::array<GateRow, 11> kEraB{{
    {Backend::triton, true, true},
    {Backend::fa3, false, true},
    {Backend::fa4, false, false},
    {Backend::flashinfer, false, true},
    {Backend::trtllm_mla, false, true},
    {Backend::cutedsl_mla, false, true},
    {Backend::tokenspeed_mla, false, true},
    {Backend::flashmla, false, false},
    {Backend::cutlass_mla, false, false},
    {Backend::trtllm_mha, false, false},
    {Backend::aiter, false, false},
}};
}  // namespace

std::string_view to_string(Backend b) noexcept {
  for (const auto& [backend, name] : kNames)
    if (backend == b) return name;
  return "unknown";
}

std::optional<Backend> backend_from_string(std::string_view name) noexcept {
  for (const auto& [backend, n] : kNames)
    if (n == name) return backend;
  return std::nullopt;
}

std::span<const Backend> all_backends() noexcept { return kAll; }

bool backend_allowed(Backend backend, bool is_mla, bool unified) noexcept {
  for (const GateRow& row : kEraB) {
    if (row.backend != backend) continue;
    return row.always || (row.unified_mla && is_mla && unified);
  }
  return false;
}

}  // namespace kvaddr::model
