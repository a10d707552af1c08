#pragma once
// Stateful lifecycle campaign (issue 14): random command histories over model::lifecycle::LifecycleSim
// (admit, decode and speculative steps, graph capture and replay, SWA slides, finish, compaction,
// workspace reallocation, leases of asynchronous consumers, completion gates), with every rule of
// check_lifecycle judged after every command. Runs have a length parameter; swarm mode draws, per
// run, which command kinds are enabled and their weights. Needs no RapidCheck (gen/'s SplitMix64
// stream): a failure prints the campaign seed, the run and the command history that reproduce it.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "kvaddr/model/lifecycle.hpp"

namespace kvaddr::props::lifecycle {

namespace lc = kvaddr::model::lifecycle;

struct CampaignOptions {
  std::uint64_t seed = 0x6c6966656379ULL;  // "lifecy"
  std::int64_t total_steps = 100000;      // commands over all runs
  std::int64_t run_length = 200;          // commands per run (a fresh pool per run)
  bool swarm = true;                      // per-run command subsets and weights
  lc::Fault fault = lc::Fault::none;      // planted fault (none = production)
  bool stop_at_first = true;              // stop the campaign at the first violation
  // Shard shard_index of shard_count: run r (0-based; runs are run_length commands in order, the last
  // one cut at total_steps) belongs to shard r mod shard_count. Run r draws from (seed, r) alone, so
  // the shards of a campaign together run exactly the unsharded campaign's runs.
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
};

struct CampaignReport {
  std::int64_t steps = 0;
  std::int64_t runs = 0;
  std::int64_t moves = 0;     // compaction page moves
  std::int64_t replays = 0;   // graph replays
  std::int64_t uses = 0;      // ids judged
  std::array<std::int64_t, lc::kCommands> commands{};
  std::int64_t violations = 0;
  std::optional<lc::Violation> first;
  std::int64_t first_run = -1;  // the 0-based campaign run of `first` (-1: none)
  std::string failure;        // first violation, seed, run, configuration and the last commands
  double seconds = 0;
  double steps_per_second() const noexcept { return seconds > 0 ? static_cast<double>(steps) / seconds : 0.0; }
  bool passed() const noexcept { return violations == 0; }
};

// Throws InvalidArgument for total_steps < 1, run_length < 1, shard_count < 1 or a shard_index outside
// [0, shard_count - 1].
CampaignReport run_campaign(const CampaignOptions& options);

// One line: steps, runs, moves, replays, steps/s, verdict.
std::string summary(const CampaignReport& report);

}  // namespace kvaddr::props::lifecycle
