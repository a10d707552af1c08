// The recorded example of the inferred behaviours (tests/data/replay/inferred, made by
// kvaddr_replay_record --inferred): regenerating it gives the committed bytes; every call claims
// production and differs, is named (behaves like) or inferred as its behaviour, and claimed as that
// behaviour is equal; no call ends in error.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/example.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"

namespace kvaddr::replay {
namespace {

using json = nlohmann::json;

const std::filesystem::path kInferred = std::filesystem::path(KVADDR_REPLAY_DATA_DIR) / "inferred";

TEST(InferredExample, RegeneratesTheCommittedBytes) {
  const auto d = test_support::fresh_dir("kvaddr_inferred_example_", "regen");
  write_inferred_example(d);
  test_support::expect_same_files(kInferred, d);
  std::filesystem::remove_all(d);
}

// The behaviour each call of the example carries, in manifest order, and how replay reaches it.
struct Expected {
  const char* claim;
  bool inferred;  // by the structural inference (else by the behaves-like search)
};
const std::vector<Expected> kCalls = {
    {"grid_spill@2", true},         {"era_d_read_table", false},     {"int32_lengths", false},
    {"full_width_page_table", false}, {"swa_no_padding_guard", false}, {"stride_ignored(ids)", true},
    {"stride0(ids)", true},
};

TEST(InferredExample, EveryCallIsNamedAsItsBehaviourAndEqualUnderIt) {
  const ReplayReport r = replay_dir(kInferred);
  ASSERT_EQ(r.calls.size(), kCalls.size()) << r.error;
  EXPECT_EQ(r.count(CallStatus::error), 0u) << to_text(r);
  json manifest = json::parse(test_support::slurp(kInferred / "manifest.json"));
  for (std::size_t i = 0; i < kCalls.size(); ++i) {
    const CallReport& c = r.calls[i];
    const std::string want = kCalls[i].claim;
    EXPECT_EQ(c.status, CallStatus::differs) << want << "\n" << to_text(r);
    if (kCalls[i].inferred) {
      ASSERT_FALSE(c.inferred.empty()) << want << "\n" << to_text(r);
      EXPECT_EQ(c.inferred.front().variant, want);
    } else {
      EXPECT_NE(std::find(c.matching_variants.begin(), c.matching_variants.end(), want), c.matching_variants.end())
          << want << "\n" << to_text(r);
    }
    manifest["calls"][i]["variant"] = want;
  }
  // Claimed as named, every call is equal (a copy of the manifest next to the committed files).
  const auto d = test_support::fresh_dir("kvaddr_inferred_example_", "claimed");
  for (const auto& e : std::filesystem::directory_iterator(kInferred))
    std::filesystem::copy_file(e.path(), d / e.path().filename());
  std::ofstream(d / "manifest.json", std::ios::trunc) << manifest.dump(2);
  const ReplayReport claimed = replay_dir(d);
  ASSERT_EQ(claimed.calls.size(), kCalls.size()) << claimed.error;
  for (std::size_t i = 0; i < kCalls.size(); ++i)
    EXPECT_EQ(claimed.calls[i].status, CallStatus::equal) << kCalls[i].claim << "\n" << to_text(claimed);
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace kvaddr::replay
