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

}  // namespace
