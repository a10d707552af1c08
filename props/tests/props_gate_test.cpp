// The props gate (ctest -L props): a fixed budget of generated cases per property, the stateful
// simulation with a step floor, the kill matrix, and a deterministic compaction case.
//
// Environment overrides (the defaults are the CI budget):
//   KVADDR_PROPS_SEED=<u64>          campaign seed (each property derives its own)
//   KVADDR_PROPS_CASES=<n>           cases per stateless property
//   KVADDR_PROPS_STATEFUL_RUNS=<n>   stateful command sequences
//   RC_PARAMS="reproduce=<string>"   replay one failing counterexample (printed on failure)
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "kvaddr/model/pool.hpp"
#include "kvaddr/props/props.hpp"
#include "kvaddr/translate/routes.hpp"

namespace {

using kvaddr::Variant;
namespace kp = kvaddr::props;

constexpr int kGateCasesPerProperty = 10000;
constexpr int kGateStatefulRuns = 1200;
constexpr std::int64_t kGateStatefulSteps = 10000;
constexpr int kKillBudget = 3000;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
  const char* s = std::getenv(name);
  return s && *s ? std::strtoull(s, nullptr, 0) : fallback;
}

kp::Options gate_options() {
  kp::Options o;
  o.seed = env_u64("KVADDR_PROPS_SEED", kp::kDefaultSeed);
  o.cases_per_property = static_cast<int>(env_u64("KVADDR_PROPS_CASES", kGateCasesPerProperty));
  o.stateful_runs = static_cast<int>(env_u64("KVADDR_PROPS_STATEFUL_RUNS", kGateStatefulRuns));
  o.progress = &std::cerr;
  return o;
}

std::vector<std::string> stateless_names() {
  std::vector<std::string> out;
  for (const auto& p : kp::list_properties())
    if (p.name != "stateful_pool") out.push_back(p.name);
  return out;
}

class Property : public ::testing::TestWithParam<std::string> {};

TEST_P(Property, HoldsForTheGateBudget) {
  const auto opts = gate_options();
  const auto r = kp::run_property(GetParam(), opts);
  EXPECT_TRUE(r.passed) << r.failure;
  if (r.passed) {
    EXPECT_EQ(r.cases, opts.cases_per_property);
  }
}

INSTANTIATE_TEST_SUITE_P(Props, Property, ::testing::ValuesIn(stateless_names()),
                         [](const auto& p) { return p.param; });

TEST(PropsGate, BudgetIsAtLeast100kCases) {
  EXPECT_GE(static_cast<std::int64_t>(stateless_names().size()) * kGateCasesPerProperty, 100000);
}

TEST(PropsStateful, InvariantsHoldAfterEveryCommandAndCompactionMovesPages) {
  const auto opts = gate_options();
  std::int64_t steps = 0;
  std::int64_t moves = 0;
  const auto r = kp::run_property("stateful_pool", opts, Variant::production, &steps, &moves);
  EXPECT_TRUE(r.passed) << r.failure;
  std::cerr << "[props] stateful: " << r.cases << " runs, " << steps << " steps, " << moves << " page moves\n";
  if (opts.stateful_runs == kGateStatefulRuns) {
    EXPECT_GE(steps, kGateStatefulSteps);
  }
  EXPECT_GT(moves, 0) << "no compaction moved a page: the simulation does not exercise relocation";
}

// Deterministic compaction: three one-page requests, free the first eagerly; the survivor in the
// vacated band must move into the hole, keep its virtual id, and read back through the routes.
TEST(PropsStateful, EagerFreeMovesTheSurvivorAndTagsFollow) {
  using namespace kvaddr::model;
  const std::int64_t ps = 4, L = 3;
  SubPool pool(Geometry(ps, L, 8, L, 1, 1));
  const auto a = pool.alloc_pages(1);
  const auto b = pool.alloc_pages(1);
  const auto c = pool.alloc_pages(1);
  for (std::int64_t o = 0; o < ps; ++o)
    for (std::int64_t l = 0; l < L; ++l) pool.write(l, VirtualToken(c[0].value * ps + o), static_cast<std::uint64_t>(1000 + 10 * o + l));
  const auto before = pool.v2p()[static_cast<std::size_t>(c[0].value)];
  pool.free_eager(a);
  ASSERT_EQ(pool.moves().size(), 1u);
  EXPECT_EQ(pool.moves()[0].v, c[0]);
  EXPECT_NE(pool.v2p()[static_cast<std::size_t>(c[0].value)], before);
  std::vector<std::int64_t> ids, d(ps);
  for (std::int64_t o = 0; o < ps; ++o) ids.push_back(c[0].value * ps + o);
  const std::vector<std::int64_t> v2p(pool.v2p().begin(), pool.v2p().end());
  kvaddr::TokenTranslateArgs<std::int64_t> args{kvaddr::cvec(ids), kvaddr::cvec(v2p), ps, L, kvaddr::mvec(d),
                                                Variant::production};
  kvaddr::translate::token_translate(args);
  for (std::int64_t o = 0; o < ps; ++o)
    for (std::int64_t l = 0; l < L; ++l)
      EXPECT_EQ(pool.read_kernel(l, KernelId(d[static_cast<std::size_t>(o)])),
                static_cast<std::uint64_t>(1000 + 10 * o + l));
  (void)b;
}

// ---- kill matrix: each planted bug variant makes its property fail --------------------------
struct Kill {
  std::string property;
  Variant variant;
};
std::vector<Kill> kills() {
  std::vector<Kill> out;
  for (const auto& p : kp::list_properties())
    for (Variant v : p.kills) out.push_back({p.name, v});
  return out;
}

class KillMatrix : public ::testing::TestWithParam<Kill> {};

TEST_P(KillMatrix, VariantIsCaught) {
  auto opts = gate_options();
  opts.cases_per_property = kKillBudget;
  opts.stateful_runs = 400;
  opts.progress = nullptr;
  const auto& k = GetParam();
  for (const auto& p : kp::list_properties()) {
    if (p.name == k.property && !p.can_run(k.variant)) {
      GTEST_SKIP() << kvaddr::to_string(k.variant) << " is planted in lanes.hpp only: no host route of " << k.property
                   << " accepts it (route_accepts), so the host property cannot run it";
    }
  }
  const auto r = kp::run_property(k.property, opts, k.variant);
  EXPECT_FALSE(r.passed) << k.property << " did not catch " << kvaddr::to_string(k.variant) << " in " << r.cases
                         << " cases";
  EXPECT_FALSE(r.reproduce.empty()) << "a kill must be a property failure with a reproduce string: " << r.failure;
  EXPECT_EQ(r.failure.find("[variant rejected by the route]"), std::string::npos)
      << "the route rejected the variant: not a kill\n" << r.failure;
  std::cerr << "[kill] " << k.property << " @ " << kvaddr::to_string(k.variant) << " after " << r.cases
            << " cases\n"
            << r.failure;
}

INSTANTIATE_TEST_SUITE_P(Props, KillMatrix, ::testing::ValuesIn(kills()), [](const auto& p) {
  std::string v(kvaddr::to_string(p.param.variant));
  if (v == "unknown") v = "variant" + std::to_string(p.param.variant.bits);
  return p.param.property + "__" + v;
});

// Every planted variant that a route accepts is killed by at least one property.
TEST(PropsGate, EveryPlantedVariantHasAKiller) {
  for (Variant v : kvaddr::kAllVariants) {
    if (v == Variant::production) continue;
    bool accepted = false;
    for (auto r : kvaddr::kAllRoutes) accepted = accepted || kvaddr::route_accepts(r, v);
    if (!accepted) continue;
    bool killer = false;
    for (const auto& k : kills()) killer = killer || k.variant == v;
    EXPECT_TRUE(killer) << kvaddr::to_string(v) << " has no killing property";
  }
}

}  // namespace
