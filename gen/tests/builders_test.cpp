// The plain builders (builders.hpp) over SplitMix64: invariants of every drawn input and the
// exact draws of small hand-checked cases.
#include <gtest/gtest.h>

#include <set>

#include "kvaddr/gen/builders.hpp"

namespace {
using namespace kvaddr::gen;

TEST(Builders, PoolInvariants) {
  SplitMix64 r(11);
  int non_owner = 0, offset = 0;
  for (int i = 0; i < 400; ++i) {
    const i64 ps = page_size(r, false), M = multiplier(r);
    const bool i32 = i % 2 == 0;
    PoolSpec s{ps, M, r.uniform(2, 300), i32, i32 ? std::nullopt : std::optional<double>(0.5)};
    const Pool p = pool(r, s);
    ASSERT_EQ(static_cast<i64>(p.v2p.size()), p.num_virtual + 1);
    EXPECT_EQ(p.v2p.front(), 0);  // sink
    EXPECT_EQ(p.v2p.back(), -1);  // trailing sentinel
    EXPECT_GE(p.num_virtual, p.num_pages);
    EXPECT_LE(p.num_virtual, 2 * p.num_pages);
    std::set<i64> phys;
    for (std::size_t v = 1; v + 1 < p.v2p.size(); ++v) {
      if (p.v2p[v] < 0) continue;
      EXPECT_TRUE(phys.insert(p.v2p[v]).second) << "physical page bound twice";
      EXPECT_GE(p.v2p[v], 1 + p.page_offset);
      EXPECT_LT(p.v2p[v], p.num_pages + p.page_offset);
    }
    if (i32) {
      EXPECT_EQ(p.page_offset, 0);
      EXPECT_LT(p.num_pages * ps * M, i64(1) << 31);
    }
    non_owner += p.num_virtual > p.num_pages ? 1 : 0;
    offset += p.page_offset > 0 ? 1 : 0;
  }
  EXPECT_GT(non_owner, 60);  // 30% draw a larger virtual space (a few draw +0)
  EXPECT_GT(offset, 60);     // half of the 200 int64 pools at rate 0.5
}

TEST(Builders, OffsetPoolStraddlesTwo31) {
  SplitMix64 r(3);
  const i64 pivot = ((i64(1) << 31) + 64 * 24 - 1) / (64 * 24);  // first page with P * S >= 2^31
  int above = 0;
  for (int i = 0; i < 50; ++i) {
    const Pool p = pool(r, PoolSpec{64, 24, 100, false, 1.0});
    ASSERT_GE(p.page_offset, pivot - p.num_pages);
    ASSERT_LE(p.page_offset, pivot);
    i64 hi = 0;
    for (std::size_t v = 1; v < p.v2p.size(); ++v) hi = std::max(hi, p.v2p[v]);
    above += hi >= pivot;  // at least one id P * S + o past 2^31
  }
  EXPECT_GE(above, 40);
}

TEST(Builders, RequestTableIsPageConsistent) {
  SplitMix64 r(5);
  const Pool p = pool(r, PoolSpec{4, 1, 40, true, std::nullopt});
  const auto t = req_to_token(r, p, 6, 4 * 7 + 2, 0.1, 0.2);
  ASSERT_EQ(t.size(), 6u * 30u);
  for (i64 row = 0; row < 6; ++row)
    for (i64 j = 0; j < 30; ++j) {
      const i64 tok = t[static_cast<std::size_t>(row * 30 + j)];
      if (tok == -1) continue;
      EXPECT_EQ(tok % 4, j % 4);                 // offset within the page
      EXPECT_LE(tok / 4, p.num_virtual);         // a page of the table (sentinel row included)
    }
}

TEST(Builders, PoolRowsKindsAndAvoidIdentity) {
  SplitMix64 r(8);
  std::set<int> kinds;
  for (int i = 0; i < 300; ++i) {
    RowsKind k{};
    const auto rows = pool_rows(r, 5, 9, true, k);
    kinds.insert(static_cast<int>(k));
    ASSERT_EQ(rows.size(), 5u);
    bool identity = true;
    for (i64 b = 0; b < 5; ++b) {
      EXPECT_GE(rows[static_cast<std::size_t>(b)], 0);
      EXPECT_LT(rows[static_cast<std::size_t>(b)], 9);
      identity = identity && rows[static_cast<std::size_t>(b)] == b;
    }
    EXPECT_FALSE(identity);
  }
  EXPECT_EQ(kinds.size(), 4u);
}

TEST(Builders, RaggedLengthsCoverTheirClasses) {
  SplitMix64 r(2);
  int zero = 0, multiple = 0, plus_one = 0;
  for (int i = 0; i < 600; ++i) {
    const i64 l = ragged_len(r, 8, 100);
    ASSERT_GE(l, 0);
    ASSERT_LE(l, 100);
    zero += l == 0;
    multiple += l > 0 && l % 8 == 0;
    plus_one += l % 8 == 1;
  }
  EXPECT_GT(zero, 20);
  EXPECT_GT(multiple, 60);
  EXPECT_GT(plus_one, 60);
}

TEST(Builders, BatchWithFixedRowsDrawsNoBatchSize) {
  SplitMix64 a(4), b(4);
  const Pool p = pool(a, PoolSpec{2, 1, 20, true, std::nullopt});
  (void)pool(b, PoolSpec{2, 1, 20, true, std::nullopt});
  BatchSpec s;
  s.scale = 1000;
  s.cols = 3;
  s.len_cap = 6;
  s.rows = 150;
  const Batch x = batch(a, p, s);
  EXPECT_EQ(x.B, 150);
  EXPECT_GE(x.R, 150);
  EXPECT_EQ(x.rows.size(), 150u);
  EXPECT_GE(x.C, 6);
  for (i64 l : x.lens) EXPECT_LE(l, 6);
  s.rows.reset();
  s.avoid_identity_rows = true;
  const Batch y = batch(b, p, s);
  EXPECT_GT(y.R, y.B);
  EXPECT_LE(y.B, 1000 / 3);
}

TEST(Builders, StaleAndPageSizeLists) {
  SplitMix64 r(6);
  std::set<i64> ps_seen;
  for (int i = 0; i < 2000; ++i) ps_seen.insert(page_size(r, false));
  EXPECT_EQ(ps_seen, (std::set<i64>{1, 2, 3, 4, 5, 7, 8, 16, 24, 32, 64, 100, 128, 256}));
  std::set<i64> pow2;
  for (int i = 0; i < 2000; ++i) pow2.insert(page_size(r, true));
  for (i64 ps : pow2) EXPECT_EQ(ps & (ps - 1), 0) << ps;
  const auto v = stale<int>(r, 100);
  EXPECT_EQ(v.size(), 100u);
}

}  // namespace
