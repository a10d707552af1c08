#pragma once
// Host implementations of every production translation route (spec §4.1-4.13). Each route
// validates its contract, then runs the lane arithmetic of lanes.hpp with checked int64
// integers and bounds-checked table loads, writing exactly the lanes the kernel writes.
// Nothing here calls model/'s formulas: comparing a route with the model is a real check.
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/host_routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::translate {

#define KVADDR_DECLARE_ROUTE(fn, A) void fn(const A& a);
KVADDR_HOST_ROUTES(KVADDR_DECLARE_ROUTE)
#undef KVADDR_DECLARE_ROUTE
template <class Out> void token_translate(const TokenTranslateArgs<Out>& a);  // Out = int32_t or int64_t
template <class Out> void swa_translate(const SwaTranslateArgs<Out>& a);

}  // namespace kvaddr::translate
