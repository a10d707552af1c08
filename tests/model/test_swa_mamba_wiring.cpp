// SWA composite (§3.5, §4.9, B12), Mamba slots (§4.10) and backend_gate wiring (§4.15, §5.2, §5.4).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kvaddr/model/pool.hpp"
#include "kvaddr/model/wiring.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::model::testing::vec;
using kvaddr::InvalidArgument;
using kvaddr::OutOfRange;
using kvaddr::Overflow;

namespace {
// full: ps 2, M 1, 8 pages, 1 layer; SWA: ps 2, M_swa = 2*L_swa = 4, 4 pages, 2 layers.
const Geometry kFull(2, 1, 8, 1, 1, 8);
const Geometry kSwa(2, 4, 4, 2, 1, 8);
}  // namespace

TEST(SwaComposite, SwaTableSizedByOwnerIds) {
  SwaComposite c(kFull, kSwa);
  EXPECT_EQ(c.swa().v2p().size(), 9u);  // owner num_virtual_ids 8 + 1
  EXPECT_EQ(c.swa().p2v().size(), 5u);  // own pages 4 + 1
}

TEST(SwaComposite, SlideOutLeavesFullBoundAndSwaTombstoned) {
  SwaComposite c(kFull, kSwa);
  const auto ts = c.alloc(2);  // v1, v2 on both sides: full P1, P2; SWA P1, P2
  ASSERT_EQ(ts.size(), 4u);
  EXPECT_EQ(vec(c.full().v2p()), (std::vector<std::int64_t>{0, 1, 2, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(vec(c.swa().v2p()), (std::vector<std::int64_t>{0, 1, 2, -1, -1, -1, -1, -1, -1}));
  for (std::int64_t l = 0; l < 2; ++l) c.swa().write(l, VirtualToken(5), 500u + static_cast<std::uint64_t>(l));
  c.slide_out(std::vector<VirtualPage>{VirtualPage(1)});
  // SWA compaction: SWA P2 (v2) moves into the hole P1.
  EXPECT_EQ(vec(c.swa().v2p()), (std::vector<std::int64_t>{0, -1, 1, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(vec(c.full().v2p()), (std::vector<std::int64_t>{0, 1, 2, -1, -1, -1, -1, -1, -1}));
  EXPECT_TRUE(c.full().tables().is_bound(VirtualPage(1)));
  EXPECT_FALSE(c.swa().tables().is_bound(VirtualPage(1)));
  EXPECT_EQ(c.translate_full(VirtualToken(2)).value, 2);  // full still bound: 1*2 + 0
  EXPECT_EQ(c.translate_swa(VirtualToken(2)).value, 0);   // SWA tombstone -> sink
  EXPECT_EQ(c.translate_swa(VirtualToken(3)).value, 0);
  EXPECT_EQ(c.translate_swa(VirtualToken(5)).value, 9);   // v2 now at SWA P1: 1*(2*4) + 1
  EXPECT_EQ(c.swa().read_kernel(1, c.translate_swa(VirtualToken(5))), 501u);
  EXPECT_TRUE(c.full().check_invariants().empty());
  EXPECT_TRUE(c.swa().check_invariants().empty());
  // Request end frees the full pages and the still-bound SWA page.
  c.free(std::vector<VirtualPage>{VirtualPage(1), VirtualPage(2)});
  EXPECT_EQ(c.full().live_pages(), 0);
  EXPECT_EQ(c.swa().live_pages(), 0);
}

TEST(SwaComposite, B12SizedTableMakesValidOwnerIdOutOfRange) {
  SwaComposite fixed(kFull, kSwa);
  SwaComposite b12(kFull, kSwa, SwaOptions{.b12_swa_sized_by_own_pages = true});
  EXPECT_EQ(b12.swa().v2p().size(), 5u);  // SWA page count 4 + 1
  for (SwaComposite* c : {&fixed, &b12}) {
    (void)c->alloc(3);  // v1..v3
    c->slide_out(std::vector<VirtualPage>{VirtualPage(1), VirtualPage(2), VirtualPage(3)});
  }
  // A valid owner id (v7, token 14) translates to the sink with the fixed sizing ...
  EXPECT_EQ(fixed.translate_swa(VirtualToken(14)).value, 0);
  // ... and indexes past the B12-sized table.
  EXPECT_KVADDR_ERROR(b12.translate_swa(VirtualToken(14)), OutOfRange, "t");
  // The next owner id v4 cannot be bound on the B12 SWA side; the full allocation is rolled back.
  EXPECT_KVADDR_ERROR(b12.alloc(1), OutOfRange, "virtual_pages");
  EXPECT_EQ(b12.full().live_pages(), 3);
  EXPECT_TRUE(b12.full().check_invariants().empty());
  (void)fixed.alloc(1);
  EXPECT_EQ(fixed.swa().v2p()[4], 1);
}

TEST(SwaComposite, RejectsMismatchedPageSize) {
  EXPECT_KVADDR_ERROR(SwaComposite(kFull, Geometry(4, 1, 4, 1, 1, 8)), InvalidArgument, "page_size");
}

TEST(MambaSlots, RawTranslateAndRelocation) {
  MambaSlots m(6);
  EXPECT_EQ(m.alloc(3), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(m.translate(2), 2);
  m.free(std::vector<std::int64_t>{2});
  // Compaction: watermark 4 -> 3, slot P3 (v3) copied into P2.
  EXPECT_EQ(m.translate(3), 2);
  EXPECT_EQ(m.translate(2), -1);  // tombstone: raw gather, no clamp
  EXPECT_EQ(m.translate(-1), -1); // padding
  EXPECT_EQ(m.translate(6), -1);  // sentinel row
  EXPECT_KVADDR_ERROR(m.translate(7), OutOfRange, "v");
  EXPECT_EQ(m.translate_indices(std::vector<std::int64_t>{1, 3, 2}), (std::vector<std::int32_t>{1, 2, -1}));
  ASSERT_EQ(m.pool().moves().size(), 1u);
  EXPECT_EQ(m.pool().moves()[0], (PageMove{PhysicalPage(3), PhysicalPage(2), VirtualPage(3)}));
  MambaSlots clamped(6, 1, true);
  (void)clamped.alloc(1);
  EXPECT_EQ(clamped.translate(2), 0);
  EXPECT_EQ(clamped.translate(-1), 0);
  EXPECT_KVADDR_ERROR(MambaSlots(0), InvalidArgument, "num_pages");
}

// ---- backend_gate -------------------------------------------------------------------------------
TEST(BackendGate, HookDetection) {
  const PoolHooks static_pool{false, 1};
  const PoolHooks multi_layer{true, 24};
  const PoolHooks single_layer{true, 1};
  EXPECT_FALSE(detect_unified(static_pool));
  EXPECT_EQ(unified_mla_hooks(static_pool), (HookSet{false, false, false, 1}));  // static set (I10)
  EXPECT_TRUE(detect_unified(multi_layer));
  EXPECT_EQ(unified_mla_hooks(multi_layer), (HookSet{true, true, true, 24}));
  EXPECT_TRUE(detect_unified(single_layer));  // regression for B03
  EXPECT_EQ(unified_mla_hooks(single_layer), (HookSet{true, true, true, 1}));
  // B03 variant: detection by M > 1 misses the single-layer rank.
  EXPECT_FALSE(detect_unified(single_layer, DetectVariant::b03_multiplier_gt_one));
  EXPECT_EQ(unified_mla_hooks(single_layer, DetectVariant::b03_multiplier_gt_one), HookSet{});
  EXPECT_TRUE(detect_unified(multi_layer, DetectVariant::b03_multiplier_gt_one));
}

TEST(BackendGate, EraBAllowlist) {
  for (bool mla : {false, true})
    for (bool unified : {false, true}) EXPECT_TRUE(backend_allowed(Backend::triton, mla, unified));
  for (Backend b : {Backend::fa3, Backend::trtllm_mla, Backend::flashinfer, Backend::cutedsl_mla,
                    Backend::tokenspeed_mla}) {
    EXPECT_TRUE(backend_allowed(b, true, true)) << to_string(b);
    EXPECT_FALSE(backend_allowed(b, false, true)) << to_string(b);   // rejected for MHA
    EXPECT_FALSE(backend_allowed(b, true, false)) << to_string(b);   // rejected without unified memory
  }
  for (Backend b : {Backend::flashmla, Backend::cutlass_mla, Backend::trtllm_mha, Backend::aiter})
    for (bool mla : {false, true})
      for (bool unified : {false, true}) EXPECT_FALSE(backend_allowed(b, mla, unified)) << to_string(b);
}

TEST(BackendGate, Names) {
  EXPECT_EQ(all_backends().size(), 11u);
  for (Backend b : all_backends()) EXPECT_EQ(backend_from_string(to_string(b)), b);
  EXPECT_EQ(to_string(Backend::fa3), "fa3");
  EXPECT_FALSE(backend_from_string("nope").has_value());
}
