#include "kvaddr/proofs/registry.hpp"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "common.hpp"
#include "kvaddr/model/errors.hpp"

namespace kvaddr::proofs {
namespace {

const std::vector<Def>& defs() {
  // The obligation files' registrations, in run order.
  static const std::vector<Def> all = [] {
    std::vector<Def> v;
    for (auto add : {add_identity_obligations, add_layout_obligations, add_route_obligations,
                     add_spec_rule_obligations, add_lifecycle_obligations, add_per_id_obligations,
                     add_mode_obligations, add_inferred_obligations})
      add(v);
    return v;
  }();
  return all;
}

bool selected(const std::string& name, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (const auto& o : only) {
    if (name == o) return true;
    if (name.size() > o.size() && name.compare(0, o.size(), o) == 0 && name[o.size()] == '.') return true;
  }
  return false;
}

ObligationResult run_def(const Def& d, const RunOptions& options) {
  ObligationResult r;
  r.name = d.info.name;
  r.expected = d.info.expected;
  r.domain = (options.full_sweep && !d.domain_full.empty()) ? d.domain_full : d.info.domain;
  Outcome o;
  try {
    o = d.run(options);
  } catch (const z3::exception& e) {
    o.verdict = Verdict::unknown;
    o.text = std::string("z3 exception: ") + e.msg();
  }
  r.verdict = o.verdict;
  r.counterexample = o.text;
  r.seconds = o.seconds;
  r.queries = o.queries;
  return r;
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::proved: return "proved";
    case Verdict::refuted: return "refuted";
    case Verdict::unknown: return "unknown";
  }
  return "unknown";
}

const std::vector<ObligationInfo>& obligations() {
  static const std::vector<ObligationInfo> infos = [] {
    std::vector<ObligationInfo> v;
    for (const auto& d : defs()) v.push_back(d.info);
    return v;
  }();
  return infos;
}

std::vector<ObligationResult> run_all(const RunOptions& options) {
  std::vector<ObligationResult> out;
  std::int64_t total = 0;
  for (const auto& d : defs()) total += selected(d.info.name, options.only) ? 1 : 0;
  for (const auto& d : defs()) {
    if (!selected(d.info.name, options.only)) continue;
    if (options.on_step) options.on_step(static_cast<std::int64_t>(out.size()), total, d.info.name);
    out.push_back(run_def(d, options));
  }
  return out;
}

ObligationResult run_one(std::string_view name, const RunOptions& options) {
  for (const auto& d : defs()) {
    if (d.info.name == name) return run_def(d, options);
  }
  throw InvalidArgument("name", std::string(name), "no proof obligation of that name (kvaddr prove --list)");
}

std::string to_json(const std::vector<ObligationResult>& results) {
  nlohmann::json arr = nlohmann::json::array();
  double total = 0.0;
  for (const auto& r : results) {
    nlohmann::json j;
    j["name"] = r.name;
    j["verdict"] = std::string(to_string(r.verdict));
    j["expected"] = std::string(to_string(r.expected));
    j["seconds"] = r.seconds;
    if (!r.counterexample.empty()) j["counterexample"] = r.counterexample;
    arr.push_back(std::move(j));
    total += r.seconds;
  }
  nlohmann::json doc;
  doc["obligations"] = std::move(arr);
  doc["total_seconds"] = total;
  return doc.dump(2);
}

std::string to_text(const std::vector<ObligationResult>& results) {
  std::ostringstream os;
  double total = 0.0;
  int mismatches = 0;
  os << std::fixed << std::setprecision(3);
  for (const auto& r : results) {
    os << std::left << std::setw(48) << r.name << ' ' << std::setw(8) << to_string(r.verdict) << " expected "
       << std::setw(8) << to_string(r.expected) << ' ' << std::right << std::setw(8) << r.seconds << " s"
       << (r.as_expected() ? "" : "  MISMATCH") << '\n';
    if (r.verdict != Verdict::proved && !r.counterexample.empty()) os << "    " << r.counterexample << '\n';
    total += r.seconds;
    if (!r.as_expected()) ++mismatches;
  }
  os << "total " << results.size() << " obligations, " << mismatches << " not as expected, " << total << " s\n";
  return os.str();
}

}  // namespace kvaddr::proofs
