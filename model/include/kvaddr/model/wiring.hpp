#pragma once
// Small `backend_gate` wiring model (spec §4.15, §5.4, I10, bug B03).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

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

}  // namespace kvaddr::model
