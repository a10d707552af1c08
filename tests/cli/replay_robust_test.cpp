// `kvaddr replay` on hostile directories: deep nesting, invalid UTF-8 in the manifest and the
// directory name, files outside DIR (and --allow-outside). The process must not crash and
// --json must stay valid JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "kvaddr/cli/app.hpp"
#ifdef KVADDR_WITH_REPLAY
#include "kvaddr/replay/example.hpp"
#endif

#ifdef KVADDR_WITH_REPLAY
namespace {

struct Result {
  int status;
  std::string out, err;
};
Result run_cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = kvaddr::cli::run(args, out, err);
  return {status, out.str(), err.str()};
}

const std::filesystem::path kExample = std::filesystem::path(KVADDR_TEST_DATA_DIR) / "replay" / "example";

std::filesystem::path copy_example(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(d);
  std::filesystem::copy(kExample, d);
  return d;
}

TEST(CliReplayRobust, DeepManifestIsAnErrorReportNotACrash) {
  const auto d = std::filesystem::temp_directory_path() / "kvaddr_cli_deep";
  std::filesystem::create_directories(d);
  std::ofstream(d / "manifest.json", std::ios::trunc)
      << R"({"version": )" << std::string(100000, '[') << std::string(100000, ']') << R"(, "calls": []})";
  const Result r = run_cli({"replay", d.string(), "--json"});
  EXPECT_EQ(r.status, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["error"].get<std::string>().find("nested deeper"), std::string::npos);
  std::filesystem::remove_all(d);
}

TEST(CliReplayRobust, InvalidUtf8KeepsTheJsonReport) {
  const auto d = copy_example(std::string("kvaddr_cli_utf8_\xff"));
  std::ifstream in(d / "manifest.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("translate_kv_loc_for_kernel"), 9, "bad\xc3\xff name");
  std::ofstream(d / "manifest.json", std::ios::trunc) << text;
  const Result r = run_cli({"replay", d.string(), "--json"});
  EXPECT_EQ(r.status, 1);
  ASSERT_TRUE(nlohmann::json::accept(r.out)) << r.out.substr(0, 300);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"]["calls"], 16);
  EXPECT_EQ(j["summary"]["equal"], 14);
  std::filesystem::remove_all(d);
}

TEST(CliReplayRobust, AllowOutsideFlag) {
  const auto d = copy_example("kvaddr_cli_outside");
  std::ifstream in(d / "manifest.json");
  auto m = nlohmann::json::parse(in);
  m["calls"] = nlohmann::json::array({m["calls"][0]});
  m["calls"][0]["inputs"]["ids"] = (kExample / "c01.ids.npy").string();
  std::ofstream(d / "manifest.json", std::ios::trunc) << m.dump();
  const Result confined = run_cli({"replay", d.string()});
  EXPECT_EQ(confined.status, 1);
  EXPECT_NE(confined.out.find("not a file inside the replay directory"), std::string::npos) << confined.out;
  EXPECT_EQ(run_cli({"replay", d.string(), "--allow-outside"}).status, 0);
  std::filesystem::remove_all(d);
}

// #31: a DIR that is no directory is an error of the argument: exit 2 and a kvaddr.error/1 document.
TEST(CliReplayRobust, NonexistentDirIsAnErrorDocument) {
  for (const std::string& dir : {std::string("/nonexistent/kvaddr/replay"), kExample.string() + "/manifest.json"}) {
    const Result r = run_cli({"replay", dir, "--json"});
    EXPECT_EQ(r.status, 2) << dir;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], "kvaddr.error/1") << r.out;
    EXPECT_EQ(j["error"]["kind"], "io") << r.out;
    EXPECT_EQ(run_cli({"replay", dir}).status, 2);
  }
  // A missing .npy: the call's error kind is io.
  const auto d = copy_example("kvaddr_cli_missing_npy");
  std::filesystem::remove(d / "c01.ids.npy");
  const Result r = run_cli({"replay", d.string(), "--json"});
  EXPECT_EQ(r.status, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["calls"][0]["status"], "error");
  EXPECT_EQ(j["calls"][0]["error_kind"], "io");
  std::filesystem::remove_all(d);
}

// #36: manifest.json as a symbolic link to a file outside DIR is refused, and nothing of that file is
// printed; --allow-outside reads it, and its error names the position only.
TEST(CliReplayRobust, ManifestLinkedOutsideIsRefusedWithoutEchoingIt) {
  const auto root = std::filesystem::temp_directory_path() / "kvaddr_cli_manifest_link";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "rec");
  std::ofstream(root / "secret.txt") << "TOP-SECRET-LINE-1 abcdef\n";
  std::filesystem::create_symlink(root / "secret.txt", root / "rec" / "manifest.json");
  const Result r = run_cli({"replay", (root / "rec").string(), "--json"});
  EXPECT_EQ(r.status, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["error_kind"], "io");
  EXPECT_NE(j["error"].get<std::string>().find("not a file inside the replay directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("TOP-SECRET"), std::string::npos) << r.out;
  const Result allowed = run_cli({"replay", (root / "rec").string(), "--allow-outside"});
  EXPECT_EQ(allowed.status, 1);
  EXPECT_NE(allowed.out.find("manifest.json = byte 0: not valid JSON"), std::string::npos) << allowed.out;
  EXPECT_EQ(allowed.out.find("TOP-SECRET"), std::string::npos) << allowed.out;
  // An input named "../x.npy" is refused; --allow-outside reads it.
  auto m = nlohmann::json::parse(std::ifstream(kExample / "manifest.json"));
  m["calls"] = nlohmann::json::array({m["calls"][0]});
  std::filesystem::remove(root / "rec" / "manifest.json");
  for (const auto& e : std::filesystem::directory_iterator(kExample)) std::filesystem::copy(e.path(), root / "rec");
  std::filesystem::copy(kExample / "c01.ids.npy", root / "x.npy");
  m["calls"][0]["inputs"]["ids"] = "../x.npy";
  std::ofstream(root / "rec" / "manifest.json", std::ios::trunc) << m.dump();
  const Result up = run_cli({"replay", (root / "rec").string()});
  EXPECT_EQ(up.status, 1);
  EXPECT_NE(up.out.find("not a file inside the replay directory"), std::string::npos) << up.out;
  EXPECT_EQ(run_cli({"replay", (root / "rec").string(), "--allow-outside"}).status, 0);
  std::filesystem::remove_all(root);
}

// #36: the "behaves like" search stops at --search-budget and says so, in the text and in --json.
TEST(CliReplayRobust, SearchBudgetStopsTheSearchAndSaysSo) {
  const auto d = std::filesystem::temp_directory_path() / "kvaddr_cli_search_budget";
  std::filesystem::remove_all(d);
  kvaddr::replay::write_large_example(d, 8, 64);
  const Result text = run_cli({"replay", d.string(), "--search-budget", "2"});
  EXPECT_EQ(text.status, 1);
  EXPECT_NE(text.out.find("matches no named variant; search stopped after 2 candidates"), std::string::npos) << text.out;
  const Result j = run_cli({"replay", d.string(), "--json", "--search-budget", "2"});
  EXPECT_EQ(nlohmann::json::parse(j.out)["calls"][0]["search_stopped_after"], 2);
  for (const char* bad : {"0", "-1", "1.5", "x"}) {
    EXPECT_EQ(run_cli({"replay", d.string(), "--search-budget", bad}).status, 2) << bad;
  }
  EXPECT_EQ(run_cli({"replay", d.string(), "--search-seconds", "0"}).status, 2);
  std::filesystem::remove_all(d);
}

// #35: the recordings of the upstream call modes (static pools, canonical source, token-level SWA map) through
// the command line: the correct calls equal, the deliberate ones differing with their named variants.
TEST(CliReplayRobust, CallModeRecordingsReplay) {
  const auto modes = std::filesystem::path(KVADDR_TEST_DATA_DIR) / "replay" / "modes";
  const Result j = run_cli({"replay", modes.string(), "--json"});
  EXPECT_EQ(j.status, 1);  // four deliberate calls differ
  const auto r = nlohmann::json::parse(j.out);
  EXPECT_EQ(r["summary"], (nlohmann::json{{"calls", 11}, {"equal", 7}, {"differs", 4}, {"error", 0}}));
  EXPECT_EQ(r["calls"][7]["matching_variants"], nlohmann::json::array({"e10_batch_index_rows"}));
  EXPECT_EQ(r["calls"][8]["diffs"][0]["output"], "swa_page_table");
  const Result text = run_cli({"replay", modes.string()});
  EXPECT_NE(text.out.find("swa_page_table[1, 3]: expected 0, recorded 20"), std::string::npos) << text.out;
}

}  // namespace
#endif
