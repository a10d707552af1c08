#pragma once
// Differential GPU check: random geometries and batches derived from (seed, case index) by the
// shared generators (kvaddr/gen, docs/generators.md),
// every GPU kernel against the host route (translate/) and, for production variants, the model
// (model/). Compares every written lane and every lane that must stay untouched (prefilled
// slack, guard rows and columns, tails). Includable without nvcc.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/variant.hpp"

namespace kvaddr::gpu {

// One kernel entry point of the differential check (a route, or a route at one output width).
// Past envelope_moves, one per route of kPerIdRoutes (route_list.hpp), in list order: their names,
// routes and cases come from the list (a per-id route needs no entry here; the three named below
// are the per-id routes of this tree, for callers that name them).
enum class DiffKernel : std::int32_t {
  token_translate_i64 = 0,
  token_translate_i32,
  flashmla_block_table,
  canonical_page_table,
  read_table,
  read_stream,
  decode_metadata,
  eager_funnel,
  kv_indices_inplace,
  write_loc,
  swa_translate_i64,
  swa_translate_i32,
  full_prefill_table,
  envelope_moves,
  mamba_translate,
  dcp_read_translate,
  transfer_ids,
};
inline constexpr int kFirstPerIdKernel = static_cast<int>(DiffKernel::mamba_translate);
inline constexpr int kDiffKernelCount = kFirstPerIdKernel + static_cast<int>(kPerIdRoutes.size());
// The kernel of the per-id route r (one of kPerIdRoutes).
constexpr DiffKernel per_id_kernel(Route r) {
  int k = kFirstPerIdKernel;
  for (const Route p : kPerIdRoutes) {
    if (p == r) return static_cast<DiffKernel>(k);
    ++k;
  }
  return static_cast<DiffKernel>(kDiffKernelCount);
}
static_assert(per_id_kernel(Route::mamba_translate) == DiffKernel::mamba_translate &&
                  per_id_kernel(Route::dcp_read_translate) == DiffKernel::dcp_read_translate &&
                  per_id_kernel(Route::transfer_ids) == DiffKernel::transfer_ids,
              "the named per-id kernels follow kPerIdRoutes");
std::string_view to_string(DiffKernel k) noexcept;
std::optional<DiffKernel> parse_diff_kernel(std::string_view name) noexcept;
Route route_of(DiffKernel k) noexcept;

struct DiffOptions {
  std::int64_t cases = 200;               // number of cases (at least; see min_lanes)
  std::uint64_t seed = 1;                 // with case index and max_case_lanes, rebuilds every input
  std::int64_t first_case = 0;            // index of the first case (replay: first_case = i, cases = 1)
  std::int64_t min_lanes = 0;             // keep running cases until this many translated lanes
  std::int64_t max_case_lanes = 1 << 16;  // size scale of one case (part of the replay key)
  std::optional<DiffKernel> only;         // restrict every case to one kernel
  bool production_only = false;           // no planted-bug variants
  bool compare_model = true;              // also compare production outputs with model/
  std::int64_t max_cases = 1 << 30;       // hard stop for min_lanes mode
  bool host_only = false;                 // generator + host route + model only (no GPU needed)
  // Called before each case runs: (cases run so far, the number of cases asked for, "").
  std::function<void(std::int64_t done, std::int64_t total, const std::string& what)> on_step;
  // Bug zoo (issue 6): run every case whose kernel carries this variant (kernel_carries) with it, on the
  // host route and on the GPU kernel, and compare the outputs with the model too, so a "model" mismatch
  // means the kernel running the variant disagrees with the production semantics (a differential kill).
  // Without force_route, the cases of the other kernels run production; KernelCount::variants says which
  // variant each case ran. With force_route (or only), a variant that none of the route's kernels carries
  // is InvalidArgument("force_variant").
  std::optional<Variant> force_variant;
  std::optional<Route> force_route;       // restrict the cases to the kernels of this route (with
                                          // force_variant: to those that carry it)
  // Shard shard_index of shard_count: only the case indices k with k % shard_count == shard_index
  // run (the indices first_case .. first_case + cases - 1 are the campaign). The union of the
  // shards 0..shard_count-1 is the unsharded campaign. Needs min_lanes == 0 when shard_count > 1.
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  // Draw the edge classes of kvaddr/gen/edges.hpp (strided and parent-sliced buffers, aliasing
  // shapes, grid spills, wide entries, overflowing lengths, large batches). Off: every case is the
  // one its (seed, index) gave before the edge classes existed.
  bool edge_classes = true;
};

struct LaneDiff {
  std::string buffer;      // output buffer name
  std::int64_t index = 0;  // flat element index inside that buffer
  std::int64_t expected = 0;
  std::int64_t actual = 0;
};

// The first mismatch as a minimal replayable case.
struct Mismatch {
  DiffKernel kernel{};
  Route route{};
  Variant variant{};
  std::uint64_t seed = 0;
  std::int64_t case_index = 0;
  std::int64_t max_case_lanes = 0;
  std::string against;        // "host" (GPU vs host route), "model" (host route vs model), "error"
  std::string geometry;       // ps, M, batch shape, ... of the case
  std::int64_t differing_lanes = 0;
  std::vector<LaneDiff> lanes;  // at most 8
  std::string detail;           // exception text for "error"
  std::string replay;           // CLI line that rebuilds exactly this case
};

struct KernelCount {
  DiffKernel kernel{};
  std::int64_t cases = 0;
  std::int64_t lanes = 0;
  // Cases of this kernel per edge class they drew (docs/generators.md names the classes).
  std::map<std::string, std::int64_t> edge_classes;
  // Cases of this kernel per variant they ran (the name of kvaddr::to_string(Variant, route)).
  std::map<std::string, std::int64_t> variants;
};

struct DiffReport {
  bool skipped = false;         // no GPU: nothing ran
  std::string skip_reason;
  std::uint64_t seed = 0;
  std::int64_t cases_run = 0;
  std::int64_t lanes_translated = 0;   // lanes the routes define (written lanes)
  std::int64_t lanes_compared = 0;     // every element compared GPU vs host, untouched lanes included
  std::int64_t model_lanes_compared = 0;
  std::vector<KernelCount> per_kernel;
  std::optional<Mismatch> first_mismatch;
  bool ok() const { return !skipped && !first_mismatch.has_value(); }
};

// Whether kernel k's cases run variant v when it is forced (its route accepts v and the kernel's case
// is not production-only: read_stream and envelope_moves are).
bool kernel_carries(DiffKernel k, Variant v) noexcept;
// The cases of every kernel per variant they ran (KernelCount::variants summed).
std::map<std::string, std::int64_t> variants_run(const DiffReport& r);

// Runs the differential check; never throws for a missing GPU (skipped = true instead).
DiffReport run_differential(const DiffOptions& options);
inline DiffReport run_differential(std::int64_t cases, std::uint64_t seed) {
  DiffOptions o;
  o.cases = cases;
  o.seed = seed;
  return run_differential(o);
}
// Rebuilds and reruns exactly one case.
DiffReport replay_case(std::uint64_t seed, std::int64_t case_index, std::int64_t max_case_lanes = 1 << 16);

std::string to_json(const DiffReport& r);  // one JSON object
std::string to_text(const DiffReport& r);  // human-readable summary (first mismatch included)

}  // namespace kvaddr::gpu
