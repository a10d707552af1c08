// The property a per-id route of the list without one of its own gets from its field list
// (props/src/per_id_props.hpp): with the test-only route (KVADDR_TEST_ROUTE) it is registered as
// "test_route_vs_model", passes in production and is falsified by the route's bug (B16); the
// routes with properties of their own get none.
#if defined(KVADDR_ROUTE_LIST_PROPS)
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "kvaddr/translate/route_list.hpp"
#include "per_id_props.hpp"  // props/src

namespace kvaddr {
namespace {

// Only the test route's property comes from the field list.
TEST(NewRoute, OnlyRoutesWithoutTheirOwnGetTheFieldListProperty) {
  std::vector<std::string> generated;
  for (const auto& info : props::list_properties())
    if (info.summary.find("from the field list") != std::string::npos) generated.push_back(info.name);
#if defined(KVADDR_TEST_ROUTE)
  EXPECT_EQ(generated, std::vector<std::string>{"test_route_vs_model"});
#else
  EXPECT_EQ(generated, std::vector<std::string>{});
#endif
}

#if defined(KVADDR_TEST_ROUTE)
TEST(NewRoute, HasAPropertyFromItsFieldList) {
  using S = RouteSpec<Route::test_route>;
  const props::detail::PropertyDef def = props::detail::per_id_property<S>();
  EXPECT_EQ(def.info.name, "test_route_vs_model");
  EXPECT_EQ(def.info.kills, std::vector<Variant>{Variant::b16_virtual_as_physical});
  EXPECT_EQ(def.info.routes, std::vector<Route>{Route::test_route});
  EXPECT_TRUE(rc::check("test_route production", [&] { def.body(Variant::production); }));
  EXPECT_FALSE(rc::check("test_route b16", [&] { def.body(Variant::b16_virtual_as_physical); }));
}
#endif

}  // namespace
}  // namespace kvaddr
#endif
