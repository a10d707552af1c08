// The property a new per-id route gets from its field list (props/src/per_id_props.hpp), run on
// the test-only copy of transfer_ids' spec of new_route_test.cpp: it passes in production and is
// falsified by the spec's bug (B16).
#if defined(KVADDR_ROUTE_LIST_PROPS)
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "new_route.hpp"
#include "per_id_props.hpp"  // props/src

namespace kvaddr {
namespace {

using test_route::TransferIdsCopy;

TEST(NewRoute, HasAPropertyFromItsFieldList) {
  const props::detail::PropertyDef def = props::detail::per_id_property<TransferIdsCopy>();
  EXPECT_EQ(def.info.name, "transfer_ids_copy_vs_model");
  EXPECT_EQ(def.info.kills, std::vector<Variant>{Variant::b16_virtual_as_physical});
  EXPECT_EQ(def.info.routes, std::vector<Route>{Route::transfer_ids});
  EXPECT_TRUE(rc::check("transfer_ids_copy production", [&] { def.body(Variant::production); }));
  EXPECT_FALSE(rc::check("transfer_ids_copy b16", [&] { def.body(Variant::b16_virtual_as_physical); }));
}

// The listed per-id routes have properties of their own: none gets the field-list one.
TEST(NewRoute, ListedRoutesKeepTheirOwnProperties) {
  for (const auto& info : props::list_properties()) EXPECT_EQ(info.summary.find("from the field list"), std::string::npos) << info.name;
}

}  // namespace
}  // namespace kvaddr
#endif
