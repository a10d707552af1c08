#pragma once
// Shards of a campaign, the merge of their JSON reports, and report files (docs/scaling.md).
//
// `--shard i/n` runs a deterministic slice of a campaign, round-robin:
//   kvaddr diff:   case index k runs in shard k mod n (k over first_case .. first_case + cases - 1);
//   kvaddr props:  the p-th selected property (list order, after --only) runs in shard p mod n, with
//                  the same derived seed as unsharded; a property's cases are never split;
//   props --long / --lifecycle-steps: run r of the lifecycle campaign (run_length commands each,
//                  seeded from (seed, r)) runs in shard r mod n;
//   kvaddr prove:  the p-th selected obligation (registry order, after --only) runs in shard p mod n;
//   kvaddr zoo:    the p-th kill-matrix row and, with --mutants, the p-th mutation unit run in shard p mod n.
// Each JSON report carries "version", the "campaign" object (the options that define the work) and,
// when sharded, "shard": {"index": i, "count": n}; `kvaddr merge` checks them and rebuilds the report
// of the unsharded run.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "subcommands.hpp"

namespace kvaddr::cli {

struct Shard {
  std::int64_t index = 0;
  std::int64_t count = 1;
};

inline constexpr std::int64_t kMaxShards = std::int64_t{1} << 31;

// "i/n" with 1 <= n <= 2^31 and 0 <= i < n, exact decimals; InvalidArgument(option, text) otherwise.
Shard parse_shard(const std::string& text, const std::string& option = "--shard");
CLI::Option* shard_option(CLI::App* app, Shard& target);

// Items of positions p with p mod n == i, in order.
std::vector<std::string> shard_slice(const std::vector<std::string>& items, const Shard& shard);

// Adds "version" (the kvaddr version that wrote the report) and, when the report is one shard of
// several, "shard".
void mark_shard(nlohmann::json& doc, const Shard& shard);

// The schemas `kvaddr merge` joins.
inline constexpr const char* kDiffSchema = "kvaddr.diff/1";
inline constexpr const char* kPropsSchema = "kvaddr.props/1";
inline constexpr const char* kLifecycleSchema = "kvaddr.lifecycle/1";
inline constexpr const char* kProveSchema = "kvaddr.prove/1";
inline constexpr const char* kZooSchema = "kvaddr.zoo/1";

// Merges the reports of all shards of one campaign (one schema of the five above, same version,
// seed and campaign, each shard index of 0..n-1 exactly once) into the report the unsharded run
// prints. `names` name the inputs in errors: InvalidArgument naming the file (and the field), or
// Overflow naming the file and the field when a summed count passes 2^63 - 1. Every mismatch of
// the shards is kept, with its replay line, under "mismatches" (diff) / in its property (props).
nlohmann::json merge_reports(const std::vector<nlohmann::json>& docs, const std::vector<std::string>& names);

// Whether a report (of one of the five schemas, merged or not) says its campaign passed.
bool report_passed(const nlohmann::json& report);

// `kvaddr merge FILE... [--out FILE]`
CLI::App* register_merge(CLI::App& app, std::vector<std::string>& files);
// Prints the merged report (JSON); exit status 0 when the merged campaign passed, 1 otherwise. Each
// file is read through replay::read_json_file (one depth and size limit for every JSON reader).
int run_merge(const std::vector<std::string>& files, std::ostream& out);

// `--out FILE` of the campaign subcommands and merge: the report goes to FILE instead of stdout.
CLI::Option* report_file_option(CLI::App* app);
// Runs `body`; when `sub` was given --out FILE, everything `body` prints goes to FILE, written whole
// to a temporary name in FILE's folder and renamed over FILE (a reader, or a re-run of the same
// shard, never sees half a report; an error leaves FILE as it was). The temporary file is created
// before `body` runs, so an unwritable FILE fails (InvalidArgument naming --out) before any work.
int with_report_file(const CLI::App* sub, const Context& ctx, const std::function<int(const Context&)>& body);

}  // namespace kvaddr::cli
