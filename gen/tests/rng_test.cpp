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
