// Differential GPU check (see kvaddr/kernels/diff.hpp): the campaign loop. Case k of seed s is
// rebuilt from gen::case_key(s, k, max_case_lanes) alone: the key picks the kernel and seeds the
// case's SplitMix64 stream (docs/generators.md); the cases live in diff_cases_*.cpp, the reports
// in diff_report.cpp.
#include <array>
#include <exception>
#include <map>
#include <sstream>

#include "diff_case.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::gpu {
namespace {

using diffcase::Ctx;
using i64 = std::int64_t;
using u64 = std::uint64_t;
using diffcase::sz;

// The kernels before the per-id ones; a per-id kernel is named by its route.
constexpr std::array<std::string_view, kFirstPerIdKernel> kNames = {
    "token_translate_i64", "token_translate_i32", "flashmla_block_table", "canonical_page_table",
    "read_table",          "read_stream",         "decode_metadata",      "eager_funnel",
    "kv_indices_inplace",  "write_loc",           "swa_translate_i64",    "swa_translate_i32",
    "full_prefill_table",  "envelope_moves"};

bool is_per_id_kernel(DiffKernel k) {
  return static_cast<int>(k) >= kFirstPerIdKernel && static_cast<int>(k) < kDiffKernelCount;
}

void run_kernel_case(Ctx& c) {
  using namespace diffcase;
  if (is_per_id_kernel(c.kernel)) return case_per_id(c, route_of(c.kernel));
  switch (c.kernel) {
    case DiffKernel::token_translate_i64: return case_token<i64>(c, false);
    case DiffKernel::token_translate_i32: return case_token<i32>(c, false);
    case DiffKernel::swa_translate_i64: return case_token<i64>(c, true);
    case DiffKernel::swa_translate_i32: return case_token<i32>(c, true);
    case DiffKernel::flashmla_block_table: return case_flashmla(c);
    case DiffKernel::canonical_page_table: return case_canonical(c, false);
    case DiffKernel::full_prefill_table: return case_canonical(c, true);
    case DiffKernel::read_table: return case_read_table(c);
    case DiffKernel::read_stream: return case_read_stream(c);
    case DiffKernel::decode_metadata: return case_decode(c);
    case DiffKernel::eager_funnel: return case_eager(c);
    case DiffKernel::kv_indices_inplace: return case_kv_inplace(c);
    case DiffKernel::write_loc: return case_write_loc(c);
    case DiffKernel::envelope_moves: return case_envelope(c);
    default: return;  // the per-id kernels, above
  }
}

std::string replay_line(const DiffOptions& o, i64 idx) {
  std::ostringstream s;
  s << "kvaddr diff --seed " << o.seed << " --first-case " << idx << " --cases 1 --case-lanes " << o.max_case_lanes;
  if (o.force_variant) s << " --force-variant " << kvaddr::to_string(*o.force_variant);
  if (o.force_route) s << " --force-route " << kvaddr::to_string(*o.force_route);
  if (o.only) s << " --kernel " << to_string(*o.only);
  if (o.production_only) s << " --production-only";
  if (o.host_only) s << " --host-only";
  if (!o.edge_classes) s << " --no-edge-classes";
  return s.str();
}

// The kernels a case may take: `only`, else the route's (with a forced variant: those that carry it),
// else every kernel. A forced variant that no kernel of the choice carries is rejected before any case.
std::vector<DiffKernel> candidate_kernels(const DiffOptions& o) {
  std::vector<DiffKernel> out;
  if (o.only) {
    out.push_back(*o.only);
  } else if (o.force_route) {
    for (int k = 0; k < kDiffKernelCount; ++k) {
      const auto kernel = static_cast<DiffKernel>(k);
      if (route_of(kernel) == *o.force_route && (!o.force_variant || kernel_carries(kernel, *o.force_variant)))
        out.push_back(kernel);
    }
  }
  if (o.force_variant && (o.only || o.force_route)) {
    const Route r = o.only ? route_of(*o.only) : *o.force_route;
    if (out.empty() || !kernel_carries(out.front(), *o.force_variant)) {
      throw InvalidArgument("force_variant", std::string(kvaddr::to_string(*o.force_variant)),
                            o.only ? "not run by the differential kernel " + std::string(to_string(*o.only))
                                   : "not accepted by any differential kernel of route " + std::string(kvaddr::to_string(r)));
    }
  }
  return out;
}

void check_shard(const DiffOptions& o) {
  if (o.shard_count < 1) throw InvalidArgument("shard_count", std::to_string(o.shard_count), "must be at least 1");
  if (o.shard_index < 0 || o.shard_index >= o.shard_count) {
    throw InvalidArgument("shard_index", std::to_string(o.shard_index),
                          "must be in [0, " + std::to_string(o.shard_count - 1) + "]");
  }
  if (o.shard_count > 1 && o.min_lanes > 0) {
    throw InvalidArgument("min_lanes", std::to_string(o.min_lanes), "cannot be combined with shards (use --cases)");
  }
}

}  // namespace

std::string_view to_string(DiffKernel k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  if (is_per_id_kernel(k)) return kvaddr::to_string(route_of(k));
  return i < kNames.size() ? kNames[i] : "unknown";
}
std::optional<DiffKernel> parse_diff_kernel(std::string_view name) noexcept {
  for (int i = 0; i < kDiffKernelCount; ++i)
    if (to_string(static_cast<DiffKernel>(i)) == name) return static_cast<DiffKernel>(i);
  return std::nullopt;
}
bool kernel_carries(DiffKernel k, Variant v) noexcept {
  return k != DiffKernel::read_stream && k != DiffKernel::envelope_moves && static_cast<int>(k) >= 0 &&
         static_cast<int>(k) < kDiffKernelCount && route_accepts(route_of(k), v);
}

std::map<std::string, std::int64_t> variants_run(const DiffReport& r) {
  std::map<std::string, std::int64_t> out;
  for (const auto& k : r.per_kernel)
    for (const auto& [name, n] : k.variants) out[name] += n;
  return out;
}

Route route_of(DiffKernel k) noexcept {
  if (is_per_id_kernel(k)) return kPerIdRoutes[static_cast<std::size_t>(static_cast<int>(k) - kFirstPerIdKernel)];
  switch (k) {
    case DiffKernel::token_translate_i64:
    case DiffKernel::token_translate_i32: return Route::token_translate;
    case DiffKernel::flashmla_block_table: return Route::flashmla_block_table;
    case DiffKernel::canonical_page_table: return Route::canonical_page_table;
    case DiffKernel::read_table:
    case DiffKernel::read_stream: return Route::read_table;
    case DiffKernel::decode_metadata: return Route::decode_metadata;
    case DiffKernel::eager_funnel: return Route::eager_funnel;
    case DiffKernel::kv_indices_inplace: return Route::kv_indices_inplace;
    case DiffKernel::write_loc: return Route::write_loc;
    case DiffKernel::swa_translate_i64:
    case DiffKernel::swa_translate_i32: return Route::swa_translate;
    case DiffKernel::full_prefill_table: return Route::full_prefill_table;
    case DiffKernel::envelope_moves: return Route::transfer_ids;
    default: break;  // the per-id kernels, above
  }
  return Route::token_translate;
}

DiffReport run_differential(const DiffOptions& o) {
  check_shard(o);
  const std::vector<DiffKernel> kernels = candidate_kernels(o);
  DiffReport rep;
  rep.seed = o.seed;
  std::string why;
  if (!o.host_only && !gpu_available(&why)) {
    rep.skipped = true;
    rep.skip_reason = "no CUDA GPU: " + why;
    return rep;
  }
  rep.per_kernel.resize(kDiffKernelCount);
  for (int k = 0; k < kDiffKernelCount; ++k) rep.per_kernel[sz(k)].kernel = static_cast<DiffKernel>(k);
  for (i64 n = 0;; ++n) {
    const bool more_cases = n < o.cases;
    const bool more_lanes = rep.lanes_translated < o.min_lanes && n < o.max_cases;
    if (!more_cases && !more_lanes) break;
    const i64 idx = o.first_case + n;
    if (idx % o.shard_count != o.shard_index) continue;
    if (o.on_step) o.on_step(rep.cases_run, std::max(o.cases, rep.cases_run + 1), "");
    const u64 key = gen::case_key(o.seed, idx, o.max_case_lanes);
    const DiffKernel kernel = kernels.empty() ? static_cast<DiffKernel>(static_cast<i64>(key % kDiffKernelCount))
                                              : kernels[static_cast<std::size_t>(key % kernels.size())];
    Ctx c(kernel, key, std::max<i64>(1, o.max_case_lanes), o.production_only, o.compare_model);
    c.host_only = o.host_only;
    c.edges = o.edge_classes;
    c.forced = o.force_variant;
    c.forced_runs = o.force_variant && kernel_carries(kernel, *o.force_variant);
    c.proto.kernel = kernel;
    c.proto.route = route_of(kernel);
    c.proto.seed = o.seed;
    c.proto.case_index = idx;
    c.proto.max_case_lanes = o.max_case_lanes;
    c.proto.replay = replay_line(o, idx);
    try {
      run_kernel_case(c);
      // The host route threw on the planted variant and the GPU kernel still matched production:
      // the host's exception is the kill, as in host-only runs.
      if (!c.res.mismatch && !c.host_error.empty()) c.fail("error", {}, 0, c.host_error);
    } catch (const std::exception& e) {
      c.proto.variant = c.variant;
      c.fail("error", {}, 0, e.what());
    }
    if (c.res.mismatch) c.res.mismatch->variant = c.variant;
    ++rep.cases_run;
    rep.lanes_translated += c.res.lanes;
    rep.lanes_compared += c.res.compared;
    rep.model_lanes_compared += c.res.model_compared;
    auto& pk = rep.per_kernel[static_cast<std::size_t>(kernel)];
    ++pk.cases;
    pk.lanes += c.res.lanes;
    for (const auto& cls : c.classes) ++pk.edge_classes[cls];
    ++pk.variants[std::string(kvaddr::to_string(c.variant, c.proto.route))];
    if (c.res.mismatch) {
      rep.first_mismatch = std::move(c.res.mismatch);
      break;
    }
  }
  return rep;
}

DiffReport replay_case(u64 seed, i64 case_index, i64 max_case_lanes) {
  DiffOptions o;
  o.seed = seed;
  o.first_case = case_index;
  o.cases = 1;
  o.max_case_lanes = max_case_lanes;
  return run_differential(o);
}

}  // namespace kvaddr::gpu
