// The mutation campaign's instantiation of the host routes and their validation: the same route
// bodies as the production library, with the MutationHooks policy, and the strong definitions of
// the entry-point seam (entry_points.hpp) that send the public entry points here while a
// Campaign lives.
#include <array>
#include <atomic>
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
// The number of live mutation::Campaign objects (they nest).
std::atomic<int> g_campaigns{0};
bool campaign() noexcept { return g_campaigns.load(std::memory_order_acquire) > 0; }
}  // namespace

// The seam (entry_points.hpp), strong: these replace the production library's weak definitions in
// every binary that links this library's Campaign.
#define KVADDR_SEAM(fn, A)                                                \
  void run(const A& a) {                                                  \
    if (campaign()) return hooked::fn(a);                                 \
    production_run(a);                                                    \
  }                                                                       \
  void check(const A& a) {                                                \
    if (campaign()) return hooked::validate_args(a);                      \
    production_check(a);                                                  \
  }
KVADDR_HOST_ROUTES(KVADDR_SEAM)
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_SEAM)
#undef KVADDR_SEAM
void per_id_entry(Route r, const void* a) {
  if (campaign()) return hooked::run_listed_per_id(r, a);
  production_per_id_run(r, a);
}
void per_id_check(Route r, const void* a) {
  if (campaign()) return hooked::validate_listed_per_id(r, a);
  production_per_id_check(r, a);
}

}  // namespace kvaddr::translate::detail

namespace kvaddr::translate::mutation {

Campaign::Campaign() noexcept { detail::g_campaigns.fetch_add(1, std::memory_order_acq_rel); }

Campaign::~Campaign() { detail::g_campaigns.fetch_sub(1, std::memory_order_acq_rel); }

}  // namespace kvaddr::translate::mutation
