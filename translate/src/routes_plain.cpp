// The production instantiation of the host routes and their validation: the route bodies with
// the no-op hooks policy, the weak seam (entry_points.hpp) and the public entry points
// (kvaddr::validate, kvaddr::translate::*), which call the seam: no mutation switch here.
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
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::translate::detail {

namespace plain {
using H = NoHooks;
using CI = BasicCI<H>;
using TableGather = BasicTableGather<H>;
#include "validate_body.ipp"
#include "routes_tables.ipp"
#include "routes_tokens.ipp"
#include "routes_per_id.ipp"
}  // namespace plain

// The production bodies, by argument struct (entry_points.hpp).
#define KVADDR_PRODUCTION(fn, A)                                  \
  void production_run(const A& a) { plain::fn(a); }               \
  void production_check(const A& a) { plain::validate_args(a); }
KVADDR_HOST_ROUTES(KVADDR_PRODUCTION)
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_PRODUCTION)
#undef KVADDR_PRODUCTION
void production_per_id_run(Route r, const void* a) { plain::run_listed_per_id(r, a); }
void production_per_id_check(Route r, const void* a) { plain::validate_listed_per_id(r, a); }

// The seam, weak: kvaddr_translate_mutation's definitions replace these at link time.
#define KVADDR_SEAM(fn, A)                                                      \
  KVADDR_REPLACEABLE void run(const A& a) { production_run(a); }                \
  KVADDR_REPLACEABLE void check(const A& a) { production_check(a); }
KVADDR_HOST_ROUTES(KVADDR_SEAM)
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_SEAM)
#undef KVADDR_SEAM
KVADDR_REPLACEABLE void per_id_entry(Route r, const void* a) { production_per_id_run(r, a); }
KVADDR_REPLACEABLE void per_id_check(Route r, const void* a) { production_per_id_check(r, a); }

}  // namespace kvaddr::translate::detail

// ---- public entry points: through the seam ---------------------------------------------------
namespace kvaddr {

#define KVADDR_VALIDATE(fn, A) \
  void validate(const A& a) { translate::detail::check(a); }
KVADDR_HOST_ROUTES(KVADDR_VALIDATE)
#undef KVADDR_VALIDATE
template <class Out>
void validate(const TokenTranslateArgs<Out>& a) { translate::detail::check(a); }
template <class Out>
void validate(const SwaTranslateArgs<Out>& a) { translate::detail::check(a); }
#define KVADDR_INSTANTIATE_VALIDATE(fn, A) template void validate(const A&);
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_INSTANTIATE_VALIDATE)
#undef KVADDR_INSTANTIATE_VALIDATE

}  // namespace kvaddr

namespace kvaddr::translate {

#define KVADDR_ROUTE(fn, A) \
  void fn(const A& a) { detail::run(a); }
KVADDR_HOST_ROUTES(KVADDR_ROUTE)
#undef KVADDR_ROUTE
template <class Out>
void token_translate(const TokenTranslateArgs<Out>& a) { detail::run(a); }
template <class Out>
void swa_translate(const SwaTranslateArgs<Out>& a) { detail::run(a); }
#define KVADDR_INSTANTIATE(fn, A) template void fn(const A&);
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_INSTANTIATE)
#undef KVADDR_INSTANTIATE

}  // namespace kvaddr::translate
