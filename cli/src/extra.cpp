// Subcommands of the optional areas: each is registered only when its area was built.
#include <fmt/format.h>

#include <memory>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"
#include "subcommands.hpp"

#ifdef KVADDR_WITH_KERNELS
#include "kvaddr/kernels/bench.hpp"
#include "kvaddr/kernels/diff.hpp"
#endif
#ifdef KVADDR_WITH_REPLAY
#include "kvaddr/replay/replay.hpp"
#endif
#ifdef KVADDR_WITH_PROOFS
#include "kvaddr/proofs/registry.hpp"
#endif
#ifdef KVADDR_WITH_ZOO
#include <nlohmann/json.hpp>

#include "kvaddr/zoo/zoo.hpp"
#endif
#ifdef KVADDR_WITH_PROPS
#include <iostream>

#include "kvaddr/props/props.hpp"
#endif

namespace kvaddr::cli {

namespace {

struct ExtraState {
#ifdef KVADDR_WITH_ZOO
  CLI::App* zoo = nullptr;
  bool zoo_json = false;
  bool zoo_mutants = false;
  bool zoo_markdown = false;
  bool zoo_quiet = false;
  zoo::ZooOptions zoo_options;
#endif
#ifdef KVADDR_WITH_PROOFS
  CLI::App* prove = nullptr;
  proofs::RunOptions prove_options;
  bool prove_json = false;
  bool prove_list = false;
#endif
#ifdef KVADDR_WITH_PROPS
  CLI::App* props = nullptr;
  props::Options props_options;
  bool props_json = false;
  bool props_quiet = false;
#endif
#ifdef KVADDR_WITH_KERNELS
  CLI::App* diff = nullptr;
  gpu::DiffOptions diff_options;
  std::string diff_kernel;
  std::string diff_force_variant;
  std::string diff_force_route;
  bool diff_json = false;
  CLI::App* bench = nullptr;
  gpu::BenchOptions bench_options;
  bool bench_json = false;
#endif
#ifdef KVADDR_WITH_REPLAY
  CLI::App* replay = nullptr;
  std::string replay_dir;
  bool replay_json = false;
  replay::ReplayOptions replay_options;
#endif
};

ExtraState& state() {
  static ExtraState s;
  return s;
}

}  // namespace

void register_extra_subcommands(CLI::App& app) {
  auto& s = state();
  s = ExtraState{};
  (void)app;
#ifdef KVADDR_WITH_ZOO
  s.zoo = app.add_subcommand("zoo", "Kill matrix: every check kind against every planted bug variant");
  s.zoo->add_flag("--json", s.zoo_json, "Print one JSON object");
  s.zoo->add_flag("--mutants", s.zoo_mutants, "Also run the mutation campaign over the host routes");
  s.zoo->add_flag("--markdown", s.zoo_markdown, "Print docs/bug-zoo.md");
  s.zoo->add_option("--only", s.zoo_options.only, "Only these variant rows");
  s.zoo->add_option("--property-cases", s.zoo_options.property_cases, "Property cases per cell");
  s.zoo->add_flag("--quiet", s.zoo_quiet, "No progress on stderr");
#endif
#ifdef KVADDR_WITH_PROOFS
  s.prove = app.add_subcommand("prove", "Z3 obligations: proved / refuted (with a counterexample) / unknown");
  s.prove->add_option("--only", s.prove_options.only, "Run only these obligations (names or prefixes)");
  s.prove->add_flag("--full-sweep", s.prove_options.full_sweep, "DCP obligations: every dcp_size in 1..16, 32, 64 instead of {1, 2, 4, 8} (slower)");
  s.prove->add_option("--timeout-ms", s.prove_options.timeout_ms, "Per-query solver timeout");
  s.prove->add_flag("--list", s.prove_list, "List the obligations and their stated domains");
  s.prove->add_flag("--json", s.prove_json, "Print one JSON object");
#endif
#ifdef KVADDR_WITH_PROPS
  s.props = app.add_subcommand("props", "RapidCheck properties and the stateful pool simulation (longer campaigns)");
  s.props->add_option("--seed", s.props_options.seed, "Seed (each property derives its own from it)");
  s.props->add_option("--cases", s.props_options.cases_per_property, "Generated cases per property");
  s.props->add_option("--stateful-runs", s.props_options.stateful_runs, "Stateful simulation runs");
  s.props->add_option("--only", s.props_options.only, "Run only these properties");
  s.props->add_flag("--json", s.props_json, "Print one JSON object");
  s.props->add_flag("--quiet", s.props_quiet, "No progress line on stderr");
#endif
#ifdef KVADDR_WITH_KERNELS
  s.diff = app.add_subcommand("diff", "Differential checks: CUDA kernels vs host routes vs model on generated cases");
  s.diff->add_option("--cases", s.diff_options.cases, "Number of generated cases");
  s.diff->add_option("--seed", s.diff_options.seed, "Seed; with the case index it rebuilds every input");
  s.diff->add_option("--first-case", s.diff_options.first_case, "Index of the first case (replay one case)");
  s.diff->add_option("--case-lanes", s.diff_options.max_case_lanes, "Size scale of one case (part of the replay key)");
  s.diff->add_option("--min-lanes", s.diff_options.min_lanes, "Keep generating cases until this many lanes ran");
  s.diff->add_option("--kernel", s.diff_kernel, "Restrict to one kernel (e.g. read_table)");
  s.diff->add_flag("--production-only", s.diff_options.production_only, "No planted-bug variants");
  s.diff->add_option("--force-variant", s.diff_force_variant,
                     "Run every case with this bug variant (a kill = disagreement with the model)");
  s.diff->add_option("--force-route", s.diff_force_route, "Restrict the cases to the kernels of this route");
  s.diff->add_flag("--host-only", s.diff_options.host_only, "Generator, host route and model only (no GPU)");
  s.diff->add_flag("--json", s.diff_json, "Print one JSON object");

  s.bench = app.add_subcommand("bench", "Time each kernel with CUDA events, as a ratio of device copy bandwidth");
  s.bench->add_option("--runs", s.bench_options.runs, "Timed runs per workload (median reported)");
  s.bench->add_option("--warmup", s.bench_options.warmup, "Warm-up runs per workload");
  s.bench->add_flag("--json", s.bench_json, "Print one JSON object");
#endif
#ifdef KVADDR_WITH_REPLAY
  s.replay = app.add_subcommand("replay", "Check recorded kernel calls (manifest.json + .npy) lane by lane");
  s.replay->add_option("dir", s.replay_dir, "Folder holding manifest.json")->required();
  s.replay->add_flag("--json", s.replay_json, "Print one JSON object");
  s.replay->add_flag("--allow-outside", s.replay_options.allow_outside,
                     "Let the manifest name files outside DIR (absolute paths, .., symbolic links)");
#endif
}

int run_extra_subcommands(CLI::App& app, std::ostream& out, std::ostream& err) {
  auto& s = state();
  (void)app;
#ifdef KVADDR_WITH_ZOO
  if (s.zoo != nullptr && s.zoo->parsed()) {
    require(s.zoo_options.property_cases >= 1, "property-cases", s.zoo_options.property_cases, "must be >= 1");
    s.zoo_options.progress = s.zoo_quiet ? nullptr : &err;
    const auto report = zoo::run_zoo(s.zoo_options);
    zoo::MutationReport mutation;
    if (s.zoo_mutants) {
      zoo::MutantOptions mo;
      mo.progress = s.zoo_quiet ? nullptr : &err;
      mutation = zoo::run_mutants(mo);
    }
    if (s.zoo_markdown) {
      out << zoo::to_markdown(report, s.zoo_mutants ? &mutation : nullptr);
    } else if (s.zoo_json) {
      auto j = nlohmann::json::parse(zoo::to_json(report));
      if (s.zoo_mutants) j["mutation"] = nlohmann::json::parse(zoo::to_json(mutation));
      out << j.dump(2) << "\n";
    } else {
      out << zoo::to_text(report);
      if (s.zoo_mutants) out << zoo::to_text(mutation);
    }
    return report.production_false_alarms == 0 ? 0 : 1;
  }
#endif
#ifdef KVADDR_WITH_PROOFS
  if (s.prove != nullptr && s.prove->parsed()) {
    if (s.prove_list) {
      for (const auto& o : proofs::obligations()) {
        out << fmt::format("{:<48} expected {:<8} {}\n  pre: {}\n  post: {}\n  domain: {}\n", o.name,
                           proofs::to_string(o.expected), o.spec, o.preconditions, o.conclusion, o.domain);
      }
      return 0;
    }
    const auto results = proofs::run_all(s.prove_options);
    out << (s.prove_json ? proofs::to_json(results) : proofs::to_text(results)) << "\n";
    bool all = !results.empty();
    for (const auto& r : results) all = all && r.as_expected();
    return all ? 0 : 1;
  }
#endif
#ifdef KVADDR_WITH_PROPS
  if (s.props != nullptr && s.props->parsed()) {
    require(s.props_options.cases_per_property >= 1, "cases", s.props_options.cases_per_property, "must be >= 1");
    require(s.props_options.stateful_runs >= 0, "stateful-runs", s.props_options.stateful_runs, "must be >= 0");
    s.props_options.progress = s.props_quiet ? nullptr : &err;
    const auto report = props::run_props(s.props_options);
    if (s.props_json) {
      out << props::to_json(report) << "\n";
    } else {
      for (const auto& p : report.properties) {
        out << fmt::format("{:<36} {:>8} cases  {:>7.2f} s  {}\n", p.name, p.cases, p.seconds,
                           p.passed ? "passed" : "FAILED");
        if (!p.passed) out << "  " << p.failure << "\n  reproduce: " << p.reproduce << "\n";
      }
      out << fmt::format("props: {} cases, {} stateful steps, {:.1f} s: {}\n", report.total_cases,
                         report.stateful_steps, report.seconds, report.passed() ? "PASSED" : "FAILED");
    }
    return report.passed() ? 0 : 1;
  }
#endif
#ifdef KVADDR_WITH_KERNELS
  if (s.diff != nullptr && s.diff->parsed()) {
    if (!s.diff_kernel.empty()) {
      s.diff_options.only = gpu::parse_diff_kernel(s.diff_kernel);
      if (!s.diff_options.only) throw InvalidArgument("kernel", s.diff_kernel, "not a differential kernel name");
    }
    if (!s.diff_force_variant.empty()) s.diff_options.force_variant = parse_variant(s.diff_force_variant);
    if (!s.diff_force_route.empty()) s.diff_options.force_route = parse_route(s.diff_force_route);
    require(s.diff_options.cases >= 0, "cases", s.diff_options.cases, "must be >= 0");
    require(s.diff_options.max_case_lanes >= 1, "case-lanes", s.diff_options.max_case_lanes, "must be >= 1");
    const auto report = gpu::run_differential(s.diff_options);
    out << (s.diff_json ? gpu::to_json(report) : gpu::to_text(report)) << "\n";
    if (report.skipped) return 0;
    return report.ok() ? 0 : 1;
  }
  if (s.bench != nullptr && s.bench->parsed()) {
    require(s.bench_options.runs >= 1, "runs", s.bench_options.runs, "must be >= 1");
    const auto report = gpu::run_bench(s.bench_options);
    out << (s.bench_json ? gpu::to_json(report) : gpu::to_text(report)) << "\n";
    return 0;
  }
#endif
#ifdef KVADDR_WITH_REPLAY
  if (s.replay != nullptr && s.replay->parsed()) {
    const auto report = replay::replay_dir(s.replay_dir, s.replay_options);
    if (s.replay_json) {
      out << replay::to_json(report) << "\n";
    } else {
      out << replay::to_text(report);
    }
    return replay::exit_code(report);
  }
#endif
  err << "kvaddr: no subcommand ran\n";
  return 2;
}

}  // namespace kvaddr::cli
