// The `kvaddr` command line, driven in-process through kvaddr::cli::run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "kvaddr/cli/app.hpp"
#include "run_cli.hpp"

namespace {

using kvaddr::cli_test::Outcome;
using kvaddr::cli_test::run;

TEST(CliTranslate, HandComputedTokenTranslate) {
  // ps = 4, M = 3 (S = 12), v2p = [0, 5, -1, 2, -1]:
  // t = 5 -> page 1 -> P 5 -> 5*12 + 1 = 61; t = 9 -> page 2 tombstone -> 0; t = 13 -> page 3 -> 2*12+1 = 25;
  // padding -1 -> 0.
  auto r = run({"translate", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids", "5,9,13,-1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "5 -> 61\n9 -> 0\n13 -> 25\n-1 -> 0\n");
}

TEST(CliTranslate, JsonAndInt32Output) {
  auto r = run({"translate", "--page-size", "1", "--multiplier", "24", "--v2p", "0,7,3,-1", "--ids", "1,2,-1", "--int32",
                "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["out"], (std::vector<std::int64_t>{168, 72, 0}));
  EXPECT_EQ(j["route"], "token_translate");
}

TEST(CliTranslate, WriteLocZeroFillsTheWidth) {
  // dcp 2, rank 1: w = 3 (owned, t = 1), w = 4 (rank 0: not owned), w = 0 (padding); width 5.
  // ps = 2, M = 1: t = 1 -> page 0 -> P 0 -> 0*2 + 1 = 1.
  auto r = run({"translate", "--route", "write_loc", "--page-size", "2", "--v2p", "0,3,-1", "--dcp-size", "2",
                "--dcp-rank", "1", "--out-width", "5", "--ids", "3,4,0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3 -> 1\n4 -> 0\n0 -> 0\n(lane 3) -> 0\n(lane 4) -> 0\n");
}

TEST(CliTranslate, BadArgumentsExitTwoWithOneLine) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"translate", "--page-size", "0", "--v2p", "0,-1", "--ids", "1"},
           {"translate", "--page-size", "4", "--v2p", "0,x", "--ids", "1"},
           {"translate", "--page-size", "4", "--v2p", "0,-1", "--route", "nope", "--ids", "1"},
           {"translate", "--page-size", "4", "--v2p", "0,-1", "--variant", "b10_no_max_pages_bound", "--ids", "1"},
           {"translate", "--page-size", "1", "--v2p", "0,-1", "--ids", "7"},
           {"frobnicate"}}) {
    auto r = run(args);
    EXPECT_EQ(r.status, 2) << args[0];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("kvaddr: ", 0), 0u) << r.err;
  }
}

TEST(CliTranslate, ErrorsNameTheArgument) {
  auto r = run({"translate", "--page-size", "0", "--v2p", "0,-1", "--ids", "1"});
  EXPECT_NE(r.err.find("--page-size = 0"), std::string::npos) << r.err;
  r = run({"translate", "--page-size", "1", "--v2p", "0,-1", "--ids", "7"});
  EXPECT_NE(r.err.find("v2p"), std::string::npos) << r.err;
}

TEST(CliVerify, JsonShapeAndVerdict) {
  // One run of the whole quick verify; the table form is checked by CliVerify.TableEndsWithTheVerdict
  // on the JSON-free path of the same checks.
  auto r = run({"verify", "--json", "--quick"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["passed"].is_boolean());
  EXPECT_TRUE(j["passed"].get<bool>());
  ASSERT_TRUE(j["checks"].is_array());
  EXPECT_GT(j["checks"].size(), 20u);
  bool saw_variant = false;
  for (const auto& c : j["checks"]) {
    ASSERT_TRUE(c["name"].is_string());
    ASSERT_TRUE(c["passed"].is_boolean());
    ASSERT_TRUE(c["detail"].is_string());
    EXPECT_TRUE(c["passed"].get<bool>()) << c["name"] << ": " << c["detail"];
    saw_variant = saw_variant || c["name"].get<std::string>().rfind("variant.", 0) == 0;
  }
  EXPECT_TRUE(saw_variant);
}

TEST(CliVerify, TableEndsWithTheVerdict) {
  auto r = run({"verify", "--quick"});
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("PASSED"), std::string::npos);
  EXPECT_EQ(r.out.find("FAIL\n"), std::string::npos);
}

}  // namespace

namespace {

#ifdef KVADDR_WITH_REPLAY
TEST(CliReplay, ShippedExampleReportsTheTwoPlantedBugs) {
  auto r = run({"replay", std::string(KVADDR_TEST_DATA_DIR) + "/replay/example", "--json"});
  EXPECT_EQ(r.status, 1) << r.err;  // two recorded calls carry a bug variant's output
  auto j = nlohmann::json::parse(r.out);
  int differ = 0, equal = 0;
  std::vector<std::string> matched;
  for (const auto& c : j["calls"]) {
    if (c["status"] == "differs") {
      ++differ;
      for (const auto& v : c["matching_variants"]) matched.push_back(v.get<std::string>());
    }
    if (c["status"] == "equal") ++equal;
  }
  EXPECT_EQ(differ, 2);
  EXPECT_EQ(equal, 14);
  EXPECT_NE(std::find(matched.begin(), matched.end(), "era_b_unclamped"), matched.end());
  EXPECT_NE(std::find(matched.begin(), matched.end(), "b10_no_max_pages_bound"), matched.end());
}

TEST(CliReplay, MissingManifestIsAnErrorNotACrash) {
  // A DIR that does not exist is an error of the argument (#31: exit 2); an existing one without
  // manifest.json is a report naming it.
  auto r = run({"replay", std::string(KVADDR_TEST_DATA_DIR) + "/does-not-exist"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no such directory"), std::string::npos) << r.err;
  r = run({"replay", std::string(KVADDR_TEST_DATA_DIR) + "/replay/npy"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("manifest.json"), std::string::npos) << r.out;
}
#endif

#ifdef KVADDR_WITH_KERNELS
TEST(CliDiff, HostOnlyRunsWithoutAGpuAndPrintsJson) {
  auto r = run({"diff", "--host-only", "--cases", "12", "--seed", "7", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["lanes_translated"].get<std::int64_t>(), 0);
}

// A forced variant runs in every case of the route and the report says so (text and JSON); one the route
// does not accept is an error naming --force-variant's argument and value (exit 2), before any case.
TEST(CliDiff, ForcedVariantIsReportedAsRunOrRejected) {
  auto r = run({"diff", "--host-only", "--cases", "6", "--seed", "1", "--force-variant", "int32_lane_offsets",
                "--force-route", "write_loc"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("variants run: int32_lane_offsets 6\n"), std::string::npos) << r.out;
  r = run({"diff", "--host-only", "--cases", "6", "--seed", "1", "--force-variant", "int32_lane_offsets",
           "--force-route", "token_translate", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::int64_t ran = 0;
  for (const auto& [kernel, k] : j["per_kernel"].items()) {
    for (const auto& [variant, n] : k["variants"].items()) {
      EXPECT_EQ(variant, "int32_lane_offsets") << kernel;
      ran += n.get<std::int64_t>();
    }
  }
  EXPECT_EQ(ran, 6);
  r = run({"diff", "--host-only", "--cases", "6", "--force-variant", "int32_lane_offsets", "--force-route",
           "read_table"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("force_variant = int32_lane_offsets"), std::string::npos) << r.err;
}

TEST(CliDiff, BadKernelNameIsRejected) {
  auto r = run({"diff", "--kernel", "nope"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("kernel = nope"), std::string::npos) << r.err;
}
#endif

}  // namespace

namespace {
#ifdef KVADDR_WITH_ZOO
TEST(CliZoo, JsonHasTheIssueShapeAndNoFalseAlarm) {
  auto r = run({"zoo", "--json", "--quiet", "--only", "production", "--only", "b10_no_max_pages_bound"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["production_false_alarms"], 0);
  ASSERT_TRUE(j["variants"].is_array());
  bool saw_b10 = false;
  for (const auto& v : j["variants"]) {
    ASSERT_TRUE(v["name"].is_string());
    ASSERT_TRUE(v["route"].is_string());
    for (const char* kind : {"proofs", "properties", "stateful", "differential", "upstream_grid"}) {
      const auto cell = v["kills"][kind].get<std::string>();
      EXPECT_TRUE(cell == "killed" || cell == "survived" || cell == "n/a" || cell == "skipped") << cell;
    }
    if (v["name"] == "b10_no_max_pages_bound") {
      saw_b10 = true;
#ifdef KVADDR_WITH_PROPS
      EXPECT_EQ(v["kills"]["properties"], "killed");
#else
      EXPECT_EQ(v["kills"]["properties"], "skipped");  // no RapidCheck in this build (the GPU machine)
#endif
    }
  }
  EXPECT_TRUE(saw_b10);
}
#endif
}  // namespace

namespace {
#ifdef KVADDR_WITH_KERNELS
TEST(CliDiff, ForcedVariantMismatchPrintsAReplayLineThatReproducesIt) {
  auto first = run({"diff", "--host-only", "--cases", "5", "--seed", "1", "--force-variant", "e10_batch_index_rows",
                    "--force-route", "read_table", "--json"});
  ASSERT_EQ(first.status, 1) << first.out << first.err;  // the planted bug is killed
  auto j = nlohmann::json::parse(first.out);
  const std::string replay = j["first_mismatch"]["replay"].get<std::string>();
  EXPECT_NE(replay.find("--force-variant e10_batch_index_rows"), std::string::npos) << replay;
  // Run the printed line (without the leading "kvaddr") and get the same first differing lane.
  std::vector<std::string> args;
  std::istringstream words(replay);
  for (std::string w; words >> w;) args.push_back(w);
  ASSERT_EQ(args.front(), "kvaddr");
  args.erase(args.begin());
  args.push_back("--json");
  auto again = run(args);
  ASSERT_EQ(again.status, 1) << again.out << again.err;
  auto k = nlohmann::json::parse(again.out);
  EXPECT_EQ(k["first_mismatch"]["lanes"], j["first_mismatch"]["lanes"]);
}
#endif
}  // namespace

namespace {
#ifdef KVADDR_WITH_PROPS
TEST(CliProps, LifecycleCampaignReportsStepsAndRejectsAnEmptyBudget) {
  auto r = run({"props", "--lifecycle-steps", "2000", "--quiet"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("lifecycle: 2000 steps, 10 runs,", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("steps/s: ok"), std::string::npos) << r.out;
  auto bad = run({"props", "--lifecycle-steps", "-1", "--quiet"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--lifecycle-steps"), std::string::npos) << bad.err;
  EXPECT_NE(run({"props", "--lifecycle-steps", "0", "--quiet"}).status, 0);
}
#endif
}  // namespace
