// Gate of the bug zoo (ctest -L zoo): zero false alarms on production, every variant killed by at
// least two check kinds (or exactly the documented gap set), the JSON shape, mutation score.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "kvaddr/translate/mutation.hpp"
#include "kvaddr/zoo/zoo.hpp"

namespace {

using namespace kvaddr::zoo;

const ZooReport& report() {
  static const ZooReport r = [] {
    ZooOptions o;
    o.property_cases = 150;
    o.stateful_runs = 15;
    o.pool_cases = 150;
    return run_zoo(o);
  }();
  return r;
}

TEST(Zoo, ProductionHasZeroFalseAlarms) {
  EXPECT_EQ(report().production_false_alarms, 0);
  ASSERT_FALSE(report().rows.empty());
  EXPECT_EQ(report().rows.front().name, "production");
  for (const auto& c : report().rows.front().cells) EXPECT_NE(c.state, CellState::killed) << c.detail;
}

// Rows that today are killed by fewer than two kinds on a machine without a GPU (documented in
// docs/bug-zoo.md "Gaps"); the set must not grow.
const std::set<std::string> kDocumentedGaps = {
#include "documented_gaps.inc"
};

TEST(Zoo, EveryVariantKilledByTwoKindsOrDocumentedGap) {
#if !defined(KVADDR_ZOO_WITH_PROPS) || !defined(KVADDR_ZOO_WITH_PROOFS)
  GTEST_SKIP() << "the kill goals need the properties and proofs columns; this build has no RapidCheck or no Z3";
#endif
  std::set<std::string> gaps;
  for (const auto& row : report().rows) {
    if (row.family == Family::production) continue;
    EXPECT_GE(row.kill_count(), 1) << row.name << "@" << row.route << " survives every check kind";
    if (row.kill_count() < 2) gaps.insert(row.name + "@" + row.route);
  }
  for (const auto& g : gaps) EXPECT_TRUE(kDocumentedGaps.count(g)) << "undocumented gap: " << g;
}

TEST(Zoo, JsonShape) {
  const auto j = nlohmann::json::parse(to_json(report()));
  ASSERT_TRUE(j.contains("variants"));
  ASSERT_TRUE(j["production_false_alarms"].is_number_integer());
  const std::set<std::string> allowed{"killed", "survived", "n/a", "skipped"};
  for (const auto& v : j["variants"]) {
    ASSERT_TRUE(v["name"].is_string());
    ASSERT_TRUE(v["route"].is_string());
    for (const char* k : {"proofs", "properties", "stateful", "differential", "upstream_grid"}) {
      ASSERT_TRUE(v["kills"].contains(k)) << k;
      EXPECT_TRUE(allowed.count(v["kills"][k].get<std::string>())) << v["kills"][k];
    }
  }
}

TEST(Zoo, MutationHooksAreInertWithoutAMutant) {
  namespace mut = kvaddr::translate::mutation;
  EXPECT_FALSE(mut::armed());
  EXPECT_EQ(mut::tl_state.active.unit, -1);
}

// Issue target 0.95 over the infected mutants: equivalents are left out only when classified with a
// stated reason (zoo/src/mutants.cpp); the classification table must match the sites exactly.
// Never-infected mutants are coverage gaps counted against score(); it has its own floor, and
// every one is reported as never infected, never as equivalent.
TEST(Zoo, MutationScoreAtLeastTarget) {
#if !defined(KVADDR_ZOO_WITH_PROPS) || !defined(KVADDR_ZOO_WITH_PROOFS)
  GTEST_SKIP() << "the kill goals need the properties and proofs columns; this build has no RapidCheck or no Z3";
#endif
  MutantOptions o;
  o.property_cases = 60;
  o.stateful_runs = 4;
  const auto r = run_mutants(o);
  ASSERT_GT(r.total, 0);
  EXPECT_GE(r.infected_score(), 0.95) << to_text(r);
  // Route arithmetic: never-infected mutants counted as survivors.
  EXPECT_GE(layer_score(r, false).score(), 0.85) << to_text(r);
  // Validation rules: most routes have no invalid-input generator yet, so most rule mutants are never
  // infected (reported as coverage gaps); the routes with one (token_translate, write_loc,
  // kv_indices_inplace, read_table, read_stream) kill their infected rule mutants.
  const UnitScore rules = layer_score(r, true);
  EXPECT_GT(rules.mutants, 0);
  EXPECT_GE(rules.infected_score(), 0.95) << to_text(r);
  int never = 0;
  for (const auto& m : r.mutants) {
    if (!m.never_infected) continue;
    ++never;
    EXPECT_FALSE(m.killed || m.equivalent) << m.unit << " " << m.op << " @ " << m.site;
  }
  EXPECT_EQ(never, r.never_infected);
  EXPECT_TRUE(r.stale_classifications.empty()) << to_text(r);
  for (const auto& m : r.mutants) {
    if (m.argued) {
      EXPECT_FALSE(m.reason.empty()) << m.unit << " " << m.op << " @ " << m.site;
    }
  }
}

}  // namespace
