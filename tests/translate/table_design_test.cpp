// A design change of a page-table route is an edit of one function of its spec: the table runner
// (translate/src/routes_tables.ipp) runs whatever the spec says. Each spec below is a listed table
// route's spec with one function replaced; run by the same runner as the library's route, it differs
// from the listed route exactly where that function does, and agrees everywhere else.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/routes.hpp"
#include "standalone_runners.hpp"  // translate/src: the table runner for a spec outside the list

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64
using translate::detail::standalone::run_table;

// canonical_page_table with the entry lane's clamp dropped (a tombstone page's entry is v2p * M = -M).
struct UnclampedCanonical : RouteSpec<Route::canonical_page_table> {
  template <class I, class G>
  KVADDR_HD static constexpr I entry(I tok, G&& v2p, I ps, I mult, Variant, bool) {
    return lanes::page_entry_lane(tok, v2p, ps, mult, Variant::of(Behaviour::era_b_unclamped));
  }
};

// canonical_page_table whose live columns are floor(len / ps) (the last partial page dropped).
struct FloorPagesCanonical : RouteSpec<Route::canonical_page_table> {
  template <class I>
  KVADDR_HD static constexpr I live(const spec_rules::TableRowArgs& r, I len, I ps) {
    using lanes::kv_div, lanes::kv_pick;  // builtin integers; the checked integer brings its own
    const I pages = kv_div(len, ps);
    return kv_pick(pages < I(r.bound), pages, I(r.bound));  // r.bound: max_pages
  }
};

// read_table whose zero tail is filled with 7 instead of the sink.
struct SevenTailReadTable : RouteSpec<Route::read_table> {
  template <class I>
  KVADDR_HD static constexpr I tail_fill(Variant) { return I(7); }
};

// One request of 8 tokens at ps 2: page-start tokens 0, 2, 4, 6 name virtual pages 0..3, whose v2p
// entries are 0, -1 (a tombstone), 2, 1; M = 3.
const I32 kDesignR2t = {0, 1, 2, 3, 4, 5, 6, 7};
const I64 kDesignV2p = {0, -1, 2, 1};
const I64 kDesignRows = {0};

CanonicalPageTableArgs canonical(const I64& lens, I32& out) {
  return {cmat(kDesignR2t, 1, 8), cvec(kDesignRows), cvec(lens), cvec(kDesignV2p), 2, 3, 4, mmat(out, 1, 4)};
}

TEST(TableDesign, TheListedRouteIsTheRunnerOverItsSpec) {
  const I64 lens = {8};
  I32 lib(4, 99), runner(4, 99);
  translate::canonical_page_table(canonical(lens, lib));
  run_table<RouteSpec<Route::canonical_page_table>>(canonical(lens, runner));
  EXPECT_EQ(lib, (I32{0, 0, 6, 3}));  // max(v2p[p] * 3, 0): the tombstone page gives the sink
  EXPECT_EQ(runner, lib);
}

TEST(TableDesign, AnEntryChangeActsOnTheTombstoneColumnOnly) {
  const I64 lens = {8};
  I32 out(4, 99);
  run_table<UnclampedCanonical>(canonical(lens, out));
  EXPECT_EQ(out, (I32{0, -3, 6, 3}));
}

TEST(TableDesign, ALiveColumnsChangeLeavesThePartialPageUntouched) {
  const I64 lens = {7};  // 3.5 pages
  I32 lib(4, 99), floor(4, 99);
  translate::canonical_page_table(canonical(lens, lib));
  run_table<FloorPagesCanonical>(canonical(lens, floor));
  EXPECT_EQ(lib, (I32{0, 0, 6, 3}));     // ceil: 4 columns
  EXPECT_EQ(floor, (I32{0, 0, 6, 99}));  // floor: 3 columns, the fourth keeps the caller's value
}

TEST(TableDesign, ATailChangeActsOnTheTailAndThePaddedRowsOnly) {
  // Two output rows, one request of 3 tokens (2 live columns of max_pages 4) and zero_tail.
  const I64 lens = {3};
  auto args = [&](I32& out) {
    return ReadTableArgs{cmat(kDesignR2t, 1, 8), cvec(kDesignRows), cvec(lens), 0, 4, cvec(kDesignV2p), 2, 3, mmat(out, 2, 4), true};
  };
  I32 lib(8, 99), seven(8, 99);
  translate::read_table(args(lib));
  run_table<SevenTailReadTable>(args(seven));
  EXPECT_EQ(lib, (I32{0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(seven, (I32{0, 0, 7, 7, 7, 7, 7, 7}));
}

}  // namespace
}  // namespace kvaddr
