// A new route of a per-id shape needs no code of its own in the consumers that work from its
// field list. TransferIdsCopy is a copy of transfer_ids' spec under another name, compiled only
// into this test and named by no consumer: its host route is the per-id runner over its lane and
// scalar checks (translate/src/routes_per_id.ipp), and the zoo's grid (grid_cases.hpp), replay's
// loader (prepare_fields.hpp) and the route-shape traits the Python binding reads its signature
// from (fill_args.hpp) take it as they are. Each check is also run against the spec's own bug (B16) or
// with a consumer's coverage dropped, and must then fail.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <unistd.h>
#include <string>
#include <typeinfo>
#include <vector>

#include "grid_cases.hpp"      // zoo/src: check_spec_on_grid
#include "prepare_fields.hpp"  // replay/src: prep_ids
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/zoo/grid.hpp"
#include "new_route.hpp"

namespace kvaddr {

namespace {

using test_route::TransferIdsCopy;

// The route shape the consumers dispatch on, read off the field list.
static_assert(is_per_id_route<TransferIdsCopy> && !is_table_route<TransferIdsCopy>);
static_assert(is_per_id_route<RouteSpec<Route::transfer_ids>> && is_per_id_route<RouteSpec<Route::mamba_translate>>);
static_assert(!is_per_id_route<test_route::TwoOutputs>);
static_assert(!is_per_id_route<RouteSpec<Route::write_loc>>);  // a tail of lanes past the ids
static_assert(is_table_route<RouteSpec<Route::read_table>> && !is_per_id_route<RouteSpec<Route::read_table>>);
static_assert(std::is_same_v<field_member_t<TransferIdsCopy, ArgKind::vec_in, 1>, Vec<const std::int64_t>>);
static_assert(std::is_same_v<element_t<field_member_t<RouteSpec<Route::mamba_translate>, ArgKind::vec_out>>, std::int32_t>);
static_assert(std::is_void_v<field_member_t<TransferIdsCopy, ArgKind::mat_in>>);

// The grid cases of the listed routes of other shapes are not needed for a per-id spec.
struct NoGridCases {
  template <class S>
  void operator()(S, Variant, const zoo::grid_detail::Grid&, zoo::grid_detail::Diff& diff) const {
    diff.eq("grid case of a route of another shape", 1, 0);
  }
};

TEST(NewRoute, RunsOnTheZooGridFromItsFieldList) {
  for (const std::int64_t ps : {1, 32, 64}) {
    zoo::GridOptions o;
    o.page_size = ps;
    EXPECT_EQ(zoo::grid_detail::check_spec_on_grid<TransferIdsCopy>(Variant::production, o, NoGridCases{}), "")
        << "ps=" << ps;
    // The copy's grid check is the listed route's, lane for lane.
    EXPECT_EQ(zoo::check_route_on_grid(Route::transfer_ids, Variant::production, o), "");
    // The route's own bug is caught, named by the copy's name.
    const std::string b16 =
        zoo::grid_detail::check_spec_on_grid<TransferIdsCopy>(Variant::b16_virtual_as_physical, o, NoGridCases{});
    EXPECT_EQ(b16.rfind("transfer_ids_copy[b16_virtual_as_physical] ps=" + std::to_string(ps), 0), 0u) << b16;
    EXPECT_NE(b16.find("model expects"), std::string::npos) << b16;
  }
}

// The copy runs on the per-id host runner from its spec alone: exact lanes, its bug, and the
// generic validation, with the listed route's errors (the same type, argument, value and reason).
TEST(NewRoute, RunsOnThePerIdRunner) {
  const std::vector<std::int64_t> ids{0, 1, 5, -1}, v2p{3, 0, 2};
  std::vector<std::int64_t> out(4, 9);
  TransferIdsCopy::run({cvec(ids), cvec(v2p), 2, mvec(out)});
  EXPECT_EQ(out, (std::vector<std::int64_t>{6, 7, 5, 0}));  // phys(t) = v2p[t / 2] * 2 + t % 2; padding 0
  // Exactly enough lanes is admitted; a wider out keeps its tail. B16: the virtual ids, clamped at 0.
  std::vector<std::int64_t> wide(5, 9);
  TransferIdsCopy::run({cvec(ids), cvec(v2p), 2, mvec(wide), Variant::b16_virtual_as_physical});
  EXPECT_EQ(wide, (std::vector<std::int64_t>{0, 1, 5, 0, 9}));
  // In place: out aliasing the ids exactly.
  std::vector<std::int64_t> inplace = ids;
  TransferIdsCopy::run({cvec(inplace), cvec(v2p), 2, mvec(inplace)});
  EXPECT_EQ(inplace, (std::vector<std::int64_t>{6, 7, 5, 0}));

  // Each rejected call: the copy and the listed route throw the same error and write nothing.
  const auto same_error = [](const TransferIdsArgs& a, const std::string& want_argument, const std::string& want_value) {
    std::string copy, listed;
    try {
      TransferIdsCopy::run(a);
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), want_argument);
      EXPECT_EQ(e.value(), want_value);
      copy = std::string(typeid(e).name()) + ": " + e.what();
    }
    try {
      translate::transfer_ids(a);
    } catch (const Error& e) {
      listed = std::string(typeid(e).name()) + ": " + e.what();
    }
    EXPECT_NE(copy, "");
    EXPECT_EQ(copy, listed);
  };
  std::vector<std::int64_t> shorter(3, 9);  // one lane short
  same_error({cvec(ids), cvec(v2p), 2, mvec(shorter)}, "out", "3");
  EXPECT_EQ(shorter, (std::vector<std::int64_t>{9, 9, 9}));
  same_error({cvec(ids), cvec(v2p), 0, mvec(out)}, "page_size", "0");
  same_error({cvec(ids), {}, 2, mvec(out)}, "v2p", "0");
  same_error({cvec(ids), cvec(v2p), 2, mvec(out), Variant::b09_no_padding_guard}, "variant", "b09_no_padding_guard");
  std::vector<std::int64_t> overlap(5, 0);  // out starting one past the ids inside the same buffer
  same_error({{overlap.data(), 4}, cvec(v2p), 2, {overlap.data() + 1, 4}}, "out", "size 4");
  // A content error (id 6 reads v2p[3]) names the table; the lanes written before it are rolled back.
  const std::vector<std::int64_t> past{0, 6};
  std::vector<std::int64_t> two(2, 9);
  same_error({cvec(past), cvec(v2p), 2, mvec(two)}, "v2p", "3");
  EXPECT_EQ(two, (std::vector<std::int64_t>{9, 9}));
}

// A replayed call of the copy: ids [0, 1, 5, -1], v2p [3, 0, 2], page_size 2.
class NewRouteReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kvaddr_new_route_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    replay::write_npy(dir_ / "ids.npy", replay::NpyDtype::int32, {4}, {0, 1, 5, -1});
    replay::write_npy(dir_ / "v2p.npy", replay::NpyDtype::int64, {3}, {3, 0, 2});
    replay::write_npy(dir_ / "before.npy", replay::NpyDtype::int64, {4}, {9, 9, 9, 9});
    replay::write_npy(dir_ / "after.npy", replay::NpyDtype::int64, {4}, {6, 7, 5, 0});
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  nlohmann::json call() const {
    return {{"route", "transfer_ids"},
            {"scalars", {{"page_size", 2}}},
            {"inputs", {{"ids", "ids.npy"}, {"v2p", "v2p.npy"}}},
            {"outputs", {{"out", {{"before", "before.npy"}, {"after", "after.npy"}}}}}};
  }
  std::filesystem::path dir_;
};

TEST_F(NewRouteReplay, IsLoadedFromItsFieldList) {
  const nlohmann::json j = call();  // the Call refers to it
  replay::load::Call c(j, dir_, false);
  const replay::load::Prepared p = replay::load::prep_ids<TransferIdsCopy>(c);
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.outputs[0].name, "out");
  ASSERT_TRUE(p.model);  // its reference is the copy's id_model
  // phys(t) = v2p[t / 2] * 2 + t % 2: 6, 7, 5 (page 2 -> 2), padding 0
  const std::vector<std::int64_t> want{6, 7, 5, 0};
  EXPECT_EQ(p.model(), std::vector<std::vector<std::int64_t>>{want});
  EXPECT_EQ(p.run(Variant::production), std::vector<std::vector<std::int64_t>>{want});
  // B16 uses the virtual id as the physical one: 0, 1, 5, 0.
  EXPECT_EQ(p.run(Variant::b16_virtual_as_physical), (std::vector<std::vector<std::int64_t>>{{0, 1, 5, 0}}));
}

TEST_F(NewRouteReplay, AsksForItsFieldsByName) {
  nlohmann::json j = call();  // the Call refers to it
  j["inputs"].erase("v2p");
  replay::load::Call c(j, dir_, false);
  try {
    (void)replay::load::prep_ids<TransferIdsCopy>(c);
    ADD_FAILURE() << "a call without its table was loaded";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()), "missing input v2p");
  }
}

// Dropping a route from a consumer's coverage fails the list-wide check (RouteList.
// EveryRouteRunsOnTheZooGrid asks for compared lanes): a listed route run with its grid_case
// dropped compares nothing, or fails with a case that does not suit it; a per-id route needs none.
struct DroppedGridCases {
  template <class S>
  void operator()(S, Variant, const zoo::grid_detail::Grid&, zoo::grid_detail::Diff&) const {}
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
  // The copy: its ids are the grid's live tokens and one padding id, each compared once.
  std::int64_t live = 0;
  for (const std::int64_t len : {32, 33, 96, 7 * 32 - 3, 1}) live += len;
  EXPECT_EQ(zoo::grid_detail::run_spec_on_grid<TransferIdsCopy>(Variant::production, o, DroppedGridCases{}).compared,
            live + 1);
}

}  // namespace
}  // namespace kvaddr
