// Replay of the upstream call modes (tests/data/replay/modes, written by write_modes_example): static pools
// (no v2p) on every table route and decode_metadata, decode_metadata's canonical-source mode
// (src_is_kernel_page_table) and its token-level full -> SWA slot map; and the manifest rules of those fields.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/example.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"

namespace kvaddr::replay {
namespace {

using test_support::fresh_dir;

using json = nlohmann::json;
using test_support::lane_diff_is;
const std::filesystem::path kModes = std::filesystem::path(KVADDR_REPLAY_DATA_DIR) / "modes";

using test_support::slurp;


TEST(ReplayModes, CommittedRecordingsAreReproducible) {
  const auto d = fresh_dir("regen");
  write_modes_example(d);
  test_support::expect_same_files(kModes, d);
  std::filesystem::remove_all(d);
}

// Calls 0-6 are correct recordings of each mode: equal, every lane of every output compared.
TEST(ReplayModes, EveryModeOfACorrectRecordingIsEqual) {
  const ReplayReport r = replay_dir(kModes);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.calls.size(), 11u);
  const std::vector<std::pair<std::string, std::int64_t>> want = {
      {"flashmla_block_table", 8}, {"canonical_page_table", 8}, {"read_table", 12}, {"full_prefill_table", 8},
      {"decode_metadata", 2 + 3 + 10}, {"decode_metadata", 2 + 3 + 8}, {"decode_metadata", 2 + 3 + 10 + 10}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const CallReport& c = r.calls[i];
    EXPECT_EQ(c.route, want[i].first) << i;
    EXPECT_EQ(c.status, CallStatus::equal) << c.name << ": " << c.error;
    EXPECT_EQ(c.lanes_checked, want[i].second) << c.name;
  }
  EXPECT_EQ(r.count(CallStatus::equal), 7u);
  EXPECT_EQ(r.count(CallStatus::differs), 4u);
  EXPECT_EQ(r.count(CallStatus::error), 0u);
}

TEST(ReplayModes, CanonicalSourceReadByBatchPositionIsNamedE10) {
  const CallReport c = replay_dir(kModes).calls[7];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 7);
  ASSERT_EQ(c.diffs.size(), 7u);
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {0, 0}, 20, 10));  // batch 0 reads pool row 1 (20, 21, 22), E10 row 0
  EXPECT_TRUE(lane_diff_is(c.diffs[6], {1, 3}, 13, 23));
  EXPECT_EQ(c.matching_variants, std::vector<std::string>{"e10_batch_index_rows"});
}

TEST(ReplayModes, SwaMapGatherWithoutPaddingGuardReadsTheParentBeforeTheMap) {
  const CallReport c = replay_dir(kModes).calls[8];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 1);
  ASSERT_EQ(c.diffs.size(), 1u);
  EXPECT_EQ(c.diffs[0].output, "swa_page_table");
  EXPECT_TRUE(lane_diff_is(c.diffs[0], {1, 3}, 0, 20));  // padding token -1: map[-1] = 40 (parent[0]) >> 1
  EXPECT_EQ(c.matching_variants, std::vector<std::string>{"swa_no_padding_guard"});
}

TEST(ReplayModes, StaticDecodeWrittenFullWidthIsNamed) {
  const CallReport c = replay_dir(kModes).calls[9];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 1);
  EXPECT_TRUE(lane_diff_is(c.diffs.at(0), {0, 3}, 33, -1));
  EXPECT_EQ(c.matching_variants, std::vector<std::string>{"full_width_page_table"});
}

TEST(ReplayModes, StaticTableWithAWrongLaneListsIt) {
  const CallReport c = replay_dir(kModes).calls[10];
  ASSERT_EQ(c.status, CallStatus::differs) << c.error;
  EXPECT_EQ(c.lanes_differing, 1);
  EXPECT_TRUE(lane_diff_is(c.diffs.at(0), {1, 2}, 2, 7));
  EXPECT_TRUE(c.matching_variants.empty());
}

// ---- the manifest rules of the mode fields -------------------------------------------------------
// A copy of the committed recordings with call `k` of its manifest edited by `edit`, replayed alone.
template <class Edit>
CallReport edited(const std::string& name, std::size_t k, Edit edit) {
  const auto d = fresh_dir(name);
  for (const auto& e : std::filesystem::directory_iterator(kModes)) std::filesystem::copy(e.path(), d / e.path().filename());
  json m = json::parse(slurp(kModes / "manifest.json"));
  json call = m["calls"][k];
  edit(call);
  const ReplayReport r = test_support::replay_calls(d, {call});
  std::filesystem::remove_all(d);
  return r.calls.at(0);
}

TEST(ReplayModes, CanonicalSourceFlagMustBeABoolean) {
  const CallReport good = edited("flag_true", 5, [](json&) {});
  EXPECT_EQ(good.status, CallStatus::equal) << good.error;
  const CallReport bad = edited("flag_int", 5, [](json& c) { c["scalars"]["src_is_kernel_page_table"] = 1; });
  ASSERT_EQ(bad.status, CallStatus::error);
  EXPECT_EQ(bad.error, "scalar src_is_kernel_page_table must be true or false, got 1");
  // false: the 4-column canonical rows are read as token rows (column c * ps): past their width, an error.
  const CallReport off = edited("flag_false", 5, [](json& c) { c["scalars"]["src_is_kernel_page_table"] = false; });
  ASSERT_EQ(off.status, CallStatus::error);
  EXPECT_EQ(off.error, "the reference route rejects this call: req_to_token = column 4: column outside the row of width 4");
}

TEST(ReplayModes, CanonicalSourceExcludesAV2pTable) {
  const CallReport c = edited("src_v2p", 5, [](json& call) { call["inputs"]["v2p"] = "pool.full_to_swa.parent.npy"; });
  ASSERT_EQ(c.status, CallStatus::error);
  EXPECT_EQ(c.error_kind, "invalid_argument");
  EXPECT_NE(c.error.find("src_is_kernel_page_table"), std::string::npos) << c.error;
}

TEST(ReplayModes, TokenMapRules) {
  // one SWA form only
  const CallReport both = edited("both", 6, [](json& c) { c["inputs"]["swa_v2p"] = "pool.full_to_swa.parent.npy"; });
  ASSERT_EQ(both.status, CallStatus::error);
  EXPECT_NE(both.error.find("full_to_swa_index_mapping"), std::string::npos) << both.error;
  // swa_page_table needs one of the two forms
  const CallReport none = edited("none", 6, [](json& c) { c["inputs"].erase("full_to_swa_index_mapping"); });
  ASSERT_EQ(none.status, CallStatus::error);
  EXPECT_EQ(none.error, "output swa_page_table needs input swa_v2p or full_to_swa_index_mapping");
  // the map is int64 (an int32 file is refused, naming it)
  const CallReport i32 = edited("i32", 6, [](json& c) { c["inputs"]["full_to_swa_index_mapping"] = "batch.seq_lens.npy"; });
  ASSERT_EQ(i32.status, CallStatus::error);
  EXPECT_NE(i32.error.find("full_to_swa_index_mapping: wrong dtype"), std::string::npos) << i32.error;
  // the map without its parent slice: the same call, still equal (production never reads before the map) ...
  const CallReport plain = edited("plain", 6, [](json& c) {
    c["inputs"]["full_to_swa_index_mapping"] = {{"file", "pool.full_to_swa.parent.npy"}, {"offset", 1}, {"size", 12}};
  });
  EXPECT_EQ(plain.status, CallStatus::equal) << plain.error;
  // ... and the unguarded recording with no element before the map matches no variant (map[-1] is outside)
  const CallReport bare = edited("bare", 8, [](json& c) {
    c["inputs"]["full_to_swa_index_mapping"] = {{"file", "pool.full_to_swa.parent.npy"}, {"offset", 0}, {"size", 12}};
  });
  EXPECT_EQ(bare.status, CallStatus::differs) << bare.error;
  EXPECT_TRUE(bare.matching_variants.empty());
}

TEST(ReplayModes, StaticTablesRejectAMultiplier) {
  const CallReport m1 = edited("m1", 1, [](json& c) { c["scalars"]["multiplier"] = 1; });
  EXPECT_EQ(m1.status, CallStatus::equal) << m1.error;
  const CallReport m2 = edited("m2", 1, [](json& c) { c["scalars"]["multiplier"] = 2; });
  ASSERT_EQ(m2.status, CallStatus::error);
  EXPECT_NE(m2.error.find("multiplier"), std::string::npos) << m2.error;
}

}  // namespace
}  // namespace kvaddr::replay
