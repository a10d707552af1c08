// Runs the registered properties through RapidCheck's programmatic API with a fixed budget and a
// derived seed, and turns each result into a PropertyResult carrying the reproduce string.
#include <chrono>
#include <iostream>
#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/TestListener.h>

#include "check.hpp"
#include "kvaddr/gen/rng.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::props {

namespace detail {
const std::vector<PropertyDef>& registry() {
  // The property files' registrations, in run order.
  static const std::vector<PropertyDef> defs = [] {
    std::vector<PropertyDef> out;
    for (auto add : {register_route_properties, register_cross_properties, register_invalid_properties,
                     register_stateful_property})
      add(out);
    return out;
  }();
  return defs;
}
}  // namespace detail

namespace {

class QuietListener final : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

const detail::PropertyDef& find(std::string_view name) {
  for (const auto& d : detail::registry())
    if (d.info.name == name) return d;
  throw InvalidArgument("property", std::string(name), "unknown property (see list_properties())");
}

std::string test_id(std::string_view name, Variant v) {
  if (v == Variant::production) return std::string(name);
  return std::string(name) + "@" + std::string(to_string(v));
}

}  // namespace

bool PropertyInfo::can_run(Variant v) const noexcept {
  for (Route r : routes)
    if (route_accepts(r, v)) return true;
  return false;
}

bool Report::passed() const noexcept {
  for (const auto& p : properties)
    if (!p.passed) return false;
  return true;
}

const std::vector<PropertyInfo>& list_properties() {
  static const std::vector<PropertyInfo> infos = [] {
    std::vector<PropertyInfo> out;
    for (const auto& d : detail::registry()) out.push_back(d.info);
    return out;
  }();
  return infos;
}

std::uint64_t derive_seed(std::uint64_t seed, std::string_view name) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return kvaddr::gen::mix_step(seed ^ h);
}

// RapidCheck prints "Using configuration: seed=..." on stderr the first time it reads its
// configuration (RC_PARAMS, or a random default seed). Every kvaddr run is seeded from
// Options::seed, so that line is swallowed; RC_PARAMS="reproduce=..." still applies.
static const rc::detail::Configuration& quiet_configuration() {
  static const rc::detail::Configuration& config = []() -> const rc::detail::Configuration& {
    auto* saved = std::cerr.rdbuf(nullptr);
    const auto& c = rc::detail::configuration();
    std::cerr.rdbuf(saved);
    return c;
  }();
  return config;
}

PropertyResult run_property(std::string_view name, const Options& options, Variant variant, std::int64_t* steps,
                            std::int64_t* moves) {
  const auto& def = find(name);
  PropertyResult res;
  res.name = def.info.name;
  res.seed = derive_seed(options.seed, def.info.name);
  const bool stateful = def.info.name == "stateful_pool";
  rc::detail::TestParams params;
  params.seed = res.seed;
  params.maxSuccess = stateful ? options.stateful_runs : options.cases_per_property;
  params.maxSize = stateful ? options.stateful_max_size : options.max_size;
  params.disableShrinking = !options.shrink;
  params.maxDiscardRatio = 10;
  rc::detail::TestMetadata md;
  md.id = test_id(def.info.name, variant);
  md.description = md.id;
  QuietListener listener;
  auto& counters = detail::stateful_counters();
  counters = {};
  const auto t0 = std::chrono::steady_clock::now();
  const auto body = def.body;
  const auto result = rc::detail::checkTestable([body, variant] { body(variant); }, md, params, listener,
                                                quiet_configuration().reproduce);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (steps) *steps += counters.steps;
  if (moves) *moves += counters.moves;
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    res.cases = success.numSuccess;
    res.passed = true;
  } else if (result.match(failure)) {
    res.cases = failure.numSuccess + 1;
    rc::detail::Configuration repro;
    repro.reproduce[md.id] = failure.reproduce;
    const std::string params_str = rc::detail::configToMinimalString(repro);
    const auto pos = params_str.find("reproduce=");
    res.reproduce = pos == std::string::npos ? params_str : params_str.substr(pos + 10);
    res.reproduce = res.reproduce.substr(0, res.reproduce.find(' '));
    std::ostringstream os;
    os << md.id << " FAILED after " << failure.numSuccess << " passing cases (seed " << res.seed
       << ", campaign seed " << options.seed << ")\n  " << failure.description << "\n  counterexample:\n";
    for (const auto& [type, value] : failure.counterExample) os << "    " << type << ": " << value << "\n";
    os << "  replay: RC_PARAMS=\"reproduce=" << res.reproduce << "\" build-props/props/kvaddr_props_tests --gtest_filter='"
       << (variant == Variant::production ? "Props/Property.*/" + def.info.name
                                          : "Props/KillMatrix.*/" + def.info.name + "__*")
       << "'   (same campaign: KVADDR_PROPS_SEED=" << options.seed << ")\n";
    res.failure = os.str();
  } else if (result.match(gave_up)) {
    res.cases = gave_up.numSuccess;
    res.failure = md.id + " gave up (too many discarded cases): " + gave_up.description;
  } else if (result.match(error)) {
    res.failure = md.id + " error: " + error.description;
  }
  if (options.progress) {
    *options.progress << "[props] " << std::left << std::setw(34) << md.id << std::right << std::setw(7) << res.cases
                      << " cases " << std::fixed << std::setprecision(2) << std::setw(6) << res.seconds << " s "
                      << std::setw(8) << std::setprecision(0) << (res.seconds > 0 ? res.cases / res.seconds : 0.0)
                      << " cases/s" << (stateful ? "  steps " + std::to_string(counters.steps) +
                                                       " moves " + std::to_string(counters.moves)
                                                 : std::string())
                      << (res.passed ? "  ok" : "  FAILED") << std::endl;
  }
  return res;
}

Report run_props(const Options& options) {
  Report rep;
  const auto t0 = std::chrono::steady_clock::now();
  auto kept = [&](const PropertyInfo& info) {
    bool keep = options.only.empty();
    for (const auto& n : options.only) keep = keep || n == info.name;
    return keep;
  };
  std::int64_t total = 0;
  for (const auto& info : list_properties()) total += kept(info) ? 1 : 0;
  for (const auto& info : list_properties()) {
    if (!kept(info)) continue;
    if (options.on_step) options.on_step(static_cast<std::int64_t>(rep.properties.size()), total, info.name);
    rep.properties.push_back(
        run_property(info.name, options, Variant::production, &rep.stateful_steps, &rep.stateful_moves));
    rep.total_cases += rep.properties.back().cases;
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

std::string to_json(const Report& report) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  std::ostringstream os;
  os << "{\"properties\": [";
  for (std::size_t i = 0; i < report.properties.size(); ++i) {
    const auto& p = report.properties[i];
    os << (i ? ", " : "") << "{\"name\": \"" << esc(p.name) << "\", \"cases\": " << p.cases
       << ", \"passed\": " << (p.passed ? "true" : "false") << "}";
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", report.seconds);
  os << "], \"stateful_steps\": " << report.stateful_steps << ", \"total_cases\": " << report.total_cases
     << ", \"seconds\": " << secs << "}";
  return os.str();
}

}  // namespace kvaddr::props
