// Hand-computed values for the token-granular routes (spec §4.1, §4.7-§4.10, §4.12, §4.13) and
// their bug variants.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

// ps = 4, M = 3 (S = 12); v2p over pages 0..3 plus the trailing sentinel: page 2 is a tombstone.
const I64 kV2p = {0, 5, -1, 2, -1};
// 5 -> page 1 off 1 -> 5*12+1 = 61; 9 -> tombstone -> max(-12+1, 0) = 0; 0 -> 0; 3 -> off 3 -> 3;
// 13 -> page 3 off 1 -> 2*12+1 = 25; -1 (padding) -> 0; 14 -> 2*12+2 = 26.
const I64 kIds = {5, 9, 0, 3, 13, -1, 14};
const I64 kExpected = {61, 0, 0, 3, 25, 0, 26};

TEST(TokenTranslate, HandValuesInt64AndUntouchedTail) {
  I64 out(8, 777);
  translate::token_translate<std::int64_t>({cvec(kIds), cvec(kV2p), 4, 3, {out.data(), 7}});
  EXPECT_EQ(I64(out.begin(), out.begin() + 7), kExpected);
  EXPECT_EQ(out[7], 777);
}

TEST(TokenTranslate, Int32OutputSameValues) {
  I32 out(7, 777);
  translate::token_translate<std::int32_t>({cvec(kIds), cvec(kV2p), 4, 3, mvec(out)});
  EXPECT_EQ(out, (I32{61, 0, 0, 3, 25, 0, 26}));
}

TEST(TokenTranslate, OutMayAliasIds) {
  I64 buf = kIds;
  translate::token_translate<std::int64_t>({cvec(buf), cvec(kV2p), 4, 3, mvec(buf)});
  EXPECT_EQ(buf, kExpected);
}

TEST(TokenTranslate, MultiplierOneIsPhysical) {
  I64 out(7);
  translate::token_translate<std::int64_t>({cvec(kIds), cvec(kV2p), 4, 1, mvec(out)});
  // 5 -> 5*4+1 = 21; 13 -> 2*4+1 = 9; 14 -> 10; 3 -> 3.
  EXPECT_EQ(out, (I64{21, 0, 0, 3, 9, 0, 10}));
}

TEST(TokenTranslate, PageSizeOne) {
  const I64 v2p = {0, 4, -1, 1, -1};
  const I64 ids = {1, 2, 3, -1, 0};
  I64 out(5);
  translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), 1, 24, mvec(out)});
  EXPECT_EQ(out, (I64{96, 0, 24, 0, 0}));
}

TEST(TokenTranslate, EmptyInput) {
  const I64 ids;
  I64 out;
  translate::token_translate<std::int64_t>({cvec(ids), cvec(kV2p), 4, 3, mvec(out)});
  SUCCEED();
}

TEST(TokenTranslate, B17DocFormulaSkipsTheGather) {
  I64 out(7);
  translate::token_translate<std::int64_t>({cvec(kIds), cvec(kV2p), 4, 3, mvec(out), Variant::b17_doc_formula});
  // (t / ps) * 12 + t % ps: 5 -> 13, 9 -> 25, 13 -> 37, 14 -> 38; production gives 61, 0, 25, 26.
  EXPECT_EQ(out, (I64{13, 25, 0, 3, 37, 0, 38}));
  EXPECT_NE(out, kExpected);
}

TEST(TokenTranslate, IdPastTheTableIsOutOfRangeOnV2p) {
  const I64 ids = {20};  // page 5, v2p has 5 entries
  I64 out(1);
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] { translate::token_translate<std::int64_t>({cvec(ids), cvec(kV2p), 4, 3, mvec(out)}); }, "v2p"));
}

// ---- §4.9 swa_translate -----------------------------------------------------------------------
// ps = 2, M_swa = 2 (S = 4); swa_v2p: page 1 tombstoned on the SWA side.
const I64 kSwaV2p = {0, -1, 3, -1};
const I64 kSwaIds = {0, 1, 2, 3, 4, 5, -1};

TEST(SwaTranslate, ClampsSwaTombstones) {
  I64 out(7);
  translate::swa_translate<std::int64_t>({cvec(kSwaIds), cvec(kSwaV2p), 2, 2, mvec(out)});
  // 1 -> 0*4+1; 2,3 -> tombstone -> 0; 4 -> 3*4 = 12; 5 -> 13.
  EXPECT_EQ(out, (I64{0, 1, 0, 0, 12, 13, 0}));
}

TEST(SwaTranslate, Int32OutMatchesInt64) {
  I32 out(7, 777);
  translate::swa_translate<std::int32_t>({cvec(kSwaIds), cvec(kSwaV2p), 2, 2, mvec(out)});
  EXPECT_EQ(out, (I32{0, 1, 0, 0, 12, 13, 0}));
}

TEST(SwaTranslate, B11NoClampGivesNegativeIds) {
  I64 out(7);
  translate::swa_translate<std::int64_t>({cvec(kSwaIds), cvec(kSwaV2p), 2, 2, mvec(out), Variant::b11_swa_no_clamp});
  EXPECT_EQ(out, (I64{0, 1, -4, -3, 12, 13, 0}));
}

// ---- §4.10 mamba_translate ----------------------------------------------------------------------
TEST(MambaTranslate, RawGatherAndOptionalClamp) {
  const I64 v2p = {0, 4, -1, 2};
  const I64 slots = {1, 3, 2, 0};
  I32 out(4);
  translate::mamba_translate({cvec(slots), cvec(v2p), false, mvec(out)});
  EXPECT_EQ(out, (I32{4, 2, -1, 0}));
  translate::mamba_translate({cvec(slots), cvec(v2p), true, mvec(out)});
  EXPECT_EQ(out, (I32{4, 2, 0, 0}));
  const I64 pad = {-1};
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::mamba_translate({cvec(pad), cvec(v2p), false, mvec(out)}); },
                                        "v2p"));
}

// ---- §4.7 kv_indices_inplace --------------------------------------------------------------------
// ps = 1, M = 3; v2p pages 0..4 + sentinel; page 3 tombstoned.
const I64 kKvV2p = {0, 7, 3, -1, 5, -1};

TEST(KvIndicesInplace, PrefixTranslatedTailUntouched) {
  I32 kv = {1, 2, 4, 3, 999, 1000};  // the tail holds stale ids outside the table
  const I32 indptr = {0, 2, 4};
  translate::kv_indices_inplace({mvec(kv), cvec(indptr), 2, {}, cvec(kKvV2p), 1, 3});
  EXPECT_EQ(kv, (I32{21, 9, 15, 0, 999, 1000}));
}

TEST(KvIndicesInplace, SeparateSource) {
  I32 kv = {-5, -5, -5, -5, 999};
  const I32 src = {4, 1, 2, 0};
  const I32 indptr = {0, 4};
  translate::kv_indices_inplace({mvec(kv), cvec(indptr), 1, cvec(src), cvec(kKvV2p), 1, 3});
  EXPECT_EQ(kv, (I32{15, 21, 9, 0, 999}));
}

TEST(KvIndicesInplace, PageSizeTwo) {
  // ps = 2, M = 3 (S = 6): 3 -> page 1 off 1 -> 7*6+1 = 43; 4 -> page 2 -> 18; 7 -> page 3 -> 0.
  I32 kv = {3, 4, 7, 77};
  const I32 indptr = {0, 3};
  translate::kv_indices_inplace({mvec(kv), cvec(indptr), 1, {}, cvec(kKvV2p), 2, 3});
  EXPECT_EQ(kv, (I32{43, 18, 0, 77}));
}

TEST(KvIndicesInplace, B05LeavesTheBoundBufferVirtual) {
  I32 kv = {1, 2, 4, 3, 999};
  const I32 indptr = {0, 2, 4};
  translate::kv_indices_inplace({mvec(kv), cvec(indptr), 2, {}, cvec(kKvV2p), 1, 3, Variant::b05_rebind_fresh});
  EXPECT_EQ(kv, (I32{1, 2, 4, 3, 999}));
}

TEST(KvIndicesInplace, Int32OverflowNamesKvIndices) {
  const I64 v2p = {0, std::int64_t{1} << 40, -1};
  I32 kv = {1};
  const I32 indptr = {0, 1};
  EXPECT_TRUE(throws_naming<Overflow>(
      [&] { translate::kv_indices_inplace({mvec(kv), cvec(indptr), 1, {}, cvec(v2p), 1, 1}); }, "kv_indices"));
}

// ---- §4.8 write_loc ------------------------------------------------------------------------------
// ps = 2, M = 3 (S = 6); page 3 tombstoned.
const I64 kWlV2p = {0, 4, 1, -1, -1};

TEST(WriteLoc, ValuesAndZeroedTail) {
  const I64 loc = {3, 0, -1, 4, 6};
  I64 out(7, 777);
  translate::write_loc({cvec(loc), cvec(kWlV2p), 2, 3, 1, 0, mvec(out)});
  // 3 -> page 1 off 1 -> 25; 0, -1 -> 0; 4 -> page 2 -> 6; 6 -> tombstone -> 0; [5, 7) zeroed.
  EXPECT_EQ(out, (I64{25, 0, 0, 6, 0, 0, 0}));
}

TEST(WriteLoc, B06LeavesAStaleTail) {
  const I64 loc = {3, 0, -1, 4, 6};
  I64 out(7, 777);
  translate::write_loc({cvec(loc), cvec(kWlV2p), 2, 3, 1, 0, mvec(out), Variant::b06_stale_tail});
  EXPECT_EQ(out, (I64{25, 0, 0, 6, 0, 777, 777}));
}

TEST(WriteLoc, DcpOwnershipAndCollapse) {
  const I64 loc = {3, 4, 7, 9, 0};
  I64 out(5, 777);
  translate::write_loc({cvec(loc), cvec(kWlV2p), 2, 3, 2, 1, mvec(out)});
  // rank 1 owns odd locs: 3 -> t 1 -> 1; 4 not owned; 7 -> t 3 -> 25; 9 -> t 4 -> 6; 0 -> 0.
  EXPECT_EQ(out, (I64{1, 0, 25, 6, 0}));
}

TEST(WriteLoc, LocZeroNeverLoadsV2p0) {
  const I64 v2p = {99, 4, -1};  // v2p[0] not pinned
  const I64 loc = {0, 1};
  I64 out(2);
  translate::write_loc({cvec(loc), cvec(v2p), 1, 1, 1, 0, mvec(out)});
  EXPECT_EQ(out, (I64{0, 4}));
}

TEST(WriteLoc, OutMayAliasLoc) {
  I64 buf = {3, 0, -1, 4, 6};
  translate::write_loc({cvec(buf), cvec(kWlV2p), 2, 3, 1, 0, mvec(buf)});
  EXPECT_EQ(buf, (I64{25, 0, 0, 6, 0}));
}

// ---- §4.12 dcp_read_translate, §4.13 transfer_ids / envelope_moves --------------------------------
TEST(DcpReadTranslate, CollapseThenTranslate) {
  const I64 ids = {6, 2, -1, 13};
  I64 out(4);
  translate::dcp_read_translate({cvec(ids), cvec(kWlV2p), 2, 3, 2, mvec(out)});
  // 6/2 = 3 -> 25; 2/2 = 1 -> 1; -1 -> 0; 13/2 = 6 -> page 3 tombstone -> 0.
  EXPECT_EQ(out, (I64{25, 1, 0, 0}));
  translate::dcp_read_translate({cvec(ids), cvec(kWlV2p), 2, 3, 2, mvec(out), Variant::b14_dcp_untranslated});
  EXPECT_EQ(out, (I64{3, 1, 0, 6}));
}

TEST(TransferIds, PhysicalIdsAndB16) {
  const I64 ids = {3, 4, 6, -1};
  I64 out(4);
  translate::transfer_ids({cvec(ids), cvec(kWlV2p), 2, mvec(out)});
  EXPECT_EQ(out, (I64{9, 2, 0, 0}));  // 3 -> 4*2+1; 4 -> 1*2; 6 -> tombstone; -1 -> 0
  translate::transfer_ids({cvec(ids), cvec(kWlV2p), 2, mvec(out), Variant::b16_virtual_as_physical});
  EXPECT_EQ(out, (I64{3, 4, 6, 0}));
}

TEST(EnvelopeMoves, PagesOfRuns) {
  const I64 dst = {4, 5, 8, 9};
  const I64 src = {10, 11, 2, 3};
  I64 dp(2, -7), sp(2, -7);
  translate::envelope_moves({cvec(dst), cvec(src), 2, mvec(dp), mvec(sp)});
  EXPECT_EQ(dp, (I64{2, 4}));
  EXPECT_EQ(sp, (I64{5, 1}));
  const I64 bad = {5, 6, 8, 9};
  EXPECT_TRUE(throws_naming<InvalidArgument>(
      [&] { translate::envelope_moves({cvec(bad), cvec(src), 2, mvec(dp), mvec(sp)}); }, "dst_tokens"));
}

}  // namespace
}  // namespace kvaddr
