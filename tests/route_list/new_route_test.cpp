// The test-only route of the real route list (routes/test_route.hpp, CMake option KVADDR_TEST_ROUTE;
// the sanitizer leg of scripts/run.sh builds with it): a route added as its spec header, its
// enumerator and its list line reaches the consumers with no edit of theirs. The list-wide checks
// (route_list_test.cpp, the harness's, the props', the proofs', the zoo's) take it from the list;
// here its exact lanes, its bug (B16) and its errors, on each consumer by its Route. Without the
// option the route does not exist and these tests are skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "grid_cases.hpp"      // zoo/src: run_spec_on_grid, check_spec_on_grid
#include "prepare_fields.hpp"  // replay/src: prep_ids
#include "kvaddr/harness/check.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/zoo/grid.hpp"

namespace kvaddr {
namespace {

// A field list of no known route shape (a second output): no consumer takes it as a per-id route.
struct TwoOutputs {
  struct Args {
    Vec<const std::int64_t> ids;
    Vec<std::int64_t> out, other;
  };
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids), required_arg("out", &Args::out),
                      required_arg("other", &Args::other)};
  }
};

// The route shape the consumers dispatch on, read off the field list.
static_assert(is_per_id_route<RouteSpec<Route::transfer_ids>> && is_per_id_route<RouteSpec<Route::mamba_translate>>);
static_assert(!is_per_id_route<TwoOutputs>);
static_assert(!is_per_id_route<RouteSpec<Route::write_loc>>);  // a tail of lanes past the ids
static_assert(is_table_route<RouteSpec<Route::read_table>> && !is_per_id_route<RouteSpec<Route::read_table>>);
static_assert(std::is_same_v<element_t<field_member_t<RouteSpec<Route::mamba_translate>, ArgKind::vec_out>>, std::int32_t>);

// Dropping a route from a consumer's coverage fails the list-wide check (RouteList.
// EveryRouteRunsOnTheZooGrid asks for compared lanes): a listed route run with its grid_case
// dropped compares nothing, or fails with a case that does not suit it; a per-id route needs none.
struct DroppedGridCases {
  template <class S>
  void operator()(S, Variant, const zoo::grid_detail::Grid&, zoo::grid_detail::Diff&) const {}
};
struct NoGridCases {
  template <class S>
  void operator()(S, Variant, const zoo::grid_detail::Grid&, zoo::grid_detail::Diff& diff) const {
    diff.eq("grid case of a route of another shape", 1, 0);
  }
};

TEST(NewRoute, AListedRouteWithoutItsGridCaseFailsTheGridCheck) {
  zoo::GridOptions o;
  o.page_size = 32;
  using Eager = RouteSpec<Route::eager_funnel>;
  EXPECT_EQ(zoo::grid_detail::run_spec_on_grid<Eager>(Variant::production, o, DroppedGridCases{}).compared, 0);
  EXPECT_NE(zoo::grid_detail::check_spec_on_grid<Eager>(Variant::production, o, NoGridCases{}), "");
  const zoo::GridRun listed = zoo::run_route_on_grid(Route::eager_funnel, Variant::production, o);
  EXPECT_EQ(listed.mismatch, "");
  EXPECT_EQ(listed.compared, 5 * (2048 / 32));  // every lane of the [bs, max_ctx / ps] table
  // A per-id route: its ids are the grid's live tokens and one padding id, each compared once.
  std::int64_t live = 0;
  for (const std::int64_t len : {32, 33, 96, 7 * 32 - 3, 1}) live += len;
  using Transfer = RouteSpec<Route::transfer_ids>;
  EXPECT_EQ(zoo::grid_detail::run_spec_on_grid<Transfer>(Variant::production, o, DroppedGridCases{}).compared, live + 1);
}

#if defined(KVADDR_TEST_ROUTE)
using TestRoute = RouteSpec<Route::test_route>;
static_assert(is_per_id_route<TestRoute> && !is_table_route<TestRoute>);
static_assert(uses_per_id_runner<TestRoute>);
static_assert(kAllRoutes.back() == Route::test_route);

const std::vector<std::int64_t> kIds{0, 1, 5, -1, 2}, kV2p{3, -1, 2};  // page_size 2

// The host route is the per-id runner over the spec: exact lanes, its bug, in place, the generic
// validation (a typed error naming the argument and value, nothing written).
TEST(NewRoute, RunsOnThePerIdRunner) {
  std::vector<std::int64_t> out(5, 9);
  translate::test_route({cvec(kIds), cvec(kV2p), 2, mvec(out)});
  EXPECT_EQ(out, (std::vector<std::int64_t>{3, 3, 2, 0, 0}));  // v2p[t / 2], padding 0, tombstone 0
  std::vector<std::int64_t> b16(6, 9);  // the virtual page itself; a wider out keeps its tail
  translate::test_route({cvec(kIds), cvec(kV2p), 2, mvec(b16), Variant::b16_virtual_as_physical});
  EXPECT_EQ(b16, (std::vector<std::int64_t>{0, 0, 2, 0, 1, 9}));
  std::vector<std::int64_t> inplace = kIds;
  translate::test_route({cvec(inplace), cvec(kV2p), 2, mvec(inplace)});
  EXPECT_EQ(inplace, (std::vector<std::int64_t>{3, 3, 2, 0, 0}));
  EXPECT_EQ(to_string(Route::test_route), "test_route");

  const auto rejects = [](const TestRouteArgs& a, const std::string& argument, const std::string& value) {
    try {
      translate::test_route(a);
      ADD_FAILURE() << "accepted; wanted an error naming " << argument;
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), argument);
      EXPECT_EQ(e.value(), value);
    }
  };
  std::vector<std::int64_t> shorter(4, 9);  // one lane short
  rejects({cvec(kIds), cvec(kV2p), 2, mvec(shorter)}, "out", "4");
  EXPECT_EQ(shorter, (std::vector<std::int64_t>{9, 9, 9, 9}));
  rejects({cvec(kIds), cvec(kV2p), 0, mvec(out)}, "page_size", "0");
  rejects({cvec(kIds), {}, 2, mvec(out)}, "v2p", "0");
  rejects({cvec(kIds), cvec(kV2p), 2, mvec(out), Variant::b09_no_padding_guard}, "variant", "b09_no_padding_guard");
  // A content error (id 6 reads v2p[3]) names the table; the lane written before it is rolled back.
  const std::vector<std::int64_t> past{0, 6};
  std::vector<std::int64_t> two(2, 9);
  rejects({cvec(past), cvec(kV2p), 2, mvec(two)}, "v2p", "3");
  EXPECT_EQ(two, (std::vector<std::int64_t>{9, 9}));
}

TEST(NewRoute, RunsOnTheZooGrid) {
  for (const std::int64_t ps : {1, 32, 64}) {
    zoo::GridOptions o;
    o.page_size = ps;
    EXPECT_EQ(zoo::check_route_on_grid(Route::test_route, Variant::production, o), "") << "ps=" << ps;
    const std::string b16 = zoo::check_route_on_grid(Route::test_route, Variant::b16_virtual_as_physical, o);
    EXPECT_EQ(b16.rfind("test_route[b16_virtual_as_physical] ps=" + std::to_string(ps), 0), 0u) << b16;
    EXPECT_NE(b16.find("model expects"), std::string::npos) << b16;
  }
}

TEST(NewRoute, IsCheckedByTheHarness) {
  const auto host = harness::check<Route::test_route>([](const TestRouteArgs& a) { translate::test_route(a); },
                                                      {.cases = 50, .seed = 7});
  EXPECT_TRUE(host.ok) << host.to_text();
  EXPECT_EQ(host.route, "test_route");
  // The cases drawn with ids inside a longer out (kvaddr.check's partial overlap, every per-id route's) are
  // rejected by the contract and not run; every other case runs.
  std::int64_t overlaps = 0;
  for (std::int64_t i = 0; i < 50; ++i) {
    overlaps += harness::detail::drawn_case(Route::test_route, 7, i, 4096).presented.partially_overlaps() ? 1 : 0;
  }
  EXPECT_EQ(overlaps, 4);
  EXPECT_EQ(host.rejected, overlaps);
  EXPECT_EQ(host.cases, 50 - overlaps);
  EXPECT_EQ(host.rejections, (std::map<std::string, std::int64_t>{{"InvalidArgument(out)", overlaps}})) << host.to_text();
  const auto bug = harness::check<Route::test_route>(
      [](const TestRouteArgs& a) {
        auto b = a;
        b.variant = Variant::b16_virtual_as_physical;
        translate::test_route(b);
      },
      {.cases = 50, .seed = 7});
  ASSERT_FALSE(bug.ok);
  EXPECT_EQ(bug.kind, "mismatch");
  EXPECT_NE(std::find(bug.behaves_like.begin(), bug.behaves_like.end(), "b16_virtual_as_physical"), bug.behaves_like.end())
      << bug.to_text();
}

// A replayed call: ids [0, 1, 5, -1, 2] (int32, widened), v2p [3, -1, 2], page_size 2.
class NewRouteReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kvaddr_new_route_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    replay::write_npy(dir_ / "ids.npy", replay::NpyDtype::int32, {5}, {0, 1, 5, -1, 2});
    replay::write_npy(dir_ / "v2p.npy", replay::NpyDtype::int64, {3}, {3, -1, 2});
    replay::write_npy(dir_ / "before.npy", replay::NpyDtype::int64, {5}, {9, 9, 9, 9, 9});
    replay::write_npy(dir_ / "after.npy", replay::NpyDtype::int64, {5}, {3, 3, 2, 0, 0});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  nlohmann::json call() const {
    return {{"route", "test_route"},
            {"scalars", {{"page_size", 2}}},
            {"inputs", {{"ids", "ids.npy"}, {"v2p", "v2p.npy"}}},
            {"outputs", {{"out", {{"before", "before.npy"}, {"after", "after.npy"}}}}}};
  }
  std::filesystem::path dir_;
};

TEST_F(NewRouteReplay, IsLoadedFromItsFieldList) {
  const nlohmann::json j = call();  // the Call refers to it
  replay::load::Call c(j, dir_, false);
  const replay::load::Prepared p = replay::load::prep_ids<TestRoute>(c);
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.outputs[0].name, "out");
  ASSERT_TRUE(p.model);  // its reference is the spec's id_model
  const std::vector<std::int64_t> want{3, 3, 2, 0, 0};
  EXPECT_EQ(p.model(), std::vector<std::vector<std::int64_t>>{want});
  EXPECT_EQ(p.run(Variant::production), std::vector<std::vector<std::int64_t>>{want});
  EXPECT_EQ(p.run(Variant::b16_virtual_as_physical), (std::vector<std::vector<std::int64_t>>{{0, 0, 2, 0, 1}}));
}

TEST_F(NewRouteReplay, AsksForItsFieldsByName) {
  nlohmann::json j = call();  // the Call refers to it
  j["inputs"].erase("v2p");
  replay::load::Call c(j, dir_, false);
  try {
    (void)replay::load::prep_ids<TestRoute>(c);
    ADD_FAILURE() << "a call without its table was loaded";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()), "missing input v2p");
  }
}
#else
TEST(NewRoute, TestRouteBuildOnly) {
  GTEST_SKIP() << "the test-only route is built with -DKVADDR_TEST_ROUTE=ON (scripts/run.sh test)";
}
#endif

}  // namespace
}  // namespace kvaddr
