#pragma once
// Shards of a campaign and the merge of their JSON reports (docs/scaling.md).
//
// `--shard i/n` runs a deterministic slice of a campaign, round-robin:
//   kvaddr diff:  case index k runs in shard k mod n (k over first_case .. first_case + cases - 1);
//   kvaddr props: the p-th selected property (list order, after --only) runs in shard p mod n, with
//                 the same derived seed as unsharded; a property's cases are never split.
// Each sharded JSON report carries "shard": {"index": i, "count": n} and a "campaign" object (the
// options that define the case space); `kvaddr merge` checks them and rebuilds the unsharded report.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// Adds "shard" when the report is one shard of several.
void mark_shard(nlohmann::json& doc, const Shard& shard);

// Merges the reports of all shards of one campaign (schema kvaddr.diff/1 or kvaddr.props/1, same
// seed and campaign, each shard index of 0..n-1 exactly once) into the report the unsharded run
// prints. `names` name the inputs in errors (InvalidArgument naming the file). Every mismatch of
// the shards is kept, with its replay line, under "mismatches" (diff) / in its property (props).
nlohmann::json merge_reports(const std::vector<nlohmann::json>& docs, const std::vector<std::string>& names);

// `kvaddr merge FILE...`
CLI::App* register_merge(CLI::App& app, std::vector<std::string>& files);
// Prints the merged report (JSON); exit status 0 when the merged campaign passed, 1 otherwise.
int run_merge(const std::vector<std::string>& files, std::ostream& out);

}  // namespace kvaddr::cli
