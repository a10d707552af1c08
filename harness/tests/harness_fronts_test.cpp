// The same planted case is named identically by the three front ends: the C++ harness (harness::check, naming
// through kvaddr/harness/naming.hpp name_case), kvaddr.check (python/tests/test_naming_fronts.py asserts the
// very same table through the Python harness) and kvaddr's replay of the directory the failure is written to.
// The planted kernel is the host route under the planted variant; one subject per route family (id routes,
// write_loc, kv_indices_inplace, eager_funnel's crash, the page tables, decode metadata). Case i of a seed is
// gen/'s recipe (seed, i) in both harnesses (kvaddr.check with big_entries and long_rows False), so the shrunk
// case, its first lane and its names agree.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {
using namespace kvaddr;
namespace fs = std::filesystem;

// What a front end reports on the planted subject (100 cases, 4096 lanes).
struct Named {
  std::uint64_t seed;
  std::string kind;
  std::int64_t case_index;
  std::vector<std::string> names;
  std::string output;  // the first differing lane ("" when the kernel raised)
  std::int64_t row, col, expected, actual;
  std::int64_t differing;
};

// The host route of S under `planted` as the kernel.
template <class S>
auto planted_kernel(Variant planted) {
  return [planted](const typename S::Args& a) {
    auto b = a;
    b.variant = planted;
    S::run(b);
  };
}

template <class S, class Kernel>
void expect_named(Variant planted, const Named& want, const Kernel& kernel) {
  std::string trace(S::name);  // appended, not `string + char*`: GCC 12 -Warray-bounds false positive
  trace += " ";
  trace += to_string(planted, S::id);
  SCOPED_TRACE(trace);
  const fs::path root = fs::temp_directory_path() / ("kvaddr_fronts_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const harness::Report r =
      harness::check<S::id>(kernel, harness::Options{.cases = 100, .seed = want.seed, .replay_dir = root.string()});
  EXPECT_EQ(r.kind, want.kind) << r.to_text();
  EXPECT_EQ(r.case_index, want.case_index);
  EXPECT_EQ(r.behaves_like, want.names) << r.to_text();
  EXPECT_EQ(r.differing, want.differing);
  if (want.output.empty()) {
    EXPECT_TRUE(r.first.empty());
  } else {
    ASSERT_FALSE(r.first.empty());
    const harness::Lane& l = r.first[0];
    EXPECT_EQ(l.output, want.output);
    EXPECT_EQ(l.row, want.row);
    EXPECT_EQ(l.col, want.col);
    EXPECT_EQ(l.expected, want.expected);
    EXPECT_EQ(l.actual, want.actual);
    // replay names the recorded case the same way (a raising kernel leaves no outputs to replay)
    ASSERT_FALSE(r.replay_dir.empty());
    const replay::ReplayReport rep = replay::replay_dir(r.replay_dir);
    ASSERT_EQ(rep.calls.size(), 1U) << rep.error;
    EXPECT_EQ(rep.calls[0].matching_variants, want.names) << replay::to_text(rep);
  }
  fs::remove_all(root);
}

template <class S>
void expect_named(Variant planted, const Named& want) {
  expect_named<S>(planted, want, planted_kernel<S>(planted));
}

// A canonical_page_table kernel whose rows race: where grid_spill's rows store to the same lanes with different
// values and its programs running last-row-first leave another table than the host's row order, it leaves that
// one (a device may); elsewhere it is production. (python/tests/test_naming_fronts.py plants the same kernel.)
void racing_rows(const CanonicalPageTableArgs& a) {
  using T = RouteSpec<Route::canonical_page_table>;
  const std::int64_t stride = a.out.row_stride, rows = a.out.rows, batch = a.seq_lens.size;
  std::vector<std::int32_t> in_order(a.out.data, a.out.data + rows * stride), reversed = in_order;
  try {
    CanonicalPageTableArgs b = a;
    b.variant = Variant::grid_spill;
    b.out = {in_order.data(), rows, stride, stride, 1};
    T::run(b);
    for (std::int64_t r = batch; r-- > 0;) {
      b.req_pool_indices = {a.req_pool_indices.data + r, 1};
      b.seq_lens = {a.seq_lens.data + r, 1};
      b.out = {reversed.data() + r * stride, rows - r, stride, stride, 1};
      T::run(b);
    }
  } catch (const kvaddr::Error&) {
    reversed = in_order;  // a spill past the buffer: no race to plant
  }
  if (reversed == in_order) {
    T::run(a);
    return;
  }
  std::copy(reversed.begin(), reversed.end(), a.out.data);
}

TEST(HarnessFronts, EveryFrontEndNamesThePlantedCaseAlike) {
  expect_named<RouteSpec<Route::token_translate>>(Variant::b17_doc_formula,
                                                  {1, "mismatch", 0, {"b17_doc_formula"}, "out", 0, 0, 14, 0, 1});
  expect_named<RouteSpec<Route::swa_translate>>(Variant::b11_swa_no_clamp,
                                                {1, "mismatch", 0, {"b11_swa_no_clamp"}, "out", 0, 0, 0, -7, 1});
  expect_named<RouteSpec<Route::write_loc>>(Variant::b06_stale_tail,
                                            {1, "mismatch", 1, {"b06_stale_tail"}, "out", 0, 1, 0, -707395585, 1});
  expect_named<RouteSpec<Route::kv_indices_inplace>>(
      Variant::b05_rebind_fresh, {1, "mismatch", 0, {"b05_rebind_fresh"}, "kv_indices", 0, 0, 1183, 0, 1});
  expect_named<RouteSpec<Route::eager_funnel>>(Variant::b02_rank2_index_select,
                                               {1, "raised", 0, {"b02_rank2_index_select"}, "", 0, 0, 0, 0, 0});
  expect_named<RouteSpec<Route::canonical_page_table>>(
      Variant::e10_batch_index_rows, {1, "mismatch", 1, {"e10_batch_index_rows"}, "out", 0, 0, 15, 0, 1});
  expect_named<RouteSpec<Route::read_table>>(Variant::e10_batch_index_rows,
                                             {1, "mismatch", 2, {"e10_batch_index_rows"}, "out", 0, 0, 1, 0, 1});
  // a spill past the row's columns (seed 2): named by the three spilling behaviours
  expect_named<RouteSpec<Route::read_table>>(
      Variant::b10_no_max_pages_bound,
      {2, "mismatch", 11, {"b10_no_max_pages_bound", "e01_no_column_bound", "grid_spill"}, "out", 1, 0, -707395586, 0, 1});
  expect_named<RouteSpec<Route::flashmla_block_table>>(
      Variant::e09_floor_pages, {1, "mismatch", 0, {"e09_floor_pages"}, "kv_indices", 0, 0, 0, -707395584, 1});
  expect_named<RouteSpec<Route::decode_metadata>>(
      Variant::e10_batch_index_rows, {1, "mismatch", 0, {"e10_batch_index_rows"}, "page_table", 0, 0, 1, 0, 1});
  // rows that race (seed 1; minimal case: two rows of pool row 0, 9 and 4 pages of 64, max_pages 5: row 0 spills
  // its pages 5..8 onto row 1's columns 0..3, which row 1 stores too): only up to the race do the spilling
  // behaviours reproduce the table (their host order leaves row 1's values there, as production does)
  expect_named<RouteSpec<Route::canonical_page_table>>(Variant::grid_spill,
                                                       {1, "mismatch", 2, {"e01_no_column_bound", "grid_spill"}, "out", 1,
                                                        3, 0, 10, 1},
                                                       racing_rows);
}

}  // namespace
