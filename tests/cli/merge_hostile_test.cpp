// `kvaddr merge` on hostile shard reports (issues 30, 36): deep nesting, counts that overflow or are
// negative, half-written files, reports of another campaign, seed or version, shard indices outside
// the array. Each is refused with a named error (the file, and the field where there is one).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/json.hpp"
#include "run_cli.hpp"
#include "shard.hpp"

namespace {

using json = nlohmann::json;
using kvaddr::cli::merge_reports;
using kvaddr::cli_test::run;

namespace fs = std::filesystem;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

json props_shard(int index, int count) {
  json j{{"schema", "kvaddr.props/1"}, {"seed", 5}, {"version", "0.1.0"}, {"campaign", {{"cases", 3}}},
         {"properties", json::array({{{"name", "p" + std::to_string(index)}, {"cases", 3}, {"passed", true}}})},
         {"stateful_steps", 4}, {"total_cases", 3}, {"seconds", 0.5}};
  j["shard"] = {{"index", index}, {"count", count}};
  return j;
}

fs::path temp_dir() {
  const auto d = fs::temp_directory_path() / ("kvaddr_merge_hostile_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::create_directories(d);
  return d;
}

std::string write_text(const std::string& name, const std::string& text) {
  const auto path = temp_dir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// `kvaddr merge FILES... --json`: the error object (exit status 2 expected).
json merge_files_error(const std::vector<std::string>& files) {
  std::vector<std::string> line{"merge"};
  line.insert(line.end(), files.begin(), files.end());
  line.push_back("--json");
  const auto r = run(line);
  EXPECT_EQ(r.status, 2) << r.out;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "kvaddr.error/1");
  return j["error"];
}

// `doc` with the value at `field` replaced by 10^5 nested arrays (text: the JSON cannot be built as a value).
std::string nested_in(json doc, const std::string& field) {
  doc[field] = "@@";
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto text = doc.dump();
  text.replace(text.find("\"@@\""), 4, deep);
  return text;
}

TEST(MergeHostile, DeepNestingAnywhereIsANamedErrorNotACrash) {
  const auto good = write_text("good1.json", props_shard(1, 2).dump());
  for (const std::string field : {"seed", "campaign", "unknown_field"}) {
    const auto bad = write_text("deep_" + field + ".json", nested_in(props_shard(0, 2), field));
    const auto e = merge_files_error({bad, good});
    EXPECT_EQ(e["kind"], "format") << field;
    EXPECT_EQ(e["argument"], bad) << field;
    EXPECT_EQ(e["value"], "depth 33") << field;
    EXPECT_NE(e["message"].get<std::string>().find("nested deeper than 32 levels"), std::string::npos) << field;
  }
  // Inside a property.
  auto doc = props_shard(0, 2);
  doc["properties"][0]["failure"] = "@@";
  auto text = doc.dump();
  text.replace(text.find("\"@@\""), 4, std::string(100000, '['));  // unbalanced too: the depth is hit first
  const auto bad = write_text("deep_property.json", text);
  EXPECT_EQ(merge_files_error({bad, good})["value"], "depth 33");
  // 32 levels pass the reader (then fail as a wrong field type, still named); 33 do not.
  EXPECT_NO_THROW(kvaddr::replay::read_json(std::string(32, '[') + std::string(32, ']'), "x"));
  EXPECT_THROW(kvaddr::replay::read_json(std::string(33, '[') + std::string(33, ']'), "x"), kvaddr::FormatError);
}

TEST(MergeHostile, SummedCountsAreCheckedNamingFileAndField) {
  auto a = props_shard(0, 2), b = props_shard(1, 2);
  a["total_cases"] = kMax;
  b["total_cases"] = kMax;
  try {
    merge_reports({a, b}, {"a.json", "b.json"});
    ADD_FAILURE() << "2 * (2^63 - 1) merged";
  } catch (const kvaddr::Overflow& e) {
    EXPECT_EQ(e.argument(), "b.json");
    EXPECT_NE(std::string(e.what()).find("\"total_cases\""), std::string::npos) << e.what();
  }
  b["total_cases"] = 0;  // the boundary: 2^63 - 1 + 0 merges
  EXPECT_EQ(merge_reports({a, b}, {"a.json", "b.json"})["total_cases"], kMax);
  b["total_cases"] = 1;
  EXPECT_THROW(merge_reports({a, b}, {"a.json", "b.json"}), kvaddr::Overflow);

  auto c = props_shard(1, 2);
  c["stateful_steps"] = std::numeric_limits<std::int64_t>::min() + 1;
  try {
    merge_reports({props_shard(0, 2), c}, {"a.json", "c.json"});
    ADD_FAILURE() << "a negative count merged";
  } catch (const kvaddr::InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "c.json");
    EXPECT_NE(std::string(e.what()).find("field \"stateful_steps\" must be an integer >= 0"), std::string::npos) << e.what();
  }
  c["stateful_steps"] = -1;
  EXPECT_THROW(merge_reports({props_shard(0, 2), c}, {"a", "c"}), kvaddr::InvalidArgument);
  c["stateful_steps"] = 0;
  EXPECT_EQ(merge_reports({props_shard(0, 2), c}, {"a", "c"})["stateful_steps"], 4);
  c["stateful_steps"] = std::numeric_limits<std::uint64_t>::max();  // above int64: not read as -1
  EXPECT_THROW(merge_reports({props_shard(0, 2), c}, {"a", "c"}), kvaddr::Overflow);

  // Diff counters, per-kernel counts and edge classes, the same way.
  json d0{{"schema", "kvaddr.diff/1"}, {"skipped", false}, {"seed", 1}, {"cases_run", kMax},
          {"per_kernel", {{"read_table", {{"cases", 1}, {"lanes", kMax}, {"edge_classes", {{"tail", kMax}}}}}}},
          {"shard", {{"index", 0}, {"count", 2}}}};
  json d1 = d0;
  d1["shard"]["index"] = 1;
  d1["cases_run"] = 0;
  d1["per_kernel"]["read_table"]["lanes"] = 0;
  d1["per_kernel"]["read_table"]["edge_classes"]["tail"] = 1;
  try {
    merge_reports({d0, d1}, {"d0", "d1"});
    ADD_FAILURE();
  } catch (const kvaddr::Overflow& e) {
    EXPECT_NE(std::string(e.what()).find("per_kernel.read_table.edge_classes.tail"), std::string::npos) << e.what();
  }
  d1["per_kernel"]["read_table"]["edge_classes"]["tail"] = 0;
  EXPECT_EQ(merge_reports({d0, d1}, {"d0", "d1"})["cases_run"], kMax);
  d1["cases_run"] = 1;
  EXPECT_THROW(merge_reports({d0, d1}, {"d0", "d1"}), kvaddr::Overflow);
}

TEST(MergeHostile, HalfWrittenReportIsRefusedNamingTheFile) {
  const auto whole = props_shard(1, 2).dump();
  const auto a = write_text("a.json", props_shard(0, 2).dump());
  const auto cut = write_text("cut.json", whole.substr(0, whole.size() / 2));
  const auto e = merge_files_error({a, cut});
  EXPECT_EQ(e["argument"], cut);
  EXPECT_EQ(e["kind"], "format");
  EXPECT_NE(e["message"].get<std::string>().find("not valid JSON"), std::string::npos);
  // The message never echoes the file's bytes.
  EXPECT_EQ(e["message"].get<std::string>().find("p1"), std::string::npos) << e["message"];
  const auto empty = write_text("empty.json", "");
  EXPECT_EQ(merge_files_error({a, empty})["argument"], empty);
  const auto b = write_text("b.json", whole);
  EXPECT_EQ(run({"merge", a, b}).status, 0);
}

TEST(MergeHostile, AnotherCampaignSeedOrVersionIsRefused) {
  const auto a = props_shard(0, 2);
  auto message = [&](const json& b) {
    try {
      merge_reports({a, b}, {"a.json", "b.json"});
    } catch (const kvaddr::InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "b.json");
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(props_shard(1, 2)), "");
  auto version = props_shard(1, 2);
  version["version"] = "0.0.9";
  EXPECT_NE(message(version).find("version mismatch"), std::string::npos);
  version.erase("version");  // a report without a version is not of this version either
  EXPECT_NE(message(version).find("version mismatch"), std::string::npos);
  auto seed = props_shard(1, 2);
  seed["seed"] = 6;
  EXPECT_NE(message(seed).find("seed mismatch"), std::string::npos);
  auto campaign = props_shard(1, 2);
  campaign["campaign"]["cases"] = 4;
  EXPECT_NE(message(campaign).find("campaign mismatch"), std::string::npos);
  for (const json& bad : {json{{"index", 2}, {"count", 2}}, json{{"index", -1}, {"count", 2}},
                          json{{"index", 0}, {"count", 0}}, json{{"index", 1}, {"count", (std::int64_t{1} << 31) + 1}}}) {
    auto outside = props_shard(1, 2);
    outside["shard"] = bad;
    EXPECT_NE(message(outside), "") << bad;
  }
}

TEST(MergeHostile, MissingShardsAreNamed) {
  try {
    merge_reports({props_shard(0, 4), props_shard(2, 4)}, {"a", "c"});
    ADD_FAILURE();
  } catch (const kvaddr::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("missing shard(s) 1, 3 of 4"), std::string::npos) << e.what();
  }
  auto huge = props_shard(0, 1 << 30);
  try {
    merge_reports({huge}, {"a"});
    ADD_FAILURE();
  } catch (const kvaddr::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("missing shard(s) 1, 2, 3, 4, 5, 6, 7, 8 and 1073741815 more of 1073741824"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
