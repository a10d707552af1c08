#include "scale_cmd.hpp"

#include <fmt/format.h>

#include <cmath>

#include "args.hpp"
#include "draw_report.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"
#include "progress.hpp"

#ifdef KVADDR_WITH_KERNELS
#include "kvaddr/kernels/devices.hpp"
#endif

namespace kvaddr::cli {

#ifdef KVADDR_WITH_PROPS
std::vector<std::string> props_shard_names(const props::Options& options, const Shard& shard) {
  std::vector<std::string> selected;
  for (const auto& p : props::list_properties()) {
    bool keep = options.only.empty();
    for (const auto& n : options.only) keep = keep || n == p.name;
    if (keep) selected.push_back(p.name);
  }
  return shard_slice(selected, shard);
}

nlohmann::json props_report_json(const props::Report& report, const props::Options& options, const Shard& shard) {
  auto j = nlohmann::json::parse(props::to_json(report));
  j["seed"] = options.seed;
  j["passed"] = report.passed();
  j["campaign"] = {{"cases", options.cases_per_property},
                   {"stateful_runs", options.stateful_runs},
                   {"only", options.only}};
  for (std::size_t i = 0; i < report.properties.size() && i < j["properties"].size(); ++i) {
    const auto& p = report.properties[i];
    auto& e = j["properties"][i];
    e["seed"] = p.seed;
    if (!p.passed) {
      e["failure"] = p.failure;
      e["reproduce"] = p.reproduce;
    }
  }
  mark_shard(j, shard);
  return j;
}

int run_lifecycle_sharded(props::lifecycle::CampaignOptions o, const Shard& shard, const Context& ctx) {
  namespace plc = props::lifecycle;
  o.shard_index = shard.index;
  o.shard_count = shard.count;
  Heartbeat beat(ctx, "lifecycle");
  const auto r = plc::run_campaign(o);
  beat.stop();
  if (!ctx.json) {
    ctx.out << plc::summary(r) << "\n";
    if (!r.passed()) ctx.out << r.failure << "\n";
    return r.passed() ? 0 : 1;
  }
  nlohmann::json commands = nlohmann::json::object();
  for (std::size_t c = 0; c < r.commands.size(); ++c) {
    commands[std::string(plc::lc::to_string(static_cast<plc::lc::Command>(c)))] = r.commands[c];
  }
  nlohmann::json j{{"seed", o.seed},
                   {"campaign", {{"total_steps", o.total_steps}, {"run_length", o.run_length}, {"swarm", o.swarm}}},
                   {"steps", r.steps},
                   {"runs", r.runs},
                   {"moves", r.moves},
                   {"replays", r.replays},
                   {"ids_judged", r.uses},
                   {"commands", commands},
                   {"violations", r.violations},
                   {"first_violation", r.first ? nlohmann::json{{"run", r.first_run}, {"failure", r.failure}}
                                               : nlohmann::json(nullptr)},
                   {"passed", r.passed()},
                   {"seconds", std::round(r.seconds * 1000.0) / 1000.0},
                   {"steps_per_second", std::round(r.steps_per_second())}};
  j = with_schema(j, "lifecycle");
  mark_shard(j, shard);
  ctx.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return r.passed() ? 0 : 1;
}
#endif

#ifdef KVADDR_WITH_PROOFS
int run_prove_sharded(proofs::RunOptions o, const Shard& shard, const Context& ctx) {
  std::vector<std::string> selected;
  for (const auto& ob : proofs::obligations()) {
    bool keep = o.only.empty();
    for (const auto& g : o.only) keep = keep || name_or_prefix(ob.name, g);
    if (keep) selected.push_back(ob.name);
  }
  std::vector<proofs::ObligationResult> results;
  Heartbeat beat(ctx, "prove");
  const auto mine = shard_slice(selected, shard);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    beat.step("proofs", static_cast<std::int64_t>(i), static_cast<std::int64_t>(mine.size()), mine[i]);
    results.push_back(proofs::run_one(mine[i], o));
  }
  beat.stop();
  // A shard past the number of obligations has nothing to fail; a whole campaign that ran nothing fails.
  bool passed = !results.empty() || shard.count > 1;
  for (const auto& r : results) passed = passed && r.as_expected();
  if (!ctx.json) {
    ctx.out << proofs::to_text(results) << "\n";
    return passed ? 0 : 1;
  }
  auto j = with_schema(nlohmann::json::parse(proofs::to_json(results)), "prove", "obligations");
  j["passed"] = passed;
  j["campaign"] = {{"full_sweep", o.full_sweep}, {"timeout_ms", o.timeout_ms}, {"only", o.only}};
  mark_shard(j, shard);
  ctx.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return passed ? 0 : 1;
}
#endif

#ifdef KVADDR_WITH_ZOO
nlohmann::json zoo_report_json(const zoo::ZooReport& report, const zoo::MutationReport* mutation,
                               const zoo::ZooOptions& zo, const zoo::MutantOptions& mo, const Shard& shard) {
  auto j = nlohmann::json::parse(zoo::to_json(report));
  if (mutation != nullptr) j["mutation"] = nlohmann::json::parse(zoo::to_json(*mutation));
  j = with_schema(j, "zoo");
  j["seed"] = zo.seed;
  j["campaign"] = {{"only", zo.only},
                   {"property_cases", zo.property_cases},
                   {"mutants", mutation != nullptr},
                   {"mutant_seed", mo.seed},
                   {"units", mo.units}};
  mark_shard(j, shard);
  return j;
}
#endif

#ifdef KVADDR_WITH_KERNELS
nlohmann::json diff_campaign(const gpu::DiffOptions& o) {
  return {{"cases", o.cases},
          {"first_case", o.first_case},
          {"case_lanes", o.max_case_lanes},
          {"min_lanes", o.min_lanes},
          {"kernel", o.only ? std::string(gpu::to_string(*o.only)) : std::string()},
          {"force_variant", o.force_variant ? std::string(kvaddr::to_string(*o.force_variant)) : std::string()},
          {"force_route", o.force_route ? std::string(kvaddr::to_string(*o.force_route)) : std::string()},
          {"production_only", o.production_only},
          {"host_only", o.host_only}};
}

namespace {

nlohmann::json diff_json(const gpu::DiffReport& report, const gpu::DiffOptions& o, const Shard& shard) {
  auto j = with_schema(nlohmann::json::parse(gpu::to_json(report)), "diff", "report");
  j["campaign"] = diff_campaign(o);
  mark_shard(j, shard);
  return j;
}

void print_text(const nlohmann::json& j, const Context& ctx) {
  if (j.value("skipped", false)) {
    ctx.out << "gpu diff: skipped (" << j.value("skip_reason", std::string()) << ")\n";
    return;
  }
  ctx.out << fmt::format("gpu diff: {} cases, {} lanes translated, {} lanes compared: {}\n", j.value("cases_run", 0),
                         j.value("lanes_translated", std::int64_t{0}), j.value("lanes_compared", std::int64_t{0}),
                         j.value("ok", false) ? "OK" : "MISMATCH");
  for (const auto& d : j.value("devices", nlohmann::json::array())) {
    ctx.out << fmt::format("  device {}: {} cases, {} lanes in {:.2f} s ({:.3g} lanes/s)\n", d.value("device", 0),
                           d.value("cases_run", 0), d.value("lanes_translated", std::int64_t{0}),
                           d.value("seconds", 0.0), d.value("lanes_per_second", 0.0));
  }
  for (const auto& m : j.value("mismatches", nlohmann::json::array())) {
    ctx.out << fmt::format("  mismatch at case {} ({}, against {}): replay: {}\n", m.value("case_index", 0),
                           m.value("kernel", std::string()), m.value("against", std::string()),
                           m.value("replay", std::string()));
  }
}

}  // namespace

int run_diff_sharded(gpu::DiffOptions o, const Shard& shard, bool devices, const std::string& svg,
                     const Context& ctx) {
  o.shard_index = shard.index;
  o.shard_count = shard.count;
  if (shard.count > 1 && o.min_lanes > 0) {
    throw InvalidArgument("--min-lanes", std::to_string(o.min_lanes), "cannot be combined with --shard (use --cases)");
  }
  if (devices && o.host_only) throw InvalidArgument("--devices", "", "cannot be combined with --host-only");
  if (devices && o.min_lanes > 0) {
    throw InvalidArgument("--min-lanes", std::to_string(o.min_lanes), "cannot be combined with --devices (use --cases)");
  }
  const int count = devices ? gpu::device_count() : 0;
  Heartbeat beat(ctx, "diff");
  o.on_step = [&beat](std::int64_t done, std::int64_t total, const std::string&) { beat.step("cases", done, total); };
  nlohmann::json j;
  bool ok = false;
  if (count == 0) {
    const auto report = gpu::run_differential(o);  // skipped where there is no GPU
    beat.stop();
    if (!svg.empty()) diff_pictures(report, svg, ctx);
    if (!ctx.json) {
      ctx.out << gpu::to_text(report) << "\n";
      return report.skipped || report.ok() ? 0 : 1;
    }
    j = diff_json(report, o, shard);
    ok = report.skipped || report.ok();
  } else {
    const auto runs = gpu::run_on_devices(o, count);
    beat.stop();
    std::vector<nlohmann::json> docs;
    std::vector<std::string> names;
    nlohmann::json per_device = nlohmann::json::array();
    for (const auto& r : runs) {
      if (!svg.empty()) diff_pictures(r.report, svg, ctx);
      docs.push_back(diff_json(r.report, o, Shard{r.shard_index, r.shard_count}));
      names.push_back(fmt::format("device {}", r.device));
      per_device.push_back({{"device", r.device},
                            {"cases_run", r.report.cases_run},
                            {"lanes_translated", r.report.lanes_translated},
                            {"lanes_compared", r.report.lanes_compared},
                            {"seconds", r.seconds},
                            {"lanes_per_second", r.seconds > 0 ? static_cast<double>(r.report.lanes_compared) / r.seconds : 0.0}});
    }
    j = merge_reports(docs, names);
    mark_shard(j, shard);
    j["devices"] = per_device;
    ok = j.value("ok", false) || j.value("skipped", false);
  }
  if (ctx.json) {
    ctx.out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    print_text(j, ctx);
  }
  return ok ? 0 : 1;
}
#endif

}  // namespace kvaddr::cli
