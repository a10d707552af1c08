// Counterexamples of the refuted obligations, replayed on the int64 instantiation of the same
// lane functions (translate/lanes.hpp) with a bounds-checked table: each is a small regression.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "kvaddr/proofs/registry.hpp"
#include "kvaddr/translate/lanes.hpp"

namespace {
using kvaddr::Variant;
namespace lanes = kvaddr::lanes;
using I = std::int64_t;

// A masked load with fill 0 that records every index it is asked to read under a true mask.
struct Table {
  explicit Table(std::vector<I> values) : v(std::move(values)) {}
  std::vector<I> v;
  std::vector<I> out_of_bounds;
  std::vector<I> loaded;
  I operator()(I idx, bool mask) {
    if (!mask) return 0;
    loaded.push_back(idx);
    if (idx < 0 || idx >= static_cast<I>(v.size())) {
      out_of_bounds.push_back(idx);
      return 0x7eadbeef;  // whatever lies outside the table
    }
    return v[static_cast<std::size_t>(idx)];
  }
};

TEST(Regression, B09CanonicalAtPs1ReadsOneBeforeTheTable) {
  Table v2p({0, 5, -1});  // v2p[0] = 0 pinned, trailing sentinel
  (void)lanes::page_entry_lane<I>(-1, v2p, 1, 1, Variant::b09_no_padding_guard);
  EXPECT_EQ(v2p.out_of_bounds, std::vector<I>{-1});
  Table fixed({0, 5, -1});
  EXPECT_EQ(lanes::page_entry_lane<I>(-1, fixed, 1, 1, Variant::production), 0);
  EXPECT_TRUE(fixed.out_of_bounds.empty());
}

TEST(Regression, B09DecodeShiftKeepsMinusOneAtEveryPs) {
  Table v2p({0, 5, -1});
  (void)lanes::decode_entry_lane<I>(-1, v2p, 6, 24, Variant::b09_no_padding_guard);  // ps = 64
  EXPECT_EQ(v2p.out_of_bounds, std::vector<I>{-1});
}

TEST(Regression, EraBUnclampedFlashmlaTombstoneGivesMinusM) {
  Table v2p({0, -1, -1});  // virtual page 1 tombstoned (counterexample: ps = 1, M = 4096, tok = 1)
  EXPECT_EQ(lanes::page_entry_lane<I>(1, v2p, 1, 4096, Variant::era_b_unclamped), -4096);
  EXPECT_EQ(lanes::page_entry_lane<I>(1, v2p, 1, 4096, Variant::production), 0);
  EXPECT_EQ(lanes::eager_funnel_lane<I>(1, v2p, 1, 4096), 0);  // I7: the token path gives the sink
}

TEST(Regression, B11SwaTombstoneIsNegative) {
  Table swa({0, 3, -1, -1});
  EXPECT_EQ(lanes::swa_translate_lane<I>(2, swa, 1, 1, Variant::b11_swa_no_clamp), -1);
  EXPECT_EQ(lanes::swa_translate_lane<I>(2, swa, 1, 1, Variant::production), 0);
}

TEST(Regression, B12SwaTableSizedByOwnPagesIsReadPastItsEnd) {
  // owner has 4 virtual ids; the SWA side has 2 pages and a table of 2 + 1 rows (B12 sizing).
  Table own({0, 1, -1});
  (void)lanes::swa_translate_lane<I>(3, own, 1, 1, Variant::production);
  EXPECT_EQ(own.out_of_bounds, std::vector<I>{3});
  Table by_owner({0, 1, -1, 0, -1});
  (void)lanes::swa_translate_lane<I>(3, by_owner, 1, 1, Variant::production);
  EXPECT_TRUE(by_owner.out_of_bounds.empty());
}

TEST(Regression, B03MultiplierDetectorLeavesACompactedPageVirtual) {
  // ps = 2, M = 1, tok = 4 (virtual page 2) compacted to physical page 1.
  Table v2p({0, -1, 1, -1});
  const I translated = lanes::page_entry_lane<I>(4, v2p, 2, 1, Variant::production);
  const I static_entry = lanes::static_entry_lane<I>(4, 2);
  EXPECT_EQ(translated, 1);
  EXPECT_EQ(static_entry, 2);  // what a rank detected by "M > 1" writes: the wrong page
}

TEST(Regression, B17DocFormulaIgnoresTheRemap) {
  std::vector<I> t(20, -1);
  t[0] = 0;
  t[18] = 19;
  Table v2p(t);
  EXPECT_EQ(lanes::token_translate_lane<I>(18, v2p, 1, 14, Variant::production), 266);
  EXPECT_EQ(lanes::token_translate_lane<I>(18, v2p, 1, 14, Variant::b17_doc_formula), 252);
}

TEST(Regression, I8IdOnePastTheBoundWrapsInInt32) {
  // ps = 3, M = 2, N = 357913942: largest id (N-1)*6 + 2 = 2^31 (one past the exact bound).
  const I N = 357913942;
  std::vector<I> t(2, 0);
  t[1] = N - 1;
  Table v2p(t);
  const I d = lanes::token_translate_lane<I>(5, v2p, 3, 6, Variant::production);
  EXPECT_EQ(d, I{1} << 31);
  EXPECT_EQ(lanes::kv_narrow32(d), -(I{1} << 31));
  // One row below the bound every id survives the int32 store.
  EXPECT_EQ(lanes::kv_narrow32(d - 1), d - 1);
}

TEST(Regression, E03RowTimesStrideWrapsInInt32) {
  const I row = 1424484856, stride = 2040942583;
  const I wide = row * stride;  // < 2^62: exact in int64
  const I narrow = lanes::kv_narrow32(lanes::kv_narrow32(row) * lanes::kv_narrow32(stride));
  EXPECT_NE(narrow, wide);
  EXPECT_GT(wide, 0);
}

TEST(Regression, B18EraAFloorMissesThePage0Envelope) {
  const I ps_full = 900, entry_full = 64, entry_peer = 1;
  const I floor_a = std::max(entry_full, entry_peer);
  const I floor_c = std::max(floor_a, ps_full * entry_full);
  EXPECT_LT(floor_a, ps_full * entry_full);   // the page-0 envelope sticks out of the Era A floor
  EXPECT_GE(floor_c, ps_full * entry_full);   // Era C covers it
}

TEST(Regression, Q2UnpinnedV2p0LeaksPaddingIntoALivePage) {
  Table v2p({1, -1});  // v2p[0] = 1: the pin removed
  EXPECT_EQ(lanes::page_entry_lane<I>(-1, v2p, 1, 1, Variant::production), 1);
  Table w({1, -1});
  EXPECT_EQ(lanes::write_loc_lane<I>(0, w, 1, 1, 1, 0), 0);
  EXPECT_TRUE(w.loaded.empty());  // loc = 0 never loads v2p[0]
  Table tt({1, -1});
  EXPECT_EQ(lanes::token_translate_lane<I>(-1, tt, 1, 1, Variant::production), 0);
  EXPECT_TRUE(tt.loaded.empty());  // the sign guard answers before any load
}

// The registry's counterexamples carry the replayable input named by the spec.
TEST(Regression, RegistryCounterexamplesNameTheSpecInputs) {
  const auto b09 = kvaddr::proofs::run_one("route.canonical_page_table.b09");
  ASSERT_EQ(b09.verdict, kvaddr::proofs::Verdict::refuted);
  EXPECT_NE(b09.counterexample.find("variant=b09_no_padding_guard"), std::string::npos) << b09.counterexample;
  EXPECT_NE(b09.counterexample.find(" ps=1 "), std::string::npos) << b09.counterexample;
  EXPECT_NE(b09.counterexample.find(" tok=-1 "), std::string::npos) << b09.counterexample;
  EXPECT_NE(b09.counterexample.find("v2p={-1:"), std::string::npos) << b09.counterexample;
  EXPECT_NE(b09.counterexample.find("loads_in_bounds"), std::string::npos) << b09.counterexample;

  const auto era_b = kvaddr::proofs::run_one("route.flashmla_block_table.era_b_unclamped");
  ASSERT_EQ(era_b.verdict, kvaddr::proofs::Verdict::refuted);
  EXPECT_NE(era_b.counterexample.find("tombstone_to_sink"), std::string::npos) << era_b.counterexample;
}

}  // namespace
