// The mutation campaign's instantiation of the host routes and their validation: the same route
// bodies as the production library, with the MutationHooks policy, and the Campaign switch that
// sends the public entry points here.
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "checked.hpp"
#include "entry_points.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/mutation.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::translate::detail {

namespace hooked {
using H = MutationHooks;
using CI = BasicCI<H>;
using TableGather = BasicTableGather<H>;
#include "validate_body.ipp"
#include "routes_tables.ipp"
#include "routes_tokens.ipp"
#include "routes_per_id.ipp"
}  // namespace hooked

namespace {

class HookedEntryPoints final : public EntryPoints {
 public:
#define KVADDR_DEFINE(fn, A)                                             \
  void run(const A& a) const override { hooked::fn(a); }                 \
  void check(const A& a) const override { hooked::validate_args(a); }
  KVADDR_HOST_ROUTES(KVADDR_DEFINE)
  KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_DEFINE)
#undef KVADDR_DEFINE
  void run_per_id(Route r, const void* a) const override { hooked::run_listed_per_id(r, a); }
  void check_per_id(Route r, const void* a) const override { hooked::validate_listed_per_id(r, a); }
};

const HookedEntryPoints kHooked;

}  // namespace
}  // namespace kvaddr::translate::detail

namespace kvaddr::translate::mutation {

Campaign::Campaign() noexcept : previous_(detail::g_entry_override.exchange(&detail::kHooked)) {}

Campaign::~Campaign() { detail::g_entry_override.store(static_cast<const detail::EntryPoints*>(previous_)); }

}  // namespace kvaddr::translate::mutation
