// int32_lane_offsets in replay (issue 33): the per-id launch's lanes at or past 2^31 left unwritten. No
// recording the host can load holds 2^31 lanes, so the inference is tested on stated lane sets (ranges of a
// launch of 2^31 lanes and more, detail::infer_lane_offsets) on both sides of every boundary, and the claim
// on a small recording (where the variant writes what production writes).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infer.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"

namespace kvaddr::replay {
namespace {

using test_support::has;
using test_support::kTwo31;

using detail::infer_lane_offsets;
using detail::LaneSet;
using json = nlohmann::json;

constexpr std::int64_t kTwo32 = std::int64_t{1} << 32;


TEST(LaneOffsetsInference, LanesFrom2To31UnwrittenAreInferredWithTheirRange) {
  const auto r = infer_lane_offsets(kTwo31 + 10, {{kTwo31, kTwo31 + 10}}, {});
  ASSERT_EQ(r.found.size(), 1u) << r.not_explained;
  EXPECT_EQ(r.found[0].variant, "int32_lane_offsets");
  EXPECT_EQ(r.found[0].description,
            "lanes >= 2^31 not written (lane offsets formed in int32): 10 lanes unwritten, from lane 2147483648 to "
            "2147483657");
  EXPECT_EQ(r.found[0].lanes_explained, 10);
  // One lane past 2^31: the smallest launch it acts on.
  EXPECT_EQ(infer_lane_offsets(kTwo31 + 1, {{kTwo31, kTwo31 + 1}}, {}).found.size(), 1u);
}

TEST(LaneOffsetsInference, TheUnwrittenLanesMustBeExactlyThoseAtOrPast2To31) {
  const std::int64_t n = kTwo31 + 10;
  const std::string no = "not explained: the differing lanes are not those int32_lane_offsets leaves unwritten";
  // One lane early: lane 2^31 - 1 has a lane offset of its own.
  auto r = infer_lane_offsets(n, {{kTwo31 - 1, n}}, {});
  EXPECT_TRUE(r.found.empty());
  EXPECT_EQ(r.not_explained, no);
  // One lane late, one short of the launch's end: lane 2^31 (or the last one) was written.
  EXPECT_EQ(infer_lane_offsets(n, {{kTwo31 + 1, n}}, {}, {{kTwo31, kTwo31 + 1}}).not_explained, no);
  EXPECT_EQ(infer_lane_offsets(n, {{kTwo31, n - 1}}, {}, {{n - 1, n}}).not_explained, no);
  // A lane that kept a value equal to the one it should get cannot tell: lane 2^31 neither differs nor was written.
  r = infer_lane_offsets(n, {{kTwo31 + 1, n}}, {}, {{0, 5}});
  ASSERT_EQ(r.found.size(), 1u) << r.not_explained;
  EXPECT_TRUE(has(r.found[0].description, "10 lanes unwritten, from lane 2147483648 to 2147483657 (1 of them kept a "
                                          "value equal to the one they should get)"))
      << r.found[0].description;
  EXPECT_EQ(r.found[0].lanes_explained, 9);
  // A launch of exactly 2^31 lanes has no lane the behaviour leaves unwritten.
  r = infer_lane_offsets(kTwo31, {{kTwo31 - 1, kTwo31}}, {});
  EXPECT_TRUE(r.found.empty());
  EXPECT_EQ(r.not_explained,
            "not explained: int32_lane_offsets leaves no lane unwritten on a launch of 2147483648 lanes (it acts from "
            "lane 2^31 on)");
  EXPECT_TRUE(infer_lane_offsets(n, {}, {}).found.empty());  // nothing unwritten: nothing to explain
}

// Past 2^32 lanes, lane i lands on element i - 2^32 again: those elements may differ (rewritten, e.g. an
// in-place translate translated twice), no other.
TEST(LaneOffsetsInference, PastTwoTo32TheElementsLandedOnAgainMayDiffer) {
  const std::int64_t n = kTwo32 + 6;
  const auto r = infer_lane_offsets(n, {{kTwo31, kTwo32}}, {{0, 6}});
  ASSERT_EQ(r.found.size(), 1u) << r.not_explained;
  EXPECT_TRUE(has(r.found[0].description, "2147483648 lanes unwritten, from lane 2147483648 to 4294967295; 6 lanes "
                                          "below 2^31 stored again by lanes 2^32 past them"))
      << r.found[0].description;
  EXPECT_EQ(r.found[0].lanes_explained, kTwo31 + 6);
  EXPECT_EQ(infer_lane_offsets(n, {{kTwo31, kTwo32}}, {{2, 4}}).found.size(), 1u);  // a subset: some kept their value
  EXPECT_TRUE(infer_lane_offsets(n, {{kTwo31, kTwo32}}, {{0, 7}}).found.empty());   // lane 6: no lane lands on it
  // The next block of 2^31 lanes is unwritten again (lanes [2^32 + 2^31, 2^33)).
  const std::int64_t m = kTwo32 + kTwo31 + 3;
  EXPECT_EQ(infer_lane_offsets(m, {{kTwo31, kTwo32}, {kTwo32 + kTwo31, m}}, {}).found.size(), 1u);
  EXPECT_TRUE(infer_lane_offsets(m, {{kTwo31, kTwo32}}, {}, {{kTwo32 + kTwo31, m}}).found.empty());  // written there
}

TEST(LaneOffsetsInference, MalformedLaneSetsNameTheirArgument) {
  const auto names = [](const auto& f, const std::string& argument) {
    try {
      f();
    } catch (const InvalidArgument& e) {
      return e.argument() == argument;
    }
    return false;
  };
  EXPECT_TRUE(names([] { (void)infer_lane_offsets(-1, {}, {}); }, "launch_lanes"));
  EXPECT_TRUE(names([] { (void)infer_lane_offsets(10, {{5, 5}}, {}); }, "unwritten"));          // empty range
  EXPECT_TRUE(names([] { (void)infer_lane_offsets(10, {{2, 4}, {4, 6}}, {}); }, "unwritten"));  // adjacent
  EXPECT_TRUE(names([] { (void)infer_lane_offsets(10, {{6, 8}, {2, 4}}, {}); }, "unwritten"));  // unsorted
  EXPECT_TRUE(names([] { (void)infer_lane_offsets(10, {}, {{8, 11}}); }, "rewritten"));         // past the launch
  EXPECT_TRUE(names([] { (void)infer_lane_offsets(10, {}, {{-1, 2}}); }, "rewritten"));
  EXPECT_TRUE(names([] { (void)infer_lane_offsets(10, {}, {}, {{3, 2}}); }, "written"));
  EXPECT_NO_THROW((void)infer_lane_offsets(10, {{2, 4}, {5, 6}}, {{8, 10}}, {{0, 1}}));  // the other side of each rule
}

// A recorded token_translate call claimed int32_lane_offsets: accepted, and equal where production is (every
// lane below 2^31). A kernel that leaves small lanes unwritten is not this behaviour.
TEST(LaneOffsetsReplay, TheClaimIsAcceptedAndSmallUnwrittenLanesAreNotInferredAsIt) {
  const auto d = test_support::fresh_dir("kvaddr_lane_offsets_test_", "claim");
  write_npy(d / "v2p.npy", NpyDtype::int64, {3}, {4, 9, -1});
  write_npy(d / "ids.npy", NpyDtype::int64, {3}, {1, 2, -1});
  write_npy(d / "before.npy", NpyDtype::int64, {3}, {7, 7, 7});
  write_npy(d / "good.npy", NpyDtype::int64, {3}, {9, 0, 0});  // ps 1: v2p[1] = 9, v2p[2] tombstone -> 0
  write_npy(d / "stale.npy", NpyDtype::int64, {3}, {9, 7, 7});
  const auto call = [](const char* variant, const char* after) {
    return json{{"route", "token_translate"}, {"variant", variant}, {"scalars", {{"page_size", 1}}},
                {"inputs", {{"ids", "ids.npy"}, {"v2p", "v2p.npy"}}},
                {"outputs", {{"out", {{"before", "before.npy"}, {"after", after}}}}}};
  };
  const ReplayReport r = test_support::replay_calls(d, {call("int32_lane_offsets", "good.npy"),
                                                        call("production", "stale.npy")});
  ASSERT_EQ(r.calls.size(), 2u) << r.error;
  EXPECT_EQ(r.calls[0].status, CallStatus::equal) << r.calls[0].error;
  EXPECT_EQ(r.calls[0].variant, "int32_lane_offsets");
  EXPECT_EQ(r.calls[1].status, CallStatus::differs);
  for (const Inferred& f : r.calls[1].inferred) EXPECT_NE(f.variant, "int32_lane_offsets") << f.description;
  for (const std::string& v : r.calls[1].matching_variants) EXPECT_NE(v, "int32_lane_offsets");
}

}  // namespace
}  // namespace kvaddr::replay
