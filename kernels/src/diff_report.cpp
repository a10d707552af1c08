// Differential GPU check: the JSON and text forms of a DiffReport.
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvaddr/kernels/diff.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::gpu {

std::string to_json(const DiffReport& r) {
  nlohmann::json j;
  j["skipped"] = r.skipped;
  if (r.skipped) j["skip_reason"] = r.skip_reason;
  j["ok"] = r.ok();
  j["seed"] = r.seed;
  j["cases_run"] = r.cases_run;
  j["lanes_translated"] = r.lanes_translated;
  j["lanes_compared"] = r.lanes_compared;
  j["model_lanes_compared"] = r.model_lanes_compared;
  auto& pk = j["per_kernel"] = nlohmann::json::object();
  for (const auto& k : r.per_kernel) {
    nlohmann::json e = nlohmann::json::object();
    for (const auto& [cls, n] : k.edge_classes) e[cls] = n;
    nlohmann::json v = nlohmann::json::object();
    for (const auto& [name, n] : k.variants) v[name] = n;
    pk[std::string(to_string(k.kernel))] = {{"cases", k.cases}, {"lanes", k.lanes}, {"edge_classes", e}, {"variants", v}};
  }
  if (r.first_mismatch) {
    const Mismatch& m = *r.first_mismatch;
    nlohmann::json mm{{"kernel", to_string(m.kernel)}, {"route", to_string(m.route)}, {"variant", to_string(m.variant)},
                      {"seed", m.seed}, {"case_index", m.case_index}, {"max_case_lanes", m.max_case_lanes},
                      {"against", m.against}, {"geometry", m.geometry}, {"differing_lanes", m.differing_lanes},
                      {"detail", m.detail}, {"replay", m.replay}};
    auto& lanes = mm["lanes"] = nlohmann::json::array();
    for (const auto& l : m.lanes)
      lanes.push_back({{"buffer", l.buffer}, {"index", l.index}, {"expected", l.expected}, {"actual", l.actual}});
    j["first_mismatch"] = mm;
  } else {
    j["first_mismatch"] = nullptr;
  }
  return j.dump();
}

std::string to_text(const DiffReport& r) {
  std::ostringstream s;
  if (r.skipped) {
    s << "gpu diff: skipped (" << r.skip_reason << ")\n";
    return s.str();
  }
  s << "gpu diff: seed " << r.seed << ", " << r.cases_run << " cases, " << r.lanes_translated << " translated lanes, "
    << r.lanes_compared << " elements compared GPU vs host, " << r.model_lanes_compared << " host lanes vs model: "
    << (r.ok() ? "OK" : "MISMATCH") << "\n";
  // Which variant the cases ran (a forced variant that a kernel does not carry shows here as production).
  s << "  variants run:";
  for (const auto& [name, n] : variants_run(r)) s << " " << name << " " << n;
  s << "\n";
  for (const auto& k : r.per_kernel)
    if (k.cases) {
      s << "  " << to_string(k.kernel) << ": " << k.cases << " cases, " << k.lanes << " lanes";
      const char* sep = " (";
      for (const auto& [cls, n] : k.edge_classes) {
        s << sep << cls << " " << n;
        sep = ", ";
      }
      s << (k.edge_classes.empty() ? "" : ")") << "\n";
    }
  if (r.first_mismatch) {
    const Mismatch& m = *r.first_mismatch;
    s << "first mismatch (" << m.against << "): kernel " << to_string(m.kernel) << ", route " << to_string(m.route)
      << ", variant " << to_string(m.variant) << ", seed " << m.seed << ", case " << m.case_index << "\n  geometry: "
      << m.geometry << "\n  differing lanes: " << m.differing_lanes << "\n";
    for (const auto& l : m.lanes)
      s << "    " << l.buffer << "[" << l.index << "]: expected " << l.expected << ", got " << l.actual << "\n";
    if (!m.detail.empty()) s << "  detail: " << m.detail << "\n";
    s << "  replay: " << m.replay << "\n";
  }
  return s.str();
}

}  // namespace kvaddr::gpu
