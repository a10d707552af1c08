// Issue 33 in the C++ harness: a failing kernel that no catalogue variant names is recorded and replayed,
// and replay's inference names what it did (here: its ids read with stride 0).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kvaddr/harness/check.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using std::int64_t;

TEST(HarnessInfer, AKernelReadingItsIdsWithStrideZeroIsInferred) {
  const auto r = harness::check_token_translate(
      [](const TokenTranslateArgs<int64_t>& a) {
        for (int64_t i = 0; i < a.ids.size; ++i) {
          const int64_t t = a.ids.data[0];  // every lane reads the first id
          const int64_t page = t < 0 ? 0 : a.v2p.data[t / a.page_size];
          const int64_t d = page * a.page_size * a.multiplier + t % a.page_size;
          a.out.data[i] = t < 0 || d < 0 ? 0 : d;
        }
      },
      Options{.cases = 50, .seed = 1});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_TRUE(r.behaves_like.empty()) << r.to_text();
  ASSERT_EQ(r.inferred.size(), 1U) << r.to_text();
  EXPECT_EQ(r.inferred[0], "reads ids with stride 0 (every lane reads its first element) (claim stride0(ids); "
                           "reproduces every recorded lane)");
  EXPECT_NE(r.to_text().find("\n  inferred: reads ids with stride 0"), std::string::npos) << r.to_text();
}

// int32_lane_offsets is a claim of token_translate: below 2^31 lanes it writes what production writes, so a
// correct kernel passes under it, and a kernel claiming it that breaks another rule is still caught.
TEST(HarnessInfer, Int32LaneOffsetsIsAClaimOfTheTokenRoutes) {
  const auto correct = [](const TokenTranslateArgs<int64_t>& a) {
    for (int64_t i = 0; i < a.ids.size; ++i) {
      const int64_t t = a.ids.data[i];
      const int64_t page = t < 0 ? 0 : a.v2p.data[t / a.page_size];
      const int64_t d = page * a.page_size * a.multiplier + t % a.page_size;
      a.out.data[i] = t < 0 || d < 0 ? 0 : d;
    }
  };
  const auto ok = harness::check_token_translate(correct, Options{.cases = 50, .seed = 1, .variant = Variant::int32_lane_offsets});
  EXPECT_TRUE(ok.ok) << ok.to_text();
  const auto no_clamp = [](const TokenTranslateArgs<int64_t>& a) {
    for (int64_t i = 0; i < a.ids.size; ++i) {
      const int64_t t = a.ids.data[i];
      a.out.data[i] = t < 0 ? 0 : a.v2p.data[t / a.page_size] * a.page_size * a.multiplier + t % a.page_size;
    }
  };
  const auto bad = harness::check_token_translate(no_clamp, Options{.cases = 200, .seed = 1, .variant = Variant::int32_lane_offsets});
  EXPECT_FALSE(bad.ok) << bad.to_text();
}

}  // namespace
