// The per-schema merges of `kvaddr merge` (merge_kinds.hpp): diff, props, the lifecycle campaign,
// prove and zoo. shard.cpp has checked that the shards share schema, version, seed and campaign and
// that each index of 0..n-1 is there once; here every field read is type-checked and every sum is
// checked (an error names the file and the field).
#include "merge_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "kvaddr/model/errors.hpp"

#ifdef KVADDR_WITH_ZOO
#include "kvaddr/zoo/zoo.hpp"
#endif

namespace kvaddr::cli::merge {

namespace {

constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max();

bool skipped(const Input& s) { return s.doc->value("skipped", false); }

// The shards' sub-objects `field` (each must be an object) as inputs of their own.
std::vector<Input> nested(const std::vector<Input>& shards, const std::string& field) {
  std::vector<Input> out;
  for (const auto& s : shards) {
    if (!s.doc->contains(field) || !(*s.doc)[field].is_object()) {
      bad_field(s.name, field, s.doc->value(field, json()), "an object");
    }
    out.push_back({&(*s.doc)[field], s.name});
  }
  return out;
}

// Sums the counts of the object `from` (name -> count) into `into`.
void add_count_map(json& into, const json& from, const std::string& field, const std::string& file) {
  if (!from.is_object()) bad_field(file, field, from, "an object of counts");
  if (!into.is_object()) into = json::object();
  for (const auto& [key, n] : from.items()) {
    const auto v = count_value(n, field + "." + key, file);
    into[key] = add_count(into.value(key, std::int64_t{0}), v, field + "." + key, file);
  }
}

}  // namespace

std::string shown(const json& v) {
  if (v.is_structured()) return std::string("a JSON ") + v.type_name();
  return v.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 80);
}

void bad_field(const std::string& file, const std::string& field, const json& value, const std::string& want) {
  throw InvalidArgument(file, value.is_null() ? "(missing)" : shown(value), fmt::format("field \"{}\" must be {}", field, want));
}

std::int64_t count_value(const json& v, const std::string& field, const std::string& file) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(kMaxCount)) {
      throw Overflow(file, shown(v), fmt::format("field \"{}\" is above 2^63 - 1", field));
    }
    return static_cast<std::int64_t>(u);
  }
  if (!v.is_number_integer()) bad_field(file, field, v, "an integer");
  const auto i = v.get<std::int64_t>();
  if (i < 0) bad_field(file, field, v, "an integer >= 0 (a count)");
  return i;
}

std::int64_t count_of(const json& doc, const std::string& field, const std::string& file) {
  return doc.contains(field) ? count_value(doc[field], field, file) : 0;
}

std::int64_t add_count(std::int64_t a, std::int64_t b, const std::string& field, const std::string& file) {
  if (b > kMaxCount - a) {
    throw Overflow(file, fmt::format("{} + {}", a, b), fmt::format("field \"{}\": the sum over the shards passes 2^63 - 1", field));
  }
  return a + b;
}

std::int64_t sum_counts(const std::vector<Input>& shards, const std::string& field) {
  std::int64_t total = 0;
  for (const auto& s : shards) total = add_count(total, count_of(*s.doc, field, s.name), field, s.name);
  return total;
}

double sum_seconds(const std::vector<Input>& shards, const std::string& field) {
  double total = 0;
  for (const auto& s : shards) {
    if (!s.doc->contains(field)) continue;
    const auto& v = (*s.doc)[field];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      bad_field(s.name, field, v, "a number");
    }
    total += v.get<double>();
    if (!std::isfinite(total)) throw Overflow(s.name, shown(v), fmt::format("field \"{}\": the sum is not finite", field));
  }
  return std::round(total * 1000.0) / 1000.0;
}

const json& object_array(const json& doc, const std::string& field, const std::string& file, bool required) {
  static const json empty = json::array();
  if (!doc.contains(field) && !required) return empty;
  if (!doc.contains(field) || !doc[field].is_array()) bad_field(file, field, doc.value(field, json()), "an array");
  for (const auto& e : doc[field])
    if (!e.is_object()) bad_field(file, field, e, "an array of objects");
  return doc[field];
}

json interleave(const std::vector<Input>& shards, const std::string& field) {
  const auto n = shards.size();
  std::size_t total = 0;
  for (const auto& s : shards) total += object_array(*s.doc, field, s.name, true).size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto want = total > i ? (total - i + n - 1) / n : 0;
    const auto have = (*shards[i].doc)[field].size();
    if (have != want) {
      throw InvalidArgument(shards[i].name, std::to_string(have),
                            fmt::format("shard {} of {} holds {} {}; a round-robin slice of {} holds {}", i, n, have,
                                        field, total, want));
    }
  }
  json out = json::array();
  for (std::size_t p = 0; p < total; ++p) out.push_back((*shards[p % n].doc)[field][p / n]);
  return out;
}

json merge_diff(const std::vector<Input>& shards) {
  json out = *shards.front().doc;
  out.erase("shard");
  if (std::all_of(shards.begin(), shards.end(), skipped)) return out;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    if (skipped(shards[s])) {
      throw InvalidArgument(shards[s].name, shown(shards[s].doc->value("skip_reason", json(""))),
                            fmt::format("shard {} of {} was skipped: the merged campaign would be incomplete", s,
                                        shards.size()));
    }
  }
  for (const char* key : {"cases_run", "lanes_translated", "lanes_compared", "model_lanes_compared"}) {
    out[key] = sum_counts(shards, key);
  }
  json per_kernel = json::object();
  for (const auto& s : shards) {
    if (!s.doc->contains("per_kernel")) continue;
    const auto& kernels = (*s.doc)["per_kernel"];
    if (!kernels.is_object()) bad_field(s.name, "per_kernel", kernels, "an object");
    for (const auto& [kernel, count] : kernels.items()) {
      const std::string field = "per_kernel." + kernel;
      if (!count.is_object()) bad_field(s.name, "per_kernel", count, "an object of {\"cases\": integer, \"lanes\": integer}");
      auto& k = per_kernel[kernel];
      if (!k.is_object()) k = {{"cases", 0}, {"lanes", 0}};
      for (const char* c : {"cases", "lanes"}) {
        const auto n = count.contains(c) ? count_value(count[c], field + "." + c, s.name) : 0;
        k[c] = add_count(k[c].get<std::int64_t>(), n, field + "." + c, s.name);
      }
      if (count.contains("edge_classes")) add_count_map(k["edge_classes"], count["edge_classes"], field + ".edge_classes", s.name);
      if (count.contains("variants")) add_count_map(k["variants"], count["variants"], field + ".variants", s.name);
    }
  }
  out["per_kernel"] = per_kernel;
  std::vector<std::pair<std::int64_t, json>> mismatches;  // (case index, mismatch)
  for (const auto& s : shards) {
    const json first = s.doc->value("first_mismatch", json());
    json list = s.doc->value("mismatches", json::array());
    if (!list.is_array()) bad_field(s.name, "mismatches", list, "an array");
    if (!first.is_null() && std::find(list.begin(), list.end(), first) == list.end()) list.insert(list.begin(), first);
    for (const auto& m : list) {
      if (!m.is_object() || !m.contains("case_index")) {
        bad_field(s.name, "first_mismatch", m, "a mismatch object with an integer \"case_index\"");
      }
      mismatches.emplace_back(count_value(m["case_index"], "case_index", s.name), m);
    }
  }
  std::stable_sort(mismatches.begin(), mismatches.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  out["ok"] = mismatches.empty();
  out["first_mismatch"] = mismatches.empty() ? json(nullptr) : mismatches.front().second;
  out.erase("mismatches");
  if (!mismatches.empty()) {
    out["mismatches"] = json::array();
    for (auto& m : mismatches) out["mismatches"].push_back(std::move(m.second));
  }
  return out;
}

json merge_props(const std::vector<Input>& shards) {
  json out = *shards.front().doc;
  out.erase("shard");
  out["properties"] = interleave(shards, "properties");
  bool passed = true;
  for (const auto& p : out["properties"]) passed = passed && p.value("passed", json(false)) == json(true);
  out["passed"] = passed;
  out["stateful_steps"] = sum_counts(shards, "stateful_steps");
  out["total_cases"] = sum_counts(shards, "total_cases");
  out["seconds"] = sum_seconds(shards, "seconds");
  return out;
}

json merge_lifecycle(const std::vector<Input>& shards) {
  json out = *shards.front().doc;
  out.erase("shard");
  for (const char* key : {"steps", "runs", "moves", "replays", "ids_judged", "violations"}) {
    out[key] = sum_counts(shards, key);
  }
  json commands = json::object();
  for (const auto& s : shards) add_count_map(commands, s.doc->value("commands", json::object()), "commands", s.name);
  out["commands"] = commands;
  json first = nullptr;
  std::int64_t first_run = 0;
  for (const auto& s : shards) {
    const json v = s.doc->value("first_violation", json());
    if (v.is_null()) continue;
    if (!v.is_object() || !v.contains("run")) bad_field(s.name, "first_violation", v, "null or {\"run\": integer, ...}");
    const auto run = count_value(v["run"], "first_violation.run", s.name);
    if (first.is_null() || run < first_run) {
      first = v;
      first_run = run;
    }
  }
  out["first_violation"] = first;
  out["passed"] = out["violations"] == 0;
  const double seconds = sum_seconds(shards, "seconds");
  out["seconds"] = seconds;
  out["steps_per_second"] = seconds > 0 ? std::round(static_cast<double>(out["steps"].get<std::int64_t>()) / seconds) : 0.0;
  return out;
}

json merge_prove(const std::vector<Input>& shards) {
  json out = *shards.front().doc;
  out.erase("shard");
  out["obligations"] = interleave(shards, "obligations");
  bool passed = !out["obligations"].empty();
  for (const auto& o : out["obligations"]) {
    passed = passed && o.contains("verdict") && o["verdict"].is_string() && o.value("expected", json()) == o["verdict"];
  }
  out["passed"] = passed;
  out["total_seconds"] = sum_seconds(shards, "total_seconds");
  return out;
}

json merge_zoo(const std::vector<Input>& shards) {
  json out = *shards.front().doc;
  out.erase("shard");
  out["variants"] = interleave(shards, "variants");
  out["production_false_alarms"] = sum_counts(shards, "production_false_alarms");
  out["seconds"] = sum_seconds(shards, "seconds");
  bool gpu = false;
  for (const auto& s : shards) gpu = gpu || s.doc->value("gpu_present", json(false)) == json(true);
  out["gpu_present"] = gpu;
  // Gaps ("<name>@<route>: ...") in the order of their rows.
  std::map<std::string, std::size_t> row_at;
  for (std::size_t p = 0; p < out["variants"].size(); ++p) {
    const auto& v = out["variants"][p];
    if (v.value("name", json()).is_string() && v.value("route", json()).is_string()) {
      row_at.emplace(v["name"].get<std::string>() + "@" + v["route"].get<std::string>(), p);
    }
  }
  std::vector<std::pair<std::size_t, std::string>> gaps;
  for (const auto& s : shards) {
    const json list = s.doc->value("gaps", json::array());
    if (!list.is_array()) bad_field(s.name, "gaps", list, "an array of strings");
    for (const auto& g : list) {
      if (!g.is_string()) bad_field(s.name, "gaps", g, "an array of strings");
      const auto text = g.get<std::string>();
      const auto it = row_at.find(text.substr(0, text.find(':')));
      gaps.emplace_back(it == row_at.end() ? out["variants"].size() : it->second, text);
    }
  }
  std::stable_sort(gaps.begin(), gaps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  out["gaps"] = json::array();
  for (const auto& g : gaps) out["gaps"].push_back(g.second);
  if (!shards.front().doc->contains("mutation")) return out;
  const auto mutation = nested(shards, "mutation");
  json m = *mutation.front().doc;
  m["units"] = interleave(mutation, "units");
  for (const char* key : {"total", "killed", "equivalent", "classified_equivalent", "never_infected"}) {
    m[key] = sum_counts(mutation, key);
  }
#ifdef KVADDR_WITH_ZOO
  const auto total = m["total"].get<std::int64_t>(), killed = m["killed"].get<std::int64_t>();
  const auto equivalent = m["equivalent"].get<std::int64_t>(), never = m["never_infected"].get<std::int64_t>();
  if (total > INT32_MAX || killed > total || equivalent > total || never > total - equivalent) {
    throw InvalidArgument(mutation.front().name, shown(m["total"]),
                          "mutation counts do not add up (killed, equivalent + never infected within total < 2^31)");
  }
  zoo::MutationReport sums;  // the scores from the summed counts, by the zoo's own formulas
  sums.total = static_cast<int>(total);
  sums.killed = static_cast<int>(killed);
  sums.equivalent = static_cast<int>(equivalent);
  sums.never_infected = static_cast<int>(never);
  m["score"] = sums.score();
  m["infected_score"] = sums.infected_score();
#else
  throw InvalidArgument(mutation.front().name, "mutation", "this kvaddr was built without zoo/: cannot merge a mutation campaign");
#endif
  std::map<std::string, std::size_t> unit_at;
  for (std::size_t p = 0; p < m["units"].size(); ++p) unit_at.emplace(m["units"][p].value("unit", json("")).dump(), p);
  for (const char* list : {"survivors", "kills"}) {
    std::vector<std::pair<std::size_t, json>> items;
    for (const auto& s : mutation) {
      for (const auto& e : object_array(*s.doc, list, s.name, false)) {
        const auto it = unit_at.find(e.value("unit", json("")).dump());
        items.emplace_back(it == unit_at.end() ? unit_at.size() : it->second, e);
      }
    }
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    m[list] = json::array();
    for (auto& e : items) m[list].push_back(std::move(e.second));
  }
  json stale = json::array();
  for (const auto& s : mutation) {
    const json list = s.doc->value("stale_classifications", json::array());
    if (!list.is_array()) bad_field(s.name, "mutation.stale_classifications", list, "an array");
    for (const auto& e : list) stale.push_back(e);
  }
  m["stale_classifications"] = stale;
  m["seconds"] = sum_seconds(mutation, "seconds");
  out["mutation"] = m;
  return out;
}

}  // namespace kvaddr::cli::merge
