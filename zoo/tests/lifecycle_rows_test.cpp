// Lifecycle rows of the kill matrix (issue 14): production raises nothing, every planted lifecycle fault
// is killed by at least two check kinds, the scripted reproduction kills each exemplar on its own.
#include <gtest/gtest.h>

#include <iostream>

#include "kvaddr/model/lifecycle.hpp"
#include "kvaddr/zoo/zoo.hpp"
#include "lifecycle_rows.hpp"

namespace {

using namespace kvaddr::zoo;
namespace lc = kvaddr::model::lifecycle;

TEST(ZooLifecycle, ScriptedReproductionIsQuietOnProductionAndKillsEveryFault) {
  EXPECT_EQ(detail::lifecycle_script("none"), "");
  for (const auto& f : lc::all_faults()) {
    const std::string m = detail::lifecycle_script(f.name);
    EXPECT_NE(m, "") << f.name << " (" << f.exemplar << ") survives the script";
    std::cerr << "[zoo] " << f.name << ": " << m << "\n";
  }
  EXPECT_NE(detail::lifecycle_script("no_such_fault").find("unknown"), std::string::npos);
}

TEST(ZooLifecycle, EveryFaultRowKilledByTwoKinds) {
#if !defined(KVADDR_ZOO_WITH_PROPS)
  GTEST_SKIP() << "two kill kinds per lifecycle fault need the stateful properties column; this build has no RapidCheck";
#endif
  ZooOptions o;
  o.pool_cases = 100;
  o.stateful_runs = 10;
  o.only = {"production.lifecycle"};
  for (const auto& f : lc::all_faults()) o.only.emplace_back(f.name);
  const auto rep = run_zoo(o);
  std::cerr << to_text(rep);
  ASSERT_EQ(rep.rows.size(), lc::all_faults().size() + 1);
  EXPECT_EQ(rep.production_false_alarms, 0);
  for (const auto& row : rep.rows) {
    if (row.family == Family::production) continue;
    EXPECT_EQ(row.family, Family::lifecycle);
    EXPECT_GE(row.kill_count(), 2) << row.name;
  }
}

}  // namespace
