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
    case CallStatus::race: return "race";
  }
  return "error";
}

std::size_t ReplayReport::count(CallStatus s) const noexcept {
  std::size_t n = 0;
  for (const auto& c : calls) n += (c.status == s);
  return n;
}

bool ReplayReport::ok() const noexcept {
  return error.empty() && count(CallStatus::equal) + count(CallStatus::race) == calls.size();
}

int exit_code(const ReplayReport& report) noexcept { return report.ok() ? 0 : 1; }

namespace {

// Makes every string of the report valid UTF-8 (file names and bytes from the inputs may not be).
void make_valid_utf8(ReplayReport& rep) {
  rep.error = detail::valid_utf8(rep.error);
  for (auto& c : rep.calls) {
    for (std::string* s : {&c.name, &c.route, &c.variant, &c.error, &c.claim_raises}) *s = detail::valid_utf8(*s);
    for (auto& d : c.diffs) d.output = detail::valid_utf8(d.output);
    for (auto& race : c.races)
      for (auto& cell : race.cells) cell.output = detail::valid_utf8(cell.output);
  }
}

// The ErrorKind name of an exception out of a call or the manifest.
std::string error_kind_of(const std::exception& e) {
  if (const auto* c = dynamic_cast<const detail::CallError*>(&e)) return std::string(to_string(c->kind()));
  if (const auto* k = dynamic_cast<const kvaddr::Error*>(&e)) return std::string(to_string(k->kind()));
  return std::string(to_string(ErrorKind::invalid_argument));  // a JSON type error, std::bad_alloc
}

void replay_calls(const json& manifest, const std::filesystem::path& dir, const ReplayOptions& options,
                  ReplayReport& rep) {
  if (!manifest.is_object()) {
    rep.error = "manifest.json must hold a JSON object";
    rep.error_kind = "format";
    return;
  }
  if (manifest.contains("format") && manifest.at("format") != "kvaddr-replay") {
    rep.error = "manifest 'format' must be \"kvaddr-replay\"";
    rep.error_kind = "format";
    return;
  }
  if (manifest.contains("version")) {
    const json& v = manifest.at("version");
    if (!v.is_number_integer() || (v != 1 && v != 2)) {
      rep.error = "unsupported manifest version " + detail::describe_value(v) + " (this reader knows the integers 1 and 2)";
      rep.error_kind = "format";
      return;
    }
  }
  if (!manifest.contains("calls") || !manifest.at("calls").is_array()) {
    rep.error = "manifest.json needs a \"calls\" array";
    rep.error_kind = "format";
    return;
  }
  const json& calls = manifest.at("calls");
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CallReport r;
    r.position = i;
    r.name = "call " + std::to_string(i);
    try {
      detail::check_call(calls[i], dir, options, r);
    } catch (const std::exception& e) {
      // CallError, a kvaddr::Error from a route or a file, a JSON type error, std::bad_alloc.
      r.status = CallStatus::error;
      r.error_kind = error_kind_of(e);
      r.error = dynamic_cast<const json::exception*>(&e) != nullptr ? std::string("malformed call: ") + e.what()
                                                                      : std::string(e.what());
      r.diffs.clear();
      r.matching_variants.clear();
      r.races.clear();
      r.broken_preconditions.clear();
      r.claim_raises.clear();
      r.inferred.clear();
      r.not_explained.clear();
      r.lanes_checked = r.lanes_differing = 0;
      r.model_checked = false;
      r.search_stopped_after.reset();
    }
    rep.calls.push_back(std::move(r));
  }
}

json writes_json(const std::vector<RaceWrite>& writes) {
  json a = json::array();
  for (const auto& w : writes) a.push_back({{"row", w.row}, {"value", w.value}});
  return a;
}

// "row 0 stores 5, row 1 stores 7" (row -1 is the padded-row fill).
std::string writes_text(const std::vector<RaceWrite>& writes) {
  std::string s;
  for (std::size_t i = 0; i < writes.size(); ++i) {
    s += i ? ", " : "";
    s += writes[i].row < 0 ? fmt::format("the padded-row fill stores {}", writes[i].value)
                           : fmt::format("row {} stores {}", writes[i].row, writes[i].value);
  }
  return s;
}

std::string index_text(const std::vector<std::int64_t>& index) {
  std::string idx;
  for (std::size_t k = 0; k < index.size(); ++k) idx += (k ? ", " : "") + std::to_string(index[k]);
  return idx;
}

bool same_cells(const Race& a, const Race& b) {
  if (a.cells_contested != b.cells_contested || a.cells.size() != b.cells.size()) return false;
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    if (a.cells[i].output != b.cells[i].output || a.cells[i].flat != b.cells[i].flat ||
        a.cells[i].writes != b.cells[i].writes) {
      return false;
    }
  }
  return true;
}

// One line per contested lane of a race; `under` names the variants (empty: the claimed one).
std::string race_lines(const Race& race, const std::string& under) {
  std::string s;
  for (const auto& cell : race.cells) {
    s += fmt::format("    race{}: {}[{}]{}: {}; recorded {}{}\n", under.empty() ? "" : " under " + under,
                     cell.output, index_text(cell.index), cell.region.empty() ? "" : " (" + cell.region + ")",
                     writes_text(cell.writes), cell.recorded, cell.recorded_possible ? "" : " (none of them)");
  }
  if (race.cells_contested > static_cast<std::int64_t>(race.cells.size())) {
    s += fmt::format("    ... {} more contested lanes\n", race.cells_contested - static_cast<std::int64_t>(race.cells.size()));
  }
  return s;
}

// "; search stopped after N candidates" when the "behaves like" search ran out of its budget.
std::string search_note(const CallReport& c) {
  return c.search_stopped_after ? fmt::format("; search stopped after {} candidates", *c.search_stopped_after) : "";
}

const Race* race_of(const CallReport& c, const std::string& variant) {
  for (const auto& race : c.races)
    if (race.variant == variant) return &race;
  return nullptr;
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
    rep.error_kind = error_kind_of(e);
  }
  make_valid_utf8(rep);
  return rep;
}

namespace {
std::string manifest_text(const std::filesystem::path& dir, const ReplayOptions& options) {
  return detail::read_bounded(detail::resolve_inside(dir, "manifest.json", options.allow_outside),
                              detail::kMaxManifestBytes);
}
}  // namespace

std::string read_manifest(const std::filesystem::path& dir, const ReplayOptions& options) {
  return detail::parse_manifest(manifest_text(dir, options)).dump(-1, ' ', false, json::error_handler_t::replace);
}

NpyArray read_dir_npy(const std::filesystem::path& dir, const std::string& name, const ReplayOptions& options) {
  return read_npy(detail::resolve_inside(dir, name, options.allow_outside));
}

ReplayReport replay_dir(const std::filesystem::path& dir, const ReplayOptions& options) {
  std::string text;
  try {
    text = manifest_text(dir, options);
  } catch (const std::exception& e) {
    ReplayReport rep;
    rep.dir = dir;
    rep.error = e.what();
    rep.error_kind = error_kind_of(e);
    make_valid_utf8(rep);
    return rep;
  }
  return replay_manifest(text, dir, options);
}

std::string to_json(const ReplayReport& report) {
  json j;
  j["dir"] = detail::valid_utf8(report.dir.string());
  j["ok"] = report.ok();
  if (!report.error.empty()) {
    j["error"] = report.error;
    j["error_kind"] = report.error_kind;
  }
  j["summary"] = {{"calls", report.calls.size()},
                  {"equal", report.count(CallStatus::equal)},
                  {"differs", report.count(CallStatus::differs)},
                  {"error", report.count(CallStatus::error)}};
  if (report.count(CallStatus::race) > 0) j["summary"]["race"] = report.count(CallStatus::race);
  j["calls"] = json::array();
  for (const auto& c : report.calls) {
    json cj = {{"position", c.position}, {"name", c.name},       {"route", c.route},
               {"variant", c.variant},   {"status", to_string(c.status)}};
    if (c.status == CallStatus::error) {
      cj["error"] = c.error;
      cj["error_kind"] = c.error_kind;
    }
    cj["lanes_checked"] = c.lanes_checked;
    cj["model_checked"] = c.model_checked;
    cj["lanes_differing"] = c.lanes_differing;
    cj["diffs"] = json::array();
    for (const auto& d : c.diffs) {
      json dj = {{"output", d.output}, {"flat", d.flat}, {"index", d.index}, {"expected", d.expected}, {"recorded", d.recorded}};
      if (!d.region.empty()) dj["region"] = d.region;
      if (!d.writes.empty()) dj["writes"] = writes_json(d.writes);
      cj["diffs"].push_back(std::move(dj));
    }
    cj["matching_variants"] = c.matching_variants;
    if (!c.broken_preconditions.empty()) cj["broken_preconditions"] = c.broken_preconditions;
    if (c.search_stopped_after) cj["search_stopped_after"] = *c.search_stopped_after;
    if (!c.claim_raises.empty()) cj["claim_raises"] = c.claim_raises;
    if (!c.inferred.empty()) {
      cj["inferred"] = json::array();
      for (const auto& inf : c.inferred) {
        cj["inferred"].push_back({{"variant", inf.variant}, {"description", inf.description},
                                  {"lanes_explained", inf.lanes_explained}, {"stores_unrecorded", inf.stores_unrecorded}});
      }
    }
    if (!c.not_explained.empty()) cj["not_explained"] = c.not_explained;
    if (!c.races.empty()) {
      cj["races"] = json::array();
      for (const auto& race : c.races) {
        json rj = {{"variant", race.variant}, {"consistent", race.consistent}, {"cells_contested", race.cells_contested},
                   {"cells", json::array()}};
        for (const auto& cell : race.cells) {
          json cellj = {{"output", cell.output}, {"flat", cell.flat}, {"index", cell.index}};
          if (!cell.region.empty()) cellj["region"] = cell.region;
          cellj["writes"] = writes_json(cell.writes);
          cellj["possible"] = cell.possible;
          cellj["recorded"] = cell.recorded;
          cellj["recorded_possible"] = cell.recorded_possible;
          rj["cells"].push_back(std::move(cellj));
        }
        cj["races"].push_back(std::move(rj));
      }
    }
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
    if (c.status == CallStatus::race) {
      const Race* race = race_of(c, c.variant);
      s += fmt::format("race ({} lanes; {} contested, each holds one of its possible values){}\n", c.lanes_checked,
                       race ? race->cells_contested : 0, search_note(c));
      if (race) s += race_lines(*race, "");
      continue;
    }
    if (c.status == CallStatus::equal) {
      std::vector<std::string> same;  // other variants whose output equals the claimed one's here
      for (const auto& v : c.matching_variants) if (v != c.variant) same.push_back(v);
      s += fmt::format("equal ({} lanes){}{}", c.lanes_checked,
                       same.empty() ? "" : fmt::format("; indistinguishable on this input: {}", fmt::join(same, ", ")),
                       search_note(c));
      for (const auto& inf : c.inferred) s += "; on grown memory: " + inf.description;
      s += "\n";
      continue;
    }
    s += c.claim_raises.empty() ? fmt::format("DIFFERS at {} of {} lanes", c.lanes_differing, c.lanes_checked)
                                : "DIFFERS: the claimed variant raises (" + c.claim_raises + ")";
    for (const auto& pre : c.broken_preconditions) s += "; precondition broken at " + pre;
    if (c.matching_variants.empty()) {
      s += "; matches no named variant" + search_note(c);
      for (const auto& inf : c.inferred) {
        s += fmt::format("; inferred: {} (claim {}; reproduces every recorded lane{})", inf.description, inf.variant,
                         inf.lanes_explained > 0 ? fmt::format(", the {} differing ones included", inf.lanes_explained)
                                                 : "");
      }
      if (!c.not_explained.empty()) s += "; " + c.not_explained;
      s += "\n";
    } else {
      s += "; matches variant";
      for (std::size_t i = 0; i < c.matching_variants.size(); ++i) {
        s += (i ? ", " : " ") + c.matching_variants[i];
        if (const Race* race = race_of(c, c.matching_variants[i]); race && race->consistent) s += " up to a race";
      }
      s += search_note(c) + "\n";
    }
    for (const auto& d : c.diffs) {
      const std::string where = fmt::format("    {}[{}]{}: ", d.output, index_text(d.index), d.region.empty() ? "" : " (" + d.region + ")");
      if (d.writes.empty()) {
        s += fmt::format("{}expected {}, recorded {}\n", where, d.expected, d.recorded);
      } else {
        s += fmt::format("{}a race ({}), recorded {}, none of them\n", where, writes_text(d.writes), d.recorded);
      }
    }
    if (c.lanes_differing > static_cast<std::int64_t>(c.diffs.size())) {
      s += fmt::format("    ... {} more differing lanes\n", c.lanes_differing - static_cast<std::int64_t>(c.diffs.size()));
    }
    // The races of the other variants; variants whose grids store the same values to the same
    // lanes share their lines.
    std::vector<bool> shown(c.races.size(), false);
    for (std::size_t i = 0; i < c.races.size(); ++i) {
      if (shown[i] || c.races[i].variant == c.variant) continue;
      std::string under = c.races[i].variant;
      for (std::size_t k = i + 1; k < c.races.size(); ++k) {
        if (!shown[k] && c.races[k].variant != c.variant && same_cells(c.races[i], c.races[k])) {
          shown[k] = true;
          under += ", " + c.races[k].variant;
        }
      }
      s += race_lines(c.races[i], under);
    }
  }
  s += fmt::format("replay {}: {} calls: {} equal, {} differ, {} error{}\n", detail::valid_utf8(report.dir.string()),
                   report.calls.size(), report.count(CallStatus::equal), report.count(CallStatus::differs),
                   report.count(CallStatus::error),
                   report.count(CallStatus::race) ? fmt::format(", {} race", report.count(CallStatus::race)) : "");
  return s;
}

}  // namespace kvaddr::replay
