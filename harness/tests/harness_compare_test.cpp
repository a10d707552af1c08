// One output's guarded comparison (kvaddr/harness/compare.hpp), exactly; python/tests/test_compare.py compares the
// same buffers through kvaddr._core.compare_guarded (kvaddr.check's comparison) and expects the same lanes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kvaddr/harness/compare.hpp"

namespace {
using namespace kvaddr::harness;
using V = std::vector<std::int64_t>;

TEST(HarnessCompare, EveryRegionOfA2DOutput) {
  // guard 2 | [2, 3] buffer, 2 visible columns | guard 2
  const V exp{-1, -2, 10, 11, 12, 20, 21, 22, -3, -4};
  const V got{-1, 7, 10, 99, 98, 20, 21, 22, -3, 5};
  const GuardedLayout l{2, 6, 2, 3, 2};
  const Compared c = compare_guarded("out", exp.data(), got.data(), 10, l);
  EXPECT_EQ(c.differing, 4);
  EXPECT_TRUE(c.outside);
  ASSERT_EQ(c.first.size(), 4U);
  const auto is = [](const Lane& x, const char* region, std::int64_t row, std::int64_t col, bool matrix,
                     std::int64_t e, std::int64_t a) {
    return x.output == "out" && x.region == region && x.row == row && x.col == col && x.matrix == matrix &&
           x.expected == e && x.actual == a;
  };
  EXPECT_TRUE(is(c.first[0], "guard_before", 0, -1, false, -2, 7));
  EXPECT_TRUE(is(c.first[1], "out", 0, 1, true, 11, 99));
  EXPECT_TRUE(is(c.first[2], "past_width", 0, 2, true, 12, 98));
  EXPECT_TRUE(is(c.first[3], "guard_after", 0, 1, false, -4, 5));
  const Compared two = compare_guarded("out", exp.data(), got.data(), 10, l, 2);  // only the first two listed
  EXPECT_EQ(two.differing, 4);
  EXPECT_EQ(two.first.size(), 2U);
}

TEST(HarnessCompare, AVisibleLaneOfA1DOutputIsNotOutside) {
  const std::vector<std::int32_t> exp{0, 5, 6, 7, 0}, got{0, 5, 8, 7, 0};
  const Compared c = compare_guarded("kv_indices", exp.data(), got.data(), 5, GuardedLayout{1, 3, 1, 0, 0});
  EXPECT_EQ(c.differing, 1);
  EXPECT_FALSE(c.outside);
  ASSERT_EQ(c.first.size(), 1U);
  EXPECT_EQ(c.first[0].region, "out");
  EXPECT_EQ(c.first[0].col, 1);
  EXPECT_FALSE(c.first[0].matrix);
  const Compared same = compare_guarded("kv_indices", exp.data(), exp.data(), 5, GuardedLayout{1, 3, 1, 0, 0});
  EXPECT_EQ(same.differing, 0);
  EXPECT_FALSE(same.outside);
  EXPECT_TRUE(same.first.empty());
}

}  // namespace
