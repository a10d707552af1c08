// Issue 33 in replay: a claimed variant that raises is a difference to explain (the search runs),
// the inferred decode behaviours are named, and a spill that no catalogue variant reproduces on the
// recorded buffer (past every guard, or up to another grid boundary G) is inferred, confirmed by
// re-execution and printed with its parameters. Every buffer below is computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"

namespace kvaddr::replay {
namespace {

using test_support::fresh_dir;
using test_support::contains;
using test_support::kTwo31;

using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;
using test_support::replay_calls;




// ---- spills past every guard --------------------------------------------------------------------------
// canonical_page_table at ps = 1, max_pages 1, v2p = 10 + t, req_to_token [2, 5] = {0..4 | 3..7}, a
// packed [2, 1] table in a parent with `guard` lanes after it (before: -1 in the view, -7 in the guard).
// Row 0 (len 1) stores 10 at lane 0; row 1 (len 5) stores 13, 14, 15, ... at lanes 1, 2, 3, ... up to its
// grid's column extent.
json spill_call(const std::filesystem::path& d, const std::string& tag, std::int64_t guard, const I64& after) {
  const I64 v2p = {10, 11, 12, 13, 14, 15, 16, 17};
  write_npy(d / (tag + ".r2t.npy"), NpyDtype::int32, {2, 5}, {0, 1, 2, 3, 4, 3, 4, 5, 6, 7});
  write_npy(d / (tag + ".rows.npy"), NpyDtype::int64, {2}, {0, 1});
  write_npy(d / (tag + ".lens.npy"), NpyDtype::int64, {2}, {1, 5});
  write_npy(d / (tag + ".v2p.npy"), NpyDtype::int64, {8}, v2p);
  I64 before = {-1, -1};
  before.resize(static_cast<std::size_t>(2 + guard), -7);
  write_npy(d / (tag + ".before.npy"), NpyDtype::int32, {2 + guard}, before);
  write_npy(d / (tag + ".after.npy"), NpyDtype::int32, {2 + guard}, after);
  return {{"name", tag},
          {"route", "canonical_page_table"},
          {"scalars", {{"page_size", 1}, {"max_pages", 1}}},
          {"inputs",
           {{"req_to_token", tag + ".r2t.npy"},
            {"req_pool_indices", tag + ".rows.npy"},
            {"seq_lens", tag + ".lens.npy"},
            {"v2p", tag + ".v2p.npy"}}},
          {"outputs",
           {{"out",
             {{"before", tag + ".before.npy"},
              {"after", tag + ".after.npy"},
              {"offset", 0},
              {"size", 2},
              {"shape", {2, 1}}}}}}};
}

TEST(ReplayInfer, SpillUpToAnotherGridBoundaryIsInferredWithItsG) {
  // Three guard lanes: the recording shows row 1 storing 14 at lane 2 and stopping there, so its grid
  // ends at column 2: grid_spill@2 (2 * ceil(1 / 2) = 2). The upstream grid (256) would also store 15, 16.
  const auto d = fresh_dir("g2");
  const ReplayReport r = replay_calls(d, {spill_call(d, "g2", 3, {10, 13, 14, -7, -7})});
  ASSERT_EQ(r.calls.size(), 1u);
  const CallReport& c = r.calls[0];
  EXPECT_EQ(c.status, CallStatus::differs) << to_text(r);
  EXPECT_EQ(c.lanes_differing, 1);  // the guard lane after the view
  EXPECT_TRUE(c.matching_variants.empty());
  ASSERT_EQ(c.inferred.size(), 1u) << to_text(r);
  EXPECT_EQ(c.inferred[0].variant, "grid_spill@2");
  EXPECT_EQ(c.inferred[0].description, "spills past max_pages = 1 up to column 2 of the launch grid (column block 2)");
  EXPECT_EQ(c.inferred[0].lanes_explained, 1);
  EXPECT_EQ(c.inferred[0].stores_unrecorded, 0);
  EXPECT_NE(to_text(r).find("inferred: spills past max_pages = 1 up to column 2 of the launch grid (column block 2) "
                            "(claim grid_spill@2; reproduces every recorded lane, the 1 differing ones included)"),
            std::string::npos)
      << to_text(r);
  // Claimed as inferred, the same recording is equal (its run raised on the 2-lane view alone).
  json claimed = spill_call(d, "g2", 3, {10, 13, 14, -7, -7});
  claimed["variant"] = "grid_spill@2";
  const ReplayReport e = replay_calls(d, {claimed});
  EXPECT_EQ(e.calls[0].status, CallStatus::equal) << to_text(e);
  EXPECT_FALSE(e.calls[0].claim_raises.empty());
  // A recording whose lane 3 holds a value no grid stores there is not explained.
  const ReplayReport n = replay_calls(d, {spill_call(d, "g2", 3, {10, 13, 14, 99, -7})});
  EXPECT_TRUE(n.calls[0].inferred.empty());
  EXPECT_NE(n.calls[0].not_explained.find("not explained within the bound"), std::string::npos) << to_text(n);
  EXPECT_NE(to_text(n).find("matches no named variant; not explained within the bound"), std::string::npos);
}

TEST(ReplayInfer, InferenceSpendsWhatTheCallsSearchBudgetLeaves) {
  // The g2 recording: the behaves-like search tries every candidate of the route and finds none; then
  // the inference tries the upstream grid (G = 256), then grid_spill@2, which is confirmed.
  const auto d = fresh_dir("budget");
  const json call = spill_call(d, "g2", 3, {10, 13, 14, -7, -7});
  const std::int64_t searched = test_support::search_candidates(Route::canonical_page_table);
  ReplayOptions o;
  o.search.max_candidates = searched + 2;  // enough for both inference candidates
  const ReplayReport ok = replay_calls(d, {call}, o);
  ASSERT_EQ(ok.calls[0].inferred.size(), 1u) << to_text(ok);
  EXPECT_EQ(ok.calls[0].inferred[0].variant, "grid_spill@2");
  EXPECT_FALSE(ok.calls[0].search_stopped_after.has_value());
  o.search.max_candidates = searched + 1;  // one short: the upstream grid only
  const ReplayReport short1 = replay_calls(d, {call}, o);
  EXPECT_FALSE(short1.calls[0].search_stopped_after.has_value());
  EXPECT_TRUE(short1.calls[0].inferred.empty()) << to_text(short1);
  const std::string budget_text = "the call's search budget: " + std::to_string(searched + 1) + " candidates, 5 s, " +
                                  std::to_string(searched + 1) + " spent)";
  EXPECT_TRUE(short1.calls[0].not_explained.starts_with("not explained within the bound (1 of "))
      << short1.calls[0].not_explained;
  EXPECT_TRUE(short1.calls[0].not_explained.ends_with(budget_text)) << short1.calls[0].not_explained;
  // A budget the behaves-like search spends alone: it says it stopped, and the inference tries nothing.
  o.search.max_candidates = 3;
  const ReplayReport none = replay_calls(d, {call}, o);
  EXPECT_EQ(none.calls[0].search_stopped_after, 3);
  EXPECT_TRUE(none.calls[0].not_explained.starts_with("not explained within the bound (0 of "))
      << none.calls[0].not_explained;
  EXPECT_NE(to_text(none).find("matches no named variant; search stopped after 3 candidates; not explained within "
                               "the bound (0 of "),
            std::string::npos)
      << to_text(none);
  // A wall-clock budget of 0 s: neither search starts a candidate, and the inference says the time bound ended it.
  o.search.max_candidates = kDefaultSearchCandidates;
  o.search.max_seconds = 0;
  const ReplayReport timed = replay_calls(d, {call}, o);
  EXPECT_EQ(timed.calls[0].search_stopped_after, 0);
  EXPECT_NE(timed.calls[0].not_explained.find("(0 of "), std::string::npos) << timed.calls[0].not_explained;
  EXPECT_NE(timed.calls[0].not_explained.find("time bound reached"), std::string::npos) << timed.calls[0].not_explained;
}

TEST(ReplayInfer, LastRowsSpillPastEveryGuardIsInferredAndItsUnrecordedStoresCounted) {
  // Two guard lanes: row 1's spill (columns 1..4, the upstream grid of 256 columns) writes lanes 2, 3
  // in the guard and lanes 4, 5 past the recorded memory. The catalogue's grid_spill raises on the view.
  const auto d = fresh_dir("past");
  const ReplayReport r = replay_calls(d, {spill_call(d, "past", 2, {10, 13, 14, 15})});
  const CallReport& c = r.calls[0];
  EXPECT_EQ(c.status, CallStatus::differs) << to_text(r);
  EXPECT_EQ(c.lanes_differing, 2);
  ASSERT_EQ(c.inferred.size(), 1u) << to_text(r);
  EXPECT_EQ(c.inferred[0].variant, "grid_spill");
  EXPECT_EQ(c.inferred[0].stores_unrecorded, 2);
  EXPECT_EQ(c.inferred[0].description,
            "spills past max_pages = 1 up to column 256 of the launch grid (column block 256); 2 of its stores land "
            "past the recorded memory");
  json claimed = spill_call(d, "past", 2, {10, 13, 14, 15});
  claimed["variant"] = "grid_spill";
  const ReplayReport e = replay_calls(d, {claimed});
  EXPECT_EQ(e.calls[0].status, CallStatus::equal) << to_text(e);
  EXPECT_EQ(e.calls[0].lanes_checked, 4);  // the view and its two guard lanes
  EXPECT_NE(to_text(e).find("equal (4 lanes); on grown memory: spills past max_pages = 1"), std::string::npos)
      << to_text(e);
  const json j = json::parse(to_json(r));
  EXPECT_EQ(j["calls"][0]["inferred"][0]["variant"], "grid_spill");
  EXPECT_EQ(j["calls"][0]["inferred"][0]["stores_unrecorded"], 2);
}

// ---- a claimed variant that raises is a difference ---------------------------------------------------
TEST(ReplayInfer, AClaimThatOverflowsIsSearchedNotAnError) {
  // token_translate, ps 1, M 2: id 1 -> v2p[1] * 2 = 2^31, stored by the kernel as -2^31 in int32.
  const auto d = fresh_dir("wrap");
  write_npy(d / "ids.npy", NpyDtype::int64, {2}, {1, 0});
  write_npy(d / "v2p.npy", NpyDtype::int64, {2}, {0, std::int64_t{1} << 30});
  write_npy(d / "before.npy", NpyDtype::int32, {2}, {5, 5});
  write_npy(d / "after.npy", NpyDtype::int32, {2}, {-kTwo31, 0});
  const json call = {{"route", "token_translate"},
                     {"scalars", {{"page_size", 1}, {"multiplier", 2}}},
                     {"inputs", {{"ids", "ids.npy"}, {"v2p", "v2p.npy"}}},
                     {"outputs", {{"out", {{"before", "before.npy"}, {"after", "after.npy"}}}}}};
  const ReplayReport r = replay_calls(d, {call});
  const CallReport& c = r.calls[0];
  EXPECT_EQ(c.status, CallStatus::differs) << to_text(r);
  EXPECT_EQ(r.count(CallStatus::error), 0u);
  EXPECT_NE(c.claim_raises.find("out"), std::string::npos) << c.claim_raises;
  EXPECT_EQ(c.matching_variants, std::vector<std::string>{"int32_wrap"});
  EXPECT_NE(to_text(r).find("DIFFERS: the claimed variant raises ("), std::string::npos) << to_text(r);
  json claimed = call;
  claimed["variant"] = "int32_wrap";
  EXPECT_EQ(replay_calls(d, {claimed}).calls[0].status, CallStatus::equal);
}

// ---- decode_metadata behaviours ----------------------------------------------------------------------
// One or two decode rows over v2p = 10 + t (ps and max_seq_pages as given), page_table [B, 2] starting
// at 999934797, cache_seqlens / cu_seqlens_k starting at 9.
json decode_call(const std::filesystem::path& d, const std::string& tag, std::int64_t ps, const I64& lens,
                 const I64& r2t, std::int64_t r2t_cols, const I64& cache, const I64& cu, const I64& table) {
  const auto b = static_cast<std::int64_t>(lens.size());
  I64 rows;
  for (std::int64_t i = 0; i < b; ++i) rows.push_back(i);
  write_npy(d / (tag + ".seq.npy"), NpyDtype::int64, {b}, lens);
  write_npy(d / (tag + ".rows.npy"), NpyDtype::int64, {b}, rows);
  write_npy(d / (tag + ".r2t.npy"), NpyDtype::int32, {b, r2t_cols}, r2t);
  write_npy(d / (tag + ".v2p.npy"), NpyDtype::int64, {8}, {10, 11, 12, 13, 14, 15, 16, 17});
  write_npy(d / (tag + ".cache.before.npy"), NpyDtype::int32, {b}, I64(static_cast<std::size_t>(b), 9));
  write_npy(d / (tag + ".cu.before.npy"), NpyDtype::int32, {b + 1}, I64(static_cast<std::size_t>(b + 1), 9));
  write_npy(d / (tag + ".pt.before.npy"), NpyDtype::int32, {b, 2}, I64(static_cast<std::size_t>(2 * b), 999934797));
  write_npy(d / (tag + ".cache.after.npy"), NpyDtype::int32, {b}, cache);
  write_npy(d / (tag + ".cu.after.npy"), NpyDtype::int32, {b + 1}, cu);
  write_npy(d / (tag + ".pt.after.npy"), NpyDtype::int32, {b, 2}, table);
  return {{"name", tag},
          {"route", "decode_metadata"},
          {"scalars", {{"page_size", ps}, {"max_seq_pages", 2}}},
          {"inputs",
           {{"seq_lens", tag + ".seq.npy"},
            {"req_to_token", tag + ".r2t.npy"},
            {"req_pool_indices", tag + ".rows.npy"},
            {"v2p", tag + ".v2p.npy"}}},
          {"outputs",
           {{"cache_seqlens", {{"before", tag + ".cache.before.npy"}, {"after", tag + ".cache.after.npy"}}},
            {"cu_seqlens_k", {{"before", tag + ".cu.before.npy"}, {"after", tag + ".cu.after.npy"}}},
            {"page_table", {{"before", tag + ".pt.before.npy"}, {"after", tag + ".pt.after.npy"}}}}}};
}

// The call claimed production must be named `variant`, and claimed as `variant` be equal.
void expect_named_and_equal(const std::filesystem::path& d, const json& call, const std::string& variant) {
  const ReplayReport r = replay_calls(d, {call});
  EXPECT_EQ(r.count(CallStatus::error), 0u) << to_text(r);
  EXPECT_EQ(r.calls[0].status, CallStatus::differs) << to_text(r);
  EXPECT_TRUE(contains(r.calls[0].matching_variants, variant)) << to_text(r);
  json claimed = call;
  claimed["variant"] = variant;
  const ReplayReport e = replay_calls(d, {claimed});
  EXPECT_EQ(e.calls[0].status, CallStatus::equal) << to_text(e);
}

TEST(ReplayInfer, Int32LengthArithmeticLeavesTheRowStale) {
  // len 2^31 - 1 at ps 2: (len + 1) wraps in int32, no column is written (the stale 999934797 stays);
  // production writes v2p[0], v2p[1] = 10, 11.
  const auto d = fresh_dir("len32");
  expect_named_and_equal(d,
                         decode_call(d, "len32", 2, {kTwo31 - 1}, {0, 1, 2, 3}, 4, {kTwo31 - 1}, {0, kTwo31 - 1},
                                     {999934797, 999934797}),
                         "int32_lengths");
  // seq_len 2^31 + 2: production raises (cache_seqlens does not fit); the search still names it.
  const ReplayReport r = replay_calls(d, {decode_call(d, "wide", 2, {kTwo31 + 2}, {0, 1, 2, 3}, 4, {-kTwo31 + 2},
                                                      {0, -kTwo31 + 2}, {999934797, 999934797})});
  EXPECT_EQ(r.calls[0].status, CallStatus::differs) << to_text(r);
  EXPECT_FALSE(r.calls[0].claim_raises.empty());
  EXPECT_EQ(r.calls[0].matching_variants, std::vector<std::string>{"int32_lengths"}) << to_text(r);
}

TEST(ReplayInfer, FullWidthAndEraDPageTablesAreNamed) {
  const auto d = fresh_dir("width");
  // ps 2, len 2: one live page; the older kernel also writes column 1 (r2t[0, 2] = 2 -> page 1 -> 11).
  expect_named_and_equal(d, decode_call(d, "full", 2, {2}, {0, 1, 2, 3}, 4, {2}, {0, 2}, {10, 11}),
                         "full_width_page_table");
  // ps 1, lens {3, 0}: build_kv_read_table's grid stores row 0's column 2 (12) at page_table[1, 0].
  expect_named_and_equal(
      d, decode_call(d, "erad", 1, {3, 0}, {0, 1, 2, 3, 0, 0, 0, 0}, 4, {3, 0}, {0, 3, 3}, {10, 11, 12, 999934797}),
      "era_d_read_table");
}

TEST(ReplayInfer, EraDSpillOfTheLastRowPastThePageTableIsInferred) {
  // ps 1, max_seq_pages 2, lens {0, 3}: row 1's column 2 (v2p[2] = 12) lands one lane past the [2, 2]
  // page table, in the recorded guard lane after it (before 7).
  const auto d = fresh_dir("erad_past");
  json call = decode_call(d, "e", 1, {0, 3}, {0, 1, 2, 3, 0, 1, 2, 3}, 4, {0, 3}, {0, 0, 3}, {0, 0, 0, 0});
  const I64 pt_before = {999934797, 999934797, 999934797, 999934797, 7};
  write_npy(d / "pt.parent.before.npy", NpyDtype::int32, {5}, pt_before);
  write_npy(d / "pt.parent.after.npy", NpyDtype::int32, {5}, {999934797, 999934797, 10, 11, 12});
  call["outputs"]["page_table"] = {{"before", "pt.parent.before.npy"}, {"after", "pt.parent.after.npy"},
                                   {"offset", 0}, {"size", 4}, {"shape", {2, 2}}};
  const ReplayReport r = replay_calls(d, {call});
  ASSERT_EQ(r.calls[0].status, CallStatus::differs) << to_text(r);
  EXPECT_TRUE(r.calls[0].matching_variants.empty()) << to_text(r);
  ASSERT_EQ(r.calls[0].inferred.size(), 1u) << to_text(r);
  EXPECT_EQ(r.calls[0].inferred[0].variant, "era_d_read_table");
  EXPECT_EQ(r.calls[0].inferred[0].description,
            "page table built by build_kv_read_table: spills past max_seq_pages = 2 up to column 256 of its launch "
            "grid (column block 256)");
}

TEST(ReplayInfer, SwaGatherWithoutPaddingGuardReadsTheSwaMapsParent) {
  // ps 16, one row of 32 tokens starting -17 and -1 (page values -2, -1). The SWA map is the view [2, 6)
  // of the parent {100, 200 | 0, 5, 7, -1}: the unguarded gather stores swa_v2p[-2] = 100, swa_v2p[-1] = 200.
  const auto d = fresh_dir("swa");
  I64 r2t(32, 0);
  r2t[0] = -17;
  r2t[16] = -1;
  write_npy(d / "seq.npy", NpyDtype::int64, {1}, {32});
  write_npy(d / "rows.npy", NpyDtype::int64, {1}, {0});
  write_npy(d / "r2t.npy", NpyDtype::int32, {1, 32}, r2t);
  write_npy(d / "v2p.npy", NpyDtype::int64, {4}, {0, 5, 7, -1});
  write_npy(d / "swa_parent.npy", NpyDtype::int64, {6}, {100, 200, 0, 5, 7, -1});
  write_npy(d / "nine1.npy", NpyDtype::int32, {1}, {9});
  write_npy(d / "nine2.npy", NpyDtype::int32, {2}, {9, 9});
  write_npy(d / "pt.before.npy", NpyDtype::int32, {1, 2}, {9, 9});
  write_npy(d / "cache.after.npy", NpyDtype::int32, {1}, {32});
  write_npy(d / "cu.after.npy", NpyDtype::int32, {2}, {0, 32});
  write_npy(d / "pt.after.npy", NpyDtype::int32, {1, 2}, {0, 0});
  write_npy(d / "swa.after.npy", NpyDtype::int32, {1, 2}, {100, 200});
  const json call = {
      {"route", "decode_metadata"},
      {"scalars", {{"page_size", 16}, {"max_seq_pages", 2}}},
      {"inputs",
       {{"seq_lens", "seq.npy"},
        {"req_to_token", "r2t.npy"},
        {"req_pool_indices", "rows.npy"},
        {"v2p", "v2p.npy"},
        {"swa_v2p", {{"file", "swa_parent.npy"}, {"offset", 2}, {"size", 4}}}}},
      {"outputs",
       {{"cache_seqlens", {{"before", "nine1.npy"}, {"after", "cache.after.npy"}}},
        {"cu_seqlens_k", {{"before", "nine2.npy"}, {"after", "cu.after.npy"}}},
        {"page_table", {{"before", "pt.before.npy"}, {"after", "pt.after.npy"}}},
        {"swa_page_table", {{"before", "pt.before.npy"}, {"after", "swa.after.npy"}}}}}};
  expect_named_and_equal(d, call, "swa_no_padding_guard");
}

// ---- inputs read with another stride -------------------------------------------------------------------
// token_translate at ps 1 over v2p = {10, 11, 12, 13}; `ids` as given, `after` what the kernel wrote.
json ids_call(const std::filesystem::path& d, const json& ids, const I64& after) {
  write_npy(d / "ids_parent.npy", NpyDtype::int64, {6}, {0, 1, 2, 3, 0, 1});
  write_npy(d / "ids.npy", NpyDtype::int64, {2}, {2, 3});
  write_npy(d / "v2p.npy", NpyDtype::int64, {4}, {10, 11, 12, 13});
  write_npy(d / "before.npy", NpyDtype::int64, {2}, {-5, -5});
  write_npy(d / "after.npy", NpyDtype::int64, {2}, after);
  return {{"route", "token_translate"},
          {"scalars", {{"page_size", 1}}},
          {"inputs", {{"ids", ids}, {"v2p", "v2p.npy"}}},
          {"outputs", {{"out", {{"before", "before.npy"}, {"after", "after.npy"}}}}}};
}

TEST(ReplayInfer, AnInputReadPackedOrWithStrideZeroIsInferredAndClaimable) {
  const auto d = fresh_dir("stride");
  // ids recorded as every third element of the parent ({0, 3}); the kernel read them packed ({0, 1}).
  const json strided = {{"file", "ids_parent.npy"}, {"offset", 0}, {"shape", {2}}, {"strides", {3}}};
  const ReplayReport r = replay_calls(d, {ids_call(d, strided, {10, 11})});
  ASSERT_EQ(r.calls[0].status, CallStatus::differs) << to_text(r);
  ASSERT_EQ(r.calls[0].inferred.size(), 1u) << to_text(r);
  EXPECT_EQ(r.calls[0].inferred[0].variant, "stride_ignored(ids)");
  EXPECT_EQ(r.calls[0].inferred[0].description, "reads ids as packed (presented with stride 3)");
  json claimed = ids_call(d, strided, {10, 11});
  claimed["variant"] = "stride_ignored(ids)";
  EXPECT_EQ(replay_calls(d, {claimed}).calls[0].status, CallStatus::equal);
  // The strided recording of a kernel that honoured the stride is equal as recorded.
  EXPECT_EQ(replay_calls(d, {ids_call(d, strided, {10, 13})}).calls[0].status, CallStatus::equal);
  // ids {2, 3} recorded packed; the kernel read ids[0] in every lane.
  const ReplayReport z = replay_calls(d, {ids_call(d, "ids.npy", {12, 12})});
  ASSERT_EQ(z.calls[0].inferred.size(), 1u) << to_text(z);
  EXPECT_EQ(z.calls[0].inferred[0].variant, "stride0(ids)");
  EXPECT_EQ(z.calls[0].inferred[0].description, "reads ids with stride 0 (every lane reads its first element)");
  json zero = ids_call(d, "ids.npy", {12, 12});
  zero["variant"] = "stride0(ids)";
  EXPECT_EQ(replay_calls(d, {zero}).calls[0].status, CallStatus::equal) << to_text(replay_calls(d, {zero}));
  // A stride-0 input recorded as such (every lane reads parent[2]).
  const json zero_slice = {{"file", "ids_parent.npy"}, {"offset", 2}, {"shape", {2}}, {"strides", {0}}};
  EXPECT_EQ(replay_calls(d, {ids_call(d, zero_slice, {12, 12})}).calls[0].status, CallStatus::equal);
}

TEST(ReplayInfer, ImpossibleStrideClaimsAreErrorsNamingTheClaim) {
  const auto d = fresh_dir("stride_bad");
  for (const auto& [variant, message] :
       std::vector<std::pair<std::string, std::string>>{
           {"stride0(page_size)", "claim stride0(page_size): page_size is a 0-d scalar (it has no stride)"},
           {"stride0(loc)", "claim stride0(loc): loc is not an input of this call"},
           {"stride_ignored(ids)", "claim stride_ignored(ids): ids is recorded packed (no stride to ignore)"},
           {"stride0()", "claim 'stride0()': name one input, as stride0(NAME)"},
           {"stride0(ids)+stride_ignored(ids)", "input ids is re-presented twice"}}) {
    json call = ids_call(d, "ids.npy", {12, 13});
    call["variant"] = variant;
    const ReplayReport r = replay_calls(d, {call});
    EXPECT_EQ(r.calls[0].status, CallStatus::error) << variant;
    EXPECT_NE(r.calls[0].error.find(message), std::string::npos) << r.calls[0].error;
  }
  // A stride whose last element is the parent's last one is inside (2 + 1 * 3 = 5 of 6): ids {2, 1}.
  const json edge = {{"file", "ids_parent.npy"}, {"offset", 2}, {"shape", {2}}, {"strides", {3}}};
  EXPECT_EQ(replay_calls(d, {ids_call(d, edge, {12, 11})}).calls[0].status, CallStatus::equal);
}

}  // namespace
}  // namespace kvaddr::replay
