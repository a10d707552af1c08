// Spec §2 formulas on tiny hand-written tables. Every expected value is computed by hand in the comment.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kvaddr/model/formulas.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::BufferTooSmall;
using kvaddr::InvalidArgument;
using kvaddr::OutOfRange;
using kvaddr::Overflow;

namespace {
// ps = 4, M = 3, S = 12; virtual pages 0..3 (num_virtual_ids 4) + trailing sentinel row 4.
const std::vector<std::int64_t> kV2p{0, 5, -1, 2, -1};
constexpr std::int64_t kPs = 4;
constexpr std::int64_t kM = 3;
std::int64_t d(std::int64_t t) { return kernel_id(kV2p, kPs, kM, VirtualToken(t)).value; }
}  // namespace

TEST(FloorTrunc, PythonAndCSemantics) {
  EXPECT_EQ(floor_div(-1, 4), -1);
  EXPECT_EQ(floor_mod(-1, 4), 3);
  EXPECT_EQ(trunc_div(-1, 4), 0);
  EXPECT_EQ(trunc_mod(-1, 4), -1);
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_mod(-7, 2), 1);
  EXPECT_EQ(floor_div(7, -2), -4);
  EXPECT_EQ(floor_mod(7, -2), -1);
  EXPECT_EQ(floor_div(8, 4), 2);
  EXPECT_EQ(floor_mod(8, 4), 0);
  EXPECT_EQ(trunc_div(-7, 2), -3);
  EXPECT_EQ(trunc_mod(-7, 2), -1);
  EXPECT_EQ(ceil_div(0, 4), 0);
  EXPECT_EQ(ceil_div(9, 4), 3);
  EXPECT_EQ(ceil_div(8, 4), 2);
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(floor_mod(min, -1), 0);
  EXPECT_KVADDR_ERROR(floor_div(min, -1), Overflow, "divisor");
  EXPECT_KVADDR_ERROR(trunc_div(min, -1), Overflow, "divisor");
  EXPECT_KVADDR_ERROR(floor_div(3, 0), InvalidArgument, "divisor");
  EXPECT_KVADDR_ERROR(floor_mod(3, 0), InvalidArgument, "divisor");
  EXPECT_KVADDR_ERROR(ceil_div(-1, 4), InvalidArgument, "numerator");
}

TEST(KernelId, HandComputedPs4M3) {
  EXPECT_EQ(d(0), 0);    // page 0 -> P 0, o 0
  EXPECT_EQ(d(3), 3);    // 0*12 + 3
  EXPECT_EQ(d(4), 60);   // page 1 -> P 5: 5*12 + 0
  EXPECT_EQ(d(5), 61);   // 5*12 + 1
  EXPECT_EQ(d(7), 63);   // 5*12 + 3
  EXPECT_EQ(d(8), 0);    // page 2 tombstone: -12 + 0 -> 0
  EXPECT_EQ(d(11), 0);   // -12 + 3 = -9 -> 0
  EXPECT_EQ(d(12), 24);  // page 3 -> P 2: 2*12 + 0
  EXPECT_EQ(d(13), 25);  // 2*12 + 1
  EXPECT_EQ(d(15), 27);  // 2*12 + 3
  EXPECT_EQ(d(16), 0);   // trailing sentinel row (inside the table) -> -12 -> 0
}

TEST(KernelId, PaddingMapsToSinkWithoutTableAccess) {
  EXPECT_EQ(d(-1), 0);
  EXPECT_EQ(d(-1000000), 0);
  // Even an empty table: no read happens for t < 0.
  EXPECT_EQ(kernel_id(std::span<const std::int64_t>{}, kPs, kM, VirtualToken(-1)).value, 0);
  EXPECT_EQ(phys(std::span<const std::int64_t>{}, kPs, VirtualToken(-3)).value, 0);
}

TEST(KernelId, UnclampedTombstoneRange) {
  EXPECT_EQ(kernel_id_unclamped(kV2p, kPs, kM, VirtualToken(8)), -12);  // -S
  EXPECT_EQ(kernel_id_unclamped(kV2p, kPs, kM, VirtualToken(11)), -9);  // -S + ps - 1
  EXPECT_EQ(kernel_id_unclamped(kV2p, kPs, kM, VirtualToken(5)), 61);
  EXPECT_KVADDR_ERROR(kernel_id_unclamped(kV2p, kPs, kM, VirtualToken(-1)), InvalidArgument, "t");
}

TEST(KernelId, IdPastTheTableIsOutOfRange) {
  EXPECT_KVADDR_ERROR(d(20), OutOfRange, "t");  // page 5 >= len(v2p) = 5
  EXPECT_KVADDR_ERROR(d(std::numeric_limits<std::int64_t>::max()), OutOfRange, "t");
  EXPECT_KVADDR_ERROR(phys(kV2p, kPs, VirtualToken(20)), OutOfRange, "t");
}

TEST(KernelId, RejectsBadScalars) {
  EXPECT_KVADDR_ERROR(kernel_id(kV2p, 0, kM, VirtualToken(1)), InvalidArgument, "page_size");
  EXPECT_KVADDR_ERROR(kernel_id(kV2p, -4, kM, VirtualToken(1)), InvalidArgument, "page_size");
  EXPECT_KVADDR_ERROR(kernel_id(kV2p, kPs, 0, VirtualToken(1)), InvalidArgument, "multiplier");
  EXPECT_KVADDR_ERROR(phys(kV2p, 0, VirtualToken(1)), InvalidArgument, "page_size");
  EXPECT_KVADDR_ERROR(kernel_id(kV2p, std::int64_t{1} << 40, std::int64_t{1} << 40, VirtualToken(1)), Overflow,
                      "multiplier");
}

TEST(KernelId, ProductOverflowIsTyped) {
  const std::vector<std::int64_t> v2p{0, std::numeric_limits<std::int64_t>::max() / 2, -1};
  EXPECT_KVADDR_ERROR(kernel_id(v2p, 4, 3, VirtualToken(4)), Overflow, "v2p");
}

TEST(KernelId, GeometryOverload) {
  const Geometry g(kPs, kM, 5, 3, 8, 2);
  EXPECT_EQ(kernel_id(kV2p, g, VirtualToken(13)).value, 25);
}

TEST(Phys, HandComputed) {
  EXPECT_EQ(phys(kV2p, kPs, VirtualToken(5)).value, 21);   // 5*4 + 1
  EXPECT_EQ(phys(kV2p, kPs, VirtualToken(13)).value, 9);   // 2*4 + 1
  EXPECT_EQ(phys(kV2p, kPs, VirtualToken(11)).value, 0);   // tombstone: -4 + 3 -> 0
  EXPECT_EQ(phys(kV2p, kPs, VirtualToken(2)).value, 2);    // sink page
  // ps = 1: phys(t) = max(v2p[t], 0)
  const std::vector<std::int64_t> v2p1{0, 3, -1, 1, -1};
  EXPECT_EQ(phys(v2p1, 1, VirtualToken(1)).value, 3);
  EXPECT_EQ(phys(v2p1, 1, VirtualToken(2)).value, 0);
  EXPECT_EQ(kernel_id(v2p1, 1, 2, VirtualToken(1)).value, 6);  // v2p[1]*M
  EXPECT_EQ(kernel_id(v2p1, 1, 2, VirtualToken(3)).value, 2);
}

TEST(Phi, PhysicalToKernelHandComputed) {
  EXPECT_EQ(phi(PhysicalToken(21), kPs, kM).value, 61);  // (21 div 4)*12 + 1 = d(5): I2
  EXPECT_EQ(phi(PhysicalToken(9), kPs, kM).value, 25);   // = d(13)
  EXPECT_EQ(phi(PhysicalToken(0), kPs, kM).value, 0);
  EXPECT_EQ(phi(PhysicalToken(7), kPs, 1).value, 7);     // M = 1: identity (I3)
  EXPECT_KVADDR_ERROR(phi(PhysicalToken(-1), kPs, kM), InvalidArgument, "x");
  EXPECT_KVADDR_ERROR(phi(PhysicalToken(1), 0, kM), InvalidArgument, "page_size");
}

TEST(BlockEntry, ClampedAndUnclamped) {
  EXPECT_EQ(block_entry(kV2p, kM, VirtualPage(0)), 0);
  EXPECT_EQ(block_entry(kV2p, kM, VirtualPage(1)), 15);  // 5*3
  EXPECT_EQ(block_entry(kV2p, kM, VirtualPage(3)), 6);   // 2*3
  EXPECT_EQ(block_entry(kV2p, kM, VirtualPage(2)), 0);   // tombstone clamps (Era C)
  EXPECT_EQ(block_entry_unclamped(kV2p, kM, VirtualPage(2)), -3);  // Era B flashmla: -M
  EXPECT_EQ(block_entry(kV2p, kM, VirtualPage(4)), 0);             // sentinel row
  EXPECT_KVADDR_ERROR(block_entry(kV2p, kM, VirtualPage(5)), OutOfRange, "p");
  EXPECT_KVADDR_ERROR(block_entry(kV2p, kM, VirtualPage(-1)), OutOfRange, "p");
  EXPECT_KVADDR_ERROR(block_entry(kV2p, 0, VirtualPage(1)), InvalidArgument, "multiplier");
}

TEST(BlockEntry, TokenFromEntryRebuildsKernelIds) {
  EXPECT_EQ(token_from_entry(15, 1, kPs), 61);  // 15*4 + 1 = d(5)
  EXPECT_EQ(token_from_entry(6, 3, kPs), 27);   // 6*4 + 3 = d(15)
  EXPECT_EQ(token_from_entry(-3, 1, kPs), -11); // an unclamped entry stays negative
  EXPECT_KVADDR_ERROR(token_from_entry(6, 4, kPs), InvalidArgument, "o");
  EXPECT_KVADDR_ERROR(token_from_entry(6, -1, kPs), InvalidArgument, "o");
  EXPECT_KVADDR_ERROR(token_from_entry(std::numeric_limits<std::int64_t>::max(), 0, 2), Overflow, "entry");
}

TEST(DivisionVariants, PaddingUnderEachSemantics) {
  // Guard on: 0 regardless of div kind.
  EXPECT_EQ(kernel_id_variant(kV2p, kPs, kM, VirtualToken(-1), DivKind::trunc, true), 0);
  EXPECT_EQ(kernel_id_variant(kV2p, kPs, kM, VirtualToken(-1), DivKind::floor, true), 0);
  // floor, no guard: page -1 wraps to the trailing sentinel (-1), o = 3: -12 + 3 -> 0.
  EXPECT_EQ(kernel_id_variant(kV2p, kPs, kM, VirtualToken(-1), DivKind::floor, false), 0);
  // trunc, no guard, ps 4: page 0 -> v2p[0] = 0, o = -1 -> -1 -> 0 (relies on the pin).
  EXPECT_EQ(kernel_id_variant(kV2p, kPs, kM, VirtualToken(-1), DivKind::trunc, false), 0);
  // ... and without the pin (v2p[0] = 7) it lands on a live row: 7*12 - 1 = 83.
  const std::vector<std::int64_t> unpinned{7, 5, -1, 2, -1};
  EXPECT_EQ(kernel_id_variant(unpinned, kPs, kM, VirtualToken(-1), DivKind::trunc, false), 83);
  // trunc, no guard, ps 1: loads v2p[-1], one element before the table (bug B09).
  const std::vector<std::int64_t> v2p1{0, 3, -1, 1, -1};
  EXPECT_KVADDR_ERROR(kernel_id_variant(v2p1, 1, 2, VirtualToken(-1), DivKind::trunc, false), OutOfRange, "t");
  EXPECT_EQ(kernel_id_variant(v2p1, 1, 2, VirtualToken(-1), DivKind::floor, false), 0);  // sentinel row
  // t >= 0: both kinds agree with kernel_id.
  for (std::int64_t t = 0; t < 17; ++t) {
    EXPECT_EQ(kernel_id_variant(kV2p, kPs, kM, VirtualToken(t), DivKind::trunc, false), d(t));
    EXPECT_EQ(kernel_id_variant(kV2p, kPs, kM, VirtualToken(t), DivKind::floor, false), d(t));
  }
}

TEST(WriteLoc, DcpOwnershipAndCollapse) {
  // dcp 2, rank 1: loc 11 owned (11 mod 2 = 1) -> t = 5 -> 61.
  EXPECT_EQ(write_loc(kV2p, kPs, kM, 2, 1, WidenedWriteLoc(11)).value, 61);
  EXPECT_EQ(write_loc(kV2p, kPs, kM, 2, 1, WidenedWriteLoc(10)).value, 0);   // owned by rank 0
  EXPECT_EQ(write_loc(kV2p, kPs, kM, 2, 0, WidenedWriteLoc(10)).value, 61);  // t = 5
  EXPECT_EQ(write_loc(kV2p, kPs, kM, 2, 1, WidenedWriteLoc(27)).value, 25);  // t = 13
  EXPECT_EQ(write_loc(kV2p, kPs, kM, 2, 0, WidenedWriteLoc(0)).value, 0);    // padded loc: never loads v2p[0]
  EXPECT_EQ(write_loc(kV2p, kPs, kM, 2, 1, WidenedWriteLoc(-1)).value, 0);   // -1 mod 2 = 1 but loc <= 0
  // dcp 1: plain translate.
  EXPECT_EQ(write_loc(kV2p, kPs, kM, 1, 0, WidenedWriteLoc(13)).value, 25);
  // loc 0 maps to 0 even when v2p[0] is not pinned (§2.5).
  const std::vector<std::int64_t> unpinned{7, 5, -1, 2, -1};
  EXPECT_EQ(write_loc(unpinned, kPs, kM, 1, 0, WidenedWriteLoc(0)).value, 0);
  EXPECT_EQ(write_loc(unpinned, kPs, kM, 1, 0, WidenedWriteLoc(1)).value, 85);  // 7*12 + 1
}

TEST(WriteLoc, EveryPositiveLocOwnedByExactlyOneRank) {
  for (std::int64_t dcp = 1; dcp <= 4; ++dcp) {
    for (std::int64_t loc = 1; loc < 40; ++loc) {
      int owners = 0;
      for (std::int64_t r = 0; r < dcp; ++r) owners += write_loc_owned(WidenedWriteLoc(loc), dcp, r) ? 1 : 0;
      EXPECT_EQ(owners, 1) << "dcp " << dcp << " loc " << loc;
    }
  }
}

TEST(WriteLoc, LanesZeroTheTailAndCheckWidth) {
  const std::vector<WidenedWriteLoc> locs{WidenedWriteLoc(11), WidenedWriteLoc(10), WidenedWriteLoc(0),
                                          WidenedWriteLoc(27)};
  EXPECT_EQ(write_loc_lanes(kV2p, kPs, kM, 2, 1, locs, 6), (std::vector<std::int64_t>{61, 0, 0, 25, 0, 0}));
  EXPECT_EQ(write_loc_lanes(kV2p, kPs, kM, 2, 1, locs, 4), (std::vector<std::int64_t>{61, 0, 0, 25}));
  EXPECT_KVADDR_ERROR(write_loc_lanes(kV2p, kPs, kM, 2, 1, locs, 3), BufferTooSmall, "out_width");
  EXPECT_KVADDR_ERROR(write_loc(kV2p, kPs, kM, 0, 0, WidenedWriteLoc(5)), InvalidArgument, "dcp_size");
  EXPECT_KVADDR_ERROR(write_loc(kV2p, kPs, kM, 2, 2, WidenedWriteLoc(5)), InvalidArgument, "dcp_rank");
  EXPECT_KVADDR_ERROR(write_loc(kV2p, kPs, kM, 2, -1, WidenedWriteLoc(5)), InvalidArgument, "dcp_rank");
  EXPECT_KVADDR_ERROR(write_loc(kV2p, kPs, kM, 1, 0, WidenedWriteLoc(40)), OutOfRange, "t");
}

TEST(SwaId, HandComputedAndTombstones) {
  // ps 2, M_swa 4 (S = 8); owner id count 3 + sentinel.
  const std::vector<std::int64_t> swa_v2p{0, -1, 3, -1};
  EXPECT_EQ(swa_id(swa_v2p, 2, 4, VirtualToken(5)).value, 25);  // page 2 -> 3: 3*8 + 1
  EXPECT_EQ(swa_id(swa_v2p, 2, 4, VirtualToken(4)).value, 24);
  EXPECT_EQ(swa_id(swa_v2p, 2, 4, VirtualToken(2)).value, 0);   // SWA tombstone -> sink (B11 fixed)
  EXPECT_EQ(swa_id(swa_v2p, 2, 4, VirtualToken(3)).value, 0);   // -8 + 1 -> 0
  EXPECT_EQ(swa_id(swa_v2p, 2, 4, VirtualToken(6)).value, 0);   // sentinel row
  EXPECT_EQ(swa_id(swa_v2p, 2, 4, VirtualToken(-1)).value, 0);
  EXPECT_EQ(swa_id(swa_v2p, 2, 1, VirtualToken(5)).value, 7);   // strided SWA, M_swa = 1: 3*2 + 1
  EXPECT_KVADDR_ERROR(swa_id(swa_v2p, 2, 4, VirtualToken(8)), OutOfRange, "t");  // page 4 past the table
  EXPECT_KVADDR_ERROR(swa_id(swa_v2p, 2, 0, VirtualToken(5)), InvalidArgument, "M_swa");
}

TEST(MambaSlot, RawGatherNoClamp) {
  const std::vector<std::int64_t> v2p{0, 4, -1, 2, -1};
  EXPECT_EQ(mamba_slot(v2p, 1), 4);
  EXPECT_EQ(mamba_slot(v2p, 3), 2);
  EXPECT_EQ(mamba_slot(v2p, 2), -1);        // tombstone stays -1
  EXPECT_EQ(mamba_slot(v2p, 2, true), 0);   // mamba_clamp experiment (§7 Q3)
  EXPECT_EQ(mamba_slot(v2p, -1), -1);       // padding, no table read
  EXPECT_EQ(mamba_slot(v2p, -1, true), 0);
  EXPECT_EQ(mamba_slot(v2p, 4), -1);        // sentinel row
  EXPECT_KVADDR_ERROR(mamba_slot(v2p, 5), OutOfRange, "v");
}
