// Edge-class generators (edges.hpp): exact small cases, and for every class the count of draws
// that land in it over a fixed number of cases (docs/generators.md).
#include <gtest/gtest.h>

#include <limits>

#include "kvaddr/gen/edges.hpp"

namespace {
using namespace kvaddr::gen;

TEST(Edges, LayoutPlacesRowsAtTheirStride) {
  const Layout l{2, 3, 5, 4, 2};  // 2 x 3 at offset 4, row stride 5, 2 after
  EXPECT_EQ(l.parent_size(), 4 + 5 + 3 + 2);
  EXPECT_EQ(l.at(1, 2), 4 + 5 + 2);
  const auto p = place(l, std::vector<int>{1, 2, 3, 4, 5, 6}, 0);
  EXPECT_EQ(p, (std::vector<int>{0, 0, 0, 0, 1, 2, 3, 0, 0, 4, 5, 6, 0, 0}));
  for (i64 i = 0; i < l.parent_size(); ++i) EXPECT_EQ(l.inside(i), p[static_cast<std::size_t>(i)] != 0) << i;
  EXPECT_TRUE(l.strided());
  const Layout empty{0, 3, 3, 0, 0};
  EXPECT_EQ(empty.parent_size(), 0);
}

TEST(Edges, StridedLayoutsAreDrawnAtTheirRate) {
  SplitMix64 r(1);
  int strided = 0, offset = 0;
  for (int i = 0; i < 1000; ++i) {
    const Layout l = layout(r, 1 + i % 7, i % 5, 0.3);
    ASSERT_GE(l.row_stride, l.cols);
    strided += l.strided();
    offset += l.offset > 0;
    if (!l.strided()) {
      EXPECT_EQ(l.offset, 0);
      EXPECT_EQ(l.parent_size(), l.rows * l.cols);  // packed: the plain buffer
    }
  }
  EXPECT_GT(strided, 250);
  EXPECT_LT(strided, 350);
  EXPECT_GT(offset, 230);
}

TEST(Edges, ParentV2pAndPaddingBeforeTheTable) {
  SplitMix64 r(2);
  Pool p;
  p.num_pages = 5;
  p.v2p = {0, 3, -1, 4, -1};
  int deep = 0;
  for (int i = 0; i < 400; ++i) {
    const ParentV2p pv = parent_v2p(r, p);
    ASSERT_GE(pv.before, 1);
    ASSERT_LE(pv.before, 4);
    ASSERT_EQ(static_cast<i64>(pv.parent.size()), pv.before + 5 + pv.after);
    for (std::size_t v = 0; v < p.v2p.size(); ++v) EXPECT_EQ(pv.parent[static_cast<std::size_t>(pv.before) + v], p.v2p[v]);
    for (i64 ps : {1, 3, 16}) {
      const i64 t = padding_token(r, ps, pv.before);
      ASSERT_LE(t, -1);
      const i64 page = trunc_page(t, ps);  // what a kernel without the guard reads
      EXPECT_GE(page, -pv.before);
      if (ps == 1) {
        EXPECT_EQ(page, t);
      }
      if (t <= -ps - 1 || (ps == 1 && t <= -2)) ++deep;
    }
  }
  EXPECT_GT(deep, 500);  // of 1200 tokens, ~70% are past -1 (at ps > 1: <= -ps; many <= -ps - 1)
  EXPECT_EQ(padding_token(r, 4, 0), -1);  // no parent before the table: only -1
  // Hand-computed: -5 at ps 2 reads page -2, -1 at ps 1 reads v2p[-1].
  EXPECT_EQ(trunc_page(-5, 2), -2);
  EXPECT_EQ(trunc_page(-1, 1), -1);
  EXPECT_EQ(trunc_page(-2, 2), -1);
}

TEST(Edges, WideEntriesPassTwo31) {
  SplitMix64 r(3);
  Pool p;
  p.M = 24;
  p.v2p = {0, 1, -1, 2, 3, -1};
  const i64 off = widen_entries(r, p, 24);
  EXPECT_GE(off, (i64(1) << 31) / 24 - 2);
  EXPECT_EQ(p.v2p[0], 0);   // the sink stays
  EXPECT_EQ(p.v2p[2], -1);  // tombstones stay
  EXPECT_GT(p.v2p[4] * 24, std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(p.v2p[3], 2 + off);
}

TEST(Edges, GridSpillLengths) {
  EXPECT_EQ(grid_extent(5, 4), 8);
  EXPECT_EQ(grid_extent(8, 4), 8);
  EXPECT_EQ(grid_extent(0, 4), 0);
  EXPECT_EQ(grid_extent(1, 256), 256);
  SplitMix64 r(4);
  int to_extent = 0, past_extent = 0;
  for (int i = 0; i < 500; ++i) {
    const i64 ps = r.pick<i64>({1, 3, 16}), mp = r.uniform(1, 20), g = column_block(r), delta = r.uniform(0, 2);
    const i64 ext = grid_extent(mp, g);
    const i64 len = spill_len(r, mp, ext, ps, delta);
    const i64 pages = (len + delta + ps - 1) / ps;
    ASSERT_GT(pages, mp);
    ASSERT_LE(pages, std::max(mp + 1, ext + 2));
    to_extent += pages <= ext;
    past_extent += pages > ext;
  }
  EXPECT_GT(to_extent, 100);
  EXPECT_GT(past_extent, 50);
}

TEST(Edges, OverflowingLengthsAndLargeBatches) {
  SplitMix64 r(5);
  for (int i = 0; i < 200; ++i) {
    const i64 B = r.uniform(2, 300), delta = r.uniform(0, 64);
    const auto lens = overflowing_lens(r, B, delta);
    i64 total = 0;
    bool overflowed = false;
    for (i64 l : lens) {
      ASSERT_LE(l + delta, std::numeric_limits<std::int32_t>::max());  // each cache_seqlens fits
      total += l + delta;
      overflowed = overflowed || total > std::numeric_limits<std::int32_t>::max();
    }
    EXPECT_TRUE(overflowed);
    const i64 b = large_batch(r);
    EXPECT_GE(b, 129);
    EXPECT_LE(b, 300);
  }
}

TEST(Edges, AliasShapesAndTheirVerdicts) {
  // Hand-computed verdicts for 4 input elements and an output of at least 4.
  struct Row {
    AliasShape shape;
    bool exact, prefix;
  };
  const Row rows[] = {
      {AliasShape::disjoint, true, true},        {AliasShape::adjacent, true, true},
      {AliasShape::same, true, true},            {AliasShape::same_start_wider, false, true},
      {AliasShape::overlap_one, false, false},   {AliasShape::inside, false, false},
  };
  for (const Row& row : rows) {
    const AliasCase e = alias_case(row.shape, AliasRule::exact, 4, 4, 2);
    const AliasCase p = alias_case(row.shape, AliasRule::prefix, 4, 4, 2);
    EXPECT_EQ(e.admitted, row.exact) << static_cast<int>(row.shape);
    EXPECT_EQ(p.admitted, row.prefix) << static_cast<int>(row.shape);
    EXPECT_GE(e.parent, std::max(e.in_off + e.in_size, e.out_off + e.out_size));
    EXPECT_GE(e.out_size, 4);
  }
  EXPECT_TRUE(alias_admitted(AliasRule::exact, 0, 4, 4, 3));   // touching after
  EXPECT_FALSE(alias_admitted(AliasRule::exact, 0, 4, 3, 4));  // one shared element
  EXPECT_FALSE(alias_admitted(AliasRule::prefix, 2, 4, 2, 3)); // same start, shorter
  // An empty input overlaps nothing: every shape is admitted.
  EXPECT_TRUE(alias_case(AliasShape::overlap_one, AliasRule::exact, 0, 0, 1).admitted);
  SplitMix64 r(6);
  int admitted = 0, rejected = 0;
  for (int i = 0; i < 600; ++i) (alias_case(r, AliasRule::exact, 1 + i % 9, 1 + i % 9).admitted ? admitted : rejected)++;
  EXPECT_GT(admitted, 250);  // disjoint, adjacent, same
  EXPECT_GT(rejected, 250);  // wider, overlap by one, inside
}

TEST(Edges, HugeRowsPassElementTwo31) {
  const HugeRows h = huge_rows(3, 10);
  EXPECT_EQ(h.row_stride, ((i64(1) << 31) + 2) / 2);
  EXPECT_GT(h.last_row_offset(), i64(1) << 31);
  EXPECT_EQ(h.parent_elements(), 2 * h.row_stride + 10);
  const HugeRows one = huge_rows(1, 4);  // at least two rows
  EXPECT_EQ(one.rows, 2);
  EXPECT_GT(one.last_row_offset(), i64(1) << 31);
}

}  // namespace
