// `kvaddr verify`: every check that exists, on embedded defaults.
#include <fmt/format.h>

#include <chrono>
#include <functional>

#include "grid.hpp"
#include "kvaddr/cli/app.hpp"
#include "kvaddr/model/wiring.hpp"
#include "kvaddr/translate/validate.hpp"
#include "verify_extra.hpp"

namespace kvaddr::cli {

namespace {


// Every production route agrees with the model on the grid, at every grid page size.
CheckResult grid_check(Route route, bool upstream_exact, std::uint64_t seed) {
  CheckResult r;
  int runs = 0;
  for (auto ps : grid_page_sizes(route)) {
    for (std::int64_t m : {std::int64_t{24}, std::int64_t{1}}) {
      for (bool large : {false, true}) {
        if (large && (upstream_exact || !has_int64_output(route))) continue;
        GridOptions o{ps, m, upstream_exact, seed, large};
        auto mismatch = check_route_on_grid(route, Variant::production, o);
        ++runs;
        if (!mismatch.empty()) {
          r.passed = false;
          r.detail = mismatch;
          return r;
        }
      }
    }
  }
  r.passed = true;
  r.detail = fmt::format("{} grids (ps 1/32/64, M 24/1{}) equal the model lane by lane, untouched lanes kept", runs,
                         has_int64_output(route) && !upstream_exact ? ", ids past 2^31" : "");
  return r;
}

// Every bug variant a route accepts disagrees with the model somewhere on the grid.
CheckResult variant_check(Route route, Variant variant, std::uint64_t seed) {
  CheckResult r;
  for (bool large : {false, true}) {
    if (large && !has_int64_output(route)) continue;
    for (auto ps : grid_page_sizes(route)) {
      for (std::int64_t m : {std::int64_t{24}, std::int64_t{1}}) {
        auto mismatch = check_route_on_grid(route, variant, GridOptions{ps, m, false, seed, large});
        if (!mismatch.empty()) {
          r.passed = true;
          r.detail = "caught: " + mismatch;
          if (r.detail.size() > 160) r.detail = r.detail.substr(0, 157) + "...";
          return r;
        }
      }
    }
  }
  r.passed = false;
  r.detail = "the bug variant survived the grid (equals the model everywhere)";
  return r;
}

// The progress hook of the run in flight (set by run_verify_checks).
std::function<void(const std::string&, std::int64_t, std::int64_t, const std::string&)> g_progress;

}  // namespace

void step(const std::string& phase, std::int64_t done, std::int64_t total, const std::string& item) {
  if (g_progress) g_progress(phase, done, total, item);
}

CheckResult timed(const std::string& name, const std::function<CheckResult()>& body) {
  step(name, 0, 0, "");
  const auto start = std::chrono::steady_clock::now();
  CheckResult r;
  try {
    r = body();
  } catch (const std::exception& e) {
    r.passed = false;
    r.detail = std::string("raised: ") + e.what();
  }
  r.name = name;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::int64_t wrong_reads_after_compaction(model::DetectVariant variant);  // gate.cpp

std::vector<CheckResult> run_verify_checks(const VerifyOptions& options) {
  std::vector<CheckResult> results;
  g_progress = options.progress;
  struct Reset {
    ~Reset() { g_progress = nullptr; }
  } reset;
  const auto grids = static_cast<std::int64_t>(std::size(kAllRoutes));
  for (Route route : kAllRoutes) {
    const auto name = fmt::format("grid.{}", to_string(route));
    const auto done = static_cast<std::int64_t>(results.size());
    results.push_back(timed(name, [&] {
      step("grid", done, grids + 1, name);
      return grid_check(route, false, options.seed);
    }));
  }
  results.push_back(timed("grid.upstream_exact", [&] {
    step("grid", grids, grids + 1, "grid.upstream_exact");
    CheckResult r;
    for (Route route : kAllRoutes) {
      auto c = grid_check(route, true, options.seed);
      if (!c.passed) return c;
    }
    r.passed = true;
    r.detail = "every route on upstream's cases as written (no tombstone, no padding)";
    return r;
  }));
  std::int64_t variants = 0, variant_done = 0;
  for (Route route : kAllRoutes)
    for (Variant v : kAllVariants) variants += v != Variant::production && route_accepts(route, v) ? 1 : 0;
  for (Route route : kAllRoutes) {
    for (Variant v : kAllVariants) {
      if (v == Variant::production || !route_accepts(route, v)) continue;
      const auto name = fmt::format("variant.{}.{}", to_string(route), to_string(v));
      results.push_back(timed(name, [&] {
        step("variants", variant_done, variants, name);
        return variant_check(route, v, options.seed);
      }));
      ++variant_done;
    }
  }
  results.push_back(timed("simulator.compaction_readback", [&] {
    CheckResult r;
    auto msg = check_simulator_readback(options.seed);
    r.passed = msg.empty();
    r.detail = r.passed ? "alloc, tag, eager free (pages moved), lazy free + flush: every live slot reads its tag "
                          "through token_translate, canonical_page_table and read_table"
                        : msg;
    return r;
  }));
  results.push_back(timed("backend_gate.b03_single_layer_rank", [&] {
    CheckResult r;
    const auto production = wrong_reads_after_compaction(model::DetectVariant::production);
    const auto b03 = wrong_reads_after_compaction(model::DetectVariant::b03_multiplier_gt_one);
    r.passed = production == 0 && b03 > 0;
    r.detail = fmt::format("M = 1 rank after compaction: detection on full_v2p_page_table reads {} wrong slots; "
                           "B03 (multiplier > 1) reads {} wrong slots",
                           production, b03);
    return r;
  }));
  append_extra_checks(options, results);
  return results;
}

}  // namespace kvaddr::cli
