// Work bounded by the data, confinement of manifest.json, error texts that never quote a file, and
// inputs presented through element strides:
// - outputs and inputs with a zero-sized dimension next to a huge one (2^62 rows of 0 columns) are
//   checked with no loop over their rows; a shape whose element count overflows int64 is a format error
//   naming the file and the shape;
// - the "behaves like" search stops at its candidate budget and says so;
// - a manifest.json that is a symbolic link out of DIR is refused; a text file read as a manifest is
//   reported by position only;
// - {"file", "shape", "strides"} inputs (stride 0 included) are gathered, with their bounds checked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/example.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/validate.hpp"
#include "manifest_dir.hpp"

namespace kvaddr::replay {
namespace {

using test_support::fresh_dir;
using test_support::has;

using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;
using test_support::replay_calls;

constexpr std::int64_t kHuge = std::int64_t{1} << 62;


// ---- zero-sized shapes ---------------------------------------------------------------------------
// A read_table call (Era D zero tail) on one request of length 0 whose table has 2^62 rows of 0 columns.
TEST(ReplayBounds, ZeroWidthTableWithHugeRowsIsChecked) {
  const auto d = fresh_dir("zero_width");
  write_npy(d / "r2t.npy", NpyDtype::int32, {1, 1}, {0});
  write_npy(d / "rows.npy", NpyDtype::int64, {1}, {0});
  write_npy(d / "lens.npy", NpyDtype::int64, {1}, {0});
  write_npy(d / "v2p.npy", NpyDtype::int64, {1}, {0});
  write_npy(d / "empty.npy", NpyDtype::int32, {kHuge, 0}, {});
  write_npy(d / "empty64.npy", NpyDtype::int64, {kHuge, 0}, {});
  const json out = {{"before", "empty.npy"}, {"after", "empty.npy"}};
  const json inputs = {{"req_to_token", "r2t.npy"}, {"req_pool_indices", "rows.npy"}, {"seq_lens", "lens.npy"},
                       {"v2p", "v2p.npy"}};
  const ReplayReport r = replay_calls(
      d, {{{"route", "read_table"}, {"era", "D"}, {"flags", {{"tail_policy", "zero_tail"}}},
           {"scalars", {{"page_size", 1}, {"max_pages", 0}}}, {"inputs", inputs}, {"outputs", {{"out", out}}}},
          {{"route", "canonical_page_table"}, {"scalars", {{"page_size", 1}, {"max_pages", 0}}}, {"inputs", inputs},
           {"outputs", {{"out", out}}}},
          {{"route", "eager_funnel"}, {"scalars", {{"page_size", 1}}},
           {"inputs", {{"page_table", "empty64.npy"}, {"v2p", "v2p.npy"}}},
           {"outputs", {{"out", {{"before", "empty64.npy"}, {"after", "empty64.npy"}}}}}}});
  ASSERT_EQ(r.calls.size(), 3u) << r.error;
  for (const CallReport& c : r.calls) {
    EXPECT_EQ(c.status, CallStatus::equal) << c.route << ": " << c.error;
    EXPECT_EQ(c.lanes_checked, 0) << c.route;
  }
}

// A stride-0 input of 2^62 x 0 elements reads nothing; one of 2^62 elements is refused (no allocation).
TEST(ReplayBounds, StridedViewsOfHugeShapes) {
  const auto d = fresh_dir("strided_huge");
  write_npy(d / "v2p.npy", NpyDtype::int64, {2}, {3, 5});
  write_npy(d / "ids.npy", NpyDtype::int64, {1}, {1});
  write_npy(d / "out.npy", NpyDtype::int64, {1}, {0});
  const auto call = [](json ids) {
    return json{{"route", "token_translate"}, {"scalars", {{"page_size", 1}}},
                {"inputs", {{"ids", std::move(ids)}, {"v2p", "v2p.npy"}}},
                {"outputs", {{"out", {{"before", "out.npy"}, {"after", "out.npy"}}}}}};
  };
  const ReplayReport r = replay_calls(d, {call({{"file", "ids.npy"}, {"shape", {kHuge, 0}}, {"strides", {0, 0}}}),
                                          call({{"file", "ids.npy"}, {"shape", {kHuge}}, {"strides", {0}}})});
  ASSERT_EQ(r.calls.size(), 2u) << r.error;
  EXPECT_EQ(r.calls[0].status, CallStatus::equal) << r.calls[0].error;
  EXPECT_EQ(r.calls[1].status, CallStatus::error);
  EXPECT_TRUE(has(r.calls[1].error, "holds more than 16777216 elements")) << r.calls[1].error;
}

TEST(ReplayBounds, ShapeWhoseElementCountOverflowsIsAFormatErrorNamingFileAndShape) {
  const auto d = fresh_dir("overflow");
  const std::string image = format_npy(NpyDtype::int32, {0}, {});
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }";
  header.resize(118, ' ');
  header += '\n';
  std::string bytes = image.substr(0, 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  std::ofstream(d / "big.npy", std::ios::binary) << bytes << header;
  write_npy(d / "v2p.npy", NpyDtype::int64, {1}, {0});
  write_npy(d / "out.npy", NpyDtype::int64, {1}, {0});
  const ReplayReport r =
      replay_calls(d, {{{"route", "token_translate"}, {"scalars", {{"page_size", 1}}},
                        {"inputs", {{"ids", "big.npy"}, {"v2p", "v2p.npy"}}},
                        {"outputs", {{"out", {{"before", "out.npy"}, {"after", "out.npy"}}}}}}});
  ASSERT_EQ(r.calls.size(), 1u) << r.error;
  EXPECT_EQ(r.calls[0].error_kind, "format");
  EXPECT_TRUE(has(r.calls[0].error, "big.npy")) << r.calls[0].error;
  EXPECT_TRUE(has(r.calls[0].error, "shape (4611686018427387904, 4): its element count overflows int64"))
      << r.calls[0].error;
}

// ---- the search budget ---------------------------------------------------------------------------
std::int64_t read_table_candidates() { return test_support::search_candidates(Route::read_table); }

TEST(ReplayBounds, SearchStopsAtItsCandidateBudgetAndSaysSo) {
  const auto d = fresh_dir("budget");
  write_large_example(d, 8, 64);
  const std::int64_t all = read_table_candidates();
  ASSERT_GT(all, 3);
  ReplayOptions o;
  o.search.max_candidates = 3;
  const ReplayReport r = replay_dir(d, o);
  ASSERT_EQ(r.calls.size(), 1u) << r.error;
  EXPECT_EQ(r.calls[0].status, CallStatus::differs);
  EXPECT_EQ(r.calls[0].search_stopped_after, 3);
  EXPECT_TRUE(has(to_text(r), "matches no named variant; search stopped after 3 candidates")) << to_text(r);
  EXPECT_EQ(json::parse(to_json(r))["calls"][0]["search_stopped_after"], 3);
  // One candidate more than the route has: the search ends by itself and says nothing.
  o.search.max_candidates = all;
  const ReplayReport full = replay_dir(d, o);
  EXPECT_FALSE(full.calls[0].search_stopped_after.has_value());
  EXPECT_FALSE(has(to_text(full), "search stopped"));
  EXPECT_FALSE(json::parse(to_json(full))["calls"][0].contains("search_stopped_after"));
  // A wall-clock budget of 0 s stops before the first candidate.
  o.search.max_seconds = 0;
  EXPECT_EQ(replay_dir(d, o).calls[0].search_stopped_after, 0);
}

// The 0.4 MB recording of issue #36 (2047 rows x 16 columns, every row spilling, matching no variant):
// with the default wall-clock bound and a candidate budget below the route's count, the search stops
// and says after how many (the ctest timeout, not an assertion, catches a hang).
TEST(ReplayBounds, LargeSpillingRecordingEndsWithABoundedSearch) {
  const auto d = fresh_dir("large");
  write_large_example(d, 2047, 16384);
  ReplayOptions o;
  o.search.max_candidates = std::min<std::int64_t>(64, read_table_candidates() - 1);
  const ReplayReport r = replay_dir(d, o);
  ASSERT_EQ(r.calls.size(), 1u) << r.error;
  EXPECT_EQ(r.calls[0].status, CallStatus::differs) << r.calls[0].error;
  EXPECT_TRUE(r.calls[0].matching_variants.empty());
  ASSERT_TRUE(r.calls[0].search_stopped_after.has_value());
  EXPECT_LE(*r.calls[0].search_stopped_after, o.search.max_candidates);
  EXPECT_TRUE(has(to_text(r), "search stopped after " + std::to_string(*r.calls[0].search_stopped_after) + " candidates"));
}

// ---- confinement and error texts -----------------------------------------------------------------
TEST(ReplayBounds, ManifestSymlinkOutOfTheDirectoryIsRefused) {
  const auto root = fresh_dir("manifest_link");
  const auto d = root / "rec";
  std::filesystem::create_directories(d);
  std::ofstream(root / "secret.txt") << "TOP-SECRET-LINE-1 abcdef\nline 2\n";
  std::filesystem::create_symlink(root / "secret.txt", d / "manifest.json");
  const ReplayReport r = replay_dir(d);
  EXPECT_TRUE(r.calls.empty());
  EXPECT_EQ(r.error_kind, "io");
  EXPECT_TRUE(has(r.error, "not a file inside the replay directory")) << r.error;
  EXPECT_FALSE(has(r.error, "TOP-SECRET")) << r.error;
  EXPECT_FALSE(has(to_json(r), "TOP-SECRET"));
  EXPECT_THROW((void)read_manifest(d), IoError);
  // Allowed outside, the file is read, and its error names the position only.
  ReplayOptions o;
  o.allow_outside = true;
  const ReplayReport allowed = replay_dir(d, o);
  EXPECT_EQ(allowed.error, "manifest.json = byte 0: not valid JSON");
  EXPECT_EQ(allowed.error_kind, "format");
  EXPECT_FALSE(has(to_text(allowed), "TOP-SECRET"));
  // A link inside the directory is followed.
  std::filesystem::remove(d / "manifest.json");
  std::ofstream(d / "real.json") << R"({"calls": []})";
  std::filesystem::create_symlink(d / "real.json", d / "manifest.json");
  EXPECT_TRUE(replay_dir(d).ok()) << replay_dir(d).error;
}

TEST(ReplayBounds, NoErrorQuotesTheBytesOfAFile) {
  const auto d = fresh_dir("no_echo");
  std::ofstream(d / "manifest.json") << R"({"calls": [], "x": TOP-SECRET})";
  const ReplayReport r = replay_dir(d);
  EXPECT_EQ(r.error, "manifest.json = byte 19: not valid JSON");  // the T
  // An .npy whose header holds text where the descr and a key go.
  std::string header = "{'descr': 'TOPSECRET', 'fortran_order': False, 'shape': (1,), }";
  header.resize(118, ' ');
  header += '\n';
  const std::string image = format_npy(NpyDtype::int64, {1}, {0});
  std::ofstream(d / "descr.npy", std::ios::binary) << image.substr(0, 8) << static_cast<char>(header.size())
                                                    << '\0' << header << std::string(8, '\0');
  std::string header2 = "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), 'TOPSECRET': True}";
  header2.resize(118, ' ');
  header2 += '\n';
  std::ofstream(d / "key.npy", std::ios::binary) << image.substr(0, 8) << static_cast<char>(header2.size()) << '\0'
                                                  << header2 << std::string(8, '\0');
  for (const char* f : {"descr.npy", "key.npy"}) {
    try {
      (void)read_npy(d / f);
      ADD_FAILURE() << f << " was accepted";
    } catch (const NpyError& e) {
      EXPECT_FALSE(has(e.what(), "TOPSECRET")) << e.what();
      EXPECT_TRUE(has(e.what(), f)) << e.what();
    }
  }
}

TEST(ReplayBounds, MissingNpyIsAnIoError) {
  const auto d = fresh_dir("missing_npy");
  write_example(d);
  json m = json::parse(std::ifstream(d / "manifest.json"));
  m["calls"][0]["inputs"]["ids"] = "no_such.npy";
  m["calls"][1]["inputs"]["ids"] = "../outside.npy";
  std::ofstream(d / "manifest.json", std::ios::trunc) << m.dump();
  const ReplayReport r = replay_dir(d);
  ASSERT_EQ(r.calls.size(), 16u) << r.error;
  EXPECT_EQ(r.calls[0].error_kind, "io");
  EXPECT_TRUE(has(r.calls[0].error, "missing file")) << r.calls[0].error;
  EXPECT_EQ(r.calls[1].error_kind, "io");
  EXPECT_EQ(json::parse(to_json(r))["calls"][0]["error_kind"], "io");
  // A call stated wrongly is an invalid argument.
  m["calls"][0]["inputs"]["ids"] = 5;
  std::ofstream(d / "manifest.json", std::ios::trunc) << m.dump();
  EXPECT_EQ(replay_dir(d).calls[0].error_kind, "invalid_argument");
}

// ---- strided inputs ------------------------------------------------------------------------------
// token_translate at page size 1 over v2p = {3, 5, 8}: ids gathered from the parent {0, 1, 2, 0}.
TEST(ReplayBounds, StridedInputsAreGatheredWithinTheirParent) {
  const auto d = fresh_dir("strided");
  write_npy(d / "parent.npy", NpyDtype::int64, {4}, {0, 1, 2, 0});
  write_npy(d / "v2p.npy", NpyDtype::int64, {3}, {3, 5, 8});
  write_npy(d / "before.npy", NpyDtype::int64, {3}, {-1, -1, -1});
  struct Case {
    json ids;
    I64 after;  // production's output over before = {-1, -1, -1}
    const char* error;  // nullptr: equal
  };
  const std::vector<Case> cases = {
      {{{"file", "parent.npy"}, {"shape", {3}}, {"strides", {1}}}, {3, 5, 8}, nullptr},
      {{{"file", "parent.npy"}, {"shape", {2}}, {"strides", {2}}}, {3, 8, -1}, nullptr},          // 0, 2
      {{{"file", "parent.npy"}, {"offset", 2}, {"shape", {3}}, {"strides", {0}}}, {8, 8, 8}, nullptr},  // stride 0
      {{{"file", "parent.npy"}, {"shape", {2, 2}}, {"strides", {2, 1}}}, {3, 5, 8}, "out has 3 lanes but ids has 4"},
      {{{"file", "parent.npy"}, {"offset", 1}, {"shape", {2}}, {"strides", {2}}}, {5, 3, -1}, nullptr},  // last = 3
      {{{"file", "parent.npy"}, {"offset", 2}, {"shape", {2}}, {"strides", {2}}}, {0, 0, 0}, "reads element 4 of a parent of 4"},
      {{{"file", "parent.npy"}, {"shape", {2}}, {"strides", {1, 1}}}, {0, 0, 0}, "strides has 2 entries but shape 1"},
      {{{"file", "parent.npy"}, {"shape", {2}}, {"strides", {-1}}}, {0, 0, 0}, "is not a non-negative integer"},
      {{{"file", "parent.npy"}, {"shape", {2}}, {"strides", {1}}, {"size", 2}}, {0, 0, 0}, "not \"size\""},
      {{{"file", "parent.npy"}, {"shape", {2}}}, {0, 0, 0}, "unknown key 'shape'"},
  };
  std::vector<json> calls;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string after = "after" + std::to_string(i) + ".npy";
    write_npy(d / after, NpyDtype::int64, {3}, cases[i].after);
    calls.push_back({{"route", "token_translate"}, {"scalars", {{"page_size", 1}}},
                     {"inputs", {{"ids", cases[i].ids}, {"v2p", "v2p.npy"}}},
                     {"outputs", {{"out", {{"before", "before.npy"}, {"after", after}}}}}});
  }
  const ReplayReport r = replay_calls(d, calls);
  ASSERT_EQ(r.calls.size(), cases.size()) << r.error;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].error == nullptr) {
      EXPECT_EQ(r.calls[i].status, CallStatus::equal) << i << ": " << r.calls[i].error;
    } else {
      EXPECT_EQ(r.calls[i].status, CallStatus::error) << i;
      EXPECT_TRUE(has(r.calls[i].error, cases[i].error)) << i << ": " << r.calls[i].error;
    }
  }
}

// read_dir_input: one input as the loader reads it (Python's load_case reads through it).
TEST(ReplayBounds, ReadDirInputIsTheLoadersView) {
  const auto d = fresh_dir("read_input");
  write_npy(d / "parent.npy", NpyDtype::int32, {4}, {7, 8, 9, 10});
  const NpyArray a = read_dir_input(d, R"({"file": "parent.npy", "offset": 1, "shape": [2, 2], "strides": [1, 0]})");
  EXPECT_EQ(a.dtype, NpyDtype::int32);
  EXPECT_EQ(a.shape, (I64{2, 2}));
  EXPECT_EQ(a.values, (I64{8, 8, 9, 9}));
  EXPECT_EQ(read_dir_input(d, R"({"file": "parent.npy", "offset": 3, "size": 1})").values, (I64{10}));
  EXPECT_EQ(read_dir_input(d, R"("parent.npy")").values, (I64{7, 8, 9, 10}));
  EXPECT_THROW((void)read_dir_input(d, R"("../parent.npy")"), IoError);
  EXPECT_NO_THROW((void)read_dir_input(d, "\"../" + d.filename().string() + "/parent.npy\"", {.allow_outside = true, .search = {}}));
  EXPECT_THROW((void)read_dir_input(d, R"({"file": "parent.npy", "shape": [5], "strides": [1]})"), InvalidArgument);
  EXPECT_THROW((void)read_dir_input(d, R"({"file": "parent.npy", "colour": 1})"), InvalidArgument);
  EXPECT_THROW((void)read_dir_input(d, "not json"), FormatError);
}

// "presented": {"widths"}: a lane past the visible width of a pitched output is named "past width".
TEST(ReplayBounds, PresentedWidthNamesLanesPastIt) {
  const auto d = fresh_dir("width");
  write_npy(d / "pt.npy", NpyDtype::int64, {1, 1}, {1});
  write_npy(d / "v2p.npy", NpyDtype::int64, {2}, {0, 3});
  write_npy(d / "before.npy", NpyDtype::int64, {1, 2}, {-5, -5});
  write_npy(d / "after.npy", NpyDtype::int64, {1, 2}, {3, 9});  // production writes 3 at [0, 0]; [0, 1] is past it
  const auto call = [](json width) {
    json c = {{"route", "eager_funnel"}, {"scalars", {{"page_size", 1}}},
              {"inputs", {{"page_table", "pt.npy"}, {"v2p", "v2p.npy"}}},
              {"outputs", {{"out", {{"before", "before.npy"}, {"after", "after.npy"}}}}}};
    if (!width.is_null()) c["presented"] = {{"widths", {{"out", width}}}};
    return c;
  };
  const ReplayReport r = replay_calls(d, {call(1), call(nullptr), call(2), call(0), call(3), call("1")});
  ASSERT_EQ(r.calls.size(), 6u) << r.error;
  ASSERT_EQ(r.calls[0].diffs.size(), 1u) << r.calls[0].error;
  EXPECT_EQ(r.calls[0].diffs[0].region, "past width");
  EXPECT_TRUE(has(to_text(r), "out[0, 1] (past width): expected -5, recorded 9")) << to_text(r);
  for (std::size_t k : {1u, 2u}) {
    ASSERT_EQ(r.calls[k].diffs.size(), 1u) << k;
    EXPECT_EQ(r.calls[k].diffs[0].region, "") << k;  // no width, or the full width
  }
  for (std::size_t k : {3u, 4u, 5u}) {
    EXPECT_EQ(r.calls[k].status, CallStatus::error) << k;
    EXPECT_TRUE(has(r.calls[k].error, "must be an integer in [1, 2]")) << r.calls[k].error;
  }
}

}  // namespace
}  // namespace kvaddr::replay
