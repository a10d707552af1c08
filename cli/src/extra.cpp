// Subcommands of the optional areas: each is registered only when its area was built.
#include <fmt/format.h>

#include <memory>

#include "args.hpp"
#include "draw_report.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/lifecycle.hpp"
#include "kvaddr/model/wiring.hpp"
#include "kvaddr/translate/validate.hpp"
#include "progress.hpp"
#include "scale_cmd.hpp"
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
#include "kvaddr/zoo/zoo.hpp"
#endif
#ifdef KVADDR_WITH_PROPS
#include "kvaddr/props/lifecycle.hpp"
#include "kvaddr/props/props.hpp"
#endif

namespace kvaddr::cli {

namespace {

// The option values the subcommands bind (a default-constructed one holds every default).
struct ExtraValues {
#ifdef KVADDR_WITH_ZOO
  bool zoo_mutants = false;
  bool zoo_markdown = false;
  zoo::ZooOptions zoo_options;
  std::vector<std::string> zoo_units;
  Shard zoo_shard;
#endif
#ifdef KVADDR_WITH_PROOFS
  proofs::RunOptions prove_options;
  bool prove_list = false;
  Shard prove_shard;
#endif
#ifdef KVADDR_WITH_PROPS
  props::Options props_options;
  bool props_long = false;                 // lifecycle campaign of 10^7 steps
  std::int64_t props_lifecycle_steps = 0;  // lifecycle campaign of N steps
  Shard props_shard;
#endif
#ifdef KVADDR_WITH_KERNELS
  gpu::DiffOptions diff_options;
  std::string diff_svg;
  std::string diff_kernel;
  std::string diff_force_variant;
  std::string diff_force_route;
  Shard diff_shard;
  bool diff_devices = false;
  gpu::BenchOptions bench_options;
#endif
#ifdef KVADDR_WITH_REPLAY
  std::string replay_dir;
  std::string replay_svg;
  replay::ReplayOptions replay_options;
  std::int64_t replay_search_seconds = static_cast<std::int64_t>(replay::kDefaultSearchSeconds);
#endif
};

// The subcommands and the values they bind; reset() keeps the subcommands.
struct ExtraState final : Subcommands, ExtraValues {
#ifdef KVADDR_WITH_ZOO
  CLI::App* zoo = nullptr;
#endif
#ifdef KVADDR_WITH_PROOFS
  CLI::App* prove = nullptr;
#endif
#ifdef KVADDR_WITH_PROPS
  CLI::App* props = nullptr;
#endif
#ifdef KVADDR_WITH_KERNELS
  CLI::App* diff = nullptr;
  CLI::App* bench = nullptr;
#endif
#ifdef KVADDR_WITH_REPLAY
  CLI::App* replay = nullptr;
#endif
  void reset() override { static_cast<ExtraValues&>(*this) = ExtraValues{}; }
  int run(const Context& ctx) override;
};

[[maybe_unused]] void print_json(const Context& ctx, const std::string& doc, const std::string& schema,
                                 const std::string& key) {
  ctx.out << with_schema(nlohmann::json::parse(doc), schema, key).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

// Prints a report as JSON under `schema` (--json) or as its text (to_json / to_text of its namespace).
template <class R>
[[maybe_unused]] void print_report(const Context& ctx, const R& report, const std::string& schema,
                                   const std::string& key) {
  if (ctx.json) {
    print_json(ctx, to_json(report), schema, key);
  } else {
    ctx.out << to_text(report) << "\n";
  }
}

}  // namespace

#ifdef KVADDR_WITH_ZOO
std::vector<std::string> zoo_row_names() {
  std::vector<std::string> rows{"production", "double_free_unchecked", "duplicate_free_ids", "e04_alias_bind",
                                "e08_sink_handed_out"};  // the pool rows of zoo/src/matrix.cpp
  for (Variant v : kAllVariants)
    if (v != Variant::production) rows.emplace_back(to_string(v));
  for (Variant v : kEdgeVariants) rows.emplace_back(to_string(v));  // the edge, composite and inferred rows
  for (const NamedComposite& c : kNamedComposites) rows.emplace_back(c.name);
  for (Variant v : kInferredVariants) rows.emplace_back(to_string(v));
  for (auto w : model::all_wiring_variants())
    if (w != model::WiringVariant::production) rows.emplace_back(model::to_string(w));
  rows.emplace_back("production.lifecycle");  // the lifecycle rows of zoo/src/lifecycle_rows.cpp
  for (const auto& f : model::lifecycle::all_faults()) rows.emplace_back(f.name);
  return rows;
}
#endif
#ifdef KVADDR_WITH_PROOFS
std::vector<std::string> obligation_names() {
  std::vector<std::string> names;
  for (const auto& o : proofs::obligations()) names.push_back(o.name);
  return names;
}
#endif

std::unique_ptr<Subcommands> register_extra_subcommands(CLI::App& app) {
  auto state = std::make_unique<ExtraState>();
  auto& s = *state;
  (void)app;
#ifdef KVADDR_WITH_ZOO
  s.zoo = app.add_subcommand("zoo", "Kill matrix: every check kind against every planted bug variant");
  s.zoo->add_flag("--mutants", s.zoo_mutants, "Also run the mutation campaign over the host routes");
  s.zoo->add_flag("--markdown", s.zoo_markdown, "Print docs/bug-zoo.md");
  s.zoo->add_option("--only", s.zoo_options.only, "Only these variant rows (names as in the matrix)");
  seed_option(s.zoo, s.zoo_options.seed, "Seed of every generated case");
  int_option(s.zoo, "--property-cases", s.zoo_options.property_cases, "Property cases per cell", 1, 10'000'000);
  s.zoo->add_option("--units", s.zoo_units, "With --mutants: only these mutation units (e.g. token_translate)");
  shard_option(s.zoo, s.zoo_shard);
  report_file_option(s.zoo);
  s.zoo->footer("Examples:\n  kvaddr zoo --only production --only b10_no_max_pages_bound\n"
                "  kvaddr zoo --markdown --mutants > docs/bug-zoo.md");
#endif
#ifdef KVADDR_WITH_PROOFS
  s.prove = app.add_subcommand("prove", "Z3 obligations: proved / refuted (with a counterexample) / unknown");
  s.prove->add_option("--only", s.prove_options.only, "Run only these obligations (names or dotted prefixes)");
  s.prove->add_flag("--full-sweep", s.prove_options.full_sweep,
                    "DCP obligations: every dcp_size in 1..16, 32, 64 instead of {1, 2, 4, 8} (slower)");
  int_option(s.prove, "--timeout-ms", s.prove_options.timeout_ms, "Per-query solver timeout", 1, 86'400'000);
  s.prove->add_flag("--list", s.prove_list, "List the obligations and their stated domains");
  shard_option(s.prove, s.prove_shard);
  report_file_option(s.prove);
  s.prove->footer("Examples:\n  kvaddr prove --list\n  kvaddr prove --only I1 --only route.canonical_page_table.b09");
#endif
#ifdef KVADDR_WITH_PROPS
  s.props = app.add_subcommand("props", "RapidCheck properties and the stateful pool simulation (longer campaigns)");
  seed_option(s.props, s.props_options.seed, "Seed (each property derives its own from it)");
  int_option(s.props, "--cases", s.props_options.cases_per_property, "Generated cases per property", 1, 100'000'000);
  int_option(s.props, "--stateful-runs", s.props_options.stateful_runs, "Stateful simulation runs", 0, 100'000'000);
  s.props->add_option("--only", s.props_options.only, "Run only these properties (see the report for names)");
  s.props->add_flag("--long", s.props_long, "Run the lifecycle campaign for 10^7 steps and report steps/s");
  int_option(s.props, "--lifecycle-steps", s.props_lifecycle_steps, "Run the lifecycle campaign for N steps", 1,
             INT64_C(1) << 40);
  shard_option(s.props, s.props_shard);
  report_file_option(s.props);
  s.props->footer("Examples:\n  kvaddr props --cases 200 --stateful-runs 20\n"
                  "  kvaddr props --seed 7 --only token_translate_vs_model\n"
                  "  kvaddr props --long   (lifecycle campaign, 10^7 steps, steps/s)\n"
                  "  kvaddr props --shard 1/4 --json > shard1.json   (then kvaddr merge shard*.json)");
#endif
#ifdef KVADDR_WITH_KERNELS
  s.diff = app.add_subcommand("diff", "Differential checks: CUDA kernels vs host routes vs model on generated cases");
  int_option(s.diff, "--cases", s.diff_options.cases, "Number of generated cases", 0, INT64_C(1) << 30);
  seed_option(s.diff, s.diff_options.seed, "Seed; with the case index it rebuilds every input");
  int_option(s.diff, "--first-case", s.diff_options.first_case, "Index of the first case (replay one case)", 0,
             INT64_C(1) << 40);
  int_option(s.diff, "--case-lanes", s.diff_options.max_case_lanes, "Size scale of one case (part of the replay key)",
             1, kMaxLanes);
  int_option(s.diff, "--min-lanes", s.diff_options.min_lanes, "Keep generating cases until this many lanes ran", 0,
             INT64_C(1) << 40);
  s.diff->add_option("--kernel", s.diff_kernel, "Restrict to one kernel (e.g. read_table)");
  s.diff->add_flag("--production-only", s.diff_options.production_only, "No planted-bug variants");
  s.diff->add_option("--force-variant", s.diff_force_variant,
                     "Run every case with this bug variant (a kill = disagreement with the model)");
  s.diff->add_option("--force-route", s.diff_force_route, "Restrict the cases to the kernels of this route");
  s.diff->add_flag("--host-only", s.diff_options.host_only, "Generator, host route and model only (no GPU)");
  s.diff->add_flag_callback("--no-edge-classes", [&s] { s.diff_options.edge_classes = false; },
                            "Draw no edge classes (docs/generators.md): the cases as before they existed");
  s.diff->add_option("--svg", s.diff_svg, "Write a picture of the first mismatch into this folder");
  shard_option(s.diff, s.diff_shard);
  report_file_option(s.diff);
  s.diff->add_flag("--devices", s.diff_devices, "Every GPU of the host: one worker per device, cases round-robin");
  s.diff->footer("Examples:\n  kvaddr diff --host-only --cases 12 --seed 7\n"
                 "  kvaddr diff --seed 1 --first-case 3 --cases 1 --case-lanes 65536   # replay one case\n"
                 "  kvaddr diff --cases 100000 --devices --shard 3/8 --json > shard3.json   # then kvaddr merge");

  s.bench = app.add_subcommand("bench", "Time each kernel with CUDA events, as a ratio of device copy bandwidth");
  int_option(s.bench, "--runs", s.bench_options.runs, "Timed runs per workload (median reported)", 1, 100'000);
  int_option(s.bench, "--warmup", s.bench_options.warmup, "Warm-up runs per workload", 0, 100'000);
  s.bench->footer("Example:\n  kvaddr bench --runs 50 --json");
#endif
#ifdef KVADDR_WITH_REPLAY
  s.replay = app.add_subcommand("replay", "Check recorded kernel calls (manifest.json + .npy) lane by lane");
  s.replay->add_option("dir", s.replay_dir, "Folder holding manifest.json")->required();
  s.replay->add_option("--svg", s.replay_svg, "Write one picture per differing call into this folder");
  s.replay->add_flag("--allow-outside", s.replay_options.allow_outside,
                     "Let the manifest name files outside DIR (absolute paths, .., symbolic links)");
  int_option(s.replay, "--search-budget", s.replay_options.search.max_candidates,
             "Most candidates the \"behaves like\" search and the inference try per call, together", 1, 1'000'000);
  int_option(s.replay, "--search-seconds", s.replay_search_seconds,
             "Wall-clock seconds after which the search starts no new variant (per call)", 1, 3600);
  s.replay->footer("Example:\n  kvaddr replay tests/data/replay/example --json\n"
                   "A search that runs out of its budget says \"search stopped after N candidates\"; an inference\n"
                   "left without budget says \"not explained within the bound\".");
#endif
  return state;
}

namespace {

int run_extra(ExtraState& s, const Context& ctx) {
  auto& out = ctx.out;
#ifdef KVADDR_WITH_ZOO
  if (s.zoo != nullptr && s.zoo->parsed()) {
    require_known(s.zoo_options.only, zoo_row_names(), "--only", same_name);
    require_known(s.zoo_units, zoo::mutant_units(), "--units", same_name);
    if (!s.zoo_units.empty() && !s.zoo_mutants) throw InvalidArgument("--units", s.zoo_units.front(), "needs --mutants");
    if (s.zoo_markdown && s.zoo_shard.count > 1) {
      throw InvalidArgument("--shard", fmt::format("{}/{}", s.zoo_shard.index, s.zoo_shard.count),
                            "cannot be combined with --markdown (merge the --json reports)");
    }
    s.zoo_options.progress = ctx.progress ? &ctx.err : nullptr;
    s.zoo_options.shard_index = s.zoo_shard.index;
    s.zoo_options.shard_count = s.zoo_shard.count;
    const auto report = zoo::run_zoo(s.zoo_options);
    zoo::MutationReport mutation;
    zoo::MutantOptions mo;
    mo.units = s.zoo_units;
    mo.shard_index = s.zoo_shard.index;
    mo.shard_count = s.zoo_shard.count;
    if (s.zoo->get_option("--seed")->count() > 0) mo.seed = s.zoo_options.seed;  // --seed drives both campaigns
    if (s.zoo_mutants) {
      mo.progress = s.zoo_options.progress;
      mutation = zoo::run_mutants(mo);
    }
    if (s.zoo_markdown) {
      out << zoo::to_markdown(report, s.zoo_mutants ? &mutation : nullptr);
    } else if (ctx.json) {
      out << zoo_report_json(report, s.zoo_mutants ? &mutation : nullptr, s.zoo_options, mo, s.zoo_shard)
                 .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
          << "\n";
    } else {
      out << zoo::to_text(report);
      if (s.zoo_mutants) out << zoo::to_text(mutation);
    }
    return report.production_false_alarms == 0 ? 0 : 1;
  }
#endif
#ifdef KVADDR_WITH_PROOFS
  if (s.prove != nullptr && s.prove->parsed()) {
    require_known(s.prove_options.only, obligation_names(), "--only", name_or_prefix);
    if (s.prove_list) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& o : proofs::obligations()) {
        if (ctx.json) {
          list.push_back({{"name", o.name}, {"expected", proofs::to_string(o.expected)}, {"spec", o.spec},
                          {"preconditions", o.preconditions}, {"conclusion", o.conclusion}, {"domain", o.domain}});
          continue;
        }
        out << fmt::format("{:<48} expected {:<8} {}\n  pre: {}\n  post: {}\n  domain: {}\n", o.name,
                           proofs::to_string(o.expected), o.spec, o.preconditions, o.conclusion, o.domain);
      }
      if (ctx.json) out << with_schema(list, "prove-list", "obligations").dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return 0;
    }
    return run_prove_sharded(s.prove_options, s.prove_shard, ctx);
  }
#endif
#ifdef KVADDR_WITH_PROPS
  if (s.props != nullptr && s.props->parsed()) {
    std::vector<std::string> names;
    for (const auto& p : props::list_properties()) names.push_back(p.name);
    require_known(s.props_options.only, names, "--only", same_name);
    s.props_options.progress = ctx.progress ? &ctx.err : nullptr;
    if (s.props_long || s.props->count("--lifecycle-steps") > 0) {
      props::lifecycle::CampaignOptions lo;
      lo.seed = s.props_options.seed;
      lo.total_steps = s.props_long ? 10000000 : s.props_lifecycle_steps;
      return run_lifecycle_sharded(lo, s.props_shard, ctx);
    }
    const auto shard_names = props_shard_names(s.props_options, s.props_shard);
    props::Report report;
    if (!shard_names.empty()) {
      auto shard_options = s.props_options;
      shard_options.only = shard_names;
      report = props::run_props(shard_options);
    }
    if (ctx.json) {
      ctx.out << with_schema(props_report_json(report, s.props_options, s.props_shard), "props").dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
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
      if (!s.diff_options.only) throw InvalidArgument("--kernel", s.diff_kernel, "not a differential kernel name");
    }
    if (!s.diff_force_variant.empty()) s.diff_options.force_variant = parse_variant(s.diff_force_variant);
    if (!s.diff_force_route.empty()) s.diff_options.force_route = parse_route(s.diff_force_route);
    if (!s.diff_svg.empty()) make_svg_dir(s.diff_svg, "--svg");
    return run_diff_sharded(s.diff_options, s.diff_shard, s.diff_devices, s.diff_svg, ctx);
  }
  if (s.bench != nullptr && s.bench->parsed()) {
    Heartbeat beat(ctx, "bench");
    const auto report = gpu::run_bench(s.bench_options);
    beat.stop();
    print_report(ctx, report, "bench", "report");
    return 0;
  }
#endif
#ifdef KVADDR_WITH_REPLAY
  if (s.replay != nullptr && s.replay->parsed()) {
    // A DIR that is not a directory is an error of the argument (exit 2, kvaddr.error/1 with --json).
    std::error_code ec;
    if (!std::filesystem::is_directory(s.replay_dir, ec)) {
      throw IoError("dir", s.replay_dir, std::filesystem::exists(s.replay_dir, ec) ? "not a directory" : "no such directory");
    }
    if (!s.replay_svg.empty()) make_svg_dir(s.replay_svg, "--svg");
    s.replay_options.search.max_seconds = static_cast<double>(s.replay_search_seconds);
    const auto report = replay::replay_dir(s.replay_dir, s.replay_options);
    if (!s.replay_svg.empty()) replay_pictures(report, s.replay_svg, ctx);
    if (ctx.json) {
      out << with_schema(nlohmann::json::parse(replay::to_json(report)), "replay").dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      out << replay::to_text(report);
    }
    return replay::exit_code(report);
  }
#endif
  ctx.err << "kvaddr: no subcommand ran\n";
  return 2;
}

}  // namespace

int ExtraState::run(const Context& ctx) { return run_extra(*this, ctx); }

}  // namespace kvaddr::cli
