#include "verify_extra.hpp"

#include <fmt/format.h>

#include <functional>

#ifdef KVADDR_WITH_PROPS
#include "kvaddr/props/lifecycle.hpp"
#include "kvaddr/props/props.hpp"
#endif
#ifdef KVADDR_WITH_PROOFS
#include "kvaddr/proofs/registry.hpp"
#endif
#ifdef KVADDR_WITH_KERNELS
#include "kvaddr/kernels/diff.hpp"
#include "kvaddr/kernels/launch.hpp"
#endif

namespace kvaddr::cli {

namespace {

[[maybe_unused]] CheckResult skipped(const std::string& name, const std::string& why) {
  CheckResult r;
  r.name = name;
  r.passed = true;
  r.skipped = true;
  r.detail = why;
  return r;
}


#ifdef KVADDR_WITH_PROOFS
// Every obligation (--quick: one identity and one refuted bug) ends with its expected verdict.
CheckResult proofs_check(const VerifyOptions& options) {
  proofs::RunOptions run;
  // --quick (the test suite) proves one identity and refutes one bug; `ctest -L proofs` runs them all.
  if (options.quick) run.only = {"I1.algebra", "route.canonical_page_table.b09"};
  run.on_step = [](std::int64_t done, std::int64_t total, const std::string& name) {
    step("proofs", done, total, name);
  };
  const auto all = proofs::run_all(run);
  CheckResult r;
  int proved = 0, refuted = 0, unknown = 0;
  std::string off;
  for (const auto& o : all) {
    proved += o.verdict == proofs::Verdict::proved ? 1 : 0;
    refuted += o.verdict == proofs::Verdict::refuted ? 1 : 0;
    unknown += o.verdict == proofs::Verdict::unknown ? 1 : 0;
    if (!o.as_expected() && off.empty()) {
      off = fmt::format("{}: expected {}, got {} {}", o.name, proofs::to_string(o.expected),
                        proofs::to_string(o.verdict), o.counterexample);
    }
  }
  r.passed = off.empty() && !all.empty();
  r.detail = r.passed ? fmt::format("{} obligations as expected: {} proved, {} refuted (bug variants), {} unknown",
                                    all.size(), proved, refuted, unknown)
                      : off;
  return r;
}
#endif

#ifdef KVADDR_WITH_PROPS
// Every property passes under the production routes.
CheckResult props_gate_check(const VerifyOptions& options) {
  props::Options o;
  o.seed = options.seed;
  o.cases_per_property = options.quick ? 200 : 2000;
  o.stateful_runs = options.quick ? 20 : 200;
  o.on_step = [](std::int64_t done, std::int64_t total, const std::string& name) { step("props", done, total, name); };
  const auto report = props::run_props(o);
  CheckResult r;
  r.passed = report.passed();
  if (r.passed) {
    r.detail = fmt::format("{} properties, {} cases, {} stateful steps ({} page moves), all passed",
                           report.properties.size(), report.total_cases, report.stateful_steps,
                           report.stateful_moves);
  } else {
    for (const auto& p : report.properties) {
      if (p.passed) continue;
      r.detail = fmt::format("{} failed: {} (reproduce: {})", p.name, p.failure, p.reproduce);
      break;
    }
  }
  return r;
}

// The lifecycle campaign passes without a fault and kills every planted lifecycle fault.
CheckResult props_lifecycle_check(const VerifyOptions& options) {
  props::lifecycle::CampaignOptions o;
  o.seed = options.seed;
  o.total_steps = options.quick ? 20000 : 200000;
  const auto report = props::lifecycle::run_campaign(o);
  CheckResult r;
  r.passed = report.passed();
  r.detail = r.passed ? props::lifecycle::summary(report) : report.failure;
  int killed = 0;
  for (const auto& f : model::lifecycle::all_faults()) {
    o.fault = f.fault;
    o.total_steps = 200000;
    const bool k = !props::lifecycle::run_campaign(o).passed();
    killed += k ? 1 : 0;
    if (!k && r.passed) {
      r.passed = false;
      r.detail = fmt::format("planted lifecycle fault {} ({}) survived", f.name, f.exemplar);
    }
  }
  if (r.passed) r.detail += fmt::format("; {} planted lifecycle faults killed", killed);
  return r;
}
#endif

#ifdef KVADDR_WITH_KERNELS
CheckResult from_diff(const gpu::DiffReport& report, const std::string& what, bool host_only) {
  CheckResult r;
  r.passed = report.ok();
  if (report.first_mismatch) {
    r.detail = gpu::to_text(report);
    if (r.detail.size() > 400) r.detail = r.detail.substr(0, 397) + "...";
  } else if (host_only) {  // no GPU leg: nothing is compared GPU vs host
    r.detail = fmt::format("{}: {} cases, {} lanes translated, {} lanes compared host vs model, 0 mismatches", what,
                           report.cases_run, report.lanes_translated, report.model_lanes_compared);
  } else {
    r.detail = fmt::format("{}: {} cases, {} lanes translated, {} elements compared GPU vs host, {} lanes host vs "
                           "model, 0 mismatches",
                           what, report.cases_run, report.lanes_translated, report.lanes_compared,
                           report.model_lanes_compared);
  }
  return r;
}

// The differential generator's cases: host routes vs model (`host_only`), or GPU kernels vs host
// routes vs model.
// `lanes` (host_only) receives the number of lanes compared with the model.
CheckResult differential_check(const VerifyOptions& options, bool host_only, std::int64_t* lanes = nullptr) {
  gpu::DiffOptions o;
  o.seed = options.seed;
  o.cases = options.quick ? 40 : (host_only ? 200 : 400);
  o.host_only = host_only;
  o.on_step = [](std::int64_t done, std::int64_t total, const std::string&) {
    step("differential cases", done, total, "");
  };
  const auto report = gpu::run_differential(o);
  if (host_only && lanes != nullptr) *lanes = report.model_lanes_compared;
  return from_diff(report,
                   host_only ? "host routes vs model on generated cases" : "GPU kernels vs host routes vs model",
                   host_only);
}
#endif

}  // namespace

void append_extra_checks(const VerifyOptions& options, std::vector<CheckResult>& results) {
  (void)options;
#ifdef KVADDR_WITH_PROOFS
  results.push_back(timed("proofs", [&] { return proofs_check(options); }));
#else
  results.push_back(skipped("proofs", "skipped: built without Z3 (libz3-dev)"));
#endif
#ifdef KVADDR_WITH_PROPS
  results.push_back(timed("props.gate", [&] { return props_gate_check(options); }));
  results.push_back(timed("props.lifecycle", [&] { return props_lifecycle_check(options); }));
#else
  results.push_back(skipped("props", "skipped: built without RapidCheck (librapidcheck-dev)"));
#endif
#ifdef KVADDR_WITH_KERNELS
  // The differential generator, host routes and model run everywhere; the GPU leg needs a GPU.
  std::int64_t host_lanes = 0;
  results.push_back(
      timed("differential.host_vs_model", [&] { return differential_check(options, true, &host_lanes); }));
  std::string why;
  if (!gpu::gpu_available(&why)) {
    results.push_back(skipped("gpu.differential",
                              fmt::format("skipped: no CUDA GPU ({}): nothing compared GPU vs host; the host routes "
                                          "were compared with the model on {} lanes (differential.host_vs_model)",
                                          why, host_lanes)));
  } else {
    results.push_back(timed("gpu.differential", [&] { return differential_check(options, false); }));
  }
#else
  results.push_back(skipped("gpu.differential", "skipped: built without CUDA (nvcc not found)"));
#endif
}

}  // namespace kvaddr::cli
