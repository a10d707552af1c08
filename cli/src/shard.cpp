#include "shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "args.hpp"
#include "kvaddr/model/errors.hpp"

namespace kvaddr::cli {

namespace {

using json = nlohmann::json;

const std::string kDiff = "kvaddr.diff/1";
const std::string kProps = "kvaddr.props/1";

Shard shard_of(const json& doc, const std::string& name) {
  if (!doc.contains("shard")) return {};
  const auto& s = doc["shard"];
  if (!s.is_object() || !s.contains("index") || !s.contains("count") || !s["index"].is_number_integer() ||
      !s["count"].is_number_integer()) {
    throw InvalidArgument(name, s.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "\"shard\" must be {\"index\": i, \"count\": n}");
  }
  const Shard sh{s["index"].get<std::int64_t>(), s["count"].get<std::int64_t>()};
  if (sh.count < 1 || sh.count > kMaxShards || sh.index < 0 || sh.index >= sh.count) {
    throw InvalidArgument(name, s.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "shard index must be in [0, count - 1] with count >= 1");
  }
  return sh;
}

// The fields merge reads, with the types it reads them as; InvalidArgument naming the file otherwise.
void check_fields(const json& d, const std::string& schema, const std::string& name) {
  auto bad = [&](const std::string& field, const std::string& want) {
    throw InvalidArgument(name, d.contains(field) ? d[field].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 80) : "(missing)",
                          fmt::format("field \"{}\" must be {}", field, want));
  };
  auto integer = [&](const std::string& field) {
    if (d.contains(field) && !d[field].is_number_integer()) bad(field, "an integer");
  };
  if (d.contains("skipped") && !d["skipped"].is_boolean()) bad("skipped", "true or false");
  if (schema == kDiff) {
    for (const char* f : {"cases_run", "lanes_translated", "lanes_compared", "model_lanes_compared"}) integer(f);
    if (d.contains("per_kernel")) {
      if (!d["per_kernel"].is_object()) bad("per_kernel", "an object");
      for (const auto& [kernel, count] : d["per_kernel"].items()) {
        if (!count.is_object() || !count.value("cases", json(0)).is_number_integer() ||
            !count.value("lanes", json(0)).is_number_integer()) {
          bad("per_kernel", "an object of {\"cases\": integer, \"lanes\": integer}");
        }
      }
    }
    for (const char* f : {"first_mismatch", "mismatches"}) {
      if (!d.contains(f) || d[f].is_null()) continue;
      const auto list = d[f].is_array() ? d[f] : json::array({d[f]});
      for (const auto& m : list) {
        if (!m.is_object() || !m.value("case_index", json(0)).is_number_integer()) {
          bad(f, "a mismatch object with an integer \"case_index\"");
        }
      }
    }
    if (d.contains("mismatches") && !d["mismatches"].is_array()) bad("mismatches", "an array");
  } else {
    if (!d.contains("properties") || !d["properties"].is_array()) bad("properties", "an array");
    for (const auto& p : d["properties"])
      if (!p.is_object()) bad("properties", "an array of objects");
    for (const char* f : {"stateful_steps", "total_cases"}) integer(f);
    if (d.contains("seconds") && !d["seconds"].is_number()) bad("seconds", "a number");
  }
}

std::int64_t sum_int(const std::vector<const json*>& docs, const std::string& key) {
  std::int64_t total = 0;
  for (const auto* d : docs) total += d->value(key, std::int64_t{0});
  return total;
}

json merge_diff(const std::vector<const json*>& docs, const std::vector<std::string>& names) {
  json out = *docs.front();
  out.erase("shard");
  bool all_skipped = true;
  for (const auto* d : docs) all_skipped = all_skipped && d->value("skipped", false);
  if (all_skipped) return out;
  for (std::size_t s = 0; s < docs.size(); ++s) {
    if (docs[s]->value("skipped", false)) {
      throw InvalidArgument(names[s], docs[s]->value("skip_reason", json("")).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                            fmt::format("shard {} of {} was skipped: the merged campaign would be incomplete", s,
                                        docs.size()));
    }
  }
  for (const char* key : {"cases_run", "lanes_translated", "lanes_compared", "model_lanes_compared"}) {
    out[key] = sum_int(docs, key);
  }
  json per_kernel = json::object();
  for (const auto* d : docs) {
    const json counts = d->value("per_kernel", json::object());
    for (const auto& [kernel, count] : counts.items()) {
      auto& k = per_kernel[kernel];
      if (!k.is_object()) k = {{"cases", 0}, {"lanes", 0}};
      k["cases"] = k["cases"].get<std::int64_t>() + count.value("cases", std::int64_t{0});
      k["lanes"] = k["lanes"].get<std::int64_t>() + count.value("lanes", std::int64_t{0});
      if (count.contains("edge_classes") && count["edge_classes"].is_object()) {  // cases per edge class
        auto& e = k["edge_classes"];
        if (!e.is_object()) e = json::object();
        for (const auto& [cls, n] : count["edge_classes"].items())
          if (n.is_number_integer()) e[cls] = e.value(cls, std::int64_t{0}) + n.get<std::int64_t>();
      }
    }
  }
  out["per_kernel"] = per_kernel;
  std::vector<json> mismatches;
  for (const auto* d : docs) {
    if (d->contains("first_mismatch") && !(*d)["first_mismatch"].is_null()) mismatches.push_back((*d)["first_mismatch"]);
    if (d->contains("mismatches")) {
      for (const auto& m : (*d)["mismatches"])
        if (m != d->value("first_mismatch", json())) mismatches.push_back(m);
    }
  }
  std::stable_sort(mismatches.begin(), mismatches.end(), [](const json& a, const json& b) {
    return a.value("case_index", std::int64_t{0}) < b.value("case_index", std::int64_t{0});
  });
  out["ok"] = mismatches.empty();
  out["first_mismatch"] = mismatches.empty() ? json(nullptr) : mismatches.front();
  out.erase("mismatches");
  if (!mismatches.empty()) out["mismatches"] = mismatches;
  return out;
}

json merge_props(const std::vector<const json*>& docs, const std::vector<std::string>& names) {
  const auto n = docs.size();
  std::size_t total = 0;
  for (const auto* d : docs) total += d->value("properties", json::array()).size();
  for (std::size_t s = 0; s < n; ++s) {
    const auto want = total > s ? (total - s + n - 1) / n : 0;
    const auto have = docs[s]->value("properties", json::array()).size();
    if (have != want) {
      throw InvalidArgument(names[s], std::to_string(have),
                            fmt::format("shard {} of {} holds {} properties; a round-robin slice of {} holds {}", s, n,
                                        have, total, want));
    }
  }
  json out = *docs.front();
  out.erase("shard");
  json properties = json::array();
  for (std::size_t p = 0; p < total; ++p) properties.push_back((*docs[p % n])["properties"][p / n]);
  bool passed = true;
  for (const auto& p : properties) passed = passed && p.contains("passed") && p["passed"] == true;
  out["properties"] = properties;
  out["passed"] = passed;
  out["stateful_steps"] = sum_int(docs, "stateful_steps");
  out["total_cases"] = sum_int(docs, "total_cases");
  double seconds = 0;
  for (const auto* d : docs) seconds += d->value("seconds", 0.0);
  out["seconds"] = std::round(seconds * 1000.0) / 1000.0;
  return out;
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& option) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos) {
    throw InvalidArgument(option, text, "must be i/n (shard i of n, 0 <= i < n)");
  }
  Shard s;
  try {
    s.count = parse_int(text.substr(slash + 1), option, 1, kMaxShards);
  } catch (const InvalidArgument&) {
    throw InvalidArgument(option, text, fmt::format("shard count n must be an integer in [1, {}]", kMaxShards));
  }
  try {
    s.index = parse_int(text.substr(0, slash), option, 0, s.count - 1);
  } catch (const InvalidArgument&) {
    throw InvalidArgument(option, text, fmt::format("shard index i must be an integer in [0, {}]", s.count - 1));
  }
  return s;
}

CLI::Option* shard_option(CLI::App* app, Shard& target) {
  auto* o = app->add_option_function<std::string>(
      "--shard", [&target](const std::string& s) { target = parse_shard(s); },
      "Run shard i of n (i/n, 0 <= i < n): a round-robin slice of the campaign; kvaddr merge joins the shards");
  o->type_name("i/n");
  o->default_str("0/1");
  return o;
}

std::vector<std::string> shard_slice(const std::vector<std::string>& items, const Shard& shard) {
  std::vector<std::string> out;
  for (std::size_t p = 0; p < items.size(); ++p)
    if (static_cast<std::int64_t>(p % static_cast<std::size_t>(shard.count)) == shard.index) out.push_back(items[p]);
  return out;
}

void mark_shard(nlohmann::json& doc, const Shard& shard) {
  if (shard.count > 1) doc["shard"] = {{"index", shard.index}, {"count", shard.count}};
}

nlohmann::json merge_reports(const std::vector<nlohmann::json>& docs, const std::vector<std::string>& names) {
  if (docs.empty()) throw InvalidArgument("FILE", "(none)", "give the JSON reports of every shard");
  std::string schema;
  std::vector<std::vector<std::size_t>> by_index;
  std::int64_t count = 0;
  for (std::size_t f = 0; f < docs.size(); ++f) {
    const auto& d = docs[f];
    if (!d.is_object() || !d.contains("schema") || !d["schema"].is_string()) {
      throw InvalidArgument(names[f], "(no schema)", "not a kvaddr JSON report (no \"schema\" field)");
    }
    const auto s = d["schema"].get<std::string>();
    if (s != kDiff && s != kProps) {
      throw InvalidArgument(names[f], s, fmt::format("schema mismatch: only {} and {} reports merge", kDiff, kProps));
    }
    if (f > 0 && s != schema) {
      throw InvalidArgument(names[f], s, fmt::format("schema mismatch: {} has {}", names[0], schema));
    }
    check_fields(d, s, names[f]);
    const Shard sh = shard_of(d, names[f]);
    if (f == 0) {
      schema = s;
      count = sh.count;
      by_index.assign(static_cast<std::size_t>(std::min<std::int64_t>(count, 1 << 20)), {});
      if (count > static_cast<std::int64_t>(by_index.size())) {
        throw InvalidArgument(names[f], std::to_string(count), "shard count above 2^20: too many files to merge");
      }
    }
    if (s != schema) throw InvalidArgument(names[f], s, fmt::format("schema mismatch: {} has {}", names[0], schema));
    if (d.value("seed", json()) != docs[0].value("seed", json())) {
      throw InvalidArgument(names[f], d.value("seed", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                            fmt::format("seed mismatch: {} has seed {}", names[0], docs[0].value("seed", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    }
    if (d.value("campaign", json()) != docs[0].value("campaign", json())) {
      throw InvalidArgument(names[f], d.value("campaign", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                            fmt::format("campaign mismatch: {} ran {}", names[0], docs[0].value("campaign", json()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    }
    if (sh.count != count) {
      throw InvalidArgument(names[f], fmt::format("{}/{}", sh.index, sh.count),
                            fmt::format("shard count mismatch: {} is a shard of {}", names[0], count));
    }
    auto& slot = by_index[static_cast<std::size_t>(sh.index)];
    if (!slot.empty()) {
      throw InvalidArgument(names[f], fmt::format("{}/{}", sh.index, sh.count),
                            fmt::format("overlap: shard {} is also {}", sh.index, names[slot.front()]));
    }
    slot.push_back(f);
  }
  std::vector<std::string> missing;
  std::vector<const nlohmann::json*> ordered;
  std::vector<std::string> ordered_names;
  for (std::size_t i = 0; i < by_index.size(); ++i) {
    if (by_index[i].empty()) {
      missing.push_back(std::to_string(i));
      continue;
    }
    ordered.push_back(&docs[by_index[i].front()]);
    ordered_names.push_back(names[by_index[i].front()]);
  }
  if (!missing.empty()) {
    throw InvalidArgument("FILE", fmt::format("{} files", docs.size()),
                          fmt::format("missing shard(s) {} of {}", fmt::join(missing, ", "), count));
  }
  return schema == kDiff ? merge_diff(ordered, ordered_names) : merge_props(ordered, ordered_names);
}

CLI::App* register_merge(CLI::App& app, std::vector<std::string>& files) {
  auto* merge = app.add_subcommand("merge", "Combine the JSON reports of the shards of a campaign into one report");
  merge->add_option("files", files, "JSON reports of kvaddr diff / props --shard i/n --json, one per shard")
      ->required();
  merge->footer("Example:\n  kvaddr props --shard 0/2 --json > a.json; kvaddr props --shard 1/2 --json > b.json\n"
                "  kvaddr merge a.json b.json     # the report of kvaddr props --json");
  return merge;
}

int run_merge(const std::vector<std::string>& files, std::ostream& out) {
  std::vector<nlohmann::json> docs;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) throw InvalidArgument(f, f, "file not found or cannot read");
    std::stringstream text;
    text << in.rdbuf();
    auto doc = nlohmann::json::parse(text.str(), nullptr, false);
    if (doc.is_discarded()) throw InvalidArgument(f, f, "not valid JSON");
    docs.push_back(std::move(doc));
  }
  const auto merged = merge_reports(docs, files);
  out << merged.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  const bool passed = merged.value("schema", std::string()) == kDiff
                          ? merged.value("ok", false) || merged.value("skipped", false)
                          : merged.value("passed", false);
  return passed ? 0 : 1;
}

}  // namespace kvaddr::cli
