// Lifecycle campaign gate (issue 14): production survives >= 10^5 stateful steps with no violation;
// every planted lifecycle fault is killed by the rules of check_lifecycle, which are not told its name.
#include <gtest/gtest.h>

#include <iostream>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/props/lifecycle.hpp"

namespace {

namespace plc = kvaddr::props::lifecycle;
namespace lc = kvaddr::model::lifecycle;

constexpr std::int64_t kGateSteps = 500000;  // >= 10^5 (about 1.5 s on one core)
constexpr std::int64_t kKillSteps = 200000;

TEST(LifecycleCampaign, ProductionHoldsForTheGateBudget) {
  plc::CampaignOptions o;
  o.total_steps = kGateSteps;
  const auto r = plc::run_campaign(o);
  std::cerr << "[lifecycle] " << plc::summary(r) << "\n";
  EXPECT_TRUE(r.passed()) << r.failure;
  EXPECT_EQ(r.steps, kGateSteps);
  EXPECT_GT(r.moves, 0) << "no compaction moved a page";
  EXPECT_GT(r.replays, 0) << "no graph replay ran";
  for (int c = 0; c < lc::kCommands; ++c)
    EXPECT_GT(r.commands[static_cast<std::size_t>(c)], 0) << lc::to_string(static_cast<lc::Command>(c));
}

TEST(LifecycleCampaign, ProductionHoldsWithoutSwarmAndWithLongRuns) {
  plc::CampaignOptions o;
  o.total_steps = 20000;
  o.swarm = false;
  o.run_length = 5000;
  const auto r = plc::run_campaign(o);
  EXPECT_TRUE(r.passed()) << r.failure;
  EXPECT_EQ(r.runs, 4);
}

class FaultKill : public ::testing::TestWithParam<lc::FaultInfo> {};

TEST_P(FaultKill, TheRulesKillIt) {
  plc::CampaignOptions o;
  o.total_steps = kKillSteps;
  o.fault = GetParam().fault;
  const auto r = plc::run_campaign(o);
  ASSERT_FALSE(r.passed()) << GetParam().name << " (" << GetParam().exemplar << ") survived " << r.steps << " steps";
  std::cerr << "[lifecycle] " << GetParam().name << " killed after " << r.steps << " steps: " << r.first->describe()
            << "\n";
}

INSTANTIATE_TEST_SUITE_P(Lifecycle, FaultKill, ::testing::ValuesIn(lc::all_faults().begin(), lc::all_faults().end()),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(LifecycleCampaign, RejectsEmptyBudgets) {
  plc::CampaignOptions o;
  o.total_steps = 0;
  EXPECT_THROW(plc::run_campaign(o), kvaddr::InvalidArgument);
  o.total_steps = 1;
  EXPECT_NO_THROW(plc::run_campaign(o));
  o.run_length = 0;
  EXPECT_THROW(plc::run_campaign(o), kvaddr::InvalidArgument);
}

// Shards (`props --lifecycle-steps N --shard i/n`): run r belongs to shard r mod n and draws from
// (seed, r) alone, so the shards' counts add up to the unsharded campaign's, command by command.
TEST(LifecycleCampaign, ShardsAddUpToTheUnshardedCampaign) {
  plc::CampaignOptions o;
  o.total_steps = 10100;  // 51 runs of 200 (the last one of 100)
  const auto whole = plc::run_campaign(o);
  ASSERT_TRUE(whole.passed()) << whole.failure;
  EXPECT_EQ(whole.runs, 51);
  plc::CampaignReport sum;
  for (std::int64_t i = 0; i < 4; ++i) {
    auto so = o;
    so.shard_index = i;
    so.shard_count = 4;
    const auto r = plc::run_campaign(so);
    EXPECT_EQ(r.runs, i < 3 ? 13 : 12) << i;
    sum.steps += r.steps;
    sum.runs += r.runs;
    sum.moves += r.moves;
    sum.replays += r.replays;
    sum.uses += r.uses;
    for (std::size_t c = 0; c < sum.commands.size(); ++c) sum.commands[c] += r.commands[c];
  }
  EXPECT_EQ(sum.steps, whole.steps);
  EXPECT_EQ(sum.runs, whole.runs);
  EXPECT_EQ(sum.moves, whole.moves);
  EXPECT_EQ(sum.replays, whole.replays);
  EXPECT_EQ(sum.uses, whole.uses);
  EXPECT_EQ(sum.commands, whole.commands);
}

// A planted fault found in a shard names the campaign run the unsharded campaign names.
TEST(LifecycleCampaign, ShardedViolationNamesTheUnshardedRun) {
  plc::CampaignOptions o;
  o.total_steps = kKillSteps;
  o.fault = lc::all_faults().front().fault;
  const auto whole = plc::run_campaign(o);
  ASSERT_FALSE(whole.passed());
  std::int64_t first = -1;
  for (std::int64_t i = 0; i < 3; ++i) {
    auto so = o;
    so.shard_index = i;
    so.shard_count = 3;
    const auto r = plc::run_campaign(so);
    if (r.first && (first < 0 || r.first_run < first)) first = r.first_run;
    if (r.first_run == whole.first_run) {
      EXPECT_EQ(r.failure, whole.failure);
    }
  }
  EXPECT_EQ(first, whole.first_run);
}

TEST(LifecycleCampaign, RejectsBadShards) {
  plc::CampaignOptions o;
  o.total_steps = 10;
  o.shard_count = 0;
  EXPECT_THROW(plc::run_campaign(o), kvaddr::InvalidArgument);
  o.shard_count = 2;
  o.shard_index = 2;
  EXPECT_THROW(plc::run_campaign(o), kvaddr::InvalidArgument);
  o.shard_index = -1;
  EXPECT_THROW(plc::run_campaign(o), kvaddr::InvalidArgument);
  o.shard_index = 1;
  EXPECT_EQ(plc::run_campaign(o).steps, 0);  // one run of 10 steps: shard 0's
  o.shard_index = 0;
  EXPECT_EQ(plc::run_campaign(o).steps, 10);
}

}  // namespace
