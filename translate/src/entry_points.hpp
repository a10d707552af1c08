#pragma once
// Private: the link-time seam between the public host entry points and their bodies.
//
// Every public entry point (kvaddr::translate::<route>, kvaddr::validate, the per-id runner's
// per_id_entry / per_id_check of route_spec.hpp) calls detail::run(a) / detail::check(a) (or is
// the per-id pair itself). The production library (routes_plain.cpp) defines these as weak
// symbols that call the production bodies, with no branch. kvaddr_translate_mutation
// (mutation/hooked.cpp) defines the same symbols strong: a binary that links the mutation library
// and uses its Campaign gets those, which run the hooked instantiation while a
// mutation::Campaign lives and the production bodies (production_run / production_check)
// otherwise. A binary without the mutation library has no override on any call path.
#include <cstdint>

#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/host_routes.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define KVADDR_REPLACEABLE __attribute__((weak))
#else
#error "the mutation seam needs weak symbols (GCC or Clang)"
#endif

namespace kvaddr::translate::detail {

#define KVADDR_DECLARE_SEAM(fn, A)          \
  void run(const A& a);                     \
  void check(const A& a);                   \
  void production_run(const A& a);          \
  void production_check(const A& a);
KVADDR_HOST_ROUTES(KVADDR_DECLARE_SEAM)
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_DECLARE_SEAM)
#undef KVADDR_DECLARE_SEAM

// The production per-id runner of per-id route r (its Args at `a`) and its validation.
void production_per_id_run(Route r, const void* a);
void production_per_id_check(Route r, const void* a);

}  // namespace kvaddr::translate::detail
