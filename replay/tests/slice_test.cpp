// Sliced arrays in a manifest: a v2p that is a window of a parent .npy (so a recording of a kernel
// that reads v2p[-1] / v2p[-2] replays and is named), strict slice validation, and outputs with
// guard regions compared lane by lane. Every array is written here with hand-computed values.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"

namespace kvaddr::replay {
namespace {

using test_support::fresh_dir;

using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;

using test_support::lane_diff_is;
using test_support::replay_calls;


// Parent allocation {100, 200 | 0, 5, 7, -1}: the v2p view starts at offset 2, so v2p[-1] = 200
// and v2p[-2] = 100.
const I64 kParent = {100, 200, 0, 5, 7, -1};

// A decode_metadata call on one row of `len` tokens at page size ps, max_seq_pages 2, reading
// v2p as {"file": parent, "offset": 2, "size": 4}; the recorded page_table is `table_after`.
// A 32-token req_to_token row whose two ps = 16 page starts hold -17 and -1 (negative tokens).
I64 negative_page_starts() {
  I64 r2t(32, 0);
  r2t[0] = -17;
  r2t[16] = -1;
  return r2t;
}

// One request's inputs in d: the parent v2p, req_to_token row `r2t`, row index 0 and length `len`.
void write_one_request(const std::filesystem::path& d, const I64& r2t, std::int64_t len) {
  write_npy(d / "parent.v2p.npy", NpyDtype::int64, {6}, kParent);
  write_npy(d / "r2t.npy", NpyDtype::int32, {1, static_cast<std::int64_t>(r2t.size())}, r2t);
  write_npy(d / "rows.npy", NpyDtype::int64, {1}, {0});
  write_npy(d / "lens.npy", NpyDtype::int64, {1}, {len});
}

json decode_call(const std::filesystem::path& d, std::int64_t ps, const I64& r2t, std::int64_t len, const I64& table_after,
                 json v2p_entry) {
  write_one_request(d, r2t, len);
  write_npy(d / "cache.before.npy", NpyDtype::int32, {1}, {9});
  write_npy(d / "cache.after.npy", NpyDtype::int32, {1}, {len});
  write_npy(d / "cu.before.npy", NpyDtype::int32, {2}, {9, 9});
  write_npy(d / "cu.after.npy", NpyDtype::int32, {2}, {0, len});
  write_npy(d / "pt.before.npy", NpyDtype::int32, {1, 2}, {9, 9});
  write_npy(d / "pt.after.npy", NpyDtype::int32, {1, 2}, table_after);
  return {{"route", "decode_metadata"},
          {"scalars", {{"page_size", ps}, {"max_seq_pages", 2}}},
          {"inputs",
           {{"seq_lens", "lens.npy"}, {"req_to_token", "r2t.npy"}, {"req_pool_indices", "rows.npy"}, {"v2p", v2p_entry}}},
          {"outputs",
           {{"cache_seqlens", {{"before", "cache.before.npy"}, {"after", "cache.after.npy"}}},
            {"cu_seqlens_k", {{"before", "cu.before.npy"}, {"after", "cu.after.npy"}}},
            {"page_table", {{"before", "pt.before.npy"}, {"after", "pt.after.npy"}}}}}};
}

json slice(std::int64_t offset, std::int64_t size) {
  return {{"file", "parent.v2p.npy"}, {"offset", offset}, {"size", size}};
}

TEST(ReplaySlice, PaddingMinusOneAtPs1ReadsVtwoPMinusOneThroughTheSlice) {
  // ps = 1: token -1 reads v2p[-1] = 200 in the kernel (no padding guard); token 2 reads v2p[2] = 7.
  // Production guards the padding token to v2p[0] = 0, so the recording {200, 7} differs at lane 0.
  const auto d = fresh_dir("ps1");
  const ReplayReport r = replay_calls(d, {decode_call(d, 1, {-1, 2}, 2, {200, 7}, slice(2, 4))});
  ASSERT_EQ(r.calls.size(), 1u);
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 1);
  ASSERT_EQ(c.diffs.size(), 1u);
  EXPECT_EQ(c.diffs[0].output, "page_table");
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {0, 0}, 0, 200));
  EXPECT_EQ(c.diffs[0].region, "");
  // The smallest matching variant; the composite pr33046_as_written is replayed as a claim below.
  EXPECT_EQ(c.matching_variants, (std::vector<std::string>{"b09_no_padding_guard"})) << to_text(r);
  std::filesystem::remove_all(d);
}

TEST(ReplaySlice, MinusSeventeenAtPs16ReadsVtwoPMinusTwo) {
  // ps = 16: -17 >> 4 = -2 reads v2p[-2] = 100; -1 >> 4 = -1 reads v2p[-1] = 200.
  const auto d = fresh_dir("ps16");
  const I64 r2t = negative_page_starts();
  const ReplayReport r = replay_calls(d, {decode_call(d, 16, r2t, 32, {100, 200}, slice(2, 4))});
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 2);
  ASSERT_EQ(c.diffs.size(), 2u);
  EXPECT_EQ(c.diffs[0].recorded, 100);
  EXPECT_EQ(c.diffs[1].recorded, 200);
  EXPECT_EQ(c.diffs[0].expected, 0);
  EXPECT_EQ(c.diffs[1].expected, 0);
  EXPECT_EQ(c.matching_variants, (std::vector<std::string>{"b09_no_padding_guard"})) << to_text(r);
  // The padding precondition of the fa3 shift, named with its row, column and token.
  EXPECT_EQ(c.broken_preconditions,
            (std::vector<std::string>{"row 0 column 0: padding token -17 < 0 (the fa3 shift without the guard reads "
                                      "v2p[-1] or before)"}));
  std::filesystem::remove_all(d);
}

TEST(ReplaySlice, DecodePaddingPreconditionHoldsWithoutNegativeTokens) {
  // The same call with page-start tokens 0 and 16 breaks no precondition (and production is equal).
  const auto d = fresh_dir("ps16_ok");
  I64 r2t(32, 0);
  r2t[16] = 16;  // page 1: v2p[1] = 5
  const ReplayReport r = replay_calls(d, {decode_call(d, 16, r2t, 32, {0, 5}, slice(2, 4))});
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::equal) << c.error << to_text(r);
  EXPECT_TRUE(c.broken_preconditions.empty());
  std::filesystem::remove_all(d);
}

TEST(ReplaySlice, CanonicalTableTruncatingDivisionReadsVtwoPMinusOne) {
  // canonical_page_table at ps = 16 divides toward zero: -17 / 16 = -1 reads v2p[-1] = 200, while
  // -1 / 16 = 0 reads v2p[0] = 0. Production guards the padding token: {0, 0}.
  const auto d = fresh_dir("canonical");
  const I64 r2t = negative_page_starts();
  write_one_request(d, r2t, 32);
  write_npy(d / "out.before.npy", NpyDtype::int32, {1, 2}, {9, 9});
  write_npy(d / "out.after.npy", NpyDtype::int32, {1, 2}, {200, 0});
  const json call = {{"route", "canonical_page_table"},
                     {"scalars", {{"page_size", 16}, {"max_pages", 2}}},
                     {"inputs", {{"req_to_token", "r2t.npy"}, {"req_pool_indices", "rows.npy"}, {"seq_lens", "lens.npy"},
                                 {"v2p", slice(2, 4)}}},
                     {"outputs", {{"out", {{"before", "out.before.npy"}, {"after", "out.after.npy"}}}}}};
  const ReplayReport r = replay_calls(d, {call});
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 1);
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {0, 0}, 0, 200));
  EXPECT_EQ(c.matching_variants, (std::vector<std::string>{"b09_no_padding_guard"})) << to_text(r);
  ASSERT_EQ(c.broken_preconditions.size(), 1u);
  EXPECT_NE(c.broken_preconditions[0].find("row 0 column 0: padding token -17"), std::string::npos)
      << c.broken_preconditions[0];
  std::filesystem::remove_all(d);
}

TEST(ReplaySlice, TheComposedPr33046ClaimReplaysEqual) {
  // The same recording claimed as pr33046_as_written is equal; with one element before the view
  // (offset 1) v2p[-2] is outside the parent and the call is an error, not a crash.
  const auto d = fresh_dir("claim");
  const I64 r2t = negative_page_starts();
  json call = decode_call(d, 16, r2t, 32, {100, 200}, slice(2, 4));
  call["variant"] = "pr33046_as_written";
  write_npy(d / "short.v2p.npy", NpyDtype::int64, {5}, {200, 0, 5, 7, -1});
  json one_before = call;
  one_before["inputs"]["v2p"] = json{{"file", "short.v2p.npy"}, {"offset", 1}, {"size", 4}};
  const ReplayReport r = replay_calls(d, {call, one_before});
  EXPECT_EQ(r.calls[0].status, CallStatus::equal) << r.calls[0].error;
  EXPECT_EQ(r.calls[0].variant, "pr33046_as_written");
  EXPECT_EQ(r.calls[1].status, CallStatus::error);
  EXPECT_NE(r.calls[1].error.find("v2p"), std::string::npos) << r.calls[1].error;
  std::filesystem::remove_all(d);
}

TEST(ReplaySlice, AStandaloneV2pCannotReplayTheReadBeforeIt) {
  // The same ps = 1 recording with a plain v2p file: no variant can read v2p[-1], none matches.
  const auto d = fresh_dir("plain");
  json call = decode_call(d, 1, {-1, 2}, 2, {200, 7}, "v.npy");
  write_npy(d / "v.npy", NpyDtype::int64, {4}, {0, 5, 7, -1});
  const ReplayReport r = replay_calls(d, {call});
  ASSERT_EQ(r.calls[0].status, CallStatus::differs) << r.calls[0].error;
  EXPECT_TRUE(r.calls[0].matching_variants.empty());
  std::filesystem::remove_all(d);
}

TEST(ReplaySlice, SliceBoundsAreCheckedOnBothSides) {
  const auto d = fresh_dir("bounds");
  const auto status_of = [&](json entry) {
    const ReplayReport r = replay_calls(d, {decode_call(d, 1, {2, 2}, 2, {7, 7}, std::move(entry))});
    return r.calls.at(0);
  };
  // offset + size = 6 = the parent's size: accepted (production, equal).
  EXPECT_EQ(status_of(slice(2, 4)).status, CallStatus::equal);
  EXPECT_EQ(status_of(slice(0, 6)).status, CallStatus::differs);  // v2p[2] = 0 there
  // offset + size = 7: one past the parent.
  const CallReport past = status_of(slice(3, 4));
  EXPECT_EQ(past.status, CallStatus::error);
  EXPECT_NE(past.error.find("offset 3 + size 4 is past the parent's 6 elements"), std::string::npos) << past.error;
  EXPECT_EQ(status_of(slice(7, 0)).status, CallStatus::error);
  EXPECT_EQ(status_of(slice(6, 0)).status, CallStatus::error);  // accepted slice, but v2p[2] is then outside
  // offset -1 / 0.
  const CallReport neg = status_of(slice(-1, 4));
  EXPECT_EQ(neg.status, CallStatus::error);
  EXPECT_NE(neg.error.find("offset = -1 is negative"), std::string::npos) << neg.error;
  EXPECT_EQ(status_of(slice(-1, 0)).status, CallStatus::error);
  // Non-integers, missing keys, unknown keys, a 2-D parent, an input "shape".
  for (json bad : {json{{"file", "parent.v2p.npy"}, {"offset", 2.0}, {"size", 4}},
                   json{{"file", "parent.v2p.npy"}, {"offset", "2"}, {"size", 4}},
                   json{{"file", "parent.v2p.npy"}, {"offset", 2}, {"size", true}},
                   json{{"file", "parent.v2p.npy"}, {"offset", 2}},
                   json{{"file", "parent.v2p.npy"}, {"size", 4}},
                   json{{"offset", 2}, {"size", 4}},
                   json{{"file", "parent.v2p.npy"}, {"offset", 2}, {"size", 4}, {"step", 1}},
                   json{{"file", "parent.v2p.npy"}, {"offset", 2}, {"size", 4}, {"stride", 1}},
                   json{{"file", "parent.v2p.npy"}, {"offset", 2}, {"shape", {4}}, {"strides", {-1}}},
                   json{{"file", "parent.v2p.npy"}, {"offset", 2}, {"shape", {3}}, {"strides", {2}}},  // 2 + 2 * 2 = 6: past
                   json{{"file", "parent.v2p.npy"}, {"offset", 2}, {"size", 4}, {"shape", {4}}},
                   json{{"file", "parent.v2p.npy"}, {"offset", std::uint64_t{1} << 63}, {"size", 4}},
                   json{{"file", "r2t.npy"}, {"offset", 0}, {"size", 2}}}) {
    const CallReport c = status_of(bad);
    EXPECT_EQ(c.status, CallStatus::error) << bad.dump();
    EXPECT_NE(c.error.find("v2p"), std::string::npos) << c.error;
  }
  std::filesystem::remove_all(d);
}

// A token_translate call at ps = 1 whose out is the window [G, G + 2) of a parent of 2 + 2G lanes.
json guarded_call(const std::filesystem::path& d, const I64& parent_after, std::int64_t guard) {
  write_npy(d / "ids.npy", NpyDtype::int64, {2}, {1, 2});
  write_npy(d / "v.npy", NpyDtype::int64, {4}, {0, 5, 7, -1});
  const auto n = static_cast<std::int64_t>(parent_after.size());
  write_npy(d / "out.before.npy", NpyDtype::int64, {n}, I64(parent_after.size(), -9));
  write_npy(d / "out.after.npy", NpyDtype::int64, {n}, parent_after);
  return {{"route", "token_translate"},
          {"scalars", {{"page_size", 1}}},
          {"inputs", {{"ids", "ids.npy"}, {"v2p", "v.npy"}}},
          {"outputs", {{"out", {{"before", "out.before.npy"}, {"after", "out.after.npy"}, {"offset", guard}, {"size", 2}}}}}};
}

TEST(ReplayGuards, UntouchedGuardsAreEqualAndCounted) {
  const auto d = fresh_dir("guards_ok");
  const ReplayReport r = replay_calls(d, {guarded_call(d, {-9, -9, 5, 7, -9, -9}, 2)});
  ASSERT_EQ(r.calls[0].status, CallStatus::equal) << r.calls[0].error;
  EXPECT_EQ(r.calls[0].lanes_checked, 6);  // 2 lanes + 4 guard lanes
  std::filesystem::remove_all(d);
}

TEST(ReplayGuards, AWriteIntoAGuardIsADifferenceNamedByItsRegion) {
  const auto d = fresh_dir("guards_hit");
  // Lane 0 of the view and the two guard lanes next to it: out[-1] (guard before) and out[2] (guard after).
  const ReplayReport r = replay_calls(d, {guarded_call(d, {-9, 42, 5, 7, 43, -9}, 2)});
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_checked, 6);
  EXPECT_EQ(c.lanes_differing, 2);
  ASSERT_EQ(c.diffs.size(), 2u);
  EXPECT_EQ(c.diffs[0].region, "guard before");
  EXPECT_EQ(c.diffs[0].flat, -1);
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {-1}, -9, 42));
  EXPECT_EQ(c.diffs[1].region, "guard after");
  EXPECT_EQ(c.diffs[1].flat, 2);
  EXPECT_EQ(c.diffs[1].recorded, 43);
  EXPECT_TRUE(c.matching_variants.empty());  // no route writes outside its buffer
  EXPECT_NE(to_text(r).find("out[-1] (guard before): expected -9, recorded 42"), std::string::npos) << to_text(r);
  const json j = json::parse(to_json(r));
  EXPECT_EQ(j["calls"][0]["diffs"][0]["region"], "guard before");
  std::filesystem::remove_all(d);
}

TEST(ReplayGuards, GuardedOutputBoundsAndShapes) {
  const auto d = fresh_dir("guards_bad");
  json ok = guarded_call(d, {-9, 5, 7, -9}, 1);
  EXPECT_EQ(replay_calls(d, {ok}).calls[0].status, CallStatus::equal);
  json past = ok;
  past["outputs"]["out"]["offset"] = 3;  // 3 + 2 = 5 > 4
  EXPECT_EQ(replay_calls(d, {past}).calls[0].status, CallStatus::error);
  json edge = ok;
  edge["outputs"]["out"]["offset"] = 2;  // 2 + 2 = 4: the view ends at the parent's end
  const CallReport e = replay_calls(d, {edge}).calls[0];
  EXPECT_EQ(e.status, CallStatus::differs);  // view {7, -9} vs expected {5, 7}; guards {-9, 5} were -9
  json shaped = ok;
  shaped["outputs"]["out"]["shape"] = {1, 2};
  EXPECT_EQ(replay_calls(d, {shaped}).calls[0].status, CallStatus::equal);
  shaped["outputs"]["out"]["shape"] = {3};
  EXPECT_EQ(replay_calls(d, {shaped}).calls[0].status, CallStatus::error);
  json neg = ok;
  neg["outputs"]["out"]["offset"] = -1;
  EXPECT_EQ(replay_calls(d, {neg}).calls[0].status, CallStatus::error);
  json no_size = ok;
  no_size["outputs"]["out"].erase("size");
  EXPECT_EQ(replay_calls(d, {no_size}).calls[0].status, CallStatus::error);
  // A slice is given on the output, not on its before / after files one by one.
  json per_file = guarded_call(d, {5, 7}, 0);
  per_file["outputs"]["out"].erase("offset");
  per_file["outputs"]["out"].erase("size");
  EXPECT_EQ(replay_calls(d, {per_file}).calls[0].status, CallStatus::equal);
  per_file["outputs"]["out"]["before"] = json{{"file", "out.before.npy"}, {"offset", 0}, {"size", 2}};
  const CallReport pf = replay_calls(d, {per_file}).calls[0];
  EXPECT_EQ(pf.status, CallStatus::error);
  EXPECT_NE(pf.error.find("before and after must name .npy files"), std::string::npos) << pf.error;
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace kvaddr::replay
