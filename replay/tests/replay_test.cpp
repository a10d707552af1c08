// Replay of the committed recorded example (tests/data/replay/example) and of malformed calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "kvaddr/replay/example.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"
#include <nlohmann/json.hpp>

namespace kvaddr::replay {
namespace {

using test_support::fresh_dir;
using test_support::contains;

using json = nlohmann::json;
using test_support::lane_diff_is;
const std::filesystem::path kExample = std::filesystem::path(KVADDR_REPLAY_DATA_DIR) / "example";

using test_support::slurp;



const CallReport& by_route(const ReplayReport& r, const std::string& route, std::size_t nth = 0) {
  for (const auto& c : r.calls) {
    if (c.route == route && nth-- == 0) return c;
  }
  throw std::runtime_error("no call for route " + route);
}


TEST(ReplayExample, EveryRouteIsReplayedAndOnlyTheDeliberateCallsDiffer) {
  const ReplayReport r = replay_dir(kExample);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.calls.size(), 16u);
  std::set<std::string> routes;
  for (const auto& c : r.calls) {
    routes.insert(c.route);
    EXPECT_NE(c.status, CallStatus::error) << c.name << ": " << c.error;
    EXPECT_GT(c.lanes_checked, 0) << c.name;
  }
  EXPECT_EQ(routes.size(), 13u);  // spec §4.1-4.13
  // Token-granular production calls are also recomputed by the independent model.
  for (const char* route : {"token_translate", "write_loc", "swa_translate", "mamba_translate", "dcp_read_translate",
                            "transfer_ids"}) {
    EXPECT_TRUE(by_route(r, route).model_checked) << route;
  }
  EXPECT_FALSE(by_route(r, "read_table").model_checked);
  EXPECT_EQ(r.count(CallStatus::equal), 14u);
  EXPECT_EQ(r.count(CallStatus::differs), 2u);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(exit_code(r), 1);
}

TEST(ReplayExample, UnclampedFlashmlaRecordingMatchesEraBVariant) {
  const ReplayReport r = replay_dir(kExample);
  const CallReport& claimed_b = by_route(r, "flashmla_block_table", 0);
  EXPECT_EQ(claimed_b.status, CallStatus::equal);
  EXPECT_EQ(claimed_b.variant, "era_b_unclamped");  // from flags.clamp_entries = false
  const CallReport c = by_route(r, "flashmla_block_table", 1);
  EXPECT_EQ(c.variant, "production");
  ASSERT_EQ(c.status, CallStatus::differs);
  EXPECT_EQ(c.lanes_differing, 1);
  ASSERT_EQ(c.diffs.size(), 1u);
  // Batch row 0 reads pool row 1, whose first page (token 6, virtual page 3) is a tombstone.
  EXPECT_EQ(c.diffs[0].output, "kv_indices");
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {0, 0}, 0, -3));
  // Other bug variants may explain the same recording as the zoo grows; production never does.
  EXPECT_TRUE(contains(c.matching_variants, "era_b_unclamped"));
  EXPECT_FALSE(contains(c.matching_variants, "production"));
}

TEST(ReplayExample, ReadTableSpillMatchesB10) {
  const ReplayReport r = replay_dir(kExample);
  const CallReport c = by_route(r, "read_table", 1);
  ASSERT_EQ(c.status, CallStatus::differs);
  EXPECT_TRUE(contains(c.matching_variants, "b10_no_max_pages_bound"));
  EXPECT_FALSE(contains(c.matching_variants, "production"));
  // The guard row (row 2, never written by production) was written by the spill.
  ASSERT_FALSE(c.diffs.empty());
  for (const auto& d : c.diffs) {
    EXPECT_EQ(d.index[0], 2);
    EXPECT_EQ(d.expected, 77);
  }
  const std::string text = to_text(r);
  EXPECT_NE(text.find("spilled past max_pages (B10) recorded as production\" read_table (claims production): "
                      "DIFFERS at 2 of 6 lanes; precondition broken at row 0: n_pages = 3 > max_pages = 2 (KV length "
                      "6, page_size 2); precondition broken at row 1: n_pages = 4 > max_pages = 2 (KV length 8, "
                      "page_size 2); matches variant b10_no_max_pages_bound up to a race, e01_no_column_bound up "
                      "to a race, grid_spill up to a race"),
            std::string::npos)
      << text;
  // Row 0's spill (column 2, entry 15) lands on row 1's live out[1, 0], which row 1 stores 12 to:
  // the two programs race there, and the recording holds row 1's value.
  EXPECT_NE(text.find("race under b10_no_max_pages_bound, e01_no_column_bound, grid_spill: out[1, 0]: row 0 stores "
                      "15, row 1 stores 12; recorded 12\n"),
            std::string::npos)
      << text;
  ASSERT_EQ(c.races.size(), 3u);
  for (const Race& race : c.races) {
    EXPECT_TRUE(race.consistent);
    EXPECT_EQ(race.cells_contested, 1);
    ASSERT_EQ(race.cells.size(), 1u);
    EXPECT_EQ(race.cells[0].index, (std::vector<std::int64_t>{1, 0}));
    EXPECT_EQ(race.cells[0].possible, (std::vector<std::int64_t>{12, 15}));
  }
  // Every behaviour that alone reproduces the spill is named; no composite (a larger set) is.
  EXPECT_EQ(c.matching_variants,
            (std::vector<std::string>{"b10_no_max_pages_bound", "e01_no_column_bound", "grid_spill"}));
  EXPECT_EQ(c.broken_preconditions.size(), 2u);
  EXPECT_NE(text.find("matches variant era_b_unclamped"), std::string::npos) << text;
  EXPECT_NE(text.find("16 calls: 14 equal, 2 differ, 0 error"), std::string::npos) << text;
}

TEST(ReplayExample, JsonReport) {
  const json j = json::parse(to_json(replay_dir(kExample)));
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["summary"]["calls"], 16);
  EXPECT_EQ(j["summary"]["differs"], 2);
  const json& c = j["calls"][3];
  EXPECT_EQ(c["route"], "flashmla_block_table");
  EXPECT_EQ(c["status"], "differs");
  EXPECT_EQ(c["diffs"][0]["recorded"], -3);
  EXPECT_EQ(c["diffs"][0]["index"], json::array({0, 0}));
  EXPECT_EQ(c["matching_variants"][0], "era_b_unclamped");
}

TEST(ReplayExample, CommittedExampleIsReproducible) {
  const auto d = fresh_dir("regen");
  write_example(d);
  test_support::expect_same_files(kExample, d);
  std::filesystem::remove_all(d);
}

TEST(ReplayExample, StaleWriteLocTailIsRecognisedAsB06) {
  const auto d = fresh_dir("b06");
  write_example(d);
  // Overwrite the recorded write_loc output with one whose tail [N, out_width) kept its stale value.
  NpyArray after = read_npy(d / "c11.out.after.npy");
  const NpyArray before = read_npy(d / "c11.out.before.npy");
  for (std::size_t i = 5; i < after.values.size(); ++i) after.values[i] = before.values[i];
  write_npy(d / "c11.out.after.npy", NpyDtype::int64, after.shape, after.values);
  const ReplayReport r = replay_dir(d);
  const CallReport c = by_route(r, "write_loc");
  ASSERT_EQ(c.status, CallStatus::differs);
  EXPECT_EQ(c.lanes_differing, 3);
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {5}, 0, 123));
  EXPECT_TRUE(contains(c.matching_variants, "b06_stale_tail"));
  EXPECT_FALSE(contains(c.matching_variants, "production"));
  std::filesystem::remove_all(d);
}

TEST(ReplayExample, ARecordingThatMatchesNoVariantSaysSo) {
  const auto d = fresh_dir("none");
  write_example(d);
  NpyArray after = read_npy(d / "c16.out.after.npy");
  after.values[1] += 1000;
  write_npy(d / "c16.out.after.npy", NpyDtype::int64, after.shape, after.values);
  const ReplayReport r = replay_dir(d);
  const CallReport c = by_route(r, "transfer_ids");
  ASSERT_EQ(c.status, CallStatus::differs);
  EXPECT_TRUE(c.matching_variants.empty());
  EXPECT_NE(to_text(r).find("matches no named variant"), std::string::npos);
  std::filesystem::remove_all(d);
}

// ---- malformed input: per-call errors, the other calls still checked -------------------------
json example_call(std::size_t i) {
  std::ifstream in(kExample / "manifest.json");
  json m = json::parse(in);
  json c = m["calls"][i];
  // Make every file path absolute so the manifest can live elsewhere.
  for (auto& [k, v] : c["inputs"].items()) v = (kExample / v.get<std::string>()).string();
  for (auto& [k, o] : c["outputs"].items()) {
    o["before"] = (kExample / o["before"].get<std::string>()).string();
    o["after"] = (kExample / o["after"].get<std::string>()).string();
  }
  return c;
}

ReplayReport replay_calls(const std::vector<json>& calls) {
  json m = {{"format", "kvaddr-replay"}, {"version", 1}, {"calls", calls}};
  return replay_manifest(m.dump(), kExample, {.allow_outside = true, .search = {}});
}

std::string error_of(json call) {
  const ReplayReport r = replay_calls({std::move(call), example_call(0)});
  EXPECT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[1].status, CallStatus::equal) << "the next call must still be checked";
  EXPECT_EQ(r.calls[0].status, CallStatus::error);
  return r.calls[0].error;
}

TEST(ReplayMalformed, MissingFile) {
  json c = example_call(0);
  c["inputs"]["ids"] = "no_such.npy";
  const std::string e = error_of(c);
  EXPECT_NE(e.find("ids: file = "), std::string::npos) << e;
  EXPECT_NE(e.find("no_such.npy: missing file"), std::string::npos) << e;
}

// The error of example call `i` with its input `key` replaced by `file`.
std::string error_with_input(std::size_t i, const std::string& key, const std::filesystem::path& file) {
  json c = example_call(i);
  c["inputs"][key] = file.string();
  return error_of(c);
}
const std::filesystem::path kNpyData = std::filesystem::path(KVADDR_REPLAY_DATA_DIR) / "npy";

TEST(ReplayMalformed, WrongDtype) {
  const std::string e = error_with_input(0, "v2p", kExample / "pool.req_to_token.npy");  // int32
  EXPECT_NE(e.find("v2p: wrong dtype '<i4' (int32), expected int64"), std::string::npos) << e;
  EXPECT_NE(error_with_input(0, "ids", kNpyData / "f4_1d.npy").find("wrong dtype '<f4'"), std::string::npos);
}

TEST(ReplayMalformed, WrongRank) {
  const std::string e = error_with_input(5, "seq_lens", kExample / "pool.req_to_token.npy");  // read_table
  EXPECT_NE(e.find("seq_lens: wrong shape (3, 8), expected 1-D"), std::string::npos) << e;
}

// numpy.save writes a Fortran-contiguous array (a transposed table) in Fortran order: the same array. The example
// with its req_to_token [3, 8] written that way replays call for call as the example does.
TEST(ReplayExample, AFortranOrderTableReplaysAsItsCOrderCopy) {
  const auto d = fresh_dir("fortran");
  write_example(d);
  const NpyArray c = read_npy(d / "pool.req_to_token.npy");
  ASSERT_EQ(c.shape, (std::vector<std::int64_t>{3, 8}));
  std::vector<std::int64_t> column_major;
  for (std::int64_t j = 0; j < 8; ++j)
    for (std::int64_t i = 0; i < 3; ++i) column_major.push_back(c.values[static_cast<std::size_t>(i * 8 + j)]);
  std::string image = format_npy(NpyDtype::int32, {8, 3}, column_major);  // then the header made Fortran's
  const std::string from = "'fortran_order': False, 'shape': (8, 3)", to = "'fortran_order': True, 'shape': (3, 8)";
  ASSERT_EQ(from.size(), to.size() + 1);
  image.replace(image.find(from), from.size(), to);
  image.insert(image.find('\n'), " ");  // one more space of padding: the header keeps its length
  std::ofstream(d / "pool.req_to_token.npy", std::ios::binary) << image;
  const NpyArray f = read_npy(d / "pool.req_to_token.npy");
  ASSERT_TRUE(f.fortran_order);  // the file is column by column, its array the same
  ASSERT_EQ(f.values, c.values);
  ASSERT_NE(slurp(d / "pool.req_to_token.npy"), format_npy(NpyDtype::int32, {3, 8}, c.values));
  const ReplayReport got = replay_dir(d), want = replay_dir(kExample);
  ASSERT_EQ(got.calls.size(), want.calls.size());
  for (std::size_t i = 0; i < want.calls.size(); ++i) {
    EXPECT_EQ(got.calls[i].status, want.calls[i].status) << i << ": " << got.calls[i].error;
    EXPECT_EQ(got.calls[i].lanes_checked, want.calls[i].lanes_checked) << i;
    EXPECT_EQ(got.calls[i].lanes_differing, want.calls[i].lanes_differing) << i;
  }
  std::filesystem::remove_all(d);
}

TEST(ReplayMalformed, ShapesThatDisagreeWithScalarsOrEachOther) {
  json c = example_call(5);
  c["scalars"]["max_pages"] = 5;  // out has 4 columns
  EXPECT_NE(error_of(c).find("max_pages = 5 but out has 4 columns"), std::string::npos);
  json w = example_call(10);  // write_loc
  w["scalars"]["out_width"] = 6;
  EXPECT_NE(error_of(w).find("out_width = 6 but out has 8 lanes"), std::string::npos);
  json b = example_call(5);
  b["inputs"]["seq_lens"] = (kExample / "c01.ids.npy").string();  // 7 entries vs 2 rows
  EXPECT_NE(error_of(b).find("req_pool_indices has 2 entries but seq_lens has 7"), std::string::npos);
  json o = example_call(0);
  o["outputs"]["out"]["after"] = (kExample / "c16.out.after.npy").string();  // (5,) vs (7,)
  EXPECT_NE(error_of(o).find("before has shape (7,) but after (5,)"), std::string::npos);
}

TEST(ReplayMalformed, UnknownRouteVariantKeyScalarAndMissingScalar) {
  json c = example_call(0);
  c["route"] = "translate_everything";
  EXPECT_NE(error_of(c).find("unknown route 'translate_everything'"), std::string::npos);
  json v = example_call(0);
  v["variant"] = "b10_no_max_pages_bound";
  EXPECT_NE(error_of(v).find("is not a variant of route token_translate"), std::string::npos);
  json v2 = example_call(0);
  v2["variant"] = "b99";
  EXPECT_NE(error_of(v2).find("unknown variant"), std::string::npos);
  json s = example_call(0);
  s["scalars"]["pagesize"] = 2;
  EXPECT_NE(error_of(s).find("unknown scalar 'pagesize'"), std::string::npos);
  json m = example_call(0);
  m["scalars"].erase("page_size");
  EXPECT_NE(error_of(m).find("missing scalar page_size"), std::string::npos);
  json t = example_call(0);
  t["scalars"]["page_size"] = "2";
  EXPECT_NE(error_of(t).find("must be an integer"), std::string::npos);
  json k = example_call(0);
  k["colour"] = "blue";
  EXPECT_NE(error_of(k).find("unknown key 'colour'"), std::string::npos);
  json mo = example_call(0);
  mo["outputs"].erase("out");
  EXPECT_NE(error_of(mo).find("missing output out"), std::string::npos);
}

TEST(ReplayMalformed, EraAndFlagConflicts) {
  json e = example_call(0);
  e["era"] = "D";  // multiplier 3
  EXPECT_NE(error_of(e).find("era D has no kernel page multiplier"), std::string::npos);
  json f = example_call(2);  // flashmla with clamp_entries = false
  f["variant"] = "b09_no_padding_guard";
  EXPECT_NE(error_of(f).find("disagrees with the flags"), std::string::npos);
  json z = example_call(0);
  z["flags"] = {{"tail_policy", "zero_tail"}};
  EXPECT_NE(error_of(z).find("only read_table"), std::string::npos);
}

TEST(ReplayMalformed, ScalarsOutsideTheContractAreReportedByTheRoute) {
  json c = example_call(0);
  c["scalars"]["page_size"] = 0;
  EXPECT_NE(error_of(c).find("page_size = 0"), std::string::npos);
  json d = example_call(10);
  d["scalars"]["dcp_rank"] = 2;
  EXPECT_NE(error_of(d).find("dcp_rank = 2"), std::string::npos);
}

TEST(ReplayMalformed, IdsPastTheTableAreRejectedByTheReference) {
  const auto d = fresh_dir("past");
  write_example(d);
  write_npy(d / "c01.ids.npy", NpyDtype::int64, {7}, {5, 9, -1, 2, 7, 0, 1000});
  const ReplayReport r = replay_dir(d);
  const CallReport& c = r.calls[0];
  EXPECT_EQ(c.status, CallStatus::error);
  EXPECT_NE(c.error.find("rejects this call: v2p = 500"), std::string::npos) << c.error;
  EXPECT_EQ(r.calls[1].status, CallStatus::equal);
  std::filesystem::remove_all(d);
}

TEST(ReplayMalformed, ManifestLevelProblems) {
  const ReplayReport missing = replay_dir("/nonexistent/kvaddr/replay");
  EXPECT_NE(missing.error.find("missing"), std::string::npos);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(to_text(missing).find("ERROR"), std::string::npos);
  const auto d = fresh_dir("badjson");
  std::ofstream(d / "manifest.json") << "{ not json";
  EXPECT_EQ(replay_dir(d).error, "manifest.json = byte 3: not valid JSON");  // the o of "not": the position, never the text
  EXPECT_EQ(replay_dir(d).error_kind, "format");
  std::ofstream(d / "manifest.json", std::ios::trunc) << R"({"calls": 3})";
  EXPECT_NE(replay_dir(d).error.find("\"calls\" array"), std::string::npos);
  std::ofstream(d / "manifest.json", std::ios::trunc) << R"({"version": 3, "calls": []})";
  EXPECT_NE(replay_dir(d).error.find("unsupported manifest version"), std::string::npos);
  std::ofstream(d / "manifest.json", std::ios::trunc) << R"({"calls": [17, {"route": 5}]})";
  const ReplayReport r = replay_dir(d);
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_NE(r.calls[0].error.find("JSON object"), std::string::npos);
  EXPECT_NE(r.calls[1].error.find("missing 'route'"), std::string::npos);
  std::ofstream(d / "manifest.json", std::ios::trunc) << R"({"calls": []})";
  EXPECT_TRUE(replay_dir(d).ok());
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace kvaddr::replay
