// Spec §3 layouts and the §5.1 view cases; every expected address is hand-computed in the comment.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include "kvaddr/model/formulas.hpp"
#include "kvaddr/model/layout.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::InvalidArgument;
using kvaddr::OutOfRange;
using kvaddr::Overflow;

// §5.1 test_view_addressing_matches_envelope_formula: L 3, D 8 (kv_lora 6 + rope 2), bf16, 6 pages.
TEST(DenseMlaViews, ViewAddressingMatchesEnvelopeFormulaPs1) {
  const DenseMlaLayout lay(Geometry(1, 3, 6, 3, 8, 2));
  EXPECT_EQ(lay.view_rows(), 18);  // view shape (6*3*1, 1, 8), row stride 8
  struct Case { std::int64_t p, l, s, d, elem; };
  // d = p*ps*L + s; elem = l*ps*D + d*D = p*L*ps*D + l*ps*D + s*D
  for (const Case& c : {Case{0, 0, 0, 0, 0}, Case{1, 2, 0, 3, 40}, Case{4, 1, 0, 12, 104}, Case{5, 2, 0, 15, 136}}) {
    EXPECT_EQ(phi(PhysicalToken(c.p * 1 + c.s), 1, 3).value, c.d);
    EXPECT_EQ(lay.elem(c.l, KernelId(c.d)), c.elem);
    EXPECT_EQ(mla_envelope_elem(lay.geometry(), PhysicalPage(c.p), c.l, c.s), c.elem);
  }
}

TEST(DenseMlaViews, ViewAddressingMatchesEnvelopeFormulaPs4) {
  const DenseMlaLayout lay(Geometry(4, 3, 6, 3, 8, 2));
  EXPECT_EQ(lay.view_rows(), 72);
  struct Case { std::int64_t p, l, s, d, elem; };
  // (1,2,3): d = 12 + 3 = 15, elem = 64 + 120 = 184 = 96 + 64 + 24
  // (4,1,2): d = 48 + 2 = 50, elem = 32 + 400 = 432 = 384 + 32 + 16
  // (5,2,0): d = 60,          elem = 64 + 480 = 544 = 480 + 64
  for (const Case& c : {Case{0, 0, 0, 0, 0}, Case{1, 2, 3, 15, 184}, Case{4, 1, 2, 50, 432}, Case{5, 2, 0, 60, 544}}) {
    EXPECT_EQ(phi(PhysicalToken(c.p * 4 + c.s), 4, 3).value, c.d);
    EXPECT_EQ(lay.elem(c.l, KernelId(c.d)), c.elem);
    EXPECT_EQ(mla_envelope_elem(lay.geometry(), PhysicalPage(c.p), c.l, c.s), c.elem);
  }
  EXPECT_EQ(lay.view_origin_elem(0), 0);
  EXPECT_EQ(lay.view_origin_elem(1), 32);  // l*ps*D
  EXPECT_EQ(lay.view_origin_elem(2), 64);
}

TEST(DenseMlaViews, EveryLiveTripleMatchesTheEnvelopeAndNoneCollide) {  // I5
  for (std::int64_t ps : {1, 4}) {
    const DenseMlaLayout lay(Geometry(ps, 3, 6, 3, 8, 2));
    std::set<std::int64_t> seen;
    for (std::int64_t P = 0; P < 6; ++P)
      for (std::int64_t l = 0; l < 3; ++l)
        for (std::int64_t o = 0; o < ps; ++o) {
          const KernelId d = phi(PhysicalToken(P * ps + o), ps, 3);
          const std::int64_t e = lay.elem(l, d);
          EXPECT_EQ(e, mla_envelope_elem(lay.geometry(), PhysicalPage(P), l, o));
          EXPECT_TRUE(seen.insert(e).second);
        }
  }
}

TEST(DenseMlaViews, ViewsDoNotAliasAcrossLayers) {
  // ps 4, 4 pages, t = 2ps + 1 = 9 with identity v2p: d = 2*12 + 1 = 25 in every layer view.
  const DenseMlaLayout lay(Geometry(4, 3, 4, 3, 8, 2));
  const std::vector<std::int64_t> v2p{0, 1, 2, 3, -1};
  const KernelId d = kernel_id(v2p, 4, 3, VirtualToken(9));
  EXPECT_EQ(d.value, 25);
  EXPECT_EQ(lay.elem(0, d), 200);  // 25*8
  EXPECT_EQ(lay.elem(1, d), 232);  // 32 + 200
  EXPECT_EQ(lay.elem(2, d), 264);  // 64 + 200
}

TEST(DenseMlaViews, TailPadAndSizes) {
  const DenseMlaLayout lay(Geometry(4, 3, 6, 3, 8, 2));
  EXPECT_EQ(lay.tail_pad_bytes(), 192);  // ps*entry = 4*48
  EXPECT_EQ(lay.total_bytes(), 1152);
  EXPECT_EQ(lay.buffer_bytes(), 1344);
  EXPECT_EQ(lay.buffer_elems(), 672);
  EXPECT_EQ(lay.max_slots(), 24);        // 1152 div 48, the pad ignored
  EXPECT_EQ(lay.pool_size(), 68);        // view_rows - ps
  // Last element of the last view: 64 + 71*8 + 7 = 639 < 672 elements, but > 576 = total without the pad.
  const std::int64_t last = lay.elem(2, KernelId(71)) + 7;
  EXPECT_EQ(last, 639);
  EXPECT_LT(last, lay.buffer_elems());
  EXPECT_GE(last, lay.total_bytes() / 2);
  EXPECT_KVADDR_ERROR(lay.elem(0, KernelId(72)), OutOfRange, "d");
  EXPECT_KVADDR_ERROR(lay.elem(3, KernelId(0)), OutOfRange, "l");
  EXPECT_KVADDR_ERROR(lay.elem(0, KernelId(-1)), OutOfRange, "d");
}

TEST(DenseMlaViews, RequiresMultiplierEqualLayers) {
  EXPECT_KVADDR_ERROR(DenseMlaLayout(Geometry(4, 2, 6, 3, 8, 2)), InvalidArgument, "multiplier");
  EXPECT_KVADDR_ERROR(DenseMlaLayout(Geometry(4, 1, 6, 1, 8, 2, LayoutKind::token_major)), InvalidArgument, "layout");
}

TEST(DenseMlaViews, MaxSlotsIgnoreTailPad) {
  // ps 4, 64 full tokens (entry 48) + 8 Mamba slots (entry 40): total = 3072 + 320 = 3392.
  EXPECT_EQ(max_slots(3392, 48), 70);               // 3392 div 48
  EXPECT_EQ(raw_buffer_bytes(3392, 4, 48), 3584);   // total + 4*48
  EXPECT_KVADDR_ERROR(max_slots(3392, 0), InvalidArgument, "entry_bytes");
  EXPECT_KVADDR_ERROR(max_slots(-1, 48), InvalidArgument, "total_bytes");
  EXPECT_KVADDR_ERROR(raw_buffer_bytes(std::numeric_limits<std::int64_t>::max(), 4, 48), Overflow, "total_bytes");
}

TEST(EnvelopeMla, RangeChecks) {
  const Geometry g(4, 3, 6, 3, 8, 2);
  EXPECT_KVADDR_ERROR(mla_envelope_elem(g, PhysicalPage(6), 0, 0), OutOfRange, "P");
  EXPECT_KVADDR_ERROR(mla_envelope_elem(g, PhysicalPage(0), 3, 0), OutOfRange, "l");
  EXPECT_KVADDR_ERROR(mla_envelope_elem(g, PhysicalPage(0), 0, 4), OutOfRange, "o");
  EXPECT_KVADDR_ERROR(mla_envelope_elem(g, PhysicalPage(0), 0, -1), OutOfRange, "o");
}

TEST(EnvelopeMha, ByteKVHandComputed) {
  // ps 2, L 2, k_row 16, v_row 8, 3 pages: entry = 2*24 = 48, page = 96, total = 288.
  const MhaEnvelope env(2, 2, 16, 8, 3);
  EXPECT_EQ(env.entry_bytes(), 48);
  EXPECT_EQ(env.page_bytes(), 96);
  EXPECT_EQ(env.total_bytes(), 288);
  EXPECT_EQ(env.byte_k(PhysicalPage(0), 0, 0), 0);
  EXPECT_EQ(env.byte_v(PhysicalPage(0), 0, 0), 32);    // ps*k_row
  EXPECT_EQ(env.byte_k(PhysicalPage(1), 1, 1), 160);   // 96 + 1*2*24 + 16
  EXPECT_EQ(env.byte_v(PhysicalPage(1), 1, 1), 184);   // 96 + 48 + 32 + 8
  EXPECT_EQ(env.byte_k(PhysicalPage(2), 0, 1), 208);   // 192 + 16
  EXPECT_EQ(env.k_origin_bytes(1), 48);
  EXPECT_EQ(env.v_origin_bytes(1), 80);
  EXPECT_KVADDR_ERROR(env.byte_k(PhysicalPage(3), 0, 0), OutOfRange, "P");
  EXPECT_KVADDR_ERROR(MhaEnvelope(2, 2, 0, 8, 3), InvalidArgument, "k_row_bytes");
  EXPECT_KVADDR_ERROR(MhaEnvelope(0, 2, 16, 8, 3), InvalidArgument, "page_size");
}

TEST(StridedView, ElementAddressHandComputed) {
  // Same envelope, bf16: layer 1 K origin = 48 bytes = 24 elements; x = 3 -> page 1, slot 1:
  // 24 + 1*(96/2) + 1*(16/2) = 80 elements = byte 160 = byte_K(1, 1, 1).
  const MhaEnvelope env(2, 2, 16, 8, 3);
  const std::int64_t e = strided_view_elem(env.k_origin_bytes(1) / 2, PhysicalToken(3), 2, 96, 16, 2);
  EXPECT_EQ(e, 80);
  EXPECT_EQ(e * 2, env.byte_k(PhysicalPage(1), 1, 1));
  // The page stride (48 elements) is not ps*row (16 elements): stock paged kernels cannot consume it.
  EXPECT_NE(96 / 2, 2 * (16 / 2));
  EXPECT_KVADDR_ERROR(strided_view_elem(0, PhysicalToken(3), 2, 95, 16, 2), InvalidArgument, "page_bytes");
  EXPECT_KVADDR_ERROR(strided_view_elem(0, PhysicalToken(-1), 2, 96, 16, 2), InvalidArgument, "x");
  EXPECT_KVADDR_ERROR(strided_view_elem(0, PhysicalToken(1), 0, 96, 16, 2), InvalidArgument, "page_size");
}

TEST(DenseMha, MatchesEnvelopeHandComputed) {
  // ps 2, L 2, R = 16 (k_row = v_row), 3 pages: M = 4, view rows = 3*2*4 = 24.
  const DenseMhaLayout lay(2, 2, 16, 3);
  const MhaEnvelope env(2, 2, 16, 16, 3);
  EXPECT_EQ(lay.multiplier(), 4);
  EXPECT_EQ(lay.view_rows(), 24);
  // P 1, o 1: d = 1*8 + 1 = 9; K of layer 1: (2*1*2 + 9)*16 = 208; envelope 128 + 64 + 16 = 208.
  EXPECT_EQ(lay.byte_k(1, KernelId(9)), 208);
  EXPECT_EQ(env.byte_k(PhysicalPage(1), 1, 1), 208);
  // V of layer 1: ((2 + 1)*2 + 9)*16 = 240; envelope 128 + 64 + 32 + 16 = 240.
  EXPECT_EQ(lay.byte_v(1, KernelId(9)), 240);
  EXPECT_EQ(env.byte_v(PhysicalPage(1), 1, 1), 240);
  for (std::int64_t P = 0; P < 3; ++P)
    for (std::int64_t l = 0; l < 2; ++l)
      for (std::int64_t o = 0; o < 2; ++o) {
        const KernelId d = phi(PhysicalToken(P * 2 + o), 2, 4);
        EXPECT_EQ(lay.byte_k(l, d), env.byte_k(PhysicalPage(P), l, o));
        EXPECT_EQ(lay.byte_v(l, d), env.byte_v(PhysicalPage(P), l, o));
      }
  EXPECT_KVADDR_ERROR(lay.byte_k(0, KernelId(24)), OutOfRange, "d");
  EXPECT_KVADDR_ERROR(DenseMhaLayout(2, 0, 16, 3), InvalidArgument, "num_layers");
}

TEST(TokenMajor, EntryRoundingAndByteAddress) {
  // MHA, L 2, k 48, v 16: rows end at 1*64 + 48 + 16 = 128 -> entry 128 (already 32-aligned).
  const TokenMajorLayout mha = TokenMajorLayout::mha(2, 48, 16, 10);
  EXPECT_EQ(mha.entry_bytes(), 128);
  EXPECT_EQ(mha.byte(PhysicalToken(3), 0, 1), 448);  // 3*128 + 1*64
  EXPECT_EQ(mha.byte(PhysicalToken(3), 1, 0), 432);  // 3*128 + 48
  EXPECT_EQ(mha.byte(PhysicalToken(0), 1, 1), 112);  // 64 + 48
  // One part of 3 layers of 16 B, stride 16: ends at 48 -> entry rounded up to 64.
  const TokenMajorLayout one({TokenMajorPart{0, 16, 16, 3}}, 4, 1024);
  EXPECT_EQ(one.entry_bytes(), 64);
  EXPECT_EQ(one.byte(PhysicalToken(2), 0, 2), 1024 + 128 + 32);
  EXPECT_KVADDR_ERROR(one.byte(PhysicalToken(4), 0, 0), OutOfRange, "x");
  EXPECT_KVADDR_ERROR(one.byte(PhysicalToken(0), 0, 3), OutOfRange, "l");
  EXPECT_KVADDR_ERROR(one.byte(PhysicalToken(0), 1, 0), OutOfRange, "part");
}

TEST(TokenMajor, Validation) {
  EXPECT_KVADDR_ERROR(TokenMajorLayout({TokenMajorPart{8, 16, 16, 1}}, 4), InvalidArgument, "offset");
  EXPECT_KVADDR_ERROR(TokenMajorLayout({TokenMajorPart{0, 24, 16, 2}}, 4), InvalidArgument, "layer_stride");
  EXPECT_KVADDR_ERROR(TokenMajorLayout({TokenMajorPart{0, 16, 20, 1}}, 4), InvalidArgument, "row_bytes");
  EXPECT_KVADDR_ERROR(TokenMajorLayout({TokenMajorPart{0, 16, 32, 2}}, 4), InvalidArgument, "parts");  // self overlap
  EXPECT_KVADDR_ERROR(TokenMajorLayout({TokenMajorPart{0, 64, 32, 2}, TokenMajorPart{16, 64, 16, 1}}, 4),
                      InvalidArgument, "parts");
  EXPECT_KVADDR_ERROR(TokenMajorLayout({}, 4), InvalidArgument, "parts");
  EXPECT_KVADDR_ERROR(TokenMajorLayout({TokenMajorPart{0, 16, 16, 1}}, 0), InvalidArgument, "num_slots");
  EXPECT_KVADDR_ERROR(TokenMajorLayout::mha(2, 24, 24, 4), InvalidArgument, "row_bytes");
  EXPECT_KVADDR_ERROR(TokenMajorLayout({TokenMajorPart{0, 16, 16, 1}}, std::int64_t{1} << 62), Overflow, "num_slots");
}

TEST(ReservedFloor, CoversPage0EnvelopeEraCButNotEraA) {
  // ps 4 full MLA (entry 48) + Mamba (entry 40).
  const std::vector<SubPoolSpec> specs{{48, 4, false}, {40, 1, true}};
  const std::int64_t floor_c = reserved_floor_era_c(specs);
  EXPECT_EQ(floor_c, 192);  // max(48, 4*48)
  EXPECT_EQ(min_slot_index(floor_c, specs[0]), 4);
  EXPECT_EQ(min_page_index(floor_c, specs[0]), 1);
  EXPECT_EQ(min_slot_index(floor_c, specs[1]), 5);  // ceil(192/40)
  EXPECT_EQ(min_page_index(floor_c, specs[1]), 5);
  EXPECT_GE(min_slot_index(floor_c, specs[0]) * 48, 192);  // min_slot*entry >= max(max entry, ps*full entry)
  EXPECT_TRUE(reserved_floor_covers_page0(floor_c, specs));

  const std::int64_t floor_a = reserved_floor_era_a(specs);
  EXPECT_EQ(floor_a, 48);
  EXPECT_EQ(min_slot_index(floor_a, specs[0]), 1);
  EXPECT_EQ(min_page_index(floor_a, specs[0]), 1);
  EXPECT_LT(min_slot_index(floor_a, specs[0]) * 48, 192);  // B18: the page-0 envelope is not covered
  EXPECT_FALSE(reserved_floor_covers_page0(floor_a, specs));

  // ps 1: both eras agree.
  const std::vector<SubPoolSpec> ps1{{48, 1, false}, {40, 1, true}};
  EXPECT_EQ(reserved_floor_era_a(ps1), reserved_floor_era_c(ps1));
  EXPECT_TRUE(reserved_floor_covers_page0(reserved_floor_era_a(ps1), ps1));
}

TEST(ReservedFloor, ThreeSubPools) {
  // full MLA entry 48 ps 4, middle SWA entry 64 ps 4, Mamba entry 40: floor = max(64, 192, 256) = 256.
  const std::vector<SubPoolSpec> specs{{48, 4, false}, {64, 4, false}, {40, 1, true}};
  const std::int64_t f = reserved_floor_era_c(specs);
  EXPECT_EQ(f, 256);
  EXPECT_EQ(min_slot_index(f, specs[0]), 6);  // ceil(256/48)
  EXPECT_EQ(min_page_index(f, specs[0]), 2);  // ceil(6/4)
  EXPECT_EQ(min_slot_index(f, specs[1]), 4);
  EXPECT_EQ(min_page_index(f, specs[1]), 1);
  EXPECT_EQ(min_slot_index(f, specs[2]), 7);  // ceil(256/40)
  EXPECT_TRUE(reserved_floor_covers_page0(f, specs));
}

TEST(ReservedFloor, Validation) {
  const std::vector<SubPoolSpec> bad_mamba{{40, 2, true}};
  EXPECT_KVADDR_ERROR(reserved_floor_era_c(bad_mamba), InvalidArgument, "page_size");
  const std::vector<SubPoolSpec> zero_entry{{0, 1, false}};
  EXPECT_KVADDR_ERROR(reserved_floor_era_c(zero_entry), InvalidArgument, "entry_bytes");
  EXPECT_KVADDR_ERROR(reserved_floor_era_c(std::span<const SubPoolSpec>{}), InvalidArgument, "specs");
  const std::vector<SubPoolSpec> huge{{std::int64_t{1} << 62, 4, false}};
  EXPECT_KVADDR_ERROR(reserved_floor_era_c(huge), Overflow, "page_size");
  EXPECT_KVADDR_ERROR(min_slot_index(-1, SubPoolSpec{48, 4, false}), InvalidArgument, "reserved_floor");
}
