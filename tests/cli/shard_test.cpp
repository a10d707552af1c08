// Shards of a campaign (`--shard i/n`) and `kvaddr merge` (cli/src/shard.hpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "kvaddr/cli/app.hpp"
#include "run_cli.hpp"
#include "kvaddr/model/errors.hpp"
#include "shard.hpp"

namespace {

using json = nlohmann::json;
using kvaddr::cli::merge_reports;
using kvaddr::cli::parse_shard;
using kvaddr::cli::Shard;
using kvaddr::cli::shard_slice;

using kvaddr::cli_test::Outcome;
using kvaddr::cli_test::run;

json run_json(std::vector<std::string> args, int want_status = 0) {
  args.push_back("--json");
  const auto r = run(args);
  EXPECT_EQ(r.status, want_status) << r.out << r.err;
  return json::parse(r.out);
}

// The InvalidArgument message of merge_reports, or "" when it merged.
std::string merge_error(const std::vector<json>& docs) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < docs.size(); ++i) names.push_back("shard" + std::to_string(i) + ".json");
  try {
    merge_reports(docs, names);
  } catch (const kvaddr::InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(Shard, ParseAcceptsExactlyZeroToNMinusOne) {
  EXPECT_EQ(parse_shard("0/1").index, 0);
  EXPECT_EQ(parse_shard("0/1").count, 1);
  EXPECT_EQ(parse_shard("2/3").index, 2);
  EXPECT_EQ(parse_shard("2/3").count, 3);
  EXPECT_EQ(parse_shard("2147483647/2147483648").index, 2147483647);
  for (const char* bad : {"1/1", "3/3", "-1/2", "0/0", "0/-1", "a/2", "1", "1/2/3", "/2", "1/", "0/2147483649",
                          "1/2x", " 1/2", "0x1/2"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const kvaddr::InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "--shard") << bad;
      EXPECT_EQ(e.value(), bad);
    }
  }
}

TEST(Shard, SliceIsRoundRobin) {
  const std::vector<std::string> items{"a", "b", "c", "d", "e"};
  EXPECT_EQ(shard_slice(items, Shard{0, 2}), (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_EQ(shard_slice(items, Shard{1, 2}), (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(shard_slice(items, Shard{4, 5}), (std::vector<std::string>{"e"}));
  EXPECT_TRUE(shard_slice(items, Shard{5, 7}).empty());
  EXPECT_EQ(shard_slice(items, Shard{0, 1}), items);
}

TEST(Shard, CliRejectsBadShardWithNamedJsonError) {
#ifndef KVADDR_WITH_PROPS
  GTEST_SKIP() << "`kvaddr props` is not built without RapidCheck (librapidcheck-dev): its --shard parsing is not reachable";
#endif
  auto j = run_json({"props", "--shard", "2/2"}, 2);
  EXPECT_EQ(j["schema"], "kvaddr.error/1");
  EXPECT_EQ(j["error"]["argument"], "--shard");
  EXPECT_EQ(j["error"]["value"], "2/2");
  EXPECT_EQ(run({"props", "--shard", "1/0"}).status, 2);
#ifdef KVADDR_WITH_PROPS
  auto life = run_json({"props", "--lifecycle-steps", "10", "--shard", "2/2"}, 2);
  EXPECT_EQ(life["error"]["argument"], "--shard");
  EXPECT_EQ(run_json({"props", "--lifecycle-steps", "10", "--shard", "1/2"})["schema"], "kvaddr.lifecycle/1");
#endif
}

// Hand-written diff shard reports (CI has no GPU): shard i of 2, each with its own first mismatch.
json diff_shard(int index, int count, std::int64_t cases, std::int64_t lanes, std::int64_t mismatch_case) {
  json j{{"schema", "kvaddr.diff/1"}, {"skipped", false}, {"seed", 9}, {"cases_run", cases},
         {"lanes_translated", lanes}, {"lanes_compared", 3 * lanes}, {"model_lanes_compared", lanes},
         {"campaign", {{"cases", 10}, {"first_case", 0}}},
         {"per_kernel", {{"read_table", {{"cases", cases}, {"lanes", lanes}}}, {"write_loc", {{"cases", 0}, {"lanes", 0}}}}}};
  j["shard"] = {{"index", index}, {"count", count}};
  if (mismatch_case >= 0) {
    j["ok"] = false;
    j["first_mismatch"] = {{"case_index", mismatch_case}, {"kernel", "read_table"},
                           {"replay", "kvaddr diff --seed 9 --first-case " + std::to_string(mismatch_case) + " --cases 1"}};
  } else {
    j["ok"] = true;
    j["first_mismatch"] = nullptr;
  }
  return j;
}

TEST(Merge, DiffFixturesKeepEveryMismatchWithItsReplayLine) {
  const auto merged = merge_reports({diff_shard(1, 2, 4, 100, 7), diff_shard(0, 2, 3, 50, 4)}, {"b", "a"});
  EXPECT_EQ(merged["schema"], "kvaddr.diff/1");
  EXPECT_FALSE(merged.contains("shard"));
  EXPECT_EQ(merged["cases_run"], 7);
  EXPECT_EQ(merged["lanes_translated"], 150);
  EXPECT_EQ(merged["lanes_compared"], 450);
  EXPECT_EQ(merged["model_lanes_compared"], 150);
  EXPECT_EQ(merged["per_kernel"]["read_table"]["cases"], 7);
  EXPECT_EQ(merged["per_kernel"]["read_table"]["lanes"], 150);
  EXPECT_EQ(merged["per_kernel"]["write_loc"]["cases"], 0);
  EXPECT_EQ(merged["ok"], false);
  EXPECT_EQ(merged["first_mismatch"]["case_index"], 4);
  ASSERT_EQ(merged["mismatches"].size(), 2u);
  EXPECT_EQ(merged["mismatches"][0]["replay"], "kvaddr diff --seed 9 --first-case 4 --cases 1");
  EXPECT_EQ(merged["mismatches"][1]["replay"], "kvaddr diff --seed 9 --first-case 7 --cases 1");
}

TEST(Merge, DiffFixturesPassingShardsMergeToOk) {
  const auto merged = merge_reports({diff_shard(0, 2, 5, 10, -1), diff_shard(1, 2, 5, 20, -1)}, {"a", "b"});
  EXPECT_EQ(merged["ok"], true);
  EXPECT_TRUE(merged["first_mismatch"].is_null());
  EXPECT_FALSE(merged.contains("mismatches"));
  EXPECT_EQ(merged["cases_run"], 10);
}

TEST(Merge, DiffRejectionsOnBothSides) {
  const auto a = diff_shard(0, 2, 5, 10, -1), b = diff_shard(1, 2, 5, 20, -1);
  EXPECT_EQ(merge_error({a, b}), "");
  EXPECT_NE(merge_error({a, a}).find("overlap: shard 0"), std::string::npos) << merge_error({a, a});
  EXPECT_NE(merge_error({a}).find("missing shard(s) 1 of 2"), std::string::npos) << merge_error({a});
  EXPECT_NE(merge_error({b}).find("missing shard(s) 0 of 2"), std::string::npos);
  auto seed = b;
  seed["seed"] = 10;
  EXPECT_NE(merge_error({a, seed}).find("seed mismatch"), std::string::npos);
  auto schema = b;
  schema["schema"] = "kvaddr.props/1";
  EXPECT_NE(merge_error({a, schema}).find("schema mismatch"), std::string::npos);
  auto other = b;
  other["schema"] = "kvaddr.bench/1";
  EXPECT_NE(merge_error({a, other}).find("schema mismatch"), std::string::npos);
  auto campaign = b;
  campaign["campaign"]["cases"] = 11;
  EXPECT_NE(merge_error({a, campaign}).find("campaign mismatch"), std::string::npos);
  auto count = b;
  count["shard"]["count"] = 3;
  EXPECT_NE(merge_error({a, count}).find("shard count mismatch"), std::string::npos);
  auto skipped = b;
  skipped["skipped"] = true;
  EXPECT_NE(merge_error({a, skipped}).find("was skipped"), std::string::npos);
  auto skipped_a = a;
  skipped_a["skipped"] = true;
  EXPECT_EQ(merge_error({skipped_a, skipped}), "");  // nothing ran anywhere: a skipped report
  auto bad_index = b;
  bad_index["shard"]["index"] = 2;
  EXPECT_NE(merge_error({a, bad_index}), "");
  EXPECT_NE(merge_error({}), "");
  EXPECT_NE(merge_error({json{{"seed", 9}}}).find("no \"schema\""), std::string::npos);
}

json props_shard(int index, int count, std::vector<std::string> names, std::uint64_t seed = 5) {
  json props = json::array();
  for (const auto& n : names) props.push_back({{"name", n}, {"cases", 3}, {"passed", n != "failing"}});
  json j{{"schema", "kvaddr.props/1"}, {"seed", seed}, {"properties", props}, {"stateful_steps", 4 * index},
         {"total_cases", 3 * static_cast<int>(names.size())}, {"seconds", 0.5}, {"campaign", {{"cases", 3}}}};
  j["shard"] = {{"index", index}, {"count", count}};
  return j;
}

TEST(Merge, WrongFieldTypesAreNamedErrors) {
  const auto a = diff_shard(0, 2, 5, 10, -1), b = diff_shard(1, 2, 5, 20, 3);
  auto cases = b;
  cases["cases_run"] = "5";
  EXPECT_NE(merge_error({a, cases}).find("\"cases_run\" must be an integer"), std::string::npos);
  auto kernels = b;
  kernels["per_kernel"]["read_table"]["lanes"] = 1.5;
  EXPECT_NE(merge_error({a, kernels}).find("per_kernel"), std::string::npos);
  auto mismatch = b;
  mismatch["first_mismatch"]["case_index"] = "3";
  EXPECT_NE(merge_error({a, mismatch}).find("case_index"), std::string::npos);
  auto shard = b;
  shard["shard"] = "1/2";
  EXPECT_NE(merge_error({a, shard}).find("\"shard\" must be"), std::string::npos);
  const auto p0 = props_shard(0, 2, {"p0"}), p1 = props_shard(1, 2, {"p1"});
  auto props = p1;
  props["properties"] = "p1";
  EXPECT_NE(merge_error({p0, props}).find("\"properties\" must be an array"), std::string::npos);
  auto entries = p1;
  entries["properties"] = json::array({1});
  EXPECT_NE(merge_error({p0, entries}).find("array of objects"), std::string::npos);
  auto seconds = p1;
  seconds["seconds"] = "0.5";
  EXPECT_NE(merge_error({p0, seconds}).find("\"seconds\" must be a number"), std::string::npos);
  auto passed = p1;
  passed["properties"][0]["passed"] = "yes";  // not true: the merged campaign did not pass
  EXPECT_EQ(merge_reports({p0, passed}, {"a", "b"})["passed"], false);
  EXPECT_EQ(merge_reports({p0, p1}, {"a", "b"})["passed"], true);
}

TEST(Merge, PropsFixturesInterleaveRoundRobin) {
  const auto merged =
      merge_reports({props_shard(0, 3, {"p0", "p3"}), props_shard(2, 3, {"failing"}), props_shard(1, 3, {"p1"})},
                    {"a", "c", "b"});
  ASSERT_EQ(merged["properties"].size(), 4u);
  EXPECT_EQ(merged["properties"][0]["name"], "p0");
  EXPECT_EQ(merged["properties"][1]["name"], "p1");
  EXPECT_EQ(merged["properties"][2]["name"], "failing");
  EXPECT_EQ(merged["properties"][3]["name"], "p3");
  EXPECT_EQ(merged["total_cases"], 12);
  EXPECT_EQ(merged["stateful_steps"], 12);  // 0 + 4 + 8
  EXPECT_DOUBLE_EQ(merged["seconds"].get<double>(), 1.5);
  EXPECT_EQ(merged["passed"], false);
  EXPECT_FALSE(merged.contains("shard"));
}

TEST(Merge, PropsRejectionsOnBothSides) {
  const auto a = props_shard(0, 2, {"p0", "p2"}), b = props_shard(1, 2, {"p1"});
  EXPECT_EQ(merge_error({a, b}), "");
  EXPECT_NE(merge_error({a, a}).find("overlap"), std::string::npos);
  EXPECT_NE(merge_error({a}).find("missing shard(s) 1 of 2"), std::string::npos);
  EXPECT_NE(merge_error({a, props_shard(1, 2, {"p1"}, 6)}).find("seed mismatch"), std::string::npos);
  EXPECT_NE(merge_error({a, diff_shard(1, 2, 1, 1, -1)}).find("schema mismatch"), std::string::npos);
  // Shard 1 of 2 cannot hold more properties than shard 0 under round-robin.
  EXPECT_NE(merge_error({props_shard(0, 2, {"p0"}), props_shard(1, 2, {"p1", "p3"})}).find("round-robin"),
            std::string::npos);
}

std::string write_temp(const std::string& name, const json& j) {
  const auto path = std::filesystem::temp_directory_path() / ("kvaddr_shard_test_" + name);
  std::ofstream(path) << j.dump();
  return path.string();
}

TEST(Merge, CommandExitStatusAndFileErrors) {
  const auto a = write_temp("a.json", diff_shard(0, 2, 5, 10, -1));
  const auto b = write_temp("b.json", diff_shard(1, 2, 5, 20, -1));
  const auto bad = write_temp("bad.json", diff_shard(1, 2, 5, 20, 3));
  auto ok = run({"merge", a, b});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(json::parse(ok.out)["cases_run"], 10);
  EXPECT_EQ(run({"merge", a, bad}).status, 1);
  auto missing = run_json({"merge", a}, 2);
  EXPECT_EQ(missing["schema"], "kvaddr.error/1");
  auto nofile = run_json({"merge", a, "/nonexistent/kvaddr.json"}, 2);
  EXPECT_EQ(nofile["error"]["argument"], "/nonexistent/kvaddr.json");
  const auto text = std::filesystem::temp_directory_path() / "kvaddr_shard_test_text.json";
  std::ofstream(text) << "not json";
  EXPECT_EQ(run({"merge", a, text.string()}).status, 2);
  EXPECT_EQ(run({"merge"}).status, 2);
}

#ifdef KVADDR_WITH_KERNELS
std::vector<std::string> diff_line(const std::string& shard) {
  std::vector<std::string> line{"diff", "--host-only", "--cases", "12", "--first-case", "5", "--seed", "7",
                                "--case-lanes", "4096"};
  if (!shard.empty()) line.insert(line.end(), {"--shard", shard});
  return line;
}

TEST(Merge, HostOnlyDiffShardsMergeToTheUnshardedReport) {
  const auto whole = run_json(diff_line(""));
  std::vector<json> shards;
  std::int64_t cases = 0;
  for (int i = 0; i < 3; ++i) {
    shards.push_back(run_json(diff_line(std::to_string(i) + "/3")));
    cases += shards.back()["cases_run"].get<std::int64_t>();
  }
  // Case indices 5..16: k mod 3 == 0 -> 6, 9, 12, 15; == 1 -> 7, 10, 13, 16; == 2 -> 5, 8, 11, 14.
  EXPECT_EQ(shards[0]["cases_run"], 4);
  EXPECT_EQ(shards[1]["cases_run"], 4);
  EXPECT_EQ(shards[2]["cases_run"], 4);
  EXPECT_EQ(cases, 12);
  EXPECT_EQ(whole["cases_run"], 12);
  EXPECT_EQ(merge_reports({shards[2], shards[0], shards[1]}, {"c", "a", "b"}), whole);
  // Unequal slices: 12 cases in 5 shards.
  EXPECT_EQ(run_json(diff_line("4/5"))["cases_run"], 2);  // 9, 14
  EXPECT_EQ(run_json(diff_line("0/5"))["cases_run"], 3);  // 5, 10, 15
}

TEST(Shard, DiffShardOptionsRejectedOnBothSides) {
  auto lanes = run_json({"diff", "--host-only", "--shard", "1/2", "--min-lanes", "5"}, 2);
  EXPECT_EQ(lanes["error"]["argument"], "--min-lanes");
  EXPECT_EQ(run({"diff", "--host-only", "--cases", "2", "--shard", "1/1"}).status, 2);
  EXPECT_EQ(run({"diff", "--host-only", "--cases", "2", "--shard", "0/1", "--min-lanes", "5"}).status, 0);
  auto devices = run_json({"diff", "--host-only", "--devices", "--cases", "2"}, 2);
  EXPECT_EQ(devices["error"]["argument"], "--devices");
}
#endif

#ifdef KVADDR_WITH_PROPS
TEST(Merge, PropsShardsMergeToTheUnshardedReport) {
  const std::vector<std::string> base{"props", "--cases", "4", "--stateful-runs", "2", "--seed", "11",
                                      "--only", "token_translate_vs_model", "--only", "stateful_pool"};
  auto whole = run_json(base);
  auto line0 = base, line1 = base;
  line0.insert(line0.end(), {"--shard", "0/2"});
  line1.insert(line1.end(), {"--shard", "1/2"});
  auto s0 = run_json(line0), s1 = run_json(line1);
  ASSERT_EQ(s0["properties"].size(), 1u);
  ASSERT_EQ(s1["properties"].size(), 1u);
  EXPECT_EQ(s0["shard"], (json{{"index", 0}, {"count", 2}}));
  auto merged = merge_reports({s1, s0}, {"b", "a"});
  whole.erase("seconds");
  merged.erase("seconds");
  EXPECT_EQ(merged, whole);
  // A shard past the number of properties runs nothing and still merges.
  auto line5 = base;
  line5.insert(line5.end(), {"--shard", "2/3"});
  EXPECT_EQ(run_json(line5)["properties"].size(), 0u);
}
#endif

// Runs `base` unsharded and in `n` shards (--shard i/n, each to its own --out file, merged by
// `kvaddr merge`); returns {unsharded, merged} with the timing fields `drop` removed.
std::pair<json, json> whole_and_merged(const std::vector<std::string>& base, int n,
                                       const std::vector<std::string>& drop) {
  auto whole = run_json(base);
  std::vector<std::string> merge_line{"merge"};
  for (int i = 0; i < n; ++i) {
    const auto file = std::filesystem::temp_directory_path() /
                      ("kvaddr_shard_test_" + base[0] + std::to_string(::getpid()) + "_" + std::to_string(i) + ".json");
    auto line = base;
    line.insert(line.end(), {"--shard", std::to_string(i) + "/" + std::to_string(n), "--json", "--out", file.string()});
    const auto r = run(line);
    EXPECT_LE(r.status, 1) << r.out << r.err;
    EXPECT_EQ(r.out, "");  // the report went to the file
    merge_line.push_back(file.string());
  }
  merge_line.push_back("--json");
  const auto m = run(merge_line);
  EXPECT_LE(m.status, 1) << m.out;
  auto merged = json::parse(m.out);
  for (std::size_t f = 1; f + 1 < merge_line.size(); ++f) std::filesystem::remove(merge_line[f]);
  for (const auto& key : drop) {
    const auto ptr = json::json_pointer(key);
    for (json* doc : {&whole, &merged})
      if (doc->contains(ptr)) (*doc)[ptr] = nullptr;
  }
  return {whole, merged};
}

TEST(Merge, OutFileIsWrittenWholeAndReplacedAtomically) {
  const auto dir = std::filesystem::temp_directory_path() / ("kvaddr_shard_out_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto a = write_temp("oa.json", diff_shard(0, 2, 5, 10, -1));
  const auto b = write_temp("ob.json", diff_shard(1, 2, 5, 20, -1));
  const auto out = (dir / "merged.json").string();
  auto r = run({"merge", a, b, "--out", out});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
  std::ifstream first(out);
  EXPECT_EQ(json::parse(first)["cases_run"], 10);
  // A second run replaces the file; a failing one (missing shard) leaves it as it was.
  const auto c = write_temp("oc.json", diff_shard(1, 2, 7, 20, -1));
  EXPECT_EQ(run({"merge", a, c, "--out", out}).status, 0);
  EXPECT_EQ(json::parse(std::ifstream(out))["cases_run"], 12);
  auto failed = run({"merge", a, "--out", out, "--json"});
  EXPECT_EQ(failed.status, 2);
  EXPECT_EQ(json::parse(failed.out)["schema"], "kvaddr.error/1");  // the error still goes to stdout
  EXPECT_EQ(json::parse(std::ifstream(out))["cases_run"], 12);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);  // no temporary file left behind
  // An --out that cannot be written is refused before anything runs.
  auto nodir = run_json({"merge", a, b, "--out", (dir / "no" / "such.json").string()}, 2);
  EXPECT_EQ(nodir["error"]["argument"], "--out");
  auto isdir = run_json({"merge", a, b, "--out", dir.string()}, 2);
  EXPECT_EQ(isdir["error"]["argument"], "--out");
  std::filesystem::remove_all(dir);
}

#ifdef KVADDR_WITH_PROPS
TEST(Merge, LifecycleShardsMergeToTheUnshardedReport) {
  // 2500 steps in runs of 200: 13 runs, the last one of 100 steps; 3 shards of 5, 4 and 4 runs.
  const auto [whole, merged] = whole_and_merged({"props", "--lifecycle-steps", "2500", "--seed", "3"}, 3,
                                                {"/seconds", "/steps_per_second"});
  EXPECT_EQ(whole["schema"], "kvaddr.lifecycle/1");
  EXPECT_EQ(whole["steps"], 2500);
  EXPECT_EQ(whole["runs"], 13);
  EXPECT_EQ(whole["passed"], true);
  EXPECT_GT(whole["ids_judged"].get<std::int64_t>(), 0);
  EXPECT_EQ(merged, whole);
  auto shard = run_json({"props", "--lifecycle-steps", "2500", "--seed", "3", "--shard", "2/3"});
  EXPECT_EQ(shard["runs"], 4);  // runs 2, 5, 8, 11
  EXPECT_EQ(shard["steps"], 800);
}
#endif

#ifdef KVADDR_WITH_PROOFS
TEST(Merge, ProveFullSweepShardsMergeToTheUnshardedReport) {
  const auto [whole, merged] =
      whole_and_merged({"prove", "--full-sweep", "--only", "I3", "--only", "I6", "--only", "I9", "--only",
                        "I10.static_identity", "--only", "agree.dcp_read.b14"},
                       2, {"/total_seconds"});
  ASSERT_EQ(whole["obligations"].size(), 5u);
  EXPECT_EQ(whole["obligations"][4]["verdict"], "refuted");  // expected refuted: as expected
  EXPECT_EQ(whole["passed"], true);
  auto strip = [](json j) {
    for (auto& o : j["obligations"]) o.erase("seconds");
    return j;
  };
  EXPECT_EQ(strip(merged), strip(whole));
  // A shard past the number of obligations runs nothing and passes.
  auto empty = run_json({"prove", "--only", "I1.algebra", "--shard", "1/2"});
  EXPECT_EQ(empty["obligations"].size(), 0u);
  EXPECT_EQ(empty["passed"], true);
}
#endif

#ifdef KVADDR_WITH_ZOO
TEST(Merge, ZooMutantsShardsMergeToTheUnshardedReport) {
  const auto [whole, merged] = whole_and_merged(
      {"zoo", "--only", "b02_rank2_index_select", "--only", "double_free_unchecked", "--only", "e04_alias_bind",
       "--property-cases", "20", "--mutants", "--units", "eager_funnel", "--units", "write_loc"},
      2, {"/seconds", "/mutation/seconds"});
  ASSERT_EQ(whole["variants"].size(), 3u);
  ASSERT_EQ(whole["mutation"]["units"].size(), 2u);
  auto strip = [](json j) {
    for (auto& v : j["variants"]) v.erase("seconds");
    return j;
  };
  EXPECT_EQ(strip(merged), strip(whole));
  EXPECT_EQ(merged["variants"][1]["name"], "double_free_unchecked");
  EXPECT_EQ(merged["mutation"]["units"][1]["unit"], "write_loc");
  auto units = run_json({"zoo", "--units", "nosuch", "--mutants"}, 2);
  EXPECT_EQ(units["error"]["argument"], "--units");
  auto markdown = run_json({"zoo", "--markdown", "--shard", "0/2"}, 2);
  EXPECT_EQ(markdown["error"]["argument"], "--shard");
}
#endif

}  // namespace
