// Bug-zoo variants of spec §6.2 (E01, E02, E03, E09, E10) on hand-computed cases, and the
// catalogue's translate-variant names checked against route_accepts / lane_plants.
//
// Pool for the route cases: ps = 2, M = 1 unless stated.
//   v2p over virtual pages 0..5 plus the trailing sentinel: {0, -1, 3, 1, 4, 2, -1}
//   (page 1 is a tombstone).
//   req_to_token (2 rows x 4 columns): row 0 = 2 3 4 5 (pages 1, 2), row 1 = 6 7 8 9 (pages 3, 4).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/model/catalogue.hpp"
#include "kvaddr/model/wiring.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

const I64 kZooV2p = {0, -1, 3, 1, 4, 2, -1};
const I32 kZooR2t = {2, 3, 4, 5,  //
                  6, 7, 8, 9};

CanonicalPageTableArgs canonical(const I64& rows, const I64& lens, std::int64_t mult, I32& out, std::int64_t max_pages,
                                 Variant v) {
  return {cmat(kZooR2t, 2, 4), cvec(rows), cvec(lens), cvec(kZooV2p), 2, mult, max_pages,
          mmat(out, static_cast<std::int64_t>(rows.size()), max_pages), v};
}

ReadTableArgs read_args(const I64& rows, const I64& lens, std::int64_t delta, std::int64_t max_pages, I32& out,
                        std::int64_t out_rows, bool zero_tail, Variant v) {
  ReadTableArgs a;
  a.req_to_token = cmat(kZooR2t, 2, 4);
  a.row_ids = cvec(rows);
  a.seq_lens = cvec(lens);
  a.seq_len_delta = delta;
  a.max_pages = max_pages;
  a.v2p = cvec(kZooV2p);
  a.page_size = 2;
  a.multiplier = 1;
  a.out = mmat(out, out_rows, max_pages);
  a.zero_tail = zero_tail;
  a.variant = v;
  return a;
}

// ---- E10: batch position used as the req_to_token row --------------------------------------------
TEST(ZooE10, CanonicalTableReadsTheBatchPositionsRow) {
  const I64 rows = {1, 0}, lens = {4, 2};
  I32 prod(4, 77), bug(4, 77);
  translate::canonical_page_table(canonical(rows, lens, 1, prod, 2, Variant::production));
  translate::canonical_page_table(canonical(rows, lens, 1, bug, 2, Variant::e10_batch_index_rows));
  // production: b0 -> row 1: tok 6 (page 3 -> 1), tok 8 (page 4 -> 4); b1 -> row 0: tok 2 (tombstone -> 0).
  EXPECT_EQ(prod, (I32{1, 4, 0, 77}));
  // E10: b0 -> row 0: tok 2 (-> 0), tok 4 (page 2 -> 3); b1 -> row 1: tok 6 (-> 1).
  EXPECT_EQ(bug, (I32{0, 3, 1, 77}));
}

TEST(ZooE10, ContiguousRowsHideIt) {
  const I64 rows = {0, 1}, lens = {4, 4};
  I32 prod(4, 77), bug(4, 77);
  translate::canonical_page_table(canonical(rows, lens, 1, prod, 2, Variant::production));
  translate::canonical_page_table(canonical(rows, lens, 1, bug, 2, Variant::e10_batch_index_rows));
  EXPECT_EQ(prod, bug);  // why upstream's contiguous req_pool_indices never see it
}

// flashmla_block_table over kZooR2t and kZooV2p at ps 2 for one request (rows, lens of size 1): its
// two-column block-table row, unwritten columns left at -1.
I32 flashmla_one_row(const I64& rows, const I64& lens, Variant v) {
  I32 out(2, -1);
  FlashmlaBlockTableArgs a;
  a.req_to_token = cmat(kZooR2t, 2, 4);
  a.req_pool_indices = cvec(rows);
  a.page_kernel_lens = cvec(lens);
  a.v2p = cvec(kZooV2p);
  a.page_size = 2;
  a.kv_indices = mmat(out, 1, 2);
  a.variant = v;
  translate::flashmla_block_table(a);
  return out;
}

TEST(ZooE10, FlashmlaAndDecodeMetadataToo) {
  const I64 rows = {1}, lens = {2};
  for (Variant v : {Variant::production, Variant::e10_batch_index_rows}) {
    EXPECT_EQ(flashmla_one_row(rows, lens, v), v == Variant::production ? (I32{1, -1}) : (I32{0, -1}));  // row 1 tok 6 vs row 0 tok 2
  }
}

// ---- E09: floor instead of ceil for the page count -------------------------------------------------
TEST(ZooE09, FloorDropsThePartialLastPage) {
  const I64 rows = {1}, lens = {3};  // 3 tokens at ps 2: pages 3 and 4 (the second one partial)
  for (Variant v : {Variant::production, Variant::e09_floor_pages}) {
    EXPECT_EQ(flashmla_one_row(rows, lens, v), v == Variant::production ? (I32{1, 4}) : (I32{1, -1}));
  }
  // read_table: length 1 -> floor 0 pages, the row stays empty.
  const I64 one = {1};
  I32 prod(2, 77), bug(2, 77);
  translate::read_table(read_args(rows, one, 0, 2, prod, 1, false, Variant::production));
  translate::read_table(read_args(rows, one, 0, 2, bug, 1, false, Variant::e09_floor_pages));
  EXPECT_EQ(prod, (I32{1, 77}));
  EXPECT_EQ(bug, (I32{77, 77}));
  // Page-aligned lengths hide it.
  EXPECT_EQ(lanes::page_count<std::int64_t>(4, 2, Variant::e09_floor_pages), 2);
  EXPECT_EQ(lanes::page_count<std::int64_t>(5, 2, Variant::e09_floor_pages), 2);
  EXPECT_EQ(lanes::page_count<std::int64_t>(5, 2, Variant::production), 3);
}

// ---- E02: -1 where the sink 0 belongs -------------------------------------------------------------
TEST(ZooE02, ReadTableZeroTailFillsMinusOne) {
  const I64 rows = {1}, lens = {2};
  I32 prod(4, 77), bug(4, 77);  // 2 rows x 2 columns: row 1 is a padded graph row
  translate::read_table(read_args(rows, lens, 0, 2, prod, 2, true, Variant::production));
  translate::read_table(read_args(rows, lens, 0, 2, bug, 2, true, Variant::e02_minus_one_sentinel));
  EXPECT_EQ(prod, (I32{1, 0, 0, 0}));
  EXPECT_EQ(bug, (I32{1, -1, -1, -1}));
}

TEST(ZooE02, WriteLocTailFilledWithMinusOne) {
  const I64 loc = {7};  // t 7: page 3 -> P1, offset 1 -> 1*2 + 1 = 3
  for (Variant v : {Variant::production, Variant::e02_minus_one_sentinel}) {
    I64 out(3, 77);
    translate::write_loc({cvec(loc), cvec(kZooV2p), 2, 1, 1, 0, mvec(out), v});
    EXPECT_EQ(out, v == Variant::production ? (I64{3, 0, 0}) : (I64{3, -1, -1}));
  }
}

TEST(ZooE02, CanonicalWithoutClampLeaksTheTombstone) {
  const I64 rows = {0}, lens = {4};  // tok 2 -> page 1, a tombstone
  I32 prod(2, 77), bug(2, 77);
  translate::canonical_page_table(canonical(rows, lens, 3, prod, 2, Variant::production));
  translate::canonical_page_table(canonical(rows, lens, 3, bug, 2, Variant::e02_minus_one_sentinel));
  EXPECT_EQ(prod, (I32{0, 9}));   // page 2 -> P3 -> 3*3
  EXPECT_EQ(bug, (I32{-3, 9}));   // -M
}

// ---- E01: no column bound on loads and stores ------------------------------------------------------
TEST(ZooE01, ReadTableLoadsTheNextRowAndSpills) {
  // Row 0, 4 tokens widened by delta 2: n_pages = 3 > max_pages = 2.
  const I64 rows = {0}, lens = {4};
  I32 prod(4, 77), bug(4, 77);  // 2 x 2 buffer: row 1 is the guard row
  translate::read_table(read_args(rows, lens, 2, 2, prod, 2, false, Variant::production));
  translate::read_table(read_args(rows, lens, 2, 2, bug, 2, false, Variant::e01_no_column_bound));
  EXPECT_EQ(prod, (I32{0, 3, 77, 77}));
  // Column 2 loads req_to_token flat element 4 = row 1's tok 6 (page 3 -> 1) and stores it into the guard row.
  EXPECT_EQ(bug, (I32{0, 3, 1, 77}));
  // B10 (bound dropped on the store only) reads column 4 of a 4-wide row: caught as OutOfRange there.
  I32 b10(4, 77);
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] { translate::read_table(read_args(rows, lens, 2, 2, b10, 2, false, Variant::b10_no_max_pages_bound)); },
      "req_to_token"));
  // Past the end of req_to_token the unmasked load is OutOfRange("req_to_token").
  const I64 row1 = {1};
  I32 far(4, 77);
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] { translate::read_table(read_args(row1, lens, 2, 2, far, 2, false, Variant::e01_no_column_bound)); },
      "req_to_token"));
}

TEST(ZooE01, CanonicalAcceptsIt) {
  EXPECT_TRUE(route_accepts(Route::canonical_page_table, Variant::e01_no_column_bound));
  EXPECT_TRUE(lane_plants(Route::canonical_page_table, Variant::e01_no_column_bound));
  EXPECT_EQ(lanes::table_columns<std::int64_t>(6, 2, 2, Variant::e01_no_column_bound), 3);
  EXPECT_EQ(lanes::table_columns<std::int64_t>(6, 2, 2, Variant::production), 2);
}

// ---- E03: int32 arithmetic of P*S + o ---------------------------------------------------------------
TEST(ZooE03, WrapsToTheSinkPastTwoToThe31) {
  // P = 2^21, ps 64, M 24 (S = 1536), t = 5: P*S + o = 3221225477 >= 2^31.
  const auto gather = [](std::int64_t, bool mask) -> std::int64_t { return mask ? (std::int64_t{1} << 21) : 0; };
  const std::int64_t want = (std::int64_t{1} << 21) * 1536 + 5;
  EXPECT_EQ(lanes::token_translate_lane<std::int64_t>(5, gather, 64, 1536, Variant::production), want);
  // int32 wrap: 3221225477 - 2^32 = -1073741819, clamped: a silent write / read at row 0.
  EXPECT_EQ(lanes::token_translate_lane<std::int64_t>(5, gather, 64, 1536, Variant::e03_int32_offset), 0);
  EXPECT_EQ(lanes::write_loc_lane<std::int64_t>(5, gather, 64, 1536, 1, 0, Variant::production), want);
  EXPECT_EQ(lanes::write_loc_lane<std::int64_t>(5, gather, 64, 1536, 1, 0, Variant::e03_int32_offset), 0);
  // Just past 2^31 with o = 0 wraps to a negative id, also clamped; below 2^31 nothing changes.
  const auto small = [](std::int64_t, bool) -> std::int64_t { return 100; };
  EXPECT_EQ(lanes::token_translate_lane<std::int64_t>(5, small, 64, 1536, Variant::e03_int32_offset), 153605);
  // The old six-argument write_loc lane is the production lane.
  EXPECT_EQ(lanes::write_loc_lane<std::int64_t>(5, gather, 64, 1536, 1, 0), want);
}

TEST(ZooE03, HostRoutesWrapLikeTheDevice) {
  EXPECT_TRUE(route_accepts(Route::token_translate, Variant::e03_int32_offset));
  EXPECT_TRUE(route_accepts(Route::write_loc, Variant::e03_int32_offset));
  // v2p[0] = 2^21 (unpinned on purpose), ps 64, M 24: t = 5 -> 2^21 * 1536 + 5 >= 2^31 wraps negative -> 0.
  // v2p[1] = 2796203: 2796203 * 1536 = 2^32 + 512, so t = 69 wraps to 512 + 5 = 517 (int64 output).
  const std::vector<std::int64_t> v2p{std::int64_t{1} << 21, 2796203};
  const std::vector<std::int64_t> ids{5, 69};
  std::vector<std::int64_t> out{777, 777};
  translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), 64, 24, mvec(out), Variant::production});
  EXPECT_EQ(out, (std::vector<std::int64_t>{(std::int64_t{1} << 21) * 1536 + 5, std::int64_t{2796203} * 1536 + 5}));
  translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), 64, 24, mvec(out), Variant::e03_int32_offset});
  EXPECT_EQ(out, (std::vector<std::int64_t>{0, 517}));
  std::vector<std::int32_t> out32{7, 7};
  translate::token_translate<std::int32_t>({cvec(ids), cvec(v2p), 64, 24, mvec(out32), Variant::e03_int32_offset});
  EXPECT_EQ(out32, (std::vector<std::int32_t>{0, 517}));
}

// ---- names and the catalogue ---------------------------------------------------------------------
TEST(ZooNames, NewVariantsRoundTrip) {
  for (std::string_view n : {"e01_no_column_bound", "e02_minus_one_sentinel", "e03_int32_offset", "e09_floor_pages",
                             "e10_batch_index_rows"}) {
    EXPECT_EQ(to_string(parse_variant(n)), n);
  }
  // Frozen values of the enumerators other engineers instantiate.
  EXPECT_EQ(Variant::production.bits, 0u);
  EXPECT_EQ(Variant::era_b_unclamped.bits, 1u << 10);
  EXPECT_EQ(Variant::e01_no_column_bound.bits, 1u << 11);
  EXPECT_EQ(std::size(kAllVariants), 17u);
}

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto comma = s.find(", ");
    out.push_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 2);
  }
  return out;
}

TEST(ZooCatalogue, TranslateVariantsNamedByTheCatalogueExistOnTheirRoutes) {
  int checked = 0;
  for (const model::CatalogueEntry& e : model::bug_catalogue()) {
    if (e.kind != model::PlantKind::translate_variant && e.kind != model::PlantKind::lane_variant) continue;
    for (std::string_view name : split(e.planted_by)) {
      if (model::wiring_variant_from_string(name)) continue;  // the wiring half of B04 / B14 / B16
      const Variant v = parse_variant(name);
      bool on_some_route = false;
      for (std::string_view route : split(e.routes)) {
        const Route r = parse_route(route);
        EXPECT_TRUE(lane_plants(r, v)) << e.id << " " << name << " on " << route;
        on_some_route = on_some_route || route_accepts(r, v);
      }
      EXPECT_EQ(on_some_route, e.kind == model::PlantKind::translate_variant) << e.id << " " << name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 15);  // every non-production variant but era_b_unclamped
  // Every non-production variant is named by the catalogue.
  for (Variant v : kAllVariants) {
    if (v == Variant::production || v == Variant::era_b_unclamped) continue;  // era_b: an era flag, not a bug id
    bool named = false;
    for (const model::CatalogueEntry& e : model::bug_catalogue())
      for (std::string_view name : split(e.planted_by)) named = named || name == to_string(v);
    EXPECT_TRUE(named) << to_string(v);
  }
}

}  // namespace
}  // namespace kvaddr
