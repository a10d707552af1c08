// The property campaign's builders (tables.hpp): the lowest draws give the smallest readable case
// (what RapidCheck shrinks toward), and random draws keep the pool invariants.
#include <gtest/gtest.h>

#include <set>

#include "kvaddr/gen/tables.hpp"

namespace {
using namespace kvaddr::gen;

// A draw source that always takes the lowest choice: the shrink target of every builder.
struct Lowest {
  i64 uniform(i64 lo, i64) { return lo; }
  bool chance(double) { return false; }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return *xs.begin();
  }
};

TEST(Tables, LowestDrawsGiveTheSmallestCase) {
  Lowest r;
  EXPECT_EQ(small_page_size(r, false), 1);
  EXPECT_EQ(small_multiplier(r), 1);
  EXPECT_EQ(stale_value(r), 0);
  EXPECT_EQ(permutation(r, 5), (std::vector<i64>{0, 1, 2, 3, 4}));
  const Tables t = tables(r, 40, true);
  EXPECT_EQ(t.num_pages, 1);
  EXPECT_EQ(t.num_virtual_ids, 1);
  EXPECT_EQ(t.v2p, (std::vector<i64>{0, -1}));
  EXPECT_EQ(t.p2v, (std::vector<i64>{0, -1}));
  EXPECT_TRUE(t.bound.empty());
  const TableBatch b = table_batch(r, t, 1, BatchShape{});
  EXPECT_EQ(b.batch(), 0);
  EXPECT_EQ(b.rows, 1);
  EXPECT_EQ(b.cols, 1);
  EXPECT_EQ(b.req_to_token, (std::vector<i32>{0}));
  EXPECT_EQ(b.max_pages, 1);
  EXPECT_EQ(b.delta, 0);
  const Slice s = slice_near(r, 10, Slice{2, 3}, 3);  // "the same slice"
  EXPECT_EQ(s.off, 2);
  EXPECT_EQ(s.size, 3);
  EXPECT_EQ(token(r, t, 1, false), 0);  // the sink page's first token
}

TEST(Tables, RandomTablesAreMutualInverses) {
  SplitMix64 r(21);
  int compacted = 0, with_tombs = 0;
  for (int i = 0; i < 300; ++i) {
    const Tables t = tables(r, 40, true);
    ASSERT_EQ(static_cast<i64>(t.v2p.size()), t.num_virtual_ids + 1);
    ASSERT_EQ(static_cast<i64>(t.p2v.size()), t.num_pages + 1);
    EXPECT_EQ(t.v2p[0], 0);
    EXPECT_EQ(t.p2v[0], 0);
    EXPECT_EQ(t.v2p.back(), -1);
    EXPECT_EQ(t.p2v.back(), -1);
    const i64 lo = std::max<i64>(t.min_page_index, 1);
    EXPECT_EQ(static_cast<i64>(t.bound.size() + t.tombs.size()), std::max<i64>(t.num_virtual_ids - lo, 0));
    for (i64 v : t.bound) {
      const i64 p = t.v2p[static_cast<std::size_t>(v)];
      ASSERT_GE(p, lo);
      ASSERT_LT(p, t.num_pages);
      EXPECT_EQ(t.p2v[static_cast<std::size_t>(p)], v);
    }
    for (i64 v : t.tombs) EXPECT_EQ(t.v2p[static_cast<std::size_t>(v)], -1);
    if (t.compacted && !t.bound.empty()) {  // one band at the watermark
      std::set<i64> phys;
      for (i64 v : t.bound) phys.insert(t.v2p[static_cast<std::size_t>(v)]);
      EXPECT_EQ(*phys.rbegin() - *phys.begin() + 1, static_cast<i64>(phys.size()));
      EXPECT_EQ(t.grow_down ? *phys.rbegin() : *phys.begin(), t.grow_down ? t.num_pages - 1 : lo);
      ++compacted;
    }
    with_tombs += !t.tombs.empty();
  }
  EXPECT_GT(compacted, 80);
  EXPECT_GT(with_tombs, 150);
}

TEST(Tables, BatchesArePageConsistentAndBounded) {
  SplitMix64 r(22);
  for (int i = 0; i < 300; ++i) {
    const Tables t = tables(r, 20, true);
    const i64 ps = small_page_size(r, false);
    BatchShape shape;
    shape.lens_within_max_pages = i % 2 == 0;
    const TableBatch b = table_batch(r, t, ps, shape);
    ASSERT_EQ(b.cols % ps, 0);
    for (i64 row = 0; row < b.rows; ++row)
      for (i64 c = 0; c < b.cols; ++c) {
        const i64 tok = b.tok(row, c);
        if (tok >= 0) {
          EXPECT_EQ(tok % ps, c % ps);
        }
      }
    for (i64 k = 0; k < b.batch(); ++k) {
      EXPECT_LT(b.req_pool_indices[static_cast<std::size_t>(k)], b.rows);
      const i64 len = b.seq_lens[static_cast<std::size_t>(k)] + b.delta;
      EXPECT_LE(len, shape.lens_within_max_pages ? b.max_pages * ps : b.cols);
    }
  }
}

TEST(Tables, WideTablesHoldHugePages) {
  SplitMix64 r(23);
  for (int i = 0; i < 100; ++i) {
    const Tables t = wide_tables(r);
    for (i64 v : t.bound) EXPECT_GE(t.v2p[static_cast<std::size_t>(v)], i64(1) << 20);
    for (std::size_t p = 1; p < t.p2v.size(); ++p) EXPECT_EQ(t.p2v[p], -1);
  }
}

}  // namespace
