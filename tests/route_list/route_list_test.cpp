// Every route of the route list (kvaddr/translate/route_list.hpp) is reachable by its name from
// every consumer that dispatches on routes: the name tables, the CLI's `translate` option table,
// replay's call dispatch and the bug zoo's host grid. The routes come from for_each_route, never
// from a list written here, so a route added to the list is checked with no edit to this file.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "call.hpp"          // replay/src: detail::check_call
#include "subcommands.hpp"   // cli/src: check_translate_options
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/validate.hpp"
#include "kvaddr/zoo/grid.hpp"

namespace kvaddr {
namespace {

std::vector<Route> listed_routes() {
  std::vector<Route> out;
  for_each_route([&](auto spec) { out.push_back(decltype(spec)::id); });
  return out;
}

TEST(RouteList, ListsEveryRouteOnceInEnumeratorOrder) {
  const auto routes = listed_routes();
  ASSERT_EQ(static_cast<int>(routes.size()), kRouteCount);
  for (std::size_t i = 0; i < routes.size(); ++i) EXPECT_EQ(static_cast<std::size_t>(routes[i]), i);
  EXPECT_EQ(std::vector<Route>(kAllRoutes.begin(), kAllRoutes.end()), routes);
}

TEST(RouteList, VisitReachesTheSpecOfEachRoute) {
  for_each_route([](auto spec) {
    using S = decltype(spec);
    EXPECT_EQ(visit_route(S::id, [](auto t) { return decltype(t)::id; }), S::id);
  });
  // A value outside the enum reaches no spec.
  EXPECT_EQ(visit_route(static_cast<Route>(kRouteCount), [](auto) { return 1; }), 0);
}

TEST(RouteList, NamesRoundTripThroughTheNameTables) {
  std::set<std::string_view> names;
  for_each_route([&](auto spec) {
    using S = decltype(spec);
    EXPECT_EQ(to_string(S::id), S::name);
    EXPECT_EQ(parse_route(S::name), S::id);
    names.insert(S::name);
  });
  EXPECT_EQ(static_cast<int>(names.size()), kRouteCount);  // distinct names
  EXPECT_EQ(to_string(static_cast<Route>(kRouteCount)), "unknown");
  EXPECT_THROW((void)parse_route("not_a_route"), InvalidArgument);
}

TEST(RouteList, BehavioursOfARouteAreItsSpecsAccepts) {
  for_each_route([](auto spec) {
    using S = decltype(spec);
    for (int i = 0; i < kBehaviourCount; ++i) {
      const auto b = static_cast<Behaviour>(i);
      EXPECT_EQ(behaviour_in_route(S::id, b), S::accepts(b)) << S::name << " " << to_string(b);
      EXPECT_EQ(route_accepts(S::id, Variant::of(b)), S::accepts(b)) << S::name << " " << to_string(b);
    }
    EXPECT_TRUE(route_accepts(S::id, Variant::production));
  });
}

// The CLI's option table knows the route: its check gets past the route lookup (the only errors
// left are about missing options, never about the route). A name outside the list is rejected.
TEST(RouteList, EveryRouteHasACliTranslateEntry) {
  for (const Route r : listed_routes()) {
    cli::TranslateOptions o;
    o.route = std::string(to_string(r));
    try {
      cli::check_translate_options(o, {});
    } catch (const Error& e) {
      EXPECT_NE(e.argument(), "route") << o.route << ": " << e.what();
    } catch (const std::out_of_range& e) {
      ADD_FAILURE() << o.route << " has no entry in the CLI's option table: " << e.what();
    }
  }
  cli::TranslateOptions bad;
  bad.route = "not_a_route";
  try {
    cli::check_translate_options(bad, {});
    ADD_FAILURE() << "an unknown route was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "route");
  }
}

// Replay's dispatch knows the route: a call naming it fails only for its missing arrays.
TEST(RouteList, EveryRouteIsDispatchedByReplay) {
  const auto dir = std::filesystem::temp_directory_path();
  for (const Route r : listed_routes()) {
    const nlohmann::json call = {{"route", std::string(to_string(r))}};
    replay::CallReport rep;
    try {
      replay::detail::check_call(call, dir, false, rep);
      ADD_FAILURE() << to_string(r) << ": a call without arrays was accepted";
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()).find("unknown route"), std::string::npos) << to_string(r) << ": " << e.what();
    }
  }
  replay::CallReport rep;
  try {
    replay::detail::check_call({{"route", "not_a_route"}}, dir, false, rep);
    ADD_FAILURE() << "an unknown route was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("unknown route"), std::string::npos) << e.what();
  }
}

// The bug zoo's host grid has a case for every route, and production passes it.
TEST(RouteList, EveryRouteRunsOnTheZooGrid) {
  for (const Route r : listed_routes()) {
    for (const std::int64_t ps : zoo::grid_page_sizes(r)) {
      zoo::GridOptions o;
      o.page_size = ps;
      EXPECT_EQ(zoo::check_route_on_grid(r, Variant::production, o), "") << to_string(r) << " ps=" << ps;
    }
  }
}

}  // namespace
}  // namespace kvaddr
