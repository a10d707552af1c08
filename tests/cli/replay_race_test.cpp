// `kvaddr replay DIR --json` on recordings whose rows race (grid_spill spills landing on the same
// lanes): the report's race fields, its exit status, and the text form. Buffers are hand-computed.
#include <gtest/gtest.h>

#ifdef KVADDR_WITH_REPLAY
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/npy.hpp"
#include "run_cli.hpp"

namespace {

using kvaddr::cli_test::run;
using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;
namespace rp = kvaddr::replay;

// canonical_page_table at ps = 1, max_pages 1, a packed [4, 1] table, req_to_token {0, 1, 2 | 3, 4, 5},
// seq_lens {3, 2}, v2p {10, ..., 15}, grid_spill@4 (4 columns per row): row 0 stores 10, 11, 12 at
// lanes 0..2 and row 1 stores 13, 14 at lanes 1, 2, so out[1, 0] may hold 11 or 13 and out[2, 0] 12 or 14.
std::filesystem::path race_dir(const std::string& name, const I64& after, const std::string& variant) {
  const auto d = std::filesystem::temp_directory_path() / ("kvaddr_cli_race_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  rp::write_npy(d / "r2t.npy", rp::NpyDtype::int32, {2, 3}, {0, 1, 2, 3, 4, 5});
  rp::write_npy(d / "rows.npy", rp::NpyDtype::int64, {2}, {0, 1});
  rp::write_npy(d / "lens.npy", rp::NpyDtype::int64, {2}, {3, 2});
  rp::write_npy(d / "v2p.npy", rp::NpyDtype::int64, {6}, {10, 11, 12, 13, 14, 15});
  rp::write_npy(d / "before.npy", rp::NpyDtype::int32, {4, 1}, {-1, -1, -1, -1});
  rp::write_npy(d / "after.npy", rp::NpyDtype::int32, {4, 1}, after);
  const json call = {{"name", "racing spill"},
                     {"route", "canonical_page_table"},
                     {"variant", variant},
                     {"scalars", {{"page_size", 1}, {"max_pages", 1}}},
                     {"inputs",
                      {{"req_to_token", "r2t.npy"}, {"req_pool_indices", "rows.npy"}, {"seq_lens", "lens.npy"},
                       {"v2p", "v2p.npy"}}},
                     {"outputs", {{"out", {{"before", "before.npy"}, {"after", "after.npy"}}}}}};
  std::ofstream(d / "manifest.json") << json{{"calls", {call}}}.dump(2);
  return d;
}

TEST(CliReplayRace, JsonNamesTheContestedLanesTheirRowsAndValues) {
  const auto d = race_dir("json", {10, 11, 14, -1}, "grid_spill@4");
  const auto r = run({"replay", d.string(), "--json"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;  // the recording is one of the claimed variant's outputs
  const json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "kvaddr.replay/1");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["summary"], (json{{"calls", 1}, {"equal", 0}, {"differs", 0}, {"error", 0}, {"race", 1}}));
  const json& c = j["calls"][0];
  EXPECT_EQ(c["status"], "race");
  EXPECT_EQ(c["lanes_differing"], 0);
  const json& race = c["races"][0];
  EXPECT_EQ(race["variant"], "grid_spill@4");
  EXPECT_EQ(race["consistent"], true);
  EXPECT_EQ(race["cells_contested"], 2);
  ASSERT_EQ(race["cells"].size(), 2u);
  EXPECT_EQ(race["cells"][0]["index"], (json{1, 0}));
  EXPECT_EQ(race["cells"][0]["writes"], (json{{{"row", 0}, {"value", 11}}, {{"row", 1}, {"value", 13}}}));
  EXPECT_EQ(race["cells"][0]["possible"], (json{11, 13}));
  EXPECT_EQ(race["cells"][0]["recorded"], 11);
  EXPECT_EQ(race["cells"][1]["index"], (json{2, 0}));
  EXPECT_EQ(race["cells"][1]["writes"], (json{{{"row", 0}, {"value", 12}}, {{"row", 1}, {"value", 14}}}));
  EXPECT_EQ(race["cells"][1]["recorded"], 14);
  EXPECT_EQ(race["cells"][1]["recorded_possible"], true);
  std::filesystem::remove_all(d);
}

TEST(CliReplayRace, AValueNoRowStoresIsADifferenceWithTheRacingStores) {
  const auto d = race_dir("third", {10, 99, 14, -1}, "grid_spill@4");
  const auto r = run({"replay", d.string(), "--json"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  const json j = json::parse(r.out);
  const json& c = j["calls"][0];
  EXPECT_EQ(c["status"], "differs");
  ASSERT_EQ(c["diffs"].size(), 1u);
  EXPECT_EQ(c["diffs"][0]["index"], (json{1, 0}));
  EXPECT_EQ(c["diffs"][0]["recorded"], 99);
  EXPECT_EQ(c["diffs"][0]["writes"], (json{{{"row", 0}, {"value", 11}}, {{"row", 1}, {"value", 13}}}));
  EXPECT_EQ(c["races"][0]["consistent"], false);
  EXPECT_FALSE(j["summary"].contains("race"));
  std::filesystem::remove_all(d);
}

TEST(CliReplayRace, TextNamesAProductionRecordingAsTheSpillUpToARace) {
  const auto d = race_dir("text", {10, 11, 12, -1}, "production");
  const auto r = run({"replay", d.string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("matches variant e01_no_column_bound up to a race, grid_spill up to a race"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("race under e01_no_column_bound, grid_spill: out[1, 0]: row 0 stores 11, row 1 stores 13; "
                       "recorded 11"),
            std::string::npos)
      << r.out;
  std::filesystem::remove_all(d);
}

}  // namespace
#endif
