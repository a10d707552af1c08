// The behaviours inferred from recorded upstream calls (issue 33) on hand-computed decode_metadata
// buffers: int32_lengths, full_width_page_table, swa_no_padding_guard and era_d_read_table@G, their
// names, parameters and acceptance; int32_lane_offsets' launch lanes on both sides of 2^31 and 2^32.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

constexpr std::int64_t kTwo31 = std::int64_t{1} << 31;

// ---- names, parameters, acceptance -----------------------------------------------------------------
TEST(InferredNames, RoundTripAndParameters) {
  for (const Variant v : kInferredVariants) EXPECT_EQ(parse_variant(to_string(v)), v) << to_string(v);
  EXPECT_EQ(to_string(Variant::int32_lengths), "int32_lengths");
  EXPECT_EQ(to_string(Variant::full_width_page_table), "full_width_page_table");
  EXPECT_EQ(to_string(Variant::swa_no_padding_guard), "swa_no_padding_guard");
  EXPECT_EQ(to_string(Variant::int32_lane_offsets), "int32_lane_offsets");
  EXPECT_EQ(parse_variant("int32_lane_offsets+e03_int32_offset"), Variant::int32_lane_offsets | Variant::e03_int32_offset);
  const Variant d = parse_variant("era_d_read_table@4");
  EXPECT_TRUE(has(d, Behaviour::era_d_read_table));
  EXPECT_EQ(d.column_block, 4);
  EXPECT_EQ(to_string(d), "era_d_read_table@4");
  EXPECT_EQ(parse_variant("era_d_read_table"), Variant::era_d_read_table);
  EXPECT_NE(d, Variant::era_d_read_table);  // G is part of the behaviour
  EXPECT_EQ(to_string(parse_variant("int32_lengths+era_d_read_table@8")), "int32_lengths+era_d_read_table@8");
}

TEST(InferredNames, ImpossibleParametersNameTheClaim) {
  // G = 0 (and G = 1, the smallest block, on the other side of the boundary).
  EXPECT_TRUE(throws_naming<InvalidArgument>([] { (void)parse_variant("era_d_read_table@0"); }, "variant"));
  EXPECT_EQ(parse_variant("era_d_read_table@1").column_block, 1);
  try {
    (void)parse_variant("int32_lengths@4");
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.value(), "int32_lengths@4");
    EXPECT_NE(e.reason().find("only grid_spill and era_d_read_table take a column block"), std::string::npos) << e.what();
  }
}

TEST(InferredAcceptance, DecodeOnlyAndTheColumnBoundOnce) {
  for (const Variant v : kInferredVariants) {
    const bool per_id = v == Variant::int32_lane_offsets;
    EXPECT_EQ(route_accepts(Route::decode_metadata, v), !per_id) << to_string(v);
    EXPECT_EQ(route_accepts(Route::token_translate, v), per_id) << to_string(v);
    EXPECT_EQ(route_accepts(Route::write_loc, v), per_id) << to_string(v);
    EXPECT_FALSE(route_accepts(Route::read_table, v)) << to_string(v);
  }
  EXPECT_TRUE(route_accepts(Route::decode_metadata, Variant::int32_lengths | Variant::era_d_read_table));
  EXPECT_FALSE(route_accepts(Route::decode_metadata, Variant::full_width_page_table | Variant::era_d_read_table));
  try {
    require_variant(Route::decode_metadata, Variant::full_width_page_table | Variant::era_d_read_table);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(e.reason().find("full_width_page_table and era_d_read_table cannot combine: both set the column bound"),
              std::string::npos)
        << e.what();
  }
}

// ---- decode_metadata on hand-computed buffers -------------------------------------------------------
// v2p = {0, 5, 7, -1} inside the parent {100, 200 | 0, 5, 7, -1} (v2p[-1] = 200, v2p[-2] = 100).
const I64 kParent = {100, 200, 0, 5, 7, -1};
Vec<const std::int64_t> v2p_slice() { return {kParent.data() + 2, 4, 2, 0}; }

struct Decode {
  Decode(I64 l, I32 r) : lens(std::move(l)), r2t(std::move(r)) {}
  I64 lens, rows;
  I32 r2t, cache, cu, table;
  std::int64_t r2t_cols = 4, ps = 2, max_seq_pages = 2;
  DecodeMetadataArgs args(Variant v) {
    rows.assign(lens.size(), 0);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<std::int64_t>(i);
    const auto batch = static_cast<std::int64_t>(lens.size());
    cache.assign(lens.size(), 9);
    cu.assign(lens.size() + 1, 9);
    table.assign(static_cast<std::size_t>(batch * max_seq_pages), 9);
    DecodeMetadataArgs a = decode_batch(cvec(lens), cmat(r2t, batch, r2t_cols), cvec(rows), max_seq_pages, ps);
    a.v2p = v2p_slice();
    set_decode_outputs(a, mvec(cache), mvec(cu), mmat(table, batch, max_seq_pages));
    a.variant = v;
    return a;
  }
};

TEST(Int32Lengths, PageCountWrapsAndLeavesTheRowStale) {
  // len = 2^31 - 1 fits an int32, but len + ps - 1 = 2^31 wraps to -2^31 in int32 arithmetic:
  // -2^31 >> 1 < 0 pages, so no column is written. Production counts 2^30 pages, capped at 2.
  Decode d{{kTwo31 - 1}, {0, 1, 2, 3}};
  translate::decode_metadata(d.args(Variant::production));
  EXPECT_EQ(d.table, (I32{0, 5}));
  EXPECT_EQ(d.cache, (I32{2147483647}));
  translate::decode_metadata(d.args(Variant::int32_lengths));
  EXPECT_EQ(d.table, (I32{9, 9}));
  EXPECT_EQ(d.cache, (I32{2147483647}));
  EXPECT_EQ(d.cu, (I32{0, 2147483647}));
}

TEST(Int32Lengths, LengthPast2To31WrapsWhereProductionRaises) {
  // seq_len 2^31 + 2: production's int32 cache_seqlens overflows; int32_wrap stores -2^31 + 2 but
  // still counts 2^30 + 1 pages (capped: 2 columns); int32_lengths counts from -2^31 + 2: none.
  Decode d{{kTwo31 + 2}, {0, 1, 2, 3}};
  EXPECT_TRUE(throws_naming<Overflow>([&] { translate::decode_metadata(d.args(Variant::production)); }, "cache_seqlens"));
  translate::decode_metadata(d.args(Variant::int32_wrap));
  EXPECT_EQ(d.table, (I32{0, 5}));
  EXPECT_EQ(d.cache, (I32{-2147483646}));
  translate::decode_metadata(d.args(Variant::int32_lengths));
  EXPECT_EQ(d.table, (I32{9, 9}));
  EXPECT_EQ(d.cache, (I32{-2147483646}));
  EXPECT_EQ(d.cu, (I32{0, -2147483646}));
}

TEST(Int32Lengths, PrefixSumsWrapInInt32) {
  // Two lengths of 2^30 + 1: their sum 2^31 + 2 wraps to -2^31 + 2 (production raises on it).
  Decode d{{(kTwo31 >> 1) + 1, (kTwo31 >> 1) + 1}, {0, 1, 2, 3, 0, 1, 2, 3}};
  EXPECT_TRUE(throws_naming<Overflow>([&] { translate::decode_metadata(d.args(Variant::production)); }, "cu_seqlens_k"));
  translate::decode_metadata(d.args(Variant::int32_lengths));
  EXPECT_EQ(d.cu, (I32{0, 1073741825, -2147483646}));
  EXPECT_EQ(d.table, (I32{0, 5, 0, 5}));  // the page counts fit: both rows capped at 2 columns
}

TEST(FullWidth, EveryColumnBelowMaxSeqPagesIsWritten) {
  // len 2 at ps 2 is one live page; the older kernel also writes column 1 (token r2t[0, 2] = 2 ->
  // page 1 -> v2p[1] = 5). len 0 writes nothing in production, both columns under full width.
  Decode d{{2, 0}, {0, 1, 2, 3, 2, 3, 0, 1}};
  translate::decode_metadata(d.args(Variant::production));
  EXPECT_EQ(d.table, (I32{0, 9, 9, 9}));
  translate::decode_metadata(d.args(Variant::full_width_page_table));
  EXPECT_EQ(d.table, (I32{0, 5, 5, 0}));
  // A req_to_token row too short for max_seq_pages pages is outside the variant's contract.
  Decode s{{2}, {0, 1}};
  s.r2t_cols = 2;
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::decode_metadata(s.args(Variant::full_width_page_table)); },
                                        "req_to_token"));
}

TEST(SwaNoPaddingGuard, SwaGatherReadsBeforeTheSwaMap) {
  // ps = 16, one row of 32 tokens: page values -17 >> 4 = -2 and -1 >> 4 = -1. The full-attention
  // table keeps its guard (0, 0); the unguarded SWA gather reads swa_v2p[-2] = 100, swa_v2p[-1] = 200.
  Decode d{{32}, I32(32, 0)};
  d.r2t[0] = -17;
  d.r2t[16] = -1;
  d.r2t_cols = 32;
  d.ps = 16;
  for (const Variant v : {Variant::production, Variant::swa_no_padding_guard}) {
    I32 swa(2, 9);
    auto a = d.args(v);
    a.swa_v2p = v2p_slice();
    a.swa_page_table = mmat(swa, 1, 2);
    translate::decode_metadata(a);
    EXPECT_EQ(d.table, (I32{0, 0})) << to_string(v);
    EXPECT_EQ(swa, v == Variant::production ? (I32{0, 0}) : (I32{100, 200})) << to_string(v);
  }
}

TEST(EraDReadTable, SpillsPastMaxSeqPagesUpToTheGrid) {
  // ps = 1, max_seq_pages = 2: row 0 has 3 pages. G = 2: the grid ends at column 2 (no spill); G = 3
  // and the default 256: column 2 lands at the flat address of row 1, column 0 (v2p[2] = 7).
  Decode d{{3, 0}, {0, 1, 2, 3, 2, 3, 0, 0}};
  d.ps = 1;
  translate::decode_metadata(d.args(Variant::production));
  EXPECT_EQ(d.table, (I32{0, 5, 9, 9}));
  translate::decode_metadata(d.args(parse_variant("era_d_read_table@2")));
  EXPECT_EQ(d.table, (I32{0, 5, 9, 9}));
  translate::decode_metadata(d.args(parse_variant("era_d_read_table@3")));
  EXPECT_EQ(d.table, (I32{0, 5, 7, 9}));
  translate::decode_metadata(d.args(Variant::era_d_read_table));
  EXPECT_EQ(d.table, (I32{0, 5, 7, 9}));
  EXPECT_EQ(d.cache, (I32{3, 0}));
  EXPECT_EQ(d.cu, (I32{0, 3, 3}));
}

TEST(EraDReadTable, TheLastRowsSpillPastTheBufferIsOutOfRange) {
  Decode d{{0, 3}, {0, 1, 2, 3, 0, 1, 2, 3}};
  d.ps = 1;
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::decode_metadata(d.args(Variant::era_d_read_table)); },
                                        "page_table"));
  EXPECT_EQ(d.table, (I32{9, 9, 9, 9}));  // all or nothing
}

// ---- int32_lane_offsets: the element a launch lane loads and stores -------------------------------------
TEST(Int32LaneOffsets, LaunchLaneOnBothSidesOf2To31And2To32) {
  const Variant v = Variant::int32_lane_offsets;
  const std::int64_t two32 = std::int64_t{1} << 32;
  EXPECT_EQ(lanes::launch_lane<std::int64_t>(0, v), 0);
  EXPECT_EQ(lanes::launch_lane<std::int64_t>(kTwo31 - 1, v), kTwo31 - 1);   // the last lane stored in place
  EXPECT_EQ(lanes::launch_lane<std::int64_t>(kTwo31, v), -kTwo31);         // before the buffer: unwritten
  EXPECT_EQ(lanes::launch_lane<std::int64_t>(two32 - 1, v), -1);
  EXPECT_EQ(lanes::launch_lane<std::int64_t>(two32, v), 0);                // element 0 stored again
  EXPECT_EQ(lanes::launch_lane<std::int64_t>(two32 + 5, v), 5);
  for (const std::int64_t i : {std::int64_t{0}, kTwo31 - 1, kTwo31, two32 + 5})
    EXPECT_EQ(lanes::launch_lane<std::int64_t>(i, Variant::production), i) << i;
}

// Every launch the host holds is below 2^31 lanes: the variant writes exactly what production writes
// (token_translate, write_loc and its zeroed tail), hand-computed.
TEST(Int32LaneOffsets, BelowTwoTo31TheRoutesWriteProductionsValues) {
  const I64 v2p = {0, 4, 1, -1, -1};
  const I64 ids = {3, 0, -1, 4, 6};
  for (const Variant v : {Variant::production, Variant::int32_lane_offsets}) {
    I64 out(5, 777);
    translate::token_translate(TokenTranslateArgs<std::int64_t>{cvec(ids), cvec(v2p), 2, 3, mvec(out), v});
    EXPECT_EQ(out, (I64{25, 0, 0, 6, 0})) << to_string(v);  // ps 2, M 3: 3 -> page 1 off 1 -> 4*6 + 1
    I64 wl(7, 777);
    translate::write_loc({cvec(ids), cvec(v2p), 2, 3, 1, 0, mvec(wl), v});
    EXPECT_EQ(wl, (I64{25, 0, 0, 6, 0, 0, 0})) << to_string(v);
  }
  try {
    require_variant(Route::decode_metadata, Variant::int32_lane_offsets);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "variant");
    EXPECT_NE(e.reason().find("int32_lane_offsets is not a variant of route decode_metadata"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kvaddr
