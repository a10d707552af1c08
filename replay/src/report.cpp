// Replay reports: manifest-level checks around the per-call replay (call.hpp), and the JSON and
// text renderings of a report.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "call.hpp"
#include "files.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest.hpp"
#include "text.hpp"

namespace kvaddr::replay {

using json = nlohmann::json;

std::string_view to_string(CallStatus s) noexcept {
  switch (s) {
    case CallStatus::equal: return "equal";
    case CallStatus::differs: return "differs";
    case CallStatus::error: return "error";
  }
  return "error";
}

std::size_t ReplayReport::count(CallStatus s) const noexcept {
  std::size_t n = 0;
  for (const auto& c : calls) n += (c.status == s);
  return n;
}

bool ReplayReport::ok() const noexcept { return error.empty() && count(CallStatus::equal) == calls.size(); }

int exit_code(const ReplayReport& report) noexcept { return report.ok() ? 0 : 1; }

namespace {

// Makes every string of the report valid UTF-8 (file names and bytes from the inputs may not be).
void make_valid_utf8(ReplayReport& rep) {
  rep.error = detail::valid_utf8(rep.error);
  for (auto& c : rep.calls) {
    for (std::string* s : {&c.name, &c.route, &c.variant, &c.error}) *s = detail::valid_utf8(*s);
    for (auto& d : c.diffs) d.output = detail::valid_utf8(d.output);
  }
}

void replay_calls(const json& manifest, const std::filesystem::path& dir, const ReplayOptions& options,
                  ReplayReport& rep) {
  if (!manifest.is_object()) {
    rep.error = "manifest.json must hold a JSON object";
    return;
  }
  if (manifest.contains("format") && manifest.at("format") != "kvaddr-replay") {
    rep.error = "manifest 'format' must be \"kvaddr-replay\"";
    return;
  }
  if (manifest.contains("version")) {
    const json& v = manifest.at("version");
    if (!v.is_number_integer() || v != 1) {
      rep.error = "unsupported manifest version " + detail::describe_value(v) + " (this reader knows the integer 1)";
      return;
    }
  }
  if (!manifest.contains("calls") || !manifest.at("calls").is_array()) {
    rep.error = "manifest.json needs a \"calls\" array";
    return;
  }
  const json& calls = manifest.at("calls");
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CallReport r;
    r.position = i;
    r.name = "call " + std::to_string(i);
    try {
      detail::check_call(calls[i], dir, options.allow_outside, r);
    } catch (const std::exception& e) {
      // CallError, a kvaddr::Error from a route or a file, a JSON type error, std::bad_alloc.
      r.status = CallStatus::error;
      r.error = dynamic_cast<const json::exception*>(&e) != nullptr ? std::string("malformed call: ") + e.what()
                                                                      : std::string(e.what());
      r.diffs.clear();
      r.matching_variants.clear();
      r.lanes_checked = r.lanes_differing = 0;
      r.model_checked = false;
    }
    rep.calls.push_back(std::move(r));
  }
}

}  // namespace

ReplayReport replay_manifest(std::string_view manifest_text, const std::filesystem::path& dir,
                             const ReplayOptions& options) {
  ReplayReport rep;
  rep.dir = dir;
  try {
    const json manifest = detail::parse_manifest(manifest_text);
    replay_calls(manifest, dir, options, rep);
  } catch (const std::exception& e) {
    rep.calls.clear();
    rep.error = e.what();
  }
  make_valid_utf8(rep);
  return rep;
}

ReplayReport replay_dir(const std::filesystem::path& dir, const ReplayOptions& options) {
  std::string text;
  try {
    text = detail::read_bounded(dir / "manifest.json", detail::kMaxManifestBytes);
  } catch (const std::exception& e) {
    ReplayReport rep;
    rep.dir = dir;
    rep.error = e.what();
    make_valid_utf8(rep);
    return rep;
  }
  return replay_manifest(text, dir, options);
}

std::string to_json(const ReplayReport& report) {
  json j;
  j["dir"] = detail::valid_utf8(report.dir.string());
  j["ok"] = report.ok();
  if (!report.error.empty()) j["error"] = report.error;
  j["summary"] = {{"calls", report.calls.size()},
                  {"equal", report.count(CallStatus::equal)},
                  {"differs", report.count(CallStatus::differs)},
                  {"error", report.count(CallStatus::error)}};
  j["calls"] = json::array();
  for (const auto& c : report.calls) {
    json cj = {{"position", c.position}, {"name", c.name},       {"route", c.route},
               {"variant", c.variant},   {"status", to_string(c.status)}};
    if (c.status == CallStatus::error) cj["error"] = c.error;
    cj["lanes_checked"] = c.lanes_checked;
    cj["model_checked"] = c.model_checked;
    cj["lanes_differing"] = c.lanes_differing;
    cj["diffs"] = json::array();
    for (const auto& d : c.diffs) {
      json dj = {{"output", d.output}, {"flat", d.flat}, {"index", d.index}, {"expected", d.expected}, {"recorded", d.recorded}};
      if (!d.region.empty()) dj["region"] = d.region;
      cj["diffs"].push_back(std::move(dj));
    }
    cj["matching_variants"] = c.matching_variants;
    if (!c.broken_preconditions.empty()) cj["broken_preconditions"] = c.broken_preconditions;
    j["calls"].push_back(std::move(cj));
  }
  // Strings are valid UTF-8 already; `replace` keeps a report built by hand printable too.
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

std::string to_text(const ReplayReport& report) {
  std::string s;
  if (!report.error.empty()) {
    s += fmt::format("replay {}: ERROR: {}\n", detail::valid_utf8(report.dir.string()), detail::valid_utf8(report.error));
    return s;
  }
  for (const auto& c : report.calls) {
    s += fmt::format("call {} \"{}\" {} (claims {}): ", c.position, c.name, c.route, c.variant);
    if (c.status == CallStatus::error) {
      s += "ERROR: " + c.error + "\n";
      continue;
    }
    if (c.status == CallStatus::equal) {
      std::vector<std::string> same;  // other variants whose output equals the claimed one's here
      for (const auto& v : c.matching_variants) if (v != c.variant) same.push_back(v);
      s += fmt::format("equal ({} lanes){}\n", c.lanes_checked,
                       same.empty() ? "" : fmt::format("; indistinguishable on this input: {}", fmt::join(same, ", ")));
      continue;
    }
    s += fmt::format("DIFFERS at {} of {} lanes", c.lanes_differing, c.lanes_checked);
    for (const auto& pre : c.broken_preconditions) s += "; precondition broken at " + pre;
    if (c.matching_variants.empty()) {
      s += "; matches no named variant\n";
    } else {
      s += "; matches variant";
      for (std::size_t i = 0; i < c.matching_variants.size(); ++i) s += (i ? ", " : " ") + c.matching_variants[i];
      s += "\n";
    }
    for (const auto& d : c.diffs) {
      std::string idx;
      for (std::size_t k = 0; k < d.index.size(); ++k) idx += (k ? ", " : "") + std::to_string(d.index[k]);
      s += fmt::format("    {}[{}]{}: expected {}, recorded {}\n", d.output, idx, d.region.empty() ? "" : " (" + d.region + ")",
                       d.expected, d.recorded);
    }
    if (c.lanes_differing > static_cast<std::int64_t>(c.diffs.size())) {
      s += fmt::format("    ... {} more differing lanes\n", c.lanes_differing - static_cast<std::int64_t>(c.diffs.size()));
    }
  }
  s += fmt::format("replay {}: {} calls: {} equal, {} differ, {} error\n", detail::valid_utf8(report.dir.string()), report.calls.size(),
                   report.count(CallStatus::equal), report.count(CallStatus::differs), report.count(CallStatus::error));
  return s;
}

}  // namespace kvaddr::replay
