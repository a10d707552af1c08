// The one RNG family: SplitMix64's published sequence, range and chance behaviour, and the case
// key derivation (docs/generators.md).
#include <gtest/gtest.h>

#include <set>

#include "kvaddr/gen/rng.hpp"

namespace {
using namespace kvaddr::gen;

// SplitMix64 with seed 0: the reference outputs of the algorithm (Vigna's splitmix64.c).
TEST(Rng, SplitMix64ReferenceSequence) {
  SplitMix64 r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(r.next(), 0x06C45D188009454Full);
  EXPECT_EQ(r.state(), 3 * kGolden);
}

// The stateless forms the device uses (graph_draw.hpp, device_gen.cu): mix_step(z) is one step of
// SplitMix64 from state z, nth(s, i) is draw i of SplitMix64(s) without the draws before it.
static_assert(mix_step(0) == 0xE220A8397B1DCDAFull);
static_assert(nth(0, 2) == 0x06C45D188009454Full);
TEST(Rng, MixStepAndNthAreTheStreamsDraws) {
  EXPECT_EQ(mix_step(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(mix_step(kGolden), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(nth(0, 0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(nth(0, 1), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(nth(0, 2), 0x06C45D188009454Full);
  for (const u64 seed : {u64{0}, u64{7}, ~u64{0}, u64{0x5EED0200}}) {
    SplitMix64 r(seed);
    for (u64 i = 0; i < 1000; ++i) {
      const u64 state = r.state();
      const u64 z = r.next();
      ASSERT_EQ(nth(seed, i), z) << seed << " " << i;
      ASSERT_EQ(mix_step(state), z) << seed << " " << i;
    }
  }
  EXPECT_NE(nth(1, 0), nth(0, 0));
  EXPECT_NE(nth(0, 0), mix(0));  // the step adds kGolden before mixing
}

TEST(Rng, UniformIsInclusiveAndDegenerateRangesGiveLo) {
  SplitMix64 r(42);
  std::set<i64> seen;
  for (int i = 0; i < 2000; ++i) {
    const i64 v = r.uniform(-2, 2);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 2);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 5u);  // both ends reached
  const u64 before = r.state();
  EXPECT_EQ(r.uniform(7, 7), 7);
  EXPECT_EQ(r.uniform(7, 3), 7);
  EXPECT_EQ(r.state(), before);  // a degenerate range draws nothing
}

TEST(Rng, ChanceFrequencies) {
  SplitMix64 r(5);
  int hits = 0;
  for (int i = 0; i < 20000; ++i) hits += r.chance(0.25) ? 1 : 0;
  EXPECT_GT(hits, 4600);
  EXPECT_LT(hits, 5400);
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE(r.chance(0.0));
    EXPECT_TRUE(r.chance(1.0));
  }
}

// between(): the harness's range draw, one draw per call even when the range is a single value.
TEST(Rng, BetweenAlwaysTakesOneDraw) {
  SplitMix64 r(0);
  EXPECT_EQ(r.between(3, 7), 3 + static_cast<i64>(0xE220A8397B1DCDAFull % 5));  // = 3 + 0 = 3
  EXPECT_EQ(r.state(), kGolden);
  EXPECT_EQ(r.between(7, 7), 7);
  EXPECT_EQ(r.state(), 2 * kGolden);  // a single-value range still draws (uniform() does not)
  EXPECT_EQ(r.between(7, 3), 7);
  EXPECT_EQ(r.state(), 3 * kGolden);
  SplitMix64 a(11), b(11);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.between(-4, 9), b.uniform(-4, 9));  // the same value otherwise
}

TEST(Rng, UnitPickAndLogSize) {
  SplitMix64 r(0);
  EXPECT_EQ(r.unit(), static_cast<double>(0xE220A8397B1DCDAFull >> 11) / 9007199254740992.0);
  SplitMix64 c(0);
  EXPECT_TRUE(c.chance(0.8834));   // unit() of the first draw is 0.88331...
  SplitMix64 d(0);
  EXPECT_FALSE(d.chance(0.8833));
  constexpr i64 one[] = {42};
  constexpr i64 ten[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  SplitMix64 p(0);
  EXPECT_EQ(p.pick(one), 42);
  EXPECT_EQ(p.state(), kGolden);  // a one-element array still draws
  EXPECT_EQ(p.pick(ten), static_cast<i64>(0x6E789E6AA1B965F4ull % 10));
  // log-uniform: floor(4096^0.88331...) = 1551; max <= 1 gives 1 and still draws.
  SplitMix64 l(0);
  EXPECT_EQ(l.log_size(4096), 1551);
  EXPECT_EQ(l.log_size(1), 1);
  EXPECT_EQ(l.log_size(0), 1);
  EXPECT_EQ(l.state(), 3 * kGolden);
  SplitMix64 m(3);
  for (int i = 0; i < 1000; ++i) {
    const i64 v = m.log_size(100);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, 100);
  }
}

TEST(Rng, CaseKeysDependOnSeedIndexAndScale) {
  const u64 k = case_key(7, 3, 1 << 16);
  EXPECT_EQ(k, case_key(7, 3, 1 << 16));  // a pure function of (seed, index, scale)
  EXPECT_NE(k, case_key(8, 3, 1 << 16));
  EXPECT_NE(k, case_key(7, 4, 1 << 16));
  EXPECT_NE(k, case_key(7, 3, 1 << 15));
  // Hand-computed: seed 0, index 0, scale 0 -> mix(mix(0 ^ C + golden) + golden) with C the
  // seed whitening constant.
  const u64 first = mix((0x6A09E667F3BCC909ull) + kGolden);
  EXPECT_EQ(case_key(0, 0, 0), mix(first + kGolden));
  std::set<u64> keys;
  for (i64 i = 0; i < 1000; ++i) keys.insert(case_key(1, i, 1 << 16));
  EXPECT_EQ(keys.size(), 1000u);
  EXPECT_NE(substream(k, 1), substream(k, 2));
  EXPECT_NE(substream(k, 1), k);
}

TEST(Rng, ShuffleIsAPermutation) {
  SplitMix64 r(9);
  std::vector<int> v(50);
  for (int i = 0; i < 50; ++i) v[static_cast<std::size_t>(i)] = i;
  shuffle(r, v.begin(), 50);
  std::set<int> s(v.begin(), v.end());
  EXPECT_EQ(s.size(), 50u);
  bool moved = false;
  for (int i = 0; i < 50; ++i) moved = moved || v[static_cast<std::size_t>(i)] != i;
  EXPECT_TRUE(moved);
}

}  // namespace
