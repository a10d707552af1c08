// Every route of the route list (kvaddr/translate/route_list.hpp) is reachable from every consumer
// that dispatches on routes: the name tables, the CLI's `translate` (its options come from the
// spec's fields; a call with the options it asks for runs), replay's call dispatch (its loader
// asks for the spec's fields), the bug zoo's host grid and the differential check's kernel list.
// The routes come from for_each_route, never from a list written here, so a route added to the
// list is checked with no edit to this file.
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
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/zoo/grid.hpp"
#if defined(KVADDR_ROUTE_LIST_DIFF)
#include "kvaddr/kernels/diff.hpp"
#endif

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

// A value for each array option the CLI may ask for, whatever the route (a one-row table of two
// tokens, one sequence of length 1, a two-page v2p, one kv_indices batch of one id).
struct OptionValue {
  std::string_view option;
  std::string cli::TranslateOptions::*member;
  const char* value;
};
using TO = cli::TranslateOptions;
constexpr OptionValue kOptionValues[] = {{"--v2p", &TO::v2p, "0,1,-1"},          {"--req-to-token", &TO::req_to_token, "0,1"},
                                         {"--seq-lens", &TO::seq_lens, "1"},        {"--kv-indices", &TO::kv_indices, "0"},
                                         {"--kv-indptr", &TO::kv_indptr, "0,1"}};
// Gives `option` its value; false for an option of no value here (--page-size keeps its default 1).
bool give(cli::TranslateOptions& o, std::string_view option) {
  for (const auto& x : kOptionValues) {
    if (x.option == option) {
      o.*x.member = x.value;
      return true;
    }
  }
  return option == "--page-size";
}

// The CLI runs every route: giving each option its check asks for, the call passes the check and
// translate computes at least one output, whose lanes match its shape.
TEST(RouteList, EveryRouteRunsThroughTheCliTranslate) {
  for (const Route r : listed_routes()) {
    cli::TranslateOptions o;
    o.route = std::string(to_string(r));
    std::vector<std::string> given;
    bool passed = false;
    for (int round = 0; round < 8 && !passed; ++round) {
      try {
        cli::check_translate_options(o, given);
        passed = true;
      } catch (const InvalidArgument& e) {
        ASSERT_EQ(e.value(), "missing") << o.route << ": " << e.what();
        given.push_back(e.argument());
        ASSERT_TRUE(give(o, e.argument())) << o.route << " asks for an option this test cannot give: " << e.what();
      }
    }
    ASSERT_TRUE(passed) << o.route;
    const auto outputs = cli::compute_outputs(o, Variant::production, nullptr, nullptr);
    ASSERT_FALSE(outputs.empty()) << o.route;
    for (const auto& out : outputs) {
      std::int64_t lanes = 1;
      for (auto d : out.shape) lanes *= d;
      EXPECT_EQ(lanes, std::ssize(out.values)) << o.route << " " << out.name;
    }
  }
}

// Replay's dispatch knows the route: a call naming it fails only for its missing arrays.
TEST(RouteList, EveryRouteIsDispatchedByReplay) {
  const auto dir = std::filesystem::temp_directory_path();
  for (const Route r : listed_routes()) {
    const nlohmann::json call = {{"route", std::string(to_string(r))}};
    replay::CallReport rep;
    try {
      replay::detail::check_call(call, dir, {}, rep);
      ADD_FAILURE() << to_string(r) << ": a call without arrays was accepted";
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("unknown route"), std::string::npos) << to_string(r) << ": " << what;
      // The loader asks for an argument of the route's spec ("missing input NAME" / "missing output NAME").
      const std::size_t name_at = what.rfind("missing input ", 0) == 0 ? 14u : (what.rfind("missing output ", 0) == 0 ? 15u : 0u);
      ASSERT_GT(name_at, 0u) << to_string(r) << ": " << what;
      bool is_field = false;
      visit_route(r, [&](auto spec) {
        for (const FieldInfo& f : field_infos<decltype(spec)>()) is_field = is_field || what.substr(name_at) == f.name;
      });
      EXPECT_TRUE(is_field) << to_string(r) << ": " << what;
    }
  }
  replay::CallReport rep;
  try {
    replay::detail::check_call({{"route", "not_a_route"}}, dir, {}, rep);
    ADD_FAILURE() << "an unknown route was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("unknown route"), std::string::npos) << e.what();
  }
}

// The bug zoo's host grid has a case for every route (it compares lanes of it), and production
// passes it.
TEST(RouteList, EveryRouteRunsOnTheZooGrid) {
  for (const Route r : listed_routes()) {
    for (const std::int64_t ps : zoo::grid_page_sizes(r)) {
      zoo::GridOptions o;
      o.page_size = ps;
      const zoo::GridRun run = zoo::run_route_on_grid(r, Variant::production, o);
      EXPECT_EQ(run.mismatch, "") << to_string(r) << " ps=" << ps;
      EXPECT_GT(run.compared, 0) << to_string(r) << " ps=" << ps << ": the grid compares no lane of it";
    }
  }
  // A value outside the list reaches no case: nothing is compared, which the loop above rejects.
  EXPECT_EQ(zoo::run_route_on_grid(static_cast<Route>(kRouteCount), Variant::production, {}).compared, 0);
}

#if defined(KVADDR_ROUTE_LIST_DIFF)
// The differential check (kernels/src/diff.cpp) has a kernel entry point for every route.
TEST(RouteList, EveryRouteHasADiffKernel) {
  std::set<Route> covered;
  for (int k = 0; k < gpu::kDiffKernelCount; ++k) covered.insert(gpu::route_of(static_cast<gpu::DiffKernel>(k)));
  for (const Route r : listed_routes()) EXPECT_TRUE(covered.contains(r)) << to_string(r) << " has no diff kernel";
}
#endif

}  // namespace
}  // namespace kvaddr
