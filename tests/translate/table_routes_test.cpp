// Hand-computed values for the page-granular routes (spec §4.2-§4.6, §4.11) and their bug
// variants, on one tiny pool:
//   ps = 2, M = 3; v2p over virtual pages 0..4 plus the trailing sentinel: page 3 is a tombstone.
//   req_to_token (3 pool rows x 8 columns, int32):
//     row 0: 2 3 8 9 4 5 -1 -1   page starts: tok 2 (page 1), 8 (page 4), 4 (page 2), -1 (padding)
//     row 1: 6 7 0 1 -1 -1 -1 -1  page starts: tok 6 (page 3, tombstone), 0 (page 0), -1, -1
//     row 2: all -1
//   req_pool_indices = {1, 0} (permuted), seq_lens = {3, 7} -> 2 and 4 live pages.
//   Entries: page 1 -> 4*3 = 12, page 4 -> 2*3 = 6, page 2 -> 1*3 = 3, padding -> page 0 -> 0,
//            tombstone -> max(-3, 0) = 0.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

const I64 kV2p = {0, 4, 1, -1, 2, -1};
const I32 kR2t = {2, 3, 8, 9, 4, 5, -1, -1,  //
                  6, 7, 0, 1, -1, -1, -1, -1,  //
                  -1, -1, -1, -1, -1, -1, -1, -1};
const I64 kRows = {1, 0};
const I64 kSeq = {3, 7};
constexpr std::int64_t kCols = 8;

Mat<const std::int32_t> r2t() { return cmat(kR2t, 3, kCols); }

// ---- §4.2 flashmla_block_table --------------------------------------------------------------
TEST(FlashmlaBlockTable, ProductionClampsAndKeepsMinusOneTail) {
  I32 kv(2 * 4, -1);
  translate::flashmla_block_table({r2t(), cvec(kRows), cvec(kSeq), {}, cvec(kV2p), 2, 3, mmat(kv, 2, 4)});
  EXPECT_EQ(kv, (I32{0, 0, -1, -1, 12, 6, 3, 0}));
}

TEST(FlashmlaBlockTable, EraBUnclampedTombstoneIsMinusM) {
  I32 kv(2 * 4, -1);
  translate::flashmla_block_table(
      {r2t(), cvec(kRows), cvec(kSeq), {}, cvec(kV2p), 2, 3, mmat(kv, 2, 4), Variant::era_b_unclamped});
  EXPECT_EQ(kv, (I32{-3, 0, -1, -1, 12, 6, 3, 0}));
}

TEST(FlashmlaBlockTable, StaticKernelIsTokOverPs) {
  I32 kv(2 * 4, -1);
  translate::flashmla_block_table({r2t(), cvec(kRows), cvec(kSeq), {}, {}, 2, 1, mmat(kv, 2, 4)});
  // 6/2 = 3, 0/2 = 0 | 2/2 = 1, 8/2 = 4, 4/2 = 2, -1/2 = 0 (truncation).
  EXPECT_EQ(kv, (I32{3, 0, -1, -1, 1, 4, 2, 0}));
}

TEST(FlashmlaBlockTable, KvStartIdxShiftsTheSpan) {
  const I64 start = {0, 2};
  const I64 lens = {3, 5};
  I32 kv(2 * 4, -1);
  translate::flashmla_block_table({r2t(), cvec(kRows), cvec(lens), cvec(start), cvec(kV2p), 2, 3, mmat(kv, 2, 4)});
  // row 1 (pool row 0): columns 2, 4, 6 -> tokens 8, 4, -1 -> 6, 3, 0.
  EXPECT_EQ(kv, (I32{0, 0, -1, -1, 6, 3, 0, -1}));
}

TEST(FlashmlaBlockTable, WritesOnlyColumnsBelowWidth) {
  I32 kv(2 * 1, -1);
  translate::flashmla_block_table({r2t(), cvec(kRows), cvec(kSeq), {}, cvec(kV2p), 2, 3, mmat(kv, 2, 1)});
  EXPECT_EQ(kv, (I32{0, 12}));
}

TEST(FlashmlaBlockTable, ReadPastRowWidthNamesReqToToken) {
  const I64 start = {0, 4};
  const I64 lens = {3, 7};  // 4 pages from column 4: columns 4, 6, 8 (past the width 8)
  I32 kv(2 * 4, -1);
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] {
        translate::flashmla_block_table(
            {r2t(), cvec(kRows), cvec(lens), cvec(start), cvec(kV2p), 2, 3, mmat(kv, 2, 4)});
      },
      "req_to_token"));
}

// ---- §4.3 canonical_page_table ----------------------------------------------------------------
TEST(CanonicalPageTable, PrefixOnly) {
  I32 out(3 * 5, 777);
  translate::canonical_page_table({r2t(), cvec(kRows), cvec(kSeq), cvec(kV2p), 2, 3, 4, mmat(out, 3, 5)});
  EXPECT_EQ(out, (I32{0, 0, 777, 777, 777, 12, 6, 3, 0, 777, 777, 777, 777, 777, 777}));
}

TEST(CanonicalPageTable, B09ReadsBeforeV2pAtPageSizeOne) {
  const I64 v2p = {0, 3, -1, 1, -1};
  const I32 r = {1, 3, -1, 2};
  const I64 rows = {0};
  const I64 seq = {4};
  I32 out(4, 777);
  const CanonicalPageTableArgs prod{cmat(r, 1, 4), cvec(rows), cvec(seq), cvec(v2p), 1, 2, 4, mmat(out, 1, 4)};
  translate::canonical_page_table(prod);
  EXPECT_EQ(out, (I32{6, 2, 0, 0}));  // padding -> page 0 -> 0; tombstone -> 0
  CanonicalPageTableArgs bug = prod;
  bug.variant = Variant::b09_no_padding_guard;
  try {
    translate::canonical_page_table(bug);
    FAIL() << "B09 must read v2p[-1]";
  } catch (const OutOfRange& e) {
    EXPECT_EQ(e.argument(), "v2p");
    EXPECT_EQ(e.value(), "-1");
  }
}

TEST(CanonicalPageTable, B09AtLargerPageSizeTruncatesToPageZero) {
  I32 out(3 * 5, 777);
  translate::canonical_page_table({r2t(), cvec(kRows), cvec(kSeq), cvec(kV2p), 2, 3, 4, mmat(out, 3, 5),
                                   Variant::b09_no_padding_guard});
  EXPECT_EQ(out, (I32{0, 0, 777, 777, 777, 12, 6, 3, 0, 777, 777, 777, 777, 777, 777}));
}

// ---- §4.4 read_table ----------------------------------------------------------------------------
TEST(ReadTable, PrefixOnly) {
  I32 out(3 * 5, 777);
  translate::read_table({r2t(), cvec(kRows), cvec(kSeq), 0, 4, cvec(kV2p), 2, 3, mmat(out, 3, 5)});
  EXPECT_EQ(out, (I32{0, 0, 777, 777, 777, 12, 6, 3, 0, 777, 777, 777, 777, 777, 777}));
}

TEST(ReadTable, SeqLenDeltaWidens) {
  const I64 seq = {3, 5};
  I32 out(2 * 4, 777);
  translate::read_table({r2t(), cvec(kRows), cvec(seq), 1, 4, cvec(kV2p), 2, 3, mmat(out, 2, 4)});
  // lengths 4 and 6 -> 2 and 3 pages.
  EXPECT_EQ(out, (I32{0, 0, 777, 777, 12, 6, 3, 777}));
}

TEST(ReadTable, ZeroTailStopsAtMaxPagesAndZeroesPaddedRows) {
  I32 out(3 * 5, 777);
  ReadTableArgs a{r2t(), cvec(kRows), cvec(kSeq), 0, 4, cvec(kV2p), 2, 3, mmat(out, 3, 5)};
  a.zero_tail = true;
  translate::read_table(a);
  EXPECT_EQ(out, (I32{0, 0, 0, 0, 777, 12, 6, 3, 0, 777, 0, 0, 0, 0, 777}));
}

TEST(ReadTable, B10WritesIntoTheGuardRow) {
  // Two batch rows both on pool row 0 (4 pages), max_pages 2, a third (guard) row.
  const I64 rows = {0, 0};
  const I64 seq = {7, 7};
  I32 out(3 * 2, 777);
  ReadTableArgs a{r2t(), cvec(rows), cvec(seq), 0, 2, cvec(kV2p), 2, 3, mmat(out, 3, 2)};
  translate::read_table(a);
  EXPECT_EQ(out, (I32{12, 6, 12, 6, 777, 777}));
  a.variant = Variant::b10_no_max_pages_bound;
  translate::read_table(a);
  EXPECT_EQ(out, (I32{12, 6, 12, 6, 3, 0}));  // row 1's pages 2, 3 spill into the guard row
}

TEST(ReadTable, B10PastTheBufferIsOutOfRangeOnOut) {
  const I64 rows = {0};
  const I64 seq = {7};
  I32 out(1 * 3, 777);
  ReadTableArgs a{r2t(), cvec(rows), cvec(seq), 0, 2, cvec(kV2p), 2, 3, mmat(out, 1, 3)};
  a.variant = Variant::b10_no_max_pages_bound;
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::read_table(a); }, "out"));
  EXPECT_EQ(out, (I32{777, 777, 777}));  // all-or-nothing: the guard-column writes are rolled back
}

// ---- §4.4 read_stream ---------------------------------------------------------------------------
TEST(ReadStream, EntryTimesPsPlusOffset) {
  const I32 table = {0, 0, 0, 0, 12, 6, 3, 0};
  const I32 indptr = {0, 3, 8};
  const I64 start = {1, 0};
  I32 stream(10, 777);
  translate::read_stream({cmat(table, 2, 4), cvec(indptr), cvec(start), 2, mvec(stream)});
  // row 0: pos 1, 2, 3 -> 0*2+1, 0*2+0, 0*2+1; row 1: pos 0..4 -> 24, 25, 12, 13, 6.
  EXPECT_EQ(stream, (I32{1, 0, 1, 24, 25, 12, 13, 6, 777, 777}));
}

// ---- §4.5 decode_metadata -----------------------------------------------------------------------
struct DecodeFixture {
  I32 cache = I32(2, 777);
  I32 cu = I32(3, 777);
  I32 table = I32(2 * 5, 777);
  DecodeMetadataArgs args() {
    DecodeMetadataArgs a = decode_batch(cvec(kSeq), r2t(), cvec(kRows), 4, 2);
    a.v2p = cvec(kV2p);
    a.multiplier = 3;
    set_decode_outputs(a, mvec(cache), mvec(cu), mmat(table, 2, 5));
    return a;
  }
};

TEST(DecodeMetadata, EraBRemapGeneralPath) {
  DecodeFixture f;
  translate::decode_metadata(f.args());
  EXPECT_EQ(f.cache, (I32{3, 7}));
  EXPECT_EQ(f.cu, (I32{0, 3, 10}));
  EXPECT_EQ(f.table, (I32{0, 0, 777, 777, 777, 12, 6, 3, 0, 777}));
}

TEST(DecodeMetadata, SeqLenDelta) {
  DecodeFixture f;
  auto a = f.args();
  a.seq_len_delta = 1;
  translate::decode_metadata(a);
  EXPECT_EQ(f.cache, (I32{4, 8}));
  EXPECT_EQ(f.cu, (I32{0, 4, 12}));
  EXPECT_EQ(f.table, (I32{0, 0, 777, 777, 777, 12, 6, 3, 0, 777}));  // (8 + 1) >> 1 = 4 = cap
}

TEST(DecodeMetadata, StaticShift) {
  DecodeFixture f;
  auto a = f.args();
  a.v2p = {};
  a.multiplier = 1;
  translate::decode_metadata(a);
  // 6>>1 = 3, 0 | 2>>1 = 1, 8>>1 = 4, 4>>1 = 2, -1>>1 = -1 (arithmetic shift, no guard in the static kernel)
  EXPECT_EQ(f.table, (I32{3, 0, 777, 777, 777, 1, 4, 2, -1, 777}));
}

TEST(DecodeMetadata, EraBUnclampedAndB09) {
  DecodeFixture f;
  auto a = f.args();
  a.variant = Variant::era_b_unclamped;
  translate::decode_metadata(a);
  EXPECT_EQ(f.table, (I32{-3, 0, 777, 777, 777, 12, 6, 3, 0, 777}));
  a.variant = Variant::b09_no_padding_guard;
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::decode_metadata(a); }, "v2p"));
}

TEST(DecodeMetadata, EraCCopiesTheKernelPageTable) {
  DecodeFixture f;
  const I32 canonical = {10, 11, 12, 13, 20, 21, 22, 23};
  auto a = f.args();
  a.v2p = {};
  a.multiplier = 1;
  a.kernel_page_table = cmat(canonical, 2, 4);
  translate::decode_metadata(a);
  EXPECT_EQ(f.table, (I32{10, 11, 777, 777, 777, 20, 21, 22, 23, 777}));
}

TEST(DecodeMetadata, EraDSkipPageTable) {
  DecodeFixture f;
  auto a = f.args();
  a.skip_page_table = true;
  translate::decode_metadata(a);
  EXPECT_EQ(f.cu, (I32{0, 3, 10}));
  EXPECT_EQ(f.table, I32(10, 777));
}

TEST(DecodeMetadata, SwaTable) {
  DecodeFixture f;
  const I64 swa_v2p = {0, -1, 3, 1, 0, -1};
  I32 swa(2 * 4, 777);
  auto a = f.args();
  a.swa_v2p = cvec(swa_v2p);
  a.swa_multiplier = 2;
  a.swa_page_table = mmat(swa, 2, 4);
  translate::decode_metadata(a);
  // pages 3 -> 1*2, 0 -> 0 | 1 -> tombstone 0, 4 -> 0, 2 -> 3*2, padding -> 0.
  EXPECT_EQ(swa, (I32{2, 0, 777, 777, 0, 0, 6, 0}));
}

TEST(DecodeMetadata, Int32SeqlenOverflowNamesCacheSeqlens) {
  DecodeFixture f;
  const I64 seq = {std::int64_t{1} << 40, 1};
  auto a = f.args();
  a.seq_lens = cvec(seq);
  EXPECT_TRUE(throws_naming<Overflow>([&] { translate::decode_metadata(a); }, "cache_seqlens"));
}

// ---- §4.6 eager_funnel --------------------------------------------------------------------------
TEST(EagerFunnel, ClampedEntriesAndAliasing) {
  const I64 pt = {2, 6, -1, 8};
  I64 out(4, 777);
  translate::eager_funnel({cmat(pt, 2, 2), cvec(kV2p), 2, 3, mmat(out, 2, 2)});
  // 2 -> 4*6/2 = 12; 6 -> tombstone 0; -1 -> 0; 8 -> 2*6/2 = 6.
  EXPECT_EQ(out, (I64{12, 0, 0, 6}));
  I64 buf = pt;
  translate::eager_funnel({cmat(buf, 2, 2), cvec(kV2p), 2, 3, mmat(buf, 2, 2)});
  EXPECT_EQ(buf, (I64{12, 0, 0, 6}));
}

TEST(EagerFunnel, B02CrashesOnlyAtPageSizeOne) {
  const I64 pt = {1, 2, 4, -1};
  I64 out(4, 777);
  EagerFunnelArgs a{cmat(pt, 2, 2), cvec(kV2p), 1, 3, mmat(out, 2, 2), Variant::b02_rank2_index_select};
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::eager_funnel(a); }, "page_table"));
  a.variant = Variant::production;
  translate::eager_funnel(a);
  EXPECT_EQ(out, (I64{12, 3, 6, 0}));
  const I64 pt2 = {2, 6, -1, 8};
  EagerFunnelArgs b{cmat(pt2, 2, 2), cvec(kV2p), 2, 3, mmat(out, 2, 2), Variant::b02_rank2_index_select};
  translate::eager_funnel(b);
  EXPECT_EQ(out, (I64{12, 0, 0, 6}));
}

// ---- §4.11 full_prefill_table -------------------------------------------------------------------
TEST(FullPrefillTable, RemapAndB04) {
  I32 out(2 * 4, 777);
  FullPrefillTableArgs a{r2t(), cvec(kRows), cvec(kSeq), cvec(kV2p), 2, 3, 4, mmat(out, 2, 4)};
  translate::full_prefill_table(a);
  EXPECT_EQ(out, (I32{0, 0, 777, 777, 12, 6, 3, 0}));
  a.variant = Variant::b04_prefill_no_remap;
  translate::full_prefill_table(a);
  EXPECT_EQ(out, (I32{3, 0, 777, 777, 1, 4, 2, 0}));  // virtual page numbers, not remapped
}

}  // namespace
}  // namespace kvaddr
