// Adjacent slices of one allocation (kvaddr/harness/adjacent.hpp): hand-computed layouts and attributions, every
// validation rule on both sides, and the candidate layouts every route of the route list declares or derives.
// python/tests/test_adjacent.py drives the same arithmetic through kvaddr._core (kvaddr.adjacent).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kvaddr/harness/adjacent.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/fill_args.hpp"

namespace {
using namespace kvaddr;
using namespace kvaddr::harness;
using V = std::vector<std::int64_t>;
using Names = std::vector<std::string>;

AdjacentMember in32(std::string n, V shape) { return {std::move(n), 1, std::move(shape), false, -1}; }
AdjacentMember in64(std::string n, V shape) { return {std::move(n), 2, std::move(shape), false, -1}; }
AdjacentMember out32(std::string n, V shape, std::int64_t width = -1) { return {std::move(n), 1, std::move(shape), true, width}; }
AdjacentMember out64(std::string n, V shape) { return {std::move(n), 2, std::move(shape), true, -1}; }

std::string message_of(const std::vector<AdjacentMember>& m, std::int64_t shared, std::int64_t guard) {
  try {
    adjacent_layout(m, shared, guard);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(HarnessAdjacent, TouchingInt64MembersAfterInt64Guards) {
  // guard 64 int64 elements = 128 lanes | out: 2 int64 = 4 lanes | ids: 4 lanes | 128 lanes of guard
  const AdjacentLayoutOf l = adjacent_layout({out64("out", {2}), in64("ids", {2})}, 0, 64);
  EXPECT_EQ(l.spans, (std::vector<AdjacentSpan>{{"out", 128, 132}, {"ids", 132, 136}}));
  EXPECT_EQ(l.total, 264);
}

TEST(HarnessAdjacent, AnInt64MemberMustStartOnAnEvenLane) {
  // int32 out of 3 lanes after 64 int32 guard lanes: slots would start at lane 67
  EXPECT_EQ(message_of({out32("out", {3}), in64("slots", {2})}, 0, 64),
            "adjacent = slots (int64) would start at int32 lane 67: an int64 member must start on an element boundary "
            "(an even int32 lane)");
  const AdjacentLayoutOf l = adjacent_layout({out32("out", {4}), in64("slots", {2})}, 0, 64);
  EXPECT_EQ(l.spans, (std::vector<AdjacentSpan>{{"out", 64, 68}, {"slots", 68, 72}}));
  EXPECT_EQ(l.total, 72 + 128);  // the guard after is of the last member's type
}

TEST(HarnessAdjacent, SharedLanesOverlapThePreviousMember) {
  // req_to_token [2, 3] int32 at lane 4; out [2, 2] starts one lane before its end
  const AdjacentLayoutOf l = adjacent_layout({in32("req_to_token", {2, 3}), out32("out", {2, 2})}, 1, 4);
  EXPECT_EQ(l.spans, (std::vector<AdjacentSpan>{{"req_to_token", 4, 10}, {"out", 9, 13}}));
  EXPECT_EQ(l.total, 17);
}

TEST(HarnessAdjacent, EveryValidationRuleOnBothSides) {
  EXPECT_NE(message_of({}, 0, 4).find("members = []"), std::string::npos);
  EXPECT_EQ(message_of({in32("a", {1})}, 0, 0), "");
  EXPECT_NE(message_of({in32("a", {1})}, -1, 0).find("shared = -1"), std::string::npos);
  EXPECT_NE(message_of({in32("a", {1})}, 0, -1).find("guard = -1"), std::string::npos);
  EXPECT_NE(message_of({in32("a", {1}), in32("a", {1})}, 0, 0).find("distinct"), std::string::npos);
  EXPECT_NE(message_of({in32("", {1})}, 0, 0).find("distinct"), std::string::npos);
  for (std::int64_t u : {0, 3}) {
    AdjacentMember m = in32("a", {1});
    m.units = u;
    EXPECT_NE(message_of({m}, 0, 0).find("a.units = " + std::to_string(u)), std::string::npos);
  }
  EXPECT_NE(message_of({in32("a", {})}, 0, 0).find("a.shape = 0 sizes"), std::string::npos);
  EXPECT_NE(message_of({in32("a", {1, 1, 1})}, 0, 0).find("a.shape = 3 sizes"), std::string::npos);
  EXPECT_NE(message_of({in32("a", {-1})}, 0, 0).find("a.shape = -1"), std::string::npos);
  EXPECT_EQ(message_of({in32("a", {0})}, 0, 0), "");
  EXPECT_EQ(message_of({in32("a", {std::int64_t{1} << 40})}, 0, 0), "");
  EXPECT_NE(message_of({in32("a", {(std::int64_t{1} << 40) + 1})}, 0, 0).find("a.shape = 1099511627777"), std::string::npos);
  // sizes that fit one by one but not multiplied: Overflow naming the member
  EXPECT_THROW(adjacent_layout({in64("a", {std::int64_t{1} << 40, std::int64_t{1} << 40})}, 0, 0), Overflow);
  EXPECT_NO_THROW(adjacent_layout({in64("a", {std::int64_t{1} << 20, std::int64_t{1} << 20})}, 0, 0));
  // a visible width: only a 2-D output's, in [0, columns]
  EXPECT_EQ(message_of({out32("o", {2, 3}, 0)}, 0, 0), "");
  EXPECT_EQ(message_of({out32("o", {2, 3}, 3)}, 0, 0), "");
  EXPECT_NE(message_of({out32("o", {2, 3}, 4)}, 0, 0).find("o.width = 4"), std::string::npos);
  EXPECT_NE(message_of({out32("o", {2, 3}, -2)}, 0, 0).find("o.width = -2"), std::string::npos);
  EXPECT_NE(message_of({out32("o", {6}, 1)}, 0, 0).find("o.width = 1"), std::string::npos);
  AdjacentMember input = in32("i", {2, 3});
  input.width = 1;
  EXPECT_NE(message_of({input}, 0, 0).find("i.width = 1"), std::string::npos);
  // shared may not place a member before the backing's first lane ...
  EXPECT_EQ(message_of({in32("a", {1}), in32("b", {1})}, 1, 0), "");
  EXPECT_NE(message_of({in32("a", {1}), in32("b", {1})}, 2, 0).find("shared = 2: places b before"), std::string::npos);
  // ... nor leave a member past its end: a [0, 5), b [2, 3): the guard after b must reach lane 5
  EXPECT_NE(message_of({in32("a", {5}), in32("b", {1})}, 3, 1).find("shared = 3: places a past"), std::string::npos);
  EXPECT_EQ(message_of({in32("a", {5}), in32("b", {1})}, 3, 2), "");
}

// A backing of `l.total` lanes, every lane distinct.
std::vector<std::int32_t> backing(const AdjacentLayoutOf& l) {
  std::vector<std::int32_t> b(static_cast<std::size_t>(l.total));
  for (std::size_t k = 0; k < b.size(); ++k) b[k] = static_cast<std::int32_t>(1000 + k);
  return b;
}

TEST(HarnessAdjacent, AStorePastTheOutputLandsInTheNextInput) {
  const AdjacentLayoutOf l = adjacent_layout({out64("out", {2}), in64("ids", {2})}, 0, 64);
  auto exp = backing(l), got = exp;
  exp[132] = 0, exp[133] = 0, got[133] = 0;  // ids[0] = 0
  got[132] = 12345;                          // its low half
  const AdjacentAttribution r = adjacent_attribute(l, exp.data(), got.data(), l.total);
  ASSERT_EQ(r.lanes.size(), 1U);
  const AdjacentLane& x = r.lanes[0];
  EXPECT_EQ(x.name, "out");
  EXPECT_EQ(x.index, V{0});
  EXPECT_EQ(x.region, "neighbour_after");
  EXPECT_EQ(x.expected, 0);
  EXPECT_EQ(x.actual, 12345);
  EXPECT_EQ(x.neighbour, "ids[0]");
  EXPECT_EQ(r.differing, 1);
  EXPECT_TRUE(r.out_of_bounds);
  EXPECT_TRUE(r.inputs_changed.empty());
}

TEST(HarnessAdjacent, AStoreBeforeTheOutputAndIntoTheGuardAfter) {
  const AdjacentLayoutOf l = adjacent_layout({in64("ids", {2}), out64("out", {2})}, 0, 64);
  auto exp = backing(l), got = exp;
  exp[130] = got[130] = 5, exp[131] = 0;  // ids[1] = 5
  got[131] = 7;                           // its high half: 7 * 2^32 + 5
  got[137] = 1;                           // the high half of the guard's first int64 element after out
  const AdjacentAttribution r = adjacent_attribute(l, exp.data(), got.data(), l.total);
  ASSERT_EQ(r.lanes.size(), 2U);
  EXPECT_EQ(r.lanes[0].name, "out");
  EXPECT_EQ(r.lanes[0].region, "neighbour_before");
  EXPECT_EQ(r.lanes[0].index, V{-1});
  EXPECT_EQ(r.lanes[0].neighbour, "ids[1]");
  EXPECT_EQ(r.lanes[0].expected, 5);
  EXPECT_EQ(r.lanes[0].actual, (std::int64_t{7} << 32) + 5);
  EXPECT_EQ(r.lanes[1].name, "out");
  EXPECT_EQ(r.lanes[1].region, "guard_after");
  EXPECT_EQ(r.lanes[1].index, V{0});
  EXPECT_EQ(r.lanes[1].expected, (std::int64_t{1137} << 32) + 1136);
  EXPECT_EQ(r.lanes[1].actual, (std::int64_t{1} << 32) + 1136);
  EXPECT_EQ(r.differing, 2);
  EXPECT_TRUE(r.out_of_bounds);
}

TEST(HarnessAdjacent, AGuardBeforeIsIndexedFromTheBuffer) {
  const AdjacentLayoutOf l = adjacent_layout({out32("out", {2}), in32("ids", {2})}, 0, 4);
  auto exp = backing(l), got = exp;
  got[3] = 0;  // the last guard lane before out: index -1
  const AdjacentAttribution r = adjacent_attribute(l, exp.data(), got.data(), l.total);
  ASSERT_EQ(r.lanes.size(), 1U);
  EXPECT_EQ(r.lanes[0].region, "guard_before");
  EXPECT_EQ(r.lanes[0].index, V{-1});
  EXPECT_EQ(r.lanes[0].expected, 1003);
}

TEST(HarnessAdjacent, AWriteAwayFromEveryOutputIsAnInputWrite) {
  // guard 1: ids [2, 10), out [10, 12); out's window before it is ids[3] (lanes 8, 9)
  const AdjacentLayoutOf l = adjacent_layout({in64("ids", {4}), out64("out", {1})}, 0, 1);
  auto exp = backing(l), got = exp;
  got[2] = got[3] = 0;  // ids[0], both halves: one element
  got[9] = 0;           // ids[3]: in out's window
  const AdjacentAttribution r = adjacent_attribute(l, exp.data(), got.data(), l.total);
  ASSERT_EQ(r.lanes.size(), 2U);
  EXPECT_EQ(r.lanes[0].name, "ids");
  EXPECT_EQ(r.lanes[0].region, "input");
  EXPECT_EQ(r.lanes[0].index, V{0});
  EXPECT_EQ(r.lanes[0].actual, 0);
  EXPECT_EQ(r.lanes[1].region, "neighbour_before");
  EXPECT_EQ(r.lanes[1].neighbour, "ids[3]");
  EXPECT_EQ(r.differing, 1);
  EXPECT_EQ(r.inputs_changed, Names{"ids"});
  // a limit of 0 lists nothing and counts the same
  const AdjacentAttribution none = adjacent_attribute(l, exp.data(), got.data(), l.total, 0);
  EXPECT_TRUE(none.lanes.empty());
  EXPECT_EQ(none.differing, 1);
  EXPECT_EQ(none.inputs_changed, Names{"ids"});
}

TEST(HarnessAdjacent, OutputLanesNameTheNearestOtherOutputAndThePastWidthColumns) {
  // the fa3 workspace: cache_seqlens [64, 66) | cu_seqlens_k [66, 69) | page_table [2, 2] [69, 73), width 1
  const AdjacentLayoutOf l = adjacent_layout(
      {out32("cache_seqlens", {2}), out32("cu_seqlens_k", {3}), out32("page_table", {2, 2}, 1)}, 0, 64);
  auto exp = backing(l), got = exp;
  got[66] = 12345;  // cu_seqlens_k[0], just after cache_seqlens
  got[70] = 1;      // page_table[0, 1], past the width, two lanes after cu_seqlens_k
  const AdjacentAttribution r = adjacent_attribute(l, exp.data(), got.data(), l.total);
  ASSERT_EQ(r.lanes.size(), 2U);
  EXPECT_EQ(r.lanes[0].name, "cu_seqlens_k");
  EXPECT_EQ(r.lanes[0].region, "out");
  EXPECT_EQ(r.lanes[0].neighbour, "cache_seqlens[+0]");
  EXPECT_EQ(r.lanes[1].name, "page_table");
  EXPECT_EQ(r.lanes[1].region, "past_width");
  EXPECT_EQ(r.lanes[1].index, (V{0, 1}));
  EXPECT_EQ(r.lanes[1].neighbour, "cu_seqlens_k[+1]");
  EXPECT_EQ(r.differing, 2);
  EXPECT_TRUE(r.out_of_bounds);  // past_width
  got[70] = exp[70];
  EXPECT_FALSE(adjacent_attribute(l, exp.data(), got.data(), l.total).out_of_bounds);  // only an out lane
}

TEST(HarnessAdjacent, SharedLanesBelongToTheLaterMemberAndTheLimitCountsEachKind) {
  const AdjacentLayoutOf l = adjacent_layout({in32("req_to_token", {2, 3}), out32("out", {2, 2})}, 1, 4);
  auto exp = backing(l), got = exp;
  got[9] = 0;                                     // shared: out[0, 0]
  got[4] = got[5] = got[6] = 0;                   // req_to_token[0, 0..2], far from out (window 4 lanes: 5..8)
  const AdjacentAttribution r = adjacent_attribute(l, exp.data(), got.data(), l.total);
  ASSERT_EQ(r.lanes.size(), 4U);
  EXPECT_EQ(r.lanes[0].region, "input");
  EXPECT_EQ(r.lanes[0].index, (V{0, 0}));
  EXPECT_EQ(r.lanes[1].name, "out");
  EXPECT_EQ(r.lanes[1].region, "neighbour_before");
  EXPECT_EQ(r.lanes[1].index, V{-4});
  EXPECT_EQ(r.lanes[1].neighbour, "req_to_token[0, 1]");
  EXPECT_EQ(r.lanes[2].index, V{-3});
  EXPECT_EQ(r.lanes[3].name, "out");  // the shared lane is out's first element
  EXPECT_EQ(r.lanes[3].region, "out");
  EXPECT_EQ(r.lanes[3].index, (V{0, 0}));
  EXPECT_EQ(r.lanes[3].expected, 1009);
  EXPECT_EQ(r.differing, 3);  // out[0, 0] and two window lanes (req_to_token[0, 1..2])
  EXPECT_EQ(r.inputs_changed, Names{"req_to_token"});
  // limit 1: the first input lane and the first other lane only; the counts stay
  const AdjacentAttribution one = adjacent_attribute(l, exp.data(), got.data(), l.total, 1);
  ASSERT_EQ(one.lanes.size(), 2U);
  EXPECT_EQ(one.lanes[0].region, "input");
  EXPECT_EQ(one.lanes[1].region, "neighbour_before");
  EXPECT_EQ(one.differing, 3);
}

TEST(HarnessAdjacent, TheBackingsMustHaveTheLayoutsLanes) {
  const AdjacentLayoutOf l = adjacent_layout({in32("a", {1})}, 0, 1);
  const std::vector<std::int32_t> b(3), short_b(2);
  EXPECT_NO_THROW(adjacent_attribute(l, b.data(), b.data(), 3));
  EXPECT_THROW(adjacent_attribute(l, short_b.data(), short_b.data(), 2), InvalidArgument);
  EXPECT_THROW(adjacent_attribute(l, nullptr, b.data(), 3), InvalidArgument);
  AdjacentLayoutOf forged = l;  // spans that do not follow from the members
  forged.spans[0].hi = 3;
  EXPECT_THROW(adjacent_attribute(forged, b.data(), b.data(), 3), InvalidArgument);
  forged = l;
  forged.members[0].units = 2;
  EXPECT_THROW(adjacent_attribute(forged, b.data(), b.data(), 3), InvalidArgument);
}

// ---- choosing a layout for a case --------------------------------------------------------------------------
TEST(HarnessAdjacent, ChooseTheFirstCandidateThatFitsFromTheKth) {
  using C = std::vector<AdjacentCandidate>;
  const std::map<std::string, AdjacentMember> arrays{{"ids", in64("ids", {3})}, {"out", out32("out", {3})},
                                                     {"v2p", in64("v2p", {4})}};
  const C cs{{{"ids", "out"}, 0}, {{"out", "ids"}, 0}, {{"kv_start_idx", "out"}, 0}, {{"v2p", "out"}, 0}};
  EXPECT_EQ(adjacent_choose(cs, 0, arrays, 64), cs[0]);
  // out | ids: the int32 out of 3 lanes misaligns ids; kv_start_idx is absent: v2p | out
  EXPECT_EQ(adjacent_choose(cs, 1, arrays, 64), cs[3]);
  EXPECT_EQ(adjacent_choose(cs, 2, arrays, 64), cs[3]);
  EXPECT_EQ(adjacent_choose(cs, 5, arrays, 64), cs[3]);  // k cycles: 5 = 1 (mod 4)
  EXPECT_EQ(adjacent_choose(cs, 4, arrays, 64), cs[0]);
  EXPECT_EQ(adjacent_choose(C{{{"out", "ids"}, 0}}, 0, arrays, 64), std::nullopt);
  EXPECT_EQ(adjacent_choose(C{}, 3, arrays, 64), std::nullopt);
  EXPECT_THROW(adjacent_choose(cs, -1, arrays, 64), InvalidArgument);
}

TEST(HarnessAdjacent, APartialOverlapNeedsNonEmptyMembers) {
  using C = std::vector<AdjacentCandidate>;
  const C cs{{{"req_to_token", "out"}, 1}};
  std::map<std::string, AdjacentMember> arrays{{"req_to_token", in32("req_to_token", {2, 3})},
                                               {"out", out32("out", {2, 2}, 1)}};
  EXPECT_EQ(adjacent_choose(cs, 0, arrays, 64), cs[0]);
  arrays["out"].width = 0;  // a visible width of 0 overlaps nothing
  EXPECT_EQ(adjacent_choose(cs, 0, arrays, 64), std::nullopt);
  EXPECT_EQ(adjacent_choose(C{{{"req_to_token", "out"}, 0}}, 0, arrays, 64), (AdjacentCandidate{{"req_to_token", "out"}, 0}));
  arrays["out"].width = -1;
  arrays["req_to_token"].shape = {0, 3};
  EXPECT_EQ(adjacent_choose(cs, 0, arrays, 64), std::nullopt);
}

TEST(HarnessAdjacent, ChooseValidatesItsArguments) {
  using C = std::vector<AdjacentCandidate>;
  std::map<std::string, AdjacentMember> arrays{{"ids", in64("ids", {3})}};
  EXPECT_NO_THROW(adjacent_choose(C{{{"ids"}, 0}}, 0, arrays, 0));
  EXPECT_THROW(adjacent_choose(C{{{"ids"}, -1}}, 0, arrays, 0), InvalidArgument);
  EXPECT_THROW(adjacent_choose(C{{{}, 0}}, 0, arrays, 0), InvalidArgument);
  EXPECT_THROW(adjacent_choose(C{{{"ids"}, 0}}, 0, arrays, -1), InvalidArgument);
  arrays["ids"].units = 3;  // a member's own rules
  EXPECT_THROW(adjacent_choose(C{{{"ids"}, 0}}, 0, arrays, 0), InvalidArgument);
  arrays["ids"].units = 2;
  arrays["x"] = in64("y", {1});  // filed under another name
  EXPECT_THROW(adjacent_choose(C{{{"ids"}, 0}}, 0, arrays, 0), InvalidArgument);
}

// ---- candidates ----------------------------------------------------------------------------------------------
TEST(HarnessAdjacent, PerIdRuleAndDeclaredLists) {
  using C = std::vector<AdjacentCandidate>;
  EXPECT_EQ(adjacent_candidates(Route::token_translate, true),
            (C{{{"ids", "out"}, 0}, {{"out", "ids"}, 0}, {{"v2p", "out"}, 0}, {{"out", "v2p"}, 0}, {{"ids", "v2p", "out"}, 0}}));
  EXPECT_TRUE(adjacent_candidates(Route::token_translate, false).empty());
  EXPECT_EQ(adjacent_candidates(Route::decode_metadata, false),
            (C{{{"cache_seqlens", "cu_seqlens_k"}, 1}, {{"req_to_token", "page_table"}, 1}, {{"cu_seqlens_k", "page_table"}, 1}}));
  EXPECT_EQ(adjacent_candidates(Route::mamba_translate, false), (C{{{"slots", "out"}, 2}, {{"v2p", "out"}, 2}}));
}

// Every route's candidates: distinct array fields of the route, at least one output among them; admitted ones
// touch (shared 0); rejected ones are a pair whose second member is an output, sharing at least one lane.
TEST(HarnessAdjacent, EveryRoutesCandidatesNameItsArrays) {
  for_each_route([](auto spec) {
    using S = decltype(spec);
    const std::vector<FieldInfo> fields = field_infos<S>();
    const auto field = [&](const std::string& n) -> const FieldInfo* {
      for (const FieldInfo& f : fields)
        if (f.name == n && f.array()) return &f;
      return nullptr;
    };
    for (bool admitted : {true, false}) {
      const std::vector<AdjacentCandidate> cs = adjacent_candidates(S::id, admitted);
      if (admitted) {
        EXPECT_GE(cs.size(), 4U) << S::name;
      }
      for (const AdjacentCandidate& c : cs) {
        std::string what(S::name);  // appended, not `string + char*`: GCC 12 -Warray-bounds false positive
        what += admitted ? " admitted" : " rejected";
        ASSERT_GE(c.names.size(), 2U) << what;
        bool any_output = false;
        for (std::size_t i = 0; i < c.names.size(); ++i) {
          const FieldInfo* f = field(c.names[i]);
          ASSERT_NE(f, nullptr) << what << ": " << c.names[i];
          any_output = any_output || f->output();
          for (std::size_t j = 0; j < i; ++j) EXPECT_NE(c.names[i], c.names[j]) << what;
        }
        EXPECT_TRUE(any_output) << what;
        if (admitted) {
          EXPECT_EQ(c.shared, 0) << what;
        } else {
          EXPECT_EQ(c.names.size(), 2U) << what;
          EXPECT_TRUE(field(c.names[1])->output()) << what;
          EXPECT_GE(c.shared, 1) << what;
        }
      }
    }
  });
}

}  // namespace
