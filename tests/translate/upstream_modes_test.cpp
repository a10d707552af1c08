// The upstream call modes of the table routes and decode_metadata (issue 35 item 3), hand-computed on
// one tiny pool (ps = 2 unless stated):
//   req_to_token (2 pool rows x 8 columns, int32):
//     row 0: 4 5 10 11 2 3 0 0     page starts: 4, 10, 2, 0
//     row 1: 8 9 6 7 -1 -1 0 0     page starts: 8, 6, -1 (padding), 0
//   req_pool_indices = {1, 0} (permuted).
//   Static pool (no v2p, M = 1, spec I10): entry = tok / ps (truncating): 8 -> 4, 6 -> 3, -1 -> 0,
//   4 -> 2, 10 -> 5, 2 -> 1.
//   The token-level full -> SWA map (0 = unmapped): 4 -> 6, 5 -> 7, 8 -> 2, 9 -> 3, 10 -> 8, 11 -> 9.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

const I32 kR2t = {4, 5, 10, 11, 2, 3, 0, 0,  //
                  8, 9, 6, 7, -1, -1, 0, 0};
const I64 kRows = {1, 0};
const I64 kIdentity = {0, 1, 2, 3, 4, 5, -1};  // v2p = identity over pages 0..5, trailing sentinel
const I64 kToSwa = {0, 0, 0, 0, 6, 7, 0, 0, 2, 3, 8, 9};

Mat<const std::int32_t> r2t() { return cmat(kR2t, 2, 8); }

// ---- static pools on every table route -------------------------------------------------------
// seq_lens {5, 5}: 3 live pages each; max_pages 4; out prefilled with -7 (prefix-only).
CanonicalPageTableArgs canonical(I32& out, const I64& lens, Vec<const std::int64_t> v2p, std::int64_t m) {
  return {r2t(), cvec(kRows), cvec(lens), v2p, 2, m, 4, mmat(out, 2, 4)};
}

TEST(StaticPool, CanonicalPageTableIsTokDivPs) {
  const I64 lens = {5, 5};
  I32 out(2 * 4, -7);
  translate::canonical_page_table(canonical(out, lens, {}, 1));
  EXPECT_EQ(out, (I32{4, 3, 0, -7, 2, 5, 1, -7}));
  // I10: the same table as the unified kernel with v2p = identity and M = 1.
  I32 unified(2 * 4, -7);
  translate::canonical_page_table(canonical(unified, lens, cvec(kIdentity), 1));
  EXPECT_EQ(unified, out);
}

TEST(StaticPool, FullPrefillTableIsTokDivPs) {
  const I64 lens = {3, 6};
  I32 out(2 * 4, -7);
  translate::full_prefill_table({r2t(), cvec(kRows), cvec(lens), {}, 2, 1, 4, mmat(out, 2, 4)});
  EXPECT_EQ(out, (I32{4, 3, -7, -7, 2, 5, 1, -7}));
}

TEST(StaticPool, ReadTableIsTokDivPsWithZeroTail) {
  const I64 lens = {2, 4};
  I32 out(3 * 4, -7);
  // seq_len_delta 1: KV lengths 3 and 5 -> 2 and 3 pages; zero_tail clears [live, 4) and padded row 2.
  translate::read_table({r2t(), cvec(kRows), cvec(lens), 1, 4, {}, 2, 1, mmat(out, 3, 4), true});
  EXPECT_EQ(out, (I32{4, 3, 0, 0, 2, 5, 1, 0, 0, 0, 0, 0}));
}

TEST(StaticPool, StaticPoolNeedsMultiplierOne) {
  const I64 lens = {5, 5};
  I32 out(2 * 4, -7);
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::canonical_page_table(canonical(out, lens, {}, 2)); },
                                             "multiplier"));
  EXPECT_EQ(out, I32(2 * 4, -7));  // nothing written
  I32 read(2 * 4, -7);
  EXPECT_TRUE(throws_naming<InvalidArgument>(
      [&] { translate::read_table({r2t(), cvec(kRows), cvec(lens), 0, 4, {}, 2, 2, mmat(read, 2, 4)}); }, "multiplier"));
  // With a table the multiplier is free (the unified kernel): 2 * identity.
  translate::canonical_page_table(canonical(out, lens, cvec(kIdentity), 2));
  EXPECT_EQ(out, (I32{8, 6, 0, -7, 4, 10, 2, -7}));
}

TEST(StaticPool, BugVariantsNeedATable) {
  const I64 lens = {5, 5};
  I32 out(2 * 4, -7);
  auto a = canonical(out, lens, {}, 1);
  a.variant = Variant::b09_no_padding_guard;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::canonical_page_table(a); }, "variant"));
}

// ---- decode_metadata ---------------------------------------------------------------------------
struct Decode {
  I64 seq;
  I32 cache = I32(2, 777);
  I32 cu = I32(3, 777);
  I32 table = I32(2 * 5, 777);
  I32 swa = I32(2 * 5, 777);
  DecodeMetadataArgs args(const I32& rows_of, std::int64_t ps) {
    DecodeMetadataArgs a = decode_batch(cvec(seq), cmat(rows_of, 2, 8), cvec(kRows), 4, ps);
    set_decode_outputs(a, mvec(cache), mvec(cu), mmat(table, 2, 5));
    return a;
  }
};

// Era C's call form: req_to_token carries the canonical rows, read at column c through req_pool_indices.
TEST(DecodeModes, SrcIsKernelPageTableCopiesTheRowsLivePrefix) {
  const I32 canonical_rows = {10, 11, 12, 13, 14, 15, 16, 17,  //
                              20, 21, 22, 23, 24, 25, 26, 27};
  Decode d{{3, 6}};
  auto a = d.args(canonical_rows, 2);
  a.src_is_kernel_page_table = true;
  translate::decode_metadata(a);
  EXPECT_EQ(d.cache, (I32{3, 6}));
  EXPECT_EQ(d.cu, (I32{0, 3, 9}));
  // lane 0 -> row 1, (3 + 1) >> 1 = 2 columns; lane 1 -> row 0, 3 columns; no shift, no stride.
  EXPECT_EQ(d.table, (I32{20, 21, 777, 777, 777, 10, 11, 12, 777, 777}));
}

TEST(DecodeModes, SrcIsKernelPageTableEqualsKernelPageTableOnIdentityRows) {
  const I32 canonical_rows = {10, 11, 12, 13, 14, 15, 16, 17,  //
                              20, 21, 22, 23, 24, 25, 26, 27};
  const I64 arange = {0, 1};
  Decode src{{3, 6}}, copy{{3, 6}};
  auto a = src.args(canonical_rows, 2);
  a.req_pool_indices = cvec(arange);
  a.src_is_kernel_page_table = true;
  translate::decode_metadata(a);
  auto b = copy.args(kR2t, 2);
  b.kernel_page_table = cmat(canonical_rows, 2, 8);
  translate::decode_metadata(b);
  EXPECT_EQ(src.table, copy.table);
  EXPECT_EQ(src.table, (I32{10, 11, 777, 777, 777, 20, 21, 22, 777, 777}));
}

TEST(DecodeModes, SrcIsKernelPageTableExcludesRemapAndSwa) {
  Decode d{{3, 6}};
  auto a = d.args(kR2t, 2);
  a.src_is_kernel_page_table = true;
  a.v2p = cvec(kIdentity);
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::decode_metadata(a); }, "src_is_kernel_page_table"));
  a.v2p = {};
  a.full_to_swa_index_mapping = cvec(kToSwa);
  a.swa_page_table = mmat(d.swa, 2, 5);
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::decode_metadata(a); }, "src_is_kernel_page_table"));
  a.full_to_swa_index_mapping = {};
  a.req_to_token.cols = 3;  // narrower than max_seq_pages = 4
  EXPECT_TRUE(throws_naming<BufferTooSmall>([&] { translate::decode_metadata(a); }, "req_to_token"));
  a.req_to_token.cols = 4;
  EXPECT_EQ(d.cache, I32(2, 777));  // the rejected calls wrote nothing
  EXPECT_NO_THROW(translate::decode_metadata(a));
  EXPECT_EQ(d.table, (I32{8, 9, 777, 777, 777, 4, 5, 10, 777, 777}));  // kR2t's rows 1 and 0, copied
}

// The general path over a static SWA pool: swa_page_table[b, c] = full_to_swa[page_index] >> log2(ps).
TEST(DecodeModes, TokenLevelSwaMapShiftsByLog2Ps) {
  Decode d{{5, 4}};
  auto a = d.args(kR2t, 2);
  a.full_to_swa_index_mapping = cvec(kToSwa);
  a.swa_page_table = mmat(d.swa, 2, 5);
  translate::decode_metadata(a);
  // lane 0 -> row 1, 3 columns: page starts 8, 6, -1; lane 1 -> row 0, 2 columns: 4, 10.
  EXPECT_EQ(d.table, (I32{4, 3, -1, 777, 777, 2, 5, 777, 777, 777}));  // static shift (-1 >> 1 = -1)
  // map[8] = 2 -> 1, map[6] = 0 -> 0, padding -> slot 0 (unmapped) -> 0; map[4] = 6 -> 3, map[10] = 8 -> 4.
  EXPECT_EQ(d.swa, (I32{1, 0, 0, 777, 777, 3, 4, 777, 777, 777}));
}

TEST(DecodeModes, TokenLevelSwaMapAtPageSizeOneIsTheSlot) {
  const I64 identity = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1};  // pages are tokens at ps 1
  Decode d{{2, 3}};
  auto a = d.args(kR2t, 1);
  a.v2p = cvec(identity);  // the full table through v2p, the SWA table through the token map
  a.full_to_swa_index_mapping = cvec(kToSwa);
  a.swa_page_table = mmat(d.swa, 2, 5);
  translate::decode_metadata(a);
  // lane 0 -> row 1, tokens 8, 9; lane 1 -> row 0, tokens 4, 5, 10.
  EXPECT_EQ(d.table, (I32{8, 9, 777, 777, 777, 4, 5, 10, 777, 777}));
  EXPECT_EQ(d.swa, (I32{2, 3, 777, 777, 777, 6, 7, 8, 777, 777}));
}

TEST(DecodeModes, TokenLevelSwaMapRules) {
  Decode d{{5, 4}};
  auto a = d.args(kR2t, 2);
  a.full_to_swa_index_mapping = cvec(kToSwa);
  // No SWA output: named.
  EXPECT_TRUE(throws_naming<BufferTooSmall>([&] { translate::decode_metadata(a); }, "swa_page_table"));
  a.swa_page_table = mmat(d.swa, 2, 5);
  a.swa_v2p = cvec(kIdentity);  // two forms of the SWA table
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::decode_metadata(a); }, "full_to_swa_index_mapping"));
  a.swa_v2p = {};
  const I64 short_map = {0, 0, 0, 0, 6, 7, 0, 0, 2, 3};  // token 10 lies past it
  a.full_to_swa_index_mapping = cvec(short_map);
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::decode_metadata(a); }, "full_to_swa_index_mapping"));
  EXPECT_EQ(d.swa, I32(2 * 5, 777));  // rolled back
  EXPECT_EQ(d.table, I32(2 * 5, 777));
}

}  // namespace
}  // namespace kvaddr
