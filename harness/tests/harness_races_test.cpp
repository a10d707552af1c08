// The race rule of every front end (kvaddr/replay/races.hpp) and the naming engine that applies it
// (kvaddr/harness/naming.hpp name_case; the C++ harness's naming.inc, kvaddr._core.name_case and replay use them).
// python/tests/test_races.py names the same overlap case through kvaddr._core.name_case.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/harness/naming.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/races.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {
using namespace kvaddr;
using I64 = std::vector<std::int64_t>;
using Writes = std::vector<replay::RaceWrite>;

// canonical_page_table, ps 1, max_pages 1, a packed [4, 1] table, req_to_token {0, 1, 2 | 3, 4, 5}, seq_lens {3, 2},
// v2p {10, ..., 15}. Under grid_spill row 0 stores 10, 11, 12 at lanes 0..2 and row 1 stores 13, 14 at lanes 1, 2:
// lane 1 may hold 11 or 13, lane 2 12 or 14; the host's row order leaves {10, 13, 14, -1}.
struct Overlap {
  std::vector<std::int32_t> r2t{0, 1, 2, 3, 4, 5};
  I64 rows{0, 1}, lens{3, 2}, v2p{10, 11, 12, 13, 14, 15};
  I64 before{-1, -1, -1, -1};

  // Batch rows [b0, b1) on the table rows [row0, 4) of `prefill` under v: the whole table after it ran.
  I64 part(Variant v, std::int64_t row0, std::int64_t b0, std::int64_t b1, const I64& prefill) const {
    std::vector<std::int32_t> out(prefill.begin(), prefill.end());
    translate::canonical_page_table({{r2t.data(), 2, 3, 3, 1},
                                     {rows.data() + b0, b1 - b0},
                                     {lens.data() + b0, b1 - b0},
                                     {v2p.data(), 6},
                                     1,
                                     1,
                                     1,
                                     {out.data() + row0, static_cast<std::int64_t>(prefill.size()) - row0, 1, 1, 1},
                                     v});
    return I64(out.begin(), out.end());
  }
  replay::PartRun runner(Variant v) const {
    return [this, v](std::int64_t row0, std::int64_t b0, std::int64_t b1, bool, const I64& prefill) {
      return part(v, row0, b0, b1, prefill);
    };
  }
  // name_case over this case with the kernel's table `actual`; `races`: with the part runner; not `intact`: with
  // one guard lane on each side, the one after the table changed by the kernel.
  harness::NamingCase naming_case(const I64& actual, bool races, bool intact) const {
    harness::NamingCase c;
    harness::NamingCase::Output out{1, 0, before, actual};
    if (!intact) {
      out.guard = 1;
      out.before = {-9, -1, -1, -1, -1, -9};
      out.after.insert(out.after.begin(), -9);
      out.after.push_back(5);
    }
    c.outputs = {out};
    c.run = [this](Variant v, const harness::NamingCase::Bufs& b) { return harness::NamingCase::Bufs{part(v, 0, 0, 2, b[0])}; };
    c.batch = harness::NamingCase::Batch{lens, 0, 1, false};
    if (races)
      c.part = [this](Variant v, std::int64_t row0, std::int64_t b0, std::int64_t b1, bool, const I64& prefill) {
        return part(v, row0, b0, b1, prefill);
      };
    return c;
  }
  std::vector<std::string> names(const I64& actual, bool races = true, bool intact = true) const {
    std::vector<std::string> out_names;
    for (Variant v : harness::name_case(Route::canonical_page_table, Variant::production, naming_case(actual, races, intact)))
      out_names.emplace_back(to_string(v, Route::canonical_page_table));
    return out_names;
  }
};

const std::vector<std::string> kSpilling{"e01_no_column_bound", "grid_spill"};

TEST(HarnessRaces, TheStoresOfEachRow) {
  const Overlap o;
  const I64 host = o.part(Variant::grid_spill, 0, 0, 2, o.before);
  EXPECT_EQ(host, (I64{10, 13, 14, -1}));
  const auto w = replay::split_writes(o.before, {2, 4, 1, false}, o.runner(Variant::grid_spill), host);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(*w, (replay::LaneWrites{Writes{{0, 10}}, Writes{{0, 11}, {1, 13}}, Writes{{0, 12}, {1, 14}}, Writes{}}));
  EXPECT_EQ(replay::possible_values((*w)[1]), (I64{11, 13}));
  EXPECT_EQ(replay::last_write_wins(o.before, *w), host);
  // a whole-call output the parts do not give: the split is wrong, no writes
  EXPECT_FALSE(replay::split_writes(o.before, {2, 4, 1, false}, o.runner(Variant::grid_spill), I64{10, 11, 12, -1}));
  // matches_up_to_race: each contested lane one of its values, every other lane the host's, some lane contested
  EXPECT_TRUE(replay::matches_up_to_race(host, {10, 11, 12, -1}, *w));
  EXPECT_FALSE(replay::matches_up_to_race(host, {10, 99, 12, -1}, *w));
  EXPECT_FALSE(replay::matches_up_to_race(host, {15, 11, 12, -1}, *w));
  EXPECT_FALSE(replay::matches_up_to_race(host, {10, 11, 12}, *w));  // not the table's lanes
  const replay::LaneWrites one_writer{Writes{{0, 10}}, Writes{{0, 13}}, Writes{{1, 14}}, Writes{}};
  EXPECT_FALSE(replay::matches_up_to_race(host, host, one_writer));  // no lane contested: not a race
}

TEST(HarnessRaces, WhichCallsCanRace) {
  EXPECT_TRUE(replay::races_on(Route::canonical_page_table, Variant::grid_spill));
  EXPECT_TRUE(replay::races_on(Route::read_table, Variant::b10_no_max_pages_bound));
  EXPECT_TRUE(replay::races_on(Route::read_table, Variant::e01_no_column_bound));
  EXPECT_FALSE(replay::races_on(Route::canonical_page_table, Variant::production));
  EXPECT_FALSE(replay::races_on(Route::flashmla_block_table, Variant::grid_spill));  // columns bounded by the table
  EXPECT_FALSE(replay::races_on(Route::token_translate, Variant::production));
  // a row leaves its own lanes when it has more pages than lanes per row (boundary: pages == stride)
  EXPECT_FALSE(replay::rows_leave_their_own({3, 4}, 0, 2, 2));
  EXPECT_TRUE(replay::rows_leave_their_own({3, 5}, 0, 2, 2));
  EXPECT_TRUE(replay::rows_leave_their_own({3, 4}, 1, 2, 2));  // seq_len_delta counts
  EXPECT_TRUE(replay::rows_leave_their_own({-1}, 0, 2, 2));    // a length the route rejects: the route decides
  EXPECT_TRUE(replay::rows_leave_their_own({1}, 0, 0, 2));     // page size < 1 likewise
  EXPECT_TRUE(replay::rows_leave_their_own({INT64_MAX}, 1, 2, 2));
}

TEST(HarnessRaces, TheSplitIsBoundedInLanes) {
  // (batch + 1) x 2 runs x lanes <= kMaxRaceLanes (2^28): at the bound the parts run, one lane past it none do
  const std::int64_t batch = (std::int64_t{1} << 20) - 1;  // 2^21 runs
  int calls = 0;
  const replay::PartRun failing = [&](std::int64_t, std::int64_t, std::int64_t, bool, const I64&) -> I64 {
    ++calls;
    throw InvalidArgument("out", "test", "a part the route rejects");
  };
  EXPECT_FALSE(replay::split_writes(I64(128, 0), {batch, 128, 1, false}, failing, I64(128, 0)));
  EXPECT_EQ(calls, 1);
  calls = 0;
  EXPECT_FALSE(replay::split_writes(I64(129, 0), {batch, 129, 1, false}, failing, I64(129, 0)));
  EXPECT_EQ(calls, 0);
}

TEST(HarnessRaces, NameCaseNamesARacingSpill) {
  const Overlap o;
  for (std::int64_t lane1 : {11, 13})
    for (std::int64_t lane2 : {12, 14}) EXPECT_EQ(o.names({10, lane1, lane2, -1}), kSpilling) << lane1 << " " << lane2;
  EXPECT_EQ(o.names({10, 99, 14, -1}), std::vector<std::string>{});  // 99 is stored by no row
  EXPECT_EQ(o.names({15, 11, 14, -1}), std::vector<std::string>{});  // lane 0 has one writer
  EXPECT_EQ(o.names({10, 11, 14, 7}), std::vector<std::string>{});   // lane 3 is stored by no row
  // without the part runner only the host's row order is named
  EXPECT_EQ(o.names({10, 11, 12, -1}, false), std::vector<std::string>{});
  EXPECT_EQ(o.names({10, 13, 14, -1}, false), kSpilling);
  // a form whose surrounding lanes changed is never reproduced
  EXPECT_EQ(o.names({10, 13, 14, -1}, true, false), std::vector<std::string>{});
}

// The comparison's race rule (harness::race_allows, run_case's and kvaddr.check's _judge): an output the racing rows
// of the claimed spilling variant can leave passes; the same output under production (no spill), a value no row
// stores, changed guards or no part runner do not.
TEST(HarnessRaces, TheComparisonAcceptsWhatTheRacingRowsCanLeave) {
  const Overlap o;
  const auto allows = [&](Variant claimed, const I64& actual, bool races = true, bool intact = true) {
    return harness::race_allows(Route::canonical_page_table, claimed, o.naming_case(actual, races, intact));
  };
  for (std::int64_t lane1 : {11, 13})
    for (std::int64_t lane2 : {12, 14}) {
      EXPECT_TRUE(allows(Variant::grid_spill, {10, lane1, lane2, -1})) << lane1 << " " << lane2;
      EXPECT_TRUE(allows(Variant::e01_no_column_bound, {10, lane1, lane2, -1}));
      EXPECT_FALSE(allows(Variant::production, {10, lane1, lane2, -1}));
    }
  EXPECT_FALSE(allows(Variant::grid_spill, {10, 99, 12, -1}));
  EXPECT_FALSE(allows(Variant::grid_spill, {10, 11, 12, -1}, false));
  EXPECT_FALSE(allows(Variant::grid_spill, {10, 11, 12, -1}, true, false));
}

// The same rule in the C++ harness's comparison (run_case): a kernel that runs the rows of a grid_spill table one at a
// time, the last row first, leaves the first row's value where two rows store to one lane (the host's order keeps
// the last's; like the harness's reference it spans the whole row stride). Claimed grid_spill it passes every case;
// claimed production it fails. On the old tree (no race rule in the comparison) the grid_spill claim failed as a
// mismatch.
TEST(HarnessRaces, TheCheckAcceptsARacingOutputOfTheSpillingClaim) {
  std::int64_t raced = 0;  // calls whose output differs from the host's row order
  const harness::CanonicalPageTableKernel last_row_first = [&](const CanonicalPageTableArgs& a) {
    std::vector<std::int32_t> host_order(a.out.data, a.out.data + a.out.rows * a.out.row_stride);
    CanonicalPageTableArgs h = a;
    h.out.cols = a.out.row_stride;
    h.out.data = host_order.data();
    h.variant = Variant::grid_spill;
    translate::canonical_page_table(h);
    for (std::int64_t b = a.seq_lens.size - 1; b >= 0; --b) {
      CanonicalPageTableArgs r = a;
      r.req_pool_indices = {a.req_pool_indices.data + b, 1};
      r.seq_lens = {a.seq_lens.data + b, 1};
      r.out.data = a.out.data + b * a.out.row_stride;
      r.out.rows = a.out.rows - b;
      r.out.cols = a.out.row_stride;
      r.variant = Variant::grid_spill;
      translate::canonical_page_table(r);
    }
    raced += std::equal(host_order.begin(), host_order.end(), a.out.data) ? 0 : 1;
  };
  const harness::Report spill = harness::check_canonical_page_table(
      last_row_first, {.cases = 300, .seed = 3, .variant = Variant::grid_spill, .overflow = harness::OverflowPolicy::skip});
  EXPECT_TRUE(spill.ok) << spill.to_text();
  EXPECT_GT(raced, 0);  // some calls did race, and passed
  raced = 0;
  const harness::Report prod = harness::check_canonical_page_table(
      last_row_first, {.cases = 300, .seed = 3, .shrink = false, .overflow = harness::OverflowPolicy::skip});
  EXPECT_FALSE(prod.ok);
  EXPECT_EQ(prod.kind, "mismatch") << prod.to_text();
}

}  // namespace
