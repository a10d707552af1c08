// Composable variants (issues 17, 18) on hand-computed buffers: names and acceptance of
// composites, the grid-bounded spill, reads before the table through a slice of a parent
// allocation, the int32 wrap on store, the unclamped tombstone, the PR #33046 composite and the
// empty batch.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

constexpr std::int64_t kTwo31 = std::int64_t{1} << 31;

// ---- names and acceptance ------------------------------------------------------------------------
TEST(CompositeNames, SingleBehavioursRoundTrip) {
  for (const Variant v : kAllVariants) {
    EXPECT_EQ(parse_variant(to_string(v)), v) << to_string(v);
    EXPECT_LE(v.size(), 1);
  }
  for (const Variant v : kEdgeVariants) EXPECT_EQ(parse_variant(to_string(v)), v) << to_string(v);
  EXPECT_EQ(to_string(Variant::production), "production");
  EXPECT_EQ(to_string(Variant::b09_no_padding_guard), "b09_no_padding_guard");
}

TEST(CompositeNames, JoinedAndRegisteredSpellingsAgree) {
  const Variant v = parse_variant("b09_no_padding_guard+era_b_unclamped+int32_wrap");
  EXPECT_EQ(v, Variant::pr33046_as_written);
  EXPECT_EQ(parse_variant("pr33046_as_written"), v);
  EXPECT_EQ(parse_variant("int32_wrap+b09_no_padding_guard+era_b_unclamped"), v);  // order-free
  EXPECT_EQ(v.size(), 3);
  EXPECT_TRUE(has(v, Behaviour::b09_no_padding_guard));
  EXPECT_TRUE(has(v, Behaviour::era_b_unclamped));
  EXPECT_TRUE(has(v, Behaviour::int32_wrap));
  EXPECT_FALSE(has(v, Behaviour::e10_batch_index_rows));
  // Route-less printing is the joined form (the same bits are registered for two routes).
  EXPECT_EQ(to_string(v), "b09_no_padding_guard+era_b_unclamped+int32_wrap");
  EXPECT_EQ(to_string(v, Route::decode_metadata), "pr33046_as_written");
  EXPECT_EQ(to_string(v, Route::flashmla_block_table), "flashmla_era_b_as_written");
  EXPECT_EQ(parse_variant("production+b09_no_padding_guard"), Variant::b09_no_padding_guard);
}

TEST(CompositeNames, ColumnBlockSpelling) {
  const Variant g = parse_variant("grid_spill@64");
  EXPECT_TRUE(has(g, Behaviour::grid_spill));
  EXPECT_EQ(g.column_block, 64);
  EXPECT_EQ(to_string(g), "grid_spill@64");
  EXPECT_EQ(parse_variant("grid_spill").column_block, 256);
  EXPECT_NE(g, Variant::grid_spill);  // the block is part of the behaviour
  EXPECT_EQ(parse_variant("grid_spill@256"), Variant::grid_spill);
}

TEST(CompositeNames, MalformedNamesAreTypedErrors) {
  for (const char* bad : {"", "nope", "b09_no_padding_guard+b09_no_padding_guard", "b09_no_padding_guard++int32_wrap",
                          "b09_no_padding_guard@3", "grid_spill@0", "grid_spill@", "grid_spill@x",
                          "pr33046_as_written+int32_wrap"}) {
    EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)parse_variant(bad); }, "variant")) << bad;
  }
}

TEST(CompositeAcceptance, EveryBehaviourMustBelongAndNoneConflict) {
  EXPECT_TRUE(route_accepts(Route::decode_metadata, Variant::pr33046_as_written));
  EXPECT_TRUE(route_accepts(Route::flashmla_block_table, Variant::flashmla_era_b_as_written));
  EXPECT_TRUE(route_accepts(Route::read_table, Variant::grid_spill | Variant::b09_no_padding_guard));
  EXPECT_FALSE(route_accepts(Route::decode_metadata, Variant::pr33046_as_written | Variant::grid_spill));
  EXPECT_FALSE(route_accepts(Route::read_table, Variant::grid_spill | Variant::b10_no_max_pages_bound));
  EXPECT_FALSE(route_accepts(Route::write_loc, Variant::b06_stale_tail | Variant::e02_minus_one_sentinel));
  EXPECT_FALSE(route_accepts(Route::read_table, with_column_block(Variant::grid_spill, 0)));
  try {
    require_variant(Route::read_table, Variant::grid_spill | Variant::b10_no_max_pages_bound);
    ADD_FAILURE() << "nothing thrown";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "variant");
    EXPECT_NE(e.reason().find("cannot combine"), std::string::npos) << e.what();
  }
  try {
    require_variant(Route::decode_metadata, Variant::pr33046_as_written | Variant::grid_spill);
    ADD_FAILURE() << "nothing thrown";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(e.reason().find("grid_spill is not a variant of route decode_metadata"), std::string::npos) << e.what();
  }
}

TEST(CompositeAcceptance, SubsetsOfTheDecodeCompositeAreSmallestFirst) {
  const auto subsets = accepted_subsets(Route::decode_metadata, Variant::pr33046_as_written);
  ASSERT_EQ(subsets.size(), 8u);
  EXPECT_EQ(subsets.front(), Variant::production);
  EXPECT_EQ(subsets.back(), Variant::pr33046_as_written);
  for (std::size_t i = 1; i < subsets.size(); ++i) EXPECT_LE(subsets[i - 1].size(), subsets[i].size());
  // b10 and grid_spill conflict: of the 4 subsets of {b10, grid_spill} on read_table, 3 remain.
  EXPECT_EQ(accepted_subsets(Route::read_table, Variant::grid_spill | Variant::b10_no_max_pages_bound).size(), 3u);
}

// ---- grid-bounded spill ------------------------------------------------------------------------------
// ps = 2, M = 1; v2p over pages 0..4 = {0, -1, 3, 1, 4}. req_to_token 2 x 4: row 0 = 2 3 4 5
// (pages 1, 2), row 1 = 6 7 8 9 (pages 3, 4). Row 0 (len 4) needs 2 pages; row 1 (len 2) one.
const I64 kCompositeV2p = {0, -1, 3, 1, 4, -1};
const I32 kCompositeR2t = {2, 3, 4, 5, 6, 7, 8, 9};

CanonicalPageTableArgs spill_args(const I64& lens, I32& out, Mat<std::int32_t> view, Variant v) {
  static const I64 rows = {0, 1};
  CanonicalPageTableArgs a{cmat(kCompositeR2t, 2, 4), cvec(rows), cvec(lens), cvec(kCompositeV2p), 2, 1, 1, view, v};
  (void)out;
  return a;
}

TEST(GridSpill, CanonicalSpillsIntoTheGuardColumn) {
  // out: 2 rows x 1 column with a guard column (row_stride 2): flat {r0c0, guard, r1c0}.
  const I64 lens = {4, 2};
  I32 prod(3, 77), spill(3, 77);
  translate::canonical_page_table(spill_args(lens, prod, {prod.data(), 2, 1, 2, 1}, Variant::production));
  translate::canonical_page_table(spill_args(lens, spill, {spill.data(), 2, 1, 2, 1}, Variant::grid_spill));
  // Row 0: page 1 is a tombstone -> 0; page 2 -> 3 (the spill into the guard). Row 1: page 3 -> 1.
  EXPECT_EQ(prod, (I32{0, 77, 1}));
  EXPECT_EQ(spill, (I32{0, 3, 1}));
}

TEST(GridSpill, CanonicalSpillsIntoTheNextRow) {
  // Packed 2 x 1: row 0's second column lands on row 1's first (row 1 is empty, len 0).
  const I64 lens = {4, 0};
  I32 out(2, 77);
  translate::canonical_page_table(spill_args(lens, out, {out.data(), 2, 1, 1, 1}, Variant::grid_spill));
  EXPECT_EQ(out, (I32{0, 3}));
}

TEST(GridSpill, ColumnBlockBoundsTheSpill) {
  // G = 1: the grid covers exactly max_pages = 1 column, so nothing spills.
  const I64 lens = {4, 2};
  I32 out(3, 77);
  translate::canonical_page_table(
      spill_args(lens, out, {out.data(), 2, 1, 2, 1}, with_column_block(Variant::grid_spill, 1)));
  EXPECT_EQ(out, (I32{0, 77, 1}));
}

TEST(GridSpill, PastTheBufferIsOutOfRange) {
  const I64 lens = {2, 4};  // row 1's spill runs past the packed 2 x 1 buffer
  I32 out(2, 77);
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] { translate::canonical_page_table(spill_args(lens, out, {out.data(), 2, 1, 1, 1}, Variant::grid_spill)); },
      "out"));
}

TEST(GridSpill, StopsAtThe256ColumnBoundary) {
  // ps = 1, M = 1, identity v2p over 300 pages; row 0 needs 300 pages, max_pages = 3. The grid
  // covers 256 * ceil(3 / 256) = 256 columns: flat cells [0, 256) are written, [256, 300) keep 77.
  const std::int64_t n = 300;
  I64 v2p(static_cast<std::size_t>(n) + 1), rows = {0, 1}, lens = {n, 1};
  for (std::int64_t i = 0; i < n; ++i) v2p[static_cast<std::size_t>(i)] = i;
  v2p.back() = -1;
  I32 r2t(static_cast<std::size_t>(2 * n));
  for (std::int64_t i = 0; i < 2 * n; ++i) r2t[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % n);
  I32 out(static_cast<std::size_t>(n + 3), 77);  // 2 rows x 3 columns, row_stride n: guard columns [3, n)
  CanonicalPageTableArgs a{cmat(r2t, 2, n), cvec(rows), cvec(lens), cvec(v2p), 1, 1, 3, {out.data(), 2, 3, n, 1},
                           Variant::grid_spill};
  translate::canonical_page_table(a);
  for (std::int64_t c = 0; c < 256; ++c) EXPECT_EQ(out[static_cast<std::size_t>(c)], c) << c;
  for (std::int64_t c = 256; c < n; ++c) EXPECT_EQ(out[static_cast<std::size_t>(c)], 77) << c;
  EXPECT_EQ(out[static_cast<std::size_t>(n)], 0);  // row 1, column 0: token 0 -> page 0 -> 0
  EXPECT_EQ(out[static_cast<std::size_t>(n + 1)], 77);
}

TEST(GridSpill, ReadTableSpillsLikeTheCanonicalTable) {
  const I64 rows = {0, 1}, lens = {3, 1};  // delta 1: lens 4 and 2
  I32 out(3, 77);
  ReadTableArgs a;
  a.req_to_token = cmat(kCompositeR2t, 2, 4);
  a.row_ids = cvec(rows);
  a.seq_lens = cvec(lens);
  a.seq_len_delta = 1;
  a.max_pages = 1;
  a.v2p = cvec(kCompositeV2p);
  a.page_size = 2;
  a.out = {out.data(), 2, 1, 2, 1};
  a.variant = Variant::grid_spill | Variant::era_b_unclamped;
  translate::read_table(a);
  EXPECT_EQ(out, (I32{-1, 3, 1}));  // unclamped: the tombstone page 1 gives -M = -1
}

// ---- reads before the table ---------------------------------------------------------------------------
// Parent allocation {100, 200 | 0, 5, 7, -1}: the v2p view starts at offset 2, so v2p[-1] = 200
// and v2p[-2] = 100.
const I64 kParent = {100, 200, 0, 5, 7, -1};
Vec<const std::int64_t> v2p_slice() { return {kParent.data() + 2, 4, 2, 0}; }

DecodeMetadataArgs decode_args(const I64& lens, const I32& r2t, std::int64_t cols, std::int64_t ps, I32& cache,
                               I32& cu, I32& table, Variant v) {
  static I64 rows;
  rows.assign(lens.size(), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
  const auto batch = static_cast<std::int64_t>(lens.size());
  DecodeMetadataArgs a = decode_batch(cvec(lens), cmat(r2t, batch, cols), cvec(rows), 2, ps);
  a.v2p = v2p_slice();
  a.multiplier = 1;
  set_decode_outputs(a, mvec(cache), mvec(cu), mmat(table, batch, 2));
  a.variant = v;
  return a;
}

TEST(BeforeTable, DecodeShiftReadsVtwoPMinusOneAndMinusTwoAtPs16) {
  // One row, len 32 at ps = 16: page values -17 >> 4 = -2 and -1 >> 4 = -1.
  const I64 lens = {32};
  I32 r2t(32, 0);
  r2t[0] = -17;
  r2t[16] = -1;
  I32 cache(1, 9), cu(2, 9), prod(2, 9), bug(2, 9);
  translate::decode_metadata(decode_args(lens, r2t, 32, 16, cache, cu, prod, Variant::production));
  EXPECT_EQ(prod, (I32{0, 0}));  // guarded: both read v2p[0] = 0
  translate::decode_metadata(decode_args(lens, r2t, 32, 16, cache, cu, bug, Variant::b09_no_padding_guard));
  EXPECT_EQ(bug, (I32{100, 200}));  // v2p[-2] = 100, v2p[-1] = 200
  EXPECT_EQ(cache, (I32{32}));
  EXPECT_EQ(cu, (I32{0, 32}));
}

TEST(BeforeTable, ReadOutsideTheParentIsOutOfRange) {
  const I64 lens = {16};
  I32 r2t(16, 0);
  r2t[0] = -33;  // -33 >> 4 = -3: one before the parent
  I32 cache(1, 9), cu(2, 9), table(2, 9);
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] { translate::decode_metadata(decode_args(lens, r2t, 16, 16, cache, cu, table, Variant::b09_no_padding_guard)); },
      "v2p"));
  // Without the parent (a standalone view) already v2p[-1] is outside.
  r2t[0] = -1;
  auto a = decode_args(lens, r2t, 16, 16, cache, cu, table, Variant::b09_no_padding_guard);
  a.v2p.before = 0;
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::decode_metadata(a); }, "v2p"));
}

TEST(BeforeTable, CanonicalTruncatingDivisionReadsBeforeOnlyFromMinusPsDown) {
  // ps = 16: -1 / 16 = 0 reads v2p[0]; -17 / 16 = -1 reads v2p[-1] = 200. ps = 1: -1 reads v2p[-1].
  const I64 rows = {0}, lens16 = {32}, lens1 = {2};
  I32 r2t(32, 0);
  r2t[0] = -17;
  r2t[16] = -1;
  I32 out16(2, 9);
  translate::canonical_page_table({cmat(r2t, 1, 32), cvec(rows), cvec(lens16), v2p_slice(), 16, 1, 2,
                                   mmat(out16, 1, 2), Variant::b09_no_padding_guard});
  EXPECT_EQ(out16, (I32{200, 0}));
  I32 r2t1 = {-1, 2};
  I32 out1(2, 9);
  translate::canonical_page_table({cmat(r2t1, 1, 2), cvec(rows), cvec(lens1), v2p_slice(), 1, 1, 2, mmat(out1, 1, 2),
                                   Variant::b09_no_padding_guard});
  EXPECT_EQ(out1, (I32{200, 7}));
}

TEST(BeforeTable, NegativeSliceExtentIsRejected) {
  I32 r2t1 = {-1, 2}, out(2, 9);
  const I64 rows = {0}, lens = {2};
  Vec<const std::int64_t> v2p = v2p_slice();
  v2p.before = -1;
  EXPECT_TRUE(throws_naming<InvalidArgument>(
      [&] {
        translate::canonical_page_table(
            {cmat(r2t1, 1, 2), cvec(rows), cvec(lens), v2p, 1, 1, 2, mmat(out, 1, 2), Variant::production});
      },
      "v2p"));
  EXPECT_EQ(out, (I32{9, 9}));
}

// ---- int32 wrap on store ---------------------------------------------------------------------------
TEST(Int32Wrap, TokenTranslateWrapsToANegativeInt32) {
  // ps = 1, M = 2: id 1 -> v2p[1] * 2 = 2^31, which wraps to -2^31 in an int32 out.
  const I64 v2p = {0, std::int64_t{1} << 30, -1}, ids = {1, 0};
  I32 out(2, 5);
  EXPECT_TRUE(throws_naming<Overflow>(
      [&] { translate::token_translate<std::int32_t>({cvec(ids), cvec(v2p), 1, 2, mvec(out), Variant::production}); },
      "out"));
  translate::token_translate<std::int32_t>({cvec(ids), cvec(v2p), 1, 2, mvec(out), Variant::int32_wrap});
  EXPECT_EQ(out, (I32{static_cast<std::int32_t>(-kTwo31), 0}));
}

TEST(Int32Wrap, TableEntryAbove2To31Wraps) {
  // Canonical, ps = 2, M = 2^30: page 2 -> 3 * 2^30 = 3221225472 -> 3221225472 - 2^32 = -1073741824.
  const I64 rows = {0}, lens = {4};
  I32 out(2, 9);
  translate::canonical_page_table(
      {cmat(kCompositeR2t, 2, 4), cvec(rows), cvec(lens), cvec(kCompositeV2p), 2, std::int64_t{1} << 30, 2, mmat(out, 1, 2),
       Variant::int32_wrap});
  EXPECT_EQ(out, (I32{0, -1073741824}));
}

TEST(Int32Wrap, DecodeLengthsAndPrefixSumsWrap) {
  // seq_len 2^31 - 1 plus delta 1 = 2^31 -> -2^31; Era D (prefix sums only).
  const I64 lens = {kTwo31 - 1};
  I32 r2t(1, 0), cache(1, 9), cu(2, 9), table(2, 9);
  auto a = decode_args(lens, r2t, 1, 1, cache, cu, table, Variant::int32_wrap);
  a.seq_len_delta = 1;
  a.skip_page_table = true;
  translate::decode_metadata(a);
  EXPECT_EQ(cache, (I32{static_cast<std::int32_t>(-kTwo31)}));
  EXPECT_EQ(cu, (I32{0, static_cast<std::int32_t>(-kTwo31)}));
  I32 cache2(1, 9), cu2(2, 9);
  auto p = decode_args(lens, r2t, 1, 1, cache2, cu2, table, Variant::production);
  p.seq_len_delta = 1;
  p.skip_page_table = true;
  EXPECT_TRUE(throws_naming<Overflow>([&] { translate::decode_metadata(p); }, "cache_seqlens"));
}

// ---- the composites ---------------------------------------------------------------------------------
TEST(Composite, Pr33046AsWrittenOnDecodeMetadata) {
  // ps = 16, M = 4: row 0 = padding -1 (reads v2p[-1] = 200 -> 800), then page 1 (v2p 5 -> 20);
  // row 1 = page 3 (tombstone -> -4), then page 2 (7 -> 28).
  const I64 lens = {32, 32};
  I32 r2t(64, 0);
  r2t[0] = -1;
  r2t[16] = 16;
  r2t[32] = 48;
  r2t[48] = 32;
  I32 cache(2, 9), cu(3, 9), table(4, 9), prod(4, 9);
  auto a = decode_args(lens, r2t, 32, 16, cache, cu, table, Variant::pr33046_as_written);
  a.multiplier = 4;
  translate::decode_metadata(a);
  EXPECT_EQ(table, (I32{800, 20, -4, 28}));
  EXPECT_EQ(cu, (I32{0, 32, 64}));
  auto p = decode_args(lens, r2t, 32, 16, cache, cu, prod, Variant::production);
  p.multiplier = 4;
  translate::decode_metadata(p);
  EXPECT_EQ(prod, (I32{0, 20, 0, 28}));
}

TEST(Composite, FlashmlaEraBAsWritten) {
  // ps = 1, M = 2^30: token -1 reads v2p[-1] = 200 -> 200 * 2^30 = 50 * 2^32 wraps to 0; token 1:
  // v2p[1] = 5 -> 5 * 2^30 = 2^32 + 2^30 wraps to 2^30; token 3: the tombstone -1 -> -2^30 (no clamp).
  const I64 rows = {0}, lens = {3};
  const I32 r2t = {-1, 1, 3};
  I32 out(3, -1);
  FlashmlaBlockTableArgs a{cmat(r2t, 1, 3), cvec(rows), cvec(lens), {}, v2p_slice(), 1, std::int64_t{1} << 30,
                           mmat(out, 1, 3), Variant::flashmla_era_b_as_written};
  translate::flashmla_block_table(a);
  EXPECT_EQ(out, (I32{0, 1073741824, -1073741824}));
}

// ---- the empty batch --------------------------------------------------------------------------------
TEST(EmptyBatch, DecodeMetadataWritesNothing) {
  const I64 lens = {};
  I32 r2t(4, 0), cache(1, 9), cu(1, 55), table(2, 9);
  auto a = decode_args(lens, r2t, 4, 1, cache, cu, table, Variant::production);
  a.req_to_token = cmat(r2t, 1, 4);
  a.page_table = mmat(table, 0, 2);
  translate::decode_metadata(a);
  EXPECT_EQ(cu, (I32{55}));
  EXPECT_EQ(cache, (I32{9}));
}

}  // namespace
}  // namespace kvaddr
