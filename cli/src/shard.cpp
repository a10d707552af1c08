#include "shard.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include "args.hpp"
#include "kvaddr/cli/app.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/json.hpp"
#include "merge_kinds.hpp"

namespace kvaddr::cli {

namespace {

using json = nlohmann::json;
using merge::bad_field;
using merge::count_value;
using merge::shown;

Shard shard_of(const json& doc, const std::string& name) {
  if (!doc.contains("shard")) return {};
  const auto& s = doc["shard"];
  if (!s.is_object() || !s.contains("index") || !s.contains("count") || !s["index"].is_number_integer() ||
      !s["count"].is_number_integer()) {
    throw InvalidArgument(name, shown(s), "\"shard\" must be {\"index\": i, \"count\": n}");
  }
  const Shard sh{count_value(s["index"], "shard.index", name), count_value(s["count"], "shard.count", name)};
  if (sh.count < 1 || sh.count > kMaxShards || sh.index >= sh.count) {
    throw InvalidArgument(name, shown(s), fmt::format("shard index must be in [0, count - 1] with 1 <= count <= {}", kMaxShards));
  }
  return sh;
}

// A value every shard of one campaign must share (absent in all of them is fine).
void require_same(const json& d, const json& first, const std::string& field, const std::string& name,
                  const std::string& first_name) {
  const json mine = d.value(field, json());
  const json theirs = first.value(field, json());
  if (mine != theirs) {
    throw InvalidArgument(name, shown(mine), fmt::format("{} mismatch: {} has {} {}", field, first_name, field, shown(theirs)));
  }
}

bool is_mergeable(const std::string& schema) {
  for (const char* s : {kDiffSchema, kPropsSchema, kLifecycleSchema, kProveSchema, kZooSchema})
    if (schema == s) return true;
  return false;
}

// Writes all of `text` to fd; false on an error.
bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
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
  doc["version"] = std::string(version());
  if (shard.count > 1) doc["shard"] = {{"index", shard.index}, {"count", shard.count}};
}

nlohmann::json merge_reports(const std::vector<nlohmann::json>& docs, const std::vector<std::string>& names) {
  if (docs.empty()) throw InvalidArgument("FILE", "(none)", "give the JSON reports of every shard");
  if (names.size() != docs.size()) throw InvalidArgument("names", std::to_string(names.size()), "one name per report");
  std::string schema;
  std::int64_t count = 0;
  std::map<std::int64_t, std::size_t> by_index;  // shard index -> file
  for (std::size_t f = 0; f < docs.size(); ++f) {
    const auto& d = docs[f];
    if (!d.is_object() || !d.contains("schema") || !d["schema"].is_string()) {
      throw InvalidArgument(names[f], "(no schema)", "not a kvaddr JSON report (no \"schema\" field)");
    }
    const auto s = d["schema"].get<std::string>();
    if (!is_mergeable(s)) {
      throw InvalidArgument(names[f], shown(d["schema"]),
                            fmt::format("schema mismatch: only {}, {}, {}, {} and {} reports merge", kDiffSchema,
                                        kPropsSchema, kLifecycleSchema, kProveSchema, kZooSchema));
    }
    if (f > 0 && s != schema) throw InvalidArgument(names[f], s, fmt::format("schema mismatch: {} has {}", names[0], schema));
    if (d.contains("skipped") && !d["skipped"].is_boolean()) bad_field(names[f], "skipped", d["skipped"], "true or false");
    const Shard sh = shard_of(d, names[f]);
    if (f == 0) {
      schema = s;
      count = sh.count;
    }
    require_same(d, docs[0], "version", names[f], names[0]);
    require_same(d, docs[0], "seed", names[f], names[0]);
    require_same(d, docs[0], "campaign", names[f], names[0]);
    if (sh.count != count) {
      throw InvalidArgument(names[f], fmt::format("{}/{}", sh.index, sh.count),
                            fmt::format("shard count mismatch: {} is a shard of {}", names[0], count));
    }
    const auto [slot, fresh] = by_index.emplace(sh.index, f);
    if (!fresh) {
      throw InvalidArgument(names[f], fmt::format("{}/{}", sh.index, sh.count),
                            fmt::format("overlap: shard {} is also {}", sh.index, names[slot->second]));
    }
  }
  if (static_cast<std::int64_t>(by_index.size()) != count) {
    // At most by_index.size() + 8 indices are looked at: the first 8 missing ones are named.
    std::vector<std::string> missing;
    for (std::int64_t i = 0; i < count && missing.size() < 8; ++i)
      if (by_index.count(i) == 0) missing.push_back(std::to_string(i));
    const auto left = count - static_cast<std::int64_t>(by_index.size()) - static_cast<std::int64_t>(missing.size());
    throw InvalidArgument("FILE", fmt::format("{} files", docs.size()),
                          fmt::format("missing shard(s) {}{} of {}", fmt::join(missing, ", "),
                                      left > 0 ? fmt::format(" and {} more", left) : "", count));
  }
  std::vector<merge::Input> shards;
  for (const auto& [index, f] : by_index) shards.push_back({&docs[f], names[f]});
  if (schema == kDiffSchema) return merge::merge_diff(shards);
  if (schema == kPropsSchema) return merge::merge_props(shards);
  if (schema == kLifecycleSchema) return merge::merge_lifecycle(shards);
  if (schema == kProveSchema) return merge::merge_prove(shards);
  return merge::merge_zoo(shards);
}

bool report_passed(const nlohmann::json& r) {
  if (!r.is_object()) return false;
  const json yes(true);
  const json schema = r.value("schema", json());
  if (schema == kDiffSchema) return r.value("ok", json()) == yes || r.value("skipped", json()) == yes;
  if (schema == kZooSchema) return r.value("production_false_alarms", json()) == json(0);
  return r.value("passed", json()) == yes;
}

CLI::App* register_merge(CLI::App& app, std::vector<std::string>& files) {
  auto* merge = app.add_subcommand("merge", "Combine the JSON reports of the shards of a campaign into one report");
  merge->add_option("files", files,
                    "JSON reports of kvaddr diff / props / prove / zoo --shard i/n --json, one per shard")
      ->required();
  report_file_option(merge);
  merge->footer("Example:\n  kvaddr props --shard 0/2 --json --out a.json; kvaddr props --shard 1/2 --json --out b.json\n"
                "  kvaddr merge a.json b.json     # the report of kvaddr props --json");
  return merge;
}

int run_merge(const std::vector<std::string>& files, std::ostream& out) {
  std::vector<nlohmann::json> docs;
  for (const auto& f : files) docs.push_back(replay::read_json_file(f, f));
  const auto merged = merge_reports(docs, files);
  out << merged.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return report_passed(merged) ? 0 : 1;
}

CLI::Option* report_file_option(CLI::App* app) {
  auto* o = app->add_option("--out", "Write the report to FILE (whole, through a temporary file renamed over FILE) "
                                     "instead of stdout");
  o->type_name("FILE");
  return o;
}

int with_report_file(const CLI::App* sub, const Context& ctx, const std::function<int(const Context&)>& body) {
  const auto* option = sub->get_option_no_throw("--out");
  if (option == nullptr || option->count() == 0) return body(ctx);
  const auto path = option->as<std::string>();
  struct stat st{};
  if (path.empty() || (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))) {
    throw InvalidArgument("--out", path, "must name a regular file (it is replaced whole)");
  }
  const std::string temp = fmt::format("{}.tmp{}", path, ::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InvalidArgument("--out", path, fmt::format("cannot write {}: {}", temp, std::strerror(errno)));
  std::ostringstream buffer;
  int status = 0;
  try {
    status = body(Context{buffer, ctx.err, ctx.json, ctx.progress});
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  const bool written = write_all(fd, buffer.str()) && ::fsync(fd) == 0;
  const int saved = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || ::rename(temp.c_str(), path.c_str()) != 0) {
    const int why = written && closed ? errno : saved;
    ::unlink(temp.c_str());
    throw IoError("--out", path, fmt::format("cannot write the report: {}", std::strerror(why)));
  }
  return status;
}

}  // namespace kvaddr::cli
