// Races and guard columns in replay. Spilling variants (grid_spill@G, e01_no_column_bound) make two
// rows of the grid store to the same lane; a recording then matches such a variant "up to a race"
// when every contested lane holds one of the values stored to it. Outputs with a row stride have
// guard columns that production never writes. Every buffer below is computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
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
using test_support::contains;

using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;
using Writes = std::vector<RaceWrite>;

using test_support::lane_diff_is;
using test_support::replay_calls;



// v2p = {10, 11, ..., 17} at page size 1: token t has the entry 10 + t.
const I64 kV2p = {10, 11, 12, 13, 14, 15, 16, 17};

// A table call (canonical_page_table or read_table) at ps = 1 whose files are prefixed `tag`.
// out_shape is the recorded buffer's shape ({R, C} packed, or {R * S} with a row stride).
json table_call(const std::filesystem::path& d, const std::string& tag, const std::string& route, std::int64_t max_pages,
                const I64& r2t, I64 r2t_shape, const I64& lens, const I64& out_shape, const I64& before,
                const I64& after) {
  write_npy(d / (tag + ".r2t.npy"), NpyDtype::int32, r2t_shape, r2t);
  I64 rows;
  for (std::size_t i = 0; i < lens.size(); ++i) rows.push_back(static_cast<std::int64_t>(i));
  write_npy(d / (tag + ".rows.npy"), NpyDtype::int64, {static_cast<std::int64_t>(rows.size())}, rows);
  write_npy(d / (tag + ".lens.npy"), NpyDtype::int64, {static_cast<std::int64_t>(lens.size())}, lens);
  write_npy(d / (tag + ".v2p.npy"), NpyDtype::int64, {8}, kV2p);
  write_npy(d / (tag + ".before.npy"), NpyDtype::int32, out_shape, before);
  write_npy(d / (tag + ".after.npy"), NpyDtype::int32, out_shape, after);
  return {{"name", tag},
          {"route", route},
          {"scalars", {{"page_size", 1}, {"max_pages", max_pages}}},
          {"inputs",
           {{"req_to_token", tag + ".r2t.npy"},
            {"req_pool_indices", tag + ".rows.npy"},
            {"seq_lens", tag + ".lens.npy"},
            {"v2p", tag + ".v2p.npy"}}},
          {"outputs", {{"out", {{"before", tag + ".before.npy"}, {"after", tag + ".after.npy"}}}}}};
}

// Two rows of canonical_page_table, max_pages 1, a packed [4, 1] table (rows 2 and 3 are guard
// rows), grid_spill@4: the grid bound is 4 * ceil(1 / 4) = 4 columns. req_to_token = {0, 1, 2 | 3, 4, 5},
// seq_lens = {3, 2}. Row 0 stores 10, 11, 12 at flat lanes 0, 1, 2; row 1 stores 13, 14 at lanes 1, 2.
// Lane 1 = out[1, 0] is row 1's live column and row 0's spill {11, 13}; lane 2 = out[2, 0] is where
// both spills land {12, 14}. The host order leaves {10, 13, 14, -1}.
json overlap_call(const std::filesystem::path& d, const std::string& tag, const I64& after) {
  json c = table_call(d, tag, "canonical_page_table", 1, {0, 1, 2, 3, 4, 5}, {2, 3}, {3, 2}, {4, 1}, {-1, -1, -1, -1}, after);
  return c;
}

// The replay of the overlap call (tag, after) claiming grid_spill on a grid of 4 columns.
ReplayReport replay_overlap(const std::filesystem::path& d, const std::string& tag, const I64& after) {
  json c = overlap_call(d, tag, after);
  c["variant"] = "grid_spill@4";
  return replay_calls(d, {c});
}

TEST(ReplayRace, EitherPossibleValueOfEachContestedLaneIsARaceOfTheClaimedVariant) {
  const auto d = fresh_dir("overlap");
  for (const I64& after : {I64{10, 13, 14, -1}, I64{10, 11, 12, -1}, I64{10, 11, 14, -1}, I64{10, 13, 12, -1}}) {
    const ReplayReport r = replay_overlap(d, "o", after);
    const CallReport& cr = r.calls[0];
    ASSERT_EQ(cr.status, CallStatus::race) << cr.error << to_text(r);
    EXPECT_EQ(cr.lanes_differing, 0);
    EXPECT_EQ(cr.lanes_checked, 4);
    EXPECT_TRUE(r.ok());
    // The claimed variant's race first; the other spilling variants that match follow.
    ASSERT_GE(cr.races.size(), 1u);
    const Race& race = cr.races[0];
    EXPECT_EQ(race.variant, "grid_spill@4");
    EXPECT_TRUE(race.consistent);
    EXPECT_EQ(race.cells_contested, 2);
    ASSERT_EQ(race.cells.size(), 2u);
    EXPECT_EQ(race.cells[0].flat, 1);
    EXPECT_EQ(race.cells[0].index, (I64{1, 0}));
    EXPECT_EQ(race.cells[0].writes, (Writes{{0, 11}, {1, 13}}));
    EXPECT_EQ(race.cells[0].possible, (I64{11, 13}));
    EXPECT_EQ(race.cells[0].recorded, after[1]);
    EXPECT_TRUE(race.cells[0].recorded_possible);
    EXPECT_EQ(race.cells[1].index, (I64{2, 0}));
    EXPECT_EQ(race.cells[1].writes, (Writes{{0, 12}, {1, 14}}));
    EXPECT_EQ(race.cells[1].recorded, after[2]);
  }
  std::filesystem::remove_all(d);
}

TEST(ReplayRace, AThirdValueInAContestedLaneIsAMismatchListingTheRacingStores) {
  const auto d = fresh_dir("third");
  const ReplayReport r = replay_overlap(d, "t", {10, 99, 14, -1});
  const CallReport& cr = r.calls[0];
  ASSERT_EQ(cr.status, CallStatus::differs) << cr.error;
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(cr.lanes_differing, 1);
  ASSERT_EQ(cr.diffs.size(), 1u);
  EXPECT_TRUE(lane_diff_is(cr.diffs[0], {1, 0}, 13, 99));  // the host order: row 1 last
  EXPECT_EQ(cr.diffs[0].writes, (Writes{{0, 11}, {1, 13}}));
  ASSERT_EQ(cr.races.size(), 1u);  // the claimed variant's race, not consistent with the recording
  EXPECT_FALSE(cr.races[0].consistent);
  EXPECT_FALSE(cr.races[0].cells[0].recorded_possible);
  EXPECT_TRUE(cr.races[0].cells[1].recorded_possible);
  EXPECT_TRUE(cr.matching_variants.empty());
  const std::string text = to_text(r);
  EXPECT_NE(text.find("out[1, 0]: a race (row 0 stores 11, row 1 stores 13), recorded 99, none of them"), std::string::npos)
      << text;
  // A lane that is not contested must still match exactly: 15 at out[0, 0].
  json c2 = overlap_call(d, "u", {15, 11, 14, -1});
  c2["variant"] = "grid_spill@4";
  const CallReport u = replay_calls(d, {c2}).calls[0];
  EXPECT_EQ(u.status, CallStatus::differs);
  ASSERT_EQ(u.diffs.size(), 1u);
  EXPECT_TRUE(u.diffs[0].writes.empty());
  EXPECT_EQ(u.diffs[0].expected, 10);
  std::filesystem::remove_all(d);
}

TEST(ReplayRace, AProductionClaimIsNamedAsTheSpillingVariantsUpToARace) {
  const auto d = fresh_dir("named");
  // The recording kept row 0's spill in both lanes: not what the host order gives.
  const ReplayReport r = replay_calls(d, {overlap_call(d, "n", {10, 11, 12, -1})});
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  // Production stops at max_pages: out[1, 0] = 13 (row 1), out[2, 0] untouched.
  EXPECT_EQ(c.lanes_differing, 2);
  EXPECT_EQ(c.diffs[0].expected, 13);
  EXPECT_EQ(c.diffs[1].expected, -1);
  EXPECT_TRUE(c.diffs[0].writes.empty());  // production does not race
  // grid_spill at the upstream block (256) and e01 bound columns by n_pages here (n <= 256).
  EXPECT_TRUE(contains(c.matching_variants, "grid_spill")) << to_text(r);
  EXPECT_TRUE(contains(c.matching_variants, "e01_no_column_bound")) << to_text(r);
  EXPECT_FALSE(contains(c.matching_variants, "production"));
  ASSERT_EQ(c.races.size(), c.matching_variants.size());
  for (const Race& race : c.races) {
    EXPECT_TRUE(race.consistent);
    EXPECT_EQ(race.cells_contested, 2);
  }
  ASSERT_EQ(c.broken_preconditions.size(), 2u);
  EXPECT_EQ(c.broken_preconditions[0], "row 0: n_pages = 3 > max_pages = 1 (KV length 3, page_size 1)");
  const std::string text = to_text(r);
  EXPECT_NE(text.find("matches variant e01_no_column_bound up to a race, grid_spill up to a race"), std::string::npos)
      << text;
  EXPECT_NE(text.find("race under e01_no_column_bound, grid_spill: out[2, 0]: row 0 stores 12, row 1 stores 14; "
                      "recorded 12"),
            std::string::npos)
      << text;
  // A recording that none of the possible outputs gives (a third value) matches no variant.
  const CallReport x = replay_calls(d, {overlap_call(d, "x", {10, 11, 77, -1})}).calls[0];
  EXPECT_EQ(x.status, CallStatus::differs);
  EXPECT_TRUE(x.matching_variants.empty());
  EXPECT_TRUE(x.races.empty());
  std::filesystem::remove_all(d);
}

// read_table, max_pages 2, zero_tail, a packed [3, 2] table (row 2 is a padded row), grid_spill@4
// (bound 4). req_to_token = {0, 1, 2, 3 | 4, 5, 6, 7}.
json read_call(const std::filesystem::path& d, const std::string& tag, const I64& lens, const I64& after) {
  json c = table_call(d, tag, "read_table", 2, {0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, lens, {3, 2}, I64(6, -1), after);
  c["scalars"]["zero_tail"] = true;
  c["variant"] = "grid_spill@4";
  return c;
}

TEST(ReplayRace, ASpillIntoTheNextRowRacesWithItsLiveColumnAndItsZeroTail) {
  const auto d = fresh_dir("next_row");
  // seq_lens {4, 1}: row 0 stores 10, 11, 12, 13 at lanes 0..3; row 1 stores 14 at out[1, 0] and its
  // tail 0 at out[1, 1]; the padded row 2 gets 0, 0. Contested: out[1, 0] {12, 14}, out[1, 1] {13, 0}.
  const ReplayReport r = replay_calls(d, {read_call(d, "a", {4, 1}, {10, 11, 12, 0, 0, 0}),
                                          read_call(d, "b", {4, 1}, {10, 11, 14, 13, 0, 0}),
                                          read_call(d, "c", {4, 1}, {10, 11, 14, 0, 0, 0})});
  for (const CallReport& c : r.calls) {
    ASSERT_EQ(c.status, CallStatus::race) << c.name << ": " << c.error << to_text(r);
    ASSERT_GE(c.races.size(), 1u);
    EXPECT_EQ(c.races[0].variant, "grid_spill@4");
    ASSERT_EQ(c.races[0].cells_contested, 2);
    EXPECT_EQ(c.races[0].cells[0].index, (I64{1, 0}));
    EXPECT_EQ(c.races[0].cells[0].writes, (Writes{{0, 12}, {1, 14}}));
    EXPECT_EQ(c.races[0].cells[1].index, (I64{1, 1}));
    EXPECT_EQ(c.races[0].cells[1].writes, (Writes{{0, 13}, {1, 0}}));
  }
  EXPECT_TRUE(r.ok());
  EXPECT_NE(to_text(r).find("3 calls: 0 equal, 0 differ, 0 error, 3 race"), std::string::npos) << to_text(r);
  // The padded row is deterministic: only the fill stores there.
  const CallReport p = replay_calls(d, {read_call(d, "p", {4, 1}, {10, 11, 14, 0, 0, 5})}).calls[0];
  ASSERT_EQ(p.status, CallStatus::differs);
  EXPECT_EQ(p.diffs[0].index, (I64{2, 1}));
  EXPECT_TRUE(p.diffs[0].writes.empty());
  std::filesystem::remove_all(d);
}

TEST(ReplayRace, ASpillIntoAPaddedRowRacesWithTheZeroTailFill) {
  const auto d = fresh_dir("padded");
  // seq_lens {2, 3}: row 0 stores 10, 11 (no spill); row 1 stores 14, 15 in its row and 16 at out[2, 0],
  // which the padded-row fill also stores 0 to. Host order (the fill last): {10, 11, 14, 15, 0, 0}.
  const ReplayReport r = replay_calls(d, {read_call(d, "q", {2, 3}, {10, 11, 14, 15, 16, 0})});
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::race) << c.error << to_text(r);
  ASSERT_EQ(c.races[0].cells.size(), 1u);
  EXPECT_EQ(c.races[0].cells[0].index, (I64{2, 0}));
  EXPECT_EQ(c.races[0].cells[0].writes, (Writes{{1, 16}, {-1, 0}}));
  EXPECT_NE(to_text(r).find("out[2, 0]: row 1 stores 16, the padded-row fill stores 0; recorded 16"), std::string::npos)
      << to_text(r);
  std::filesystem::remove_all(d);
}

TEST(ReplayRace, SpillsThatNeverShareALaneAreNoRace) {
  const auto d = fresh_dir("no_race");
  // canonical, max_pages 1, [4, 1] table, seq_lens {1, 2}: row 0 stores 10 at lane 0; row 1 stores
  // 13, 14 at lanes 1, 2 (its spill lands in guard row 2). No lane is stored twice: the claimed
  // grid_spill@4 is equal, not a race.
  json c = table_call(d, "s", "canonical_page_table", 1, {0, 1, 2, 3, 4, 5}, {2, 3}, {1, 2}, {4, 1}, {-1, -1, -1, -1},
                      {10, 13, 14, -1});
  c["variant"] = "grid_spill@4";
  const CallReport r = replay_calls(d, {c}).calls[0];
  EXPECT_EQ(r.status, CallStatus::equal) << r.error;
  EXPECT_TRUE(r.races.empty());
  std::filesystem::remove_all(d);
}

// ---- guard columns ------------------------------------------------------------------------------
// canonical_page_table, max_pages 2, a [2, 2] table with row_stride 3 in a parent of 6 lanes:
// lanes 2 and 5 are guard columns (index [0, 2] and [1, 2]). req_to_token = {0, 1, 2 | 3, 4, 5}.
json strided_call(const std::filesystem::path& d, const std::string& tag, const I64& lens, const I64& after) {
  json c = table_call(d, tag, "canonical_page_table", 2, {0, 1, 2, 3, 4, 5}, {2, 3}, lens, {6}, {-1, -1, -9, -1, -1, -9},
                      after);
  c["outputs"]["out"]["offset"] = 0;
  c["outputs"]["out"]["size"] = 6;
  c["outputs"]["out"]["shape"] = {2, 2};
  c["outputs"]["out"]["row_stride"] = 3;
  return c;
}

TEST(ReplayGuardColumns, UntouchedGuardColumnsAreEqualAndCounted) {
  const auto d = fresh_dir("gc_ok");
  // seq_lens {2, 1}: row 0 stores 10, 11; row 1 stores 13.
  const CallReport c = replay_calls(d, {strided_call(d, "g", {2, 1}, {10, 11, -9, 13, -1, -9})}).calls[0];
  EXPECT_EQ(c.status, CallStatus::equal) << c.error;
  EXPECT_EQ(c.lanes_checked, 6);  // 4 table lanes + 2 guard columns
  std::filesystem::remove_all(d);
}

TEST(ReplayGuardColumns, AWriteIntoAGuardColumnIsReportedByRegionAndCell) {
  const auto d = fresh_dir("gc_hit");
  // seq_lens {3, 3}: production writes 2 columns per row; the recording also holds row 0's third
  // column (12) in guard column [0, 2] and row 1's (15) in the last row's guard column [1, 2].
  const ReplayReport r = replay_calls(d, {strided_call(d, "h", {3, 3}, {10, 11, 12, 13, 14, 15})});
  const CallReport& c = r.calls[0];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 2);
  ASSERT_EQ(c.diffs.size(), 2u);
  EXPECT_EQ(c.diffs[0].region, "guard column");
  EXPECT_EQ(c.diffs[0].flat, 2);
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {0, 2}, -9, 12));
  EXPECT_EQ(c.diffs[1].region, "guard column");
  EXPECT_EQ(c.diffs[1].index, (I64{1, 2}));
  EXPECT_EQ(c.diffs[1].recorded, 15);
  // A spill into the guard columns, the last row's included, is what the spilling variants write.
  EXPECT_TRUE(contains(c.matching_variants, "grid_spill")) << to_text(r);
  EXPECT_TRUE(contains(c.matching_variants, "e01_no_column_bound"));
  EXPECT_TRUE(c.races.empty());  // every lane has one writer
  EXPECT_NE(to_text(r).find("out[0, 2] (guard column): expected -9, recorded 12"), std::string::npos) << to_text(r);
  const json j = json::parse(to_json(r));
  EXPECT_EQ(j["calls"][0]["diffs"][1]["region"], "guard column");
  EXPECT_EQ(j["calls"][0]["diffs"][1]["index"], (json{1, 2}));
  // A guard column written with something no variant writes matches nothing.
  const CallReport x = replay_calls(d, {strided_call(d, "x", {2, 1}, {10, 11, 77, 13, -1, -9})}).calls[0];
  EXPECT_EQ(x.status, CallStatus::differs);
  EXPECT_EQ(x.diffs[0].region, "guard column");
  EXPECT_TRUE(x.matching_variants.empty());
  std::filesystem::remove_all(d);
}

TEST(ReplayGuardColumns, ARowStrideInsideAParentKeepsItsGuardRegionsToo) {
  const auto d = fresh_dir("gc_parent");
  // The same table at offset 1 of an 8-lane parent: lane 0 is guard before, lane 7 guard after.
  json c = strided_call(d, "p", {2, 1}, I64(6, 0));
  write_npy(d / "p.before.npy", NpyDtype::int32, {8}, {-7, -1, -1, -9, -1, -1, -9, -7});
  write_npy(d / "p.after.npy", NpyDtype::int32, {8}, {-7, 10, 11, -9, 13, -1, -9, 8});
  c["outputs"]["out"]["offset"] = 1;
  const CallReport r = replay_calls(d, {c}).calls[0];
  ASSERT_EQ(r.status, CallStatus::differs) << r.error;
  EXPECT_EQ(r.lanes_checked, 8);
  ASSERT_EQ(r.diffs.size(), 1u);
  EXPECT_EQ(r.diffs[0].region, "guard after");
  EXPECT_EQ(r.diffs[0].flat, 6);
  std::filesystem::remove_all(d);
}

TEST(ReplayGuardColumns, RowStrideValidation) {
  const auto d = fresh_dir("gc_bad");
  const json ok = strided_call(d, "v", {2, 1}, {10, 11, -9, 13, -1, -9});
  auto status_of = [&](const json& c) { return replay_calls(d, {c}).calls[0]; };
  EXPECT_EQ(status_of(ok).status, CallStatus::equal);
  json narrow = ok;  // row_stride 1 < 2 columns
  narrow["outputs"]["out"]["row_stride"] = 1;
  narrow["outputs"]["out"]["size"] = 2;
  EXPECT_EQ(status_of(narrow).status, CallStatus::error);
  json zero = ok;
  zero["outputs"]["out"]["row_stride"] = 0;
  EXPECT_EQ(status_of(zero).status, CallStatus::error);
  json wrong_size = ok;  // 2 rows * 3 = 6, not 5
  wrong_size["outputs"]["out"]["size"] = 5;
  const CallReport ws = status_of(wrong_size);
  EXPECT_EQ(ws.status, CallStatus::error);
  EXPECT_NE(ws.error.find("rows * row_stride"), std::string::npos) << ws.error;
  json no_shape = ok;
  no_shape["outputs"]["out"].erase("shape");
  EXPECT_EQ(status_of(no_shape).status, CallStatus::error);
  json one_d = ok;
  one_d["outputs"]["out"]["shape"] = {6};
  EXPECT_EQ(status_of(one_d).status, CallStatus::error);
  json not_int = ok;
  not_int["outputs"]["out"]["row_stride"] = "3";
  EXPECT_EQ(status_of(not_int).status, CallStatus::error);
  // row_stride == columns is a packed table written through the stride: accepted.
  json packed = table_call(d, "w", "canonical_page_table", 2, {0, 1, 2, 3, 4, 5}, {2, 3}, {2, 1}, {4}, {-1, -1, -1, -1},
                           {10, 11, 13, -1});
  packed["outputs"]["out"].update({{"offset", 0}, {"size", 4}, {"shape", {2, 2}}, {"row_stride", 2}});
  EXPECT_EQ(status_of(packed).status, CallStatus::equal) << status_of(packed).error;
  // Routes other than the page tables take no row_stride.
  write_npy(d / "ids.npy", NpyDtype::int64, {2}, {0, 1});
  write_npy(d / "tt.npy", NpyDtype::int64, {4}, {-1, -1, -1, -1});
  const json tok = {{"route", "token_translate"},
                    {"scalars", {{"page_size", 1}}},
                    {"inputs", {{"ids", "ids.npy"}, {"v2p", "v.v2p.npy"}}},
                    {"outputs", {{"out", {{"before", "tt.npy"}, {"after", "tt.npy"}, {"offset", 0}, {"size", 4},
                                          {"shape", {2, 2}}, {"row_stride", 2}}}}}};
  const CallReport t = status_of(tok);
  EXPECT_EQ(t.status, CallStatus::error);
  EXPECT_NE(t.error.find("row_stride is only for the tables"), std::string::npos) << t.error;
  std::filesystem::remove_all(d);
}

TEST(ReplayRace, JsonReportFields) {
  const auto d = fresh_dir("json");
  const ReplayReport rep = replay_overlap(d, "j", {10, 11, 14, -1});
  const std::string text = to_text(rep);
  EXPECT_NE(text.find("canonical_page_table (claims grid_spill@4): race (4 lanes; 2 contested, each holds one of its "
                      "possible values)\n"
                      "    race: out[1, 0]: row 0 stores 11, row 1 stores 13; recorded 11\n"
                      "    race: out[2, 0]: row 0 stores 12, row 1 stores 14; recorded 14\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(exit_code(rep), 0);
  const json j = json::parse(to_json(rep));
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["summary"]["race"], 1);
  EXPECT_EQ(j["summary"]["equal"], 0);
  const json& call = j["calls"][0];
  EXPECT_EQ(call["status"], "race");
  ASSERT_GE(call["races"].size(), 1u);
  const json& race = call["races"][0];
  EXPECT_EQ(race["variant"], "grid_spill@4");
  EXPECT_EQ(race["consistent"], true);
  EXPECT_EQ(race["cells_contested"], 2);
  EXPECT_EQ(race["cells"][0]["output"], "out");
  EXPECT_EQ(race["cells"][0]["index"], (json{1, 0}));
  EXPECT_EQ(race["cells"][0]["writes"], (json{{{"row", 0}, {"value", 11}}, {{"row", 1}, {"value", 13}}}));
  EXPECT_EQ(race["cells"][0]["possible"], (json{11, 13}));
  EXPECT_EQ(race["cells"][0]["recorded"], 11);
  EXPECT_EQ(race["cells"][0]["recorded_possible"], true);
  EXPECT_FALSE(race["cells"][0].contains("region"));
  // A report without races has neither "race" in the summary nor "races" on a call.
  const json plain = json::parse(to_json(replay_calls(d, {overlap_call(d, "k", {10, 13, -1, -1})})));
  EXPECT_FALSE(plain["summary"].contains("race"));
  EXPECT_FALSE(plain["calls"][0].contains("races"));
  EXPECT_EQ(plain["calls"][0]["status"], "equal");
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace kvaddr::replay
