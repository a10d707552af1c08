// The production instantiation of the host routes and their validation: the route bodies with
// the no-op hooks policy, and the public entry points (kvaddr::validate, kvaddr::translate::*).
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

std::atomic<const EntryPoints*> g_entry_override{nullptr};

namespace plain {
using H = NoHooks;
using CI = BasicCI<H>;
using TableGather = BasicTableGather<H>;
#include "validate_body.ipp"
#include "routes_tables.ipp"
#include "routes_tokens.ipp"
#include "routes_per_id.ipp"
}  // namespace plain

void per_id_entry(Route r, const void* a) {
  if (const auto* e = entry_override()) [[unlikely]] return e->run_per_id(r, a);
  plain::run_listed_per_id(r, a);
}
void per_id_check(Route r, const void* a) {
  if (const auto* e = entry_override()) [[unlikely]] return e->check_per_id(r, a);
  plain::validate_listed_per_id(r, a);
}

}  // namespace kvaddr::translate::detail

// ---- public entry points: the production bodies, unless a mutation campaign is running ---------
namespace kvaddr {

// Every entry point runs the override's body while a mutation campaign is running, the production
// body otherwise.
#define KVADDR_VALIDATE_BODY                                                                     \
  {                                                                                              \
    if (const auto* e = translate::detail::entry_override()) [[unlikely]] return e->check(a); \
    translate::detail::plain::validate_args(a);                                                  \
  }
#define KVADDR_VALIDATE(fn, A) void validate(const A& a) KVADDR_VALIDATE_BODY
KVADDR_HOST_ROUTES(KVADDR_VALIDATE)
template <class Out>
void validate(const TokenTranslateArgs<Out>& a) KVADDR_VALIDATE_BODY
template <class Out>
void validate(const SwaTranslateArgs<Out>& a) KVADDR_VALIDATE_BODY
#define KVADDR_INSTANTIATE_VALIDATE(fn, A) template void validate(const A&);
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_INSTANTIATE_VALIDATE)
#undef KVADDR_INSTANTIATE_VALIDATE
#undef KVADDR_VALIDATE
#undef KVADDR_VALIDATE_BODY

}  // namespace kvaddr

namespace kvaddr::translate {

#define KVADDR_ROUTE_BODY(fn)                                                    \
  {                                                                              \
    if (const auto* e = detail::entry_override()) [[unlikely]] return e->run(a); \
    detail::plain::fn(a);                                                        \
  }
#define KVADDR_ROUTE(fn, A) void fn(const A& a) KVADDR_ROUTE_BODY(fn)
KVADDR_HOST_ROUTES(KVADDR_ROUTE)
template <class Out>
void token_translate(const TokenTranslateArgs<Out>& a) KVADDR_ROUTE_BODY(token_translate)
template <class Out>
void swa_translate(const SwaTranslateArgs<Out>& a) KVADDR_ROUTE_BODY(swa_translate)
#define KVADDR_INSTANTIATE(fn, A) template void fn(const A&);
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_INSTANTIATE)
#undef KVADDR_INSTANTIATE
#undef KVADDR_ROUTE
#undef KVADDR_ROUTE_BODY

}  // namespace kvaddr::translate
