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

}  // namespace
#endif
