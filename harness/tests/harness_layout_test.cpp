// The layouts the C++ harness presents a case in (harness/src/present.cpp; kvaddr.check's for the same seed and
// index): adjacent slices of one allocation, a strided req_to_token, aliased and partially overlapping outputs.
// A store past an output into the adjacent input is caught and named with that input's element; a written input
// is input_modified; a kernel reading a strided req_to_token as packed fails; a correct kernel passes on every
// layout kind and sees each of them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/routes.hpp"
#include "planted.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using harness::Report;
using std::int64_t;

using harness_test::list_in;

// write_loc that stores 4242 one element past `out` (planted) or one before it (before), but only where that lane is
// the first / last element of `loc` in the same allocation: the adjacent layouts out | loc and loc | out.
void write_loc_planted(const WriteLocArgs& a, bool planted, bool before) {
  translate::write_loc(a);
  if (!planted) return;
  if (!before && a.out.data + a.out.size == a.loc.data) a.out.data[a.out.size] = 4242;
  if (before && a.loc.data + a.loc.size == a.out.data) a.out.data[-1] = 4242;
}

// The planted store of write_loc_planted on seed `seed`: caught as out_of_bounds, its one lane named by the element of
// loc it landed in (loc[0] past out, loc[N - 1] before it), expected = what loc held there, actual = 4242.
// The failure is recorded with the shared allocation: `kvaddr replay` sees the one differing lane, and from_replay
// presents the same layout again (the planted kernel fails there alike, the honest one passes).
void expect_store_into_loc(std::uint64_t seed, bool before) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("kvaddr_layout_" + std::to_string(::getpid()) + "_" + std::to_string(seed));
  std::filesystem::remove_all(root);
  harness_test::check_good_and_planted(
      harness::check_write_loc, [before](const WriteLocArgs& a, bool planted) { write_loc_planted(a, planted, before); },
      {.cases = 300, .seed = seed}, {.cases = 300, .seed = seed, .replay_dir = root.string()},
      {.kind = "out_of_bounds", .lanes = 1, .output = "out", .col = before ? -1 : 0},
      [before](const Report&, const Report& r) {
        const harness::Lane& l = r.first[0];
        const std::vector<int64_t> loc = list_in(r.minimal_case, "loc");
        ASSERT_FALSE(loc.empty()) << r.minimal_case;
        EXPECT_EQ(l.region, before ? "neighbour_before" : "neighbour_after") << r.to_text();
        EXPECT_EQ(l.neighbour, before ? "loc[" + std::to_string(loc.size() - 1) + "]" : "loc[0]");
        EXPECT_EQ(l.expected, before ? loc.back() : loc[0]) << r.minimal_case;  // what loc held there
        EXPECT_EQ(l.actual, 4242);
        EXPECT_EQ(r.detail, "a store outside out landed in loc, the input adjacent to it in one allocation (or the kernel "
                            "wrote into loc there)");
        const std::string layout = before ? "loc | out" : "out | loc";
        EXPECT_NE(r.minimal_case.find("adjacent slices of one allocation: " + layout), std::string::npos) << r.minimal_case;
        const replay::ReplayReport rep = replay::replay_dir(r.replay_dir);
        ASSERT_EQ(rep.calls.size(), 1U) << replay::to_text(rep);
        EXPECT_EQ(rep.calls[0].status, replay::CallStatus::differs) << replay::to_text(rep);
        EXPECT_EQ(rep.calls[0].lanes_differing, 1) << replay::to_text(rep);
        const Report again = harness::check_write_loc([before](const WriteLocArgs& a) { write_loc_planted(a, true, before); },
                                                      {.from_replay = r.replay_dir});
        ASSERT_EQ(again.first.size(), 1U) << again.to_text();
        EXPECT_EQ(again.first[0].region, l.region);
        EXPECT_EQ(again.first[0].neighbour, l.neighbour);
        const Report honest = harness::check_write_loc([before](const WriteLocArgs& a) { write_loc_planted(a, false, before); },
                                                       {.from_replay = r.replay_dir});
        EXPECT_TRUE(honest.ok) << honest.to_text();
      });
  std::filesystem::remove_all(root);
}

TEST(HarnessLayout, AStorePastOutIntoTheAdjacentInputIsCaughtAndNamed) { expect_store_into_loc(21, false); }
TEST(HarnessLayout, AStoreBeforeOutIntoTheAdjacentInputIsCaughtAndNamed) { expect_store_into_loc(22, true); }

// The same store where out has an allocation of its own lands in its guard: guard_after, no neighbour.
TEST(HarnessLayout, TheSameStoreOutsideAnAdjacentLayoutLandsInTheGuard) {
  const Report r = harness::check_write_loc(
      [](const WriteLocArgs& a) {
        translate::write_loc(a);
        if (a.out.data + a.out.size != a.loc.data && a.out.data + a.out.size != a.v2p.data) a.out.data[a.out.size] = 4242;
      },
      {.cases = 50, .seed = 21});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "out_of_bounds");
  ASSERT_EQ(r.first.size(), 1U) << r.to_text();
  EXPECT_EQ(r.first[0].region, "guard_after");
  EXPECT_EQ(r.first[0].neighbour, "");
  EXPECT_EQ(r.detail, "");
}

// A store into an input away from every output: input_modified naming the input (its own allocation, compared with
// its pristine copy); the honest kernel passes on the same cases.
TEST(HarnessLayout, AWrittenInputIsInputModified) {
  harness_test::check_good_and_planted(
      harness::check_write_loc,
      [](const WriteLocArgs& a, bool planted) {
        translate::write_loc(a);
        if (planted && a.v2p.size > 0) const_cast<int64_t*>(a.v2p.data)[a.v2p.size - 1] += 1;
      },
      {.cases = 100, .seed = 23}, {.cases = 100, .seed = 23}, {.kind = "input_modified"},
      [](const Report&, const Report& r) {
        EXPECT_EQ(r.detail, "the kernel wrote into its input v2p") << r.to_text();
        EXPECT_EQ(r.differing, 0);
      });
}

// read_table's honest kernel versus one that reads req_to_token as packed (ignoring its row stride): the latter fails
// with a mismatch on a case whose req_to_token kvaddr.check presents strided, and passes where every case is packed.
TEST(HarnessLayout, AKernelReadingAStridedReqToTokenAsPackedFails) {
  const auto kernel = [](const ReadTableArgs& a, bool planted) {
    ReadTableArgs b = a;
    if (planted) b.req_to_token.row_stride = b.req_to_token.cols;
    translate::read_table(b);
  };
  harness_test::check_good_and_planted(
      harness::check_read_table, kernel, {.cases = 200, .seed = 24}, {.cases = 200, .seed = 24}, {.kind = "mismatch"},
      [](const Report&, const Report& r) {
        // the first failing case is one kvaddr.check presents with a strided req_to_token (the minimal case keeps it)
        EXPECT_GT(harness::detail::drawn_case(Route::read_table, 24, r.case_index, 4096).presented.req_to_token_stride, 0);
        EXPECT_NE(r.minimal_case.find("req_to_token row stride"), std::string::npos) << r.minimal_case;
        EXPECT_GE(r.case_index, 1);  // packed cases came first and passed
      });
}

// A correct kernel (the host route) passes on every layout kind, and each kind reaches it: touching adjacent
// arguments (one allocation), a req_to_token row stride wider than its columns, out == loc; the partially
// overlapping layouts are rejected (counted, not run).
TEST(HarnessLayout, ACorrectKernelPassesOnEveryLayoutKindAndSeesEach) {
  int64_t adjacent = 0, strided = 0, calls = 0;
  const Report t = harness::check_read_table(
      [&](const ReadTableArgs& a) {
        ++calls;
        const auto* r2t_end = a.req_to_token.data + a.req_to_token.rows * a.req_to_token.row_stride;
        const auto* out_end = a.out.data + a.out.rows * a.out.row_stride;
        adjacent += (r2t_end == a.out.data || out_end == a.req_to_token.data) ? 1 : 0;
        strided += a.req_to_token.row_stride > a.req_to_token.cols ? 1 : 0;
        translate::read_table(a);
      },
      {.cases = 300, .seed = 25});
  EXPECT_TRUE(t.ok) << t.to_text();
  EXPECT_GT(adjacent, 0);
  EXPECT_GT(strided, 0);
  EXPECT_GE(t.rejected, harness_test::rejected_layouts(Route::read_table, 25, 300));
  EXPECT_GT(harness_test::rejected_layouts(Route::read_table, 25, 300), 0);

  int64_t aliased = 0, beside = 0, runs = 0;
  const Report w = harness::check_write_loc(
      [&](const WriteLocArgs& a) {
        ++runs;
        aliased += a.out.data == a.loc.data ? 1 : 0;
        const std::set<const void*> starts{a.loc.data, a.v2p.data, a.out.data};
        for (const void* end : {static_cast<const void*>(a.out.data + a.out.size),
                                static_cast<const void*>(a.loc.data + a.loc.size),
                                static_cast<const void*>(a.v2p.data + a.v2p.size)})
          beside += starts.count(end) > 0 ? 1 : 0;
        translate::write_loc(a);
      },
      {.cases = 300, .seed = 26});
  EXPECT_TRUE(w.ok) << w.to_text();
  EXPECT_GT(aliased, 0);
  EXPECT_GT(beside, 0);
  EXPECT_EQ(w.rejected, harness_test::rejected_layouts(Route::write_loc, 26, 300));
  EXPECT_EQ(runs + w.rejected, 300);
}

// Presented::partially_overlaps on both sides of each of its two rules: an alias at offset 0 (out == input) and a
// touching adjacent layout (shared 0) are not partial overlaps; offset 1 or one shared lane is.
TEST(HarnessLayout, PartiallyOverlapsOnBothSidesOfEachRule) {
  harness::detail::DrawnCase::Presented p;
  EXPECT_FALSE(p.partially_overlaps());
  p.alias = "ids";
  EXPECT_FALSE(p.partially_overlaps());
  p.alias_offset = 1;
  EXPECT_TRUE(p.partially_overlaps());
  p = {};
  p.adjacent = {"out", "loc"};
  EXPECT_FALSE(p.partially_overlaps());
  p.shared = 1;
  EXPECT_TRUE(p.partially_overlaps());
}

}  // namespace
