#pragma once
// The list of every route of spec §4: one RouteSpec per `Route` enumerator, in enumerator order.
// Code that does something per route iterates this list (for_each_route) or dispatches a runtime
// Route through it (visit_route); a route added to the enum without a spec here fails to compile.
#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/canonical_page_table.hpp"
#include "kvaddr/translate/routes/dcp_read_translate.hpp"
#include "kvaddr/translate/routes/decode_metadata.hpp"
#include "kvaddr/translate/routes/eager_funnel.hpp"
#include "kvaddr/translate/routes/flashmla_block_table.hpp"
#include "kvaddr/translate/routes/full_prefill_table.hpp"
#include "kvaddr/translate/routes/kv_indices_inplace.hpp"
#include "kvaddr/translate/routes/mamba_translate.hpp"
#include "kvaddr/translate/routes/read_table.hpp"
#include "kvaddr/translate/routes/swa_translate.hpp"
#include "kvaddr/translate/routes/test_route.hpp"  // empty unless KVADDR_TEST_ROUTE
#include "kvaddr/translate/routes/token_translate.hpp"
#include "kvaddr/translate/routes/transfer_ids.hpp"
#include "kvaddr/translate/routes/write_loc.hpp"

namespace kvaddr {

template <class... Specs>
struct RouteList {
  static constexpr std::size_t size = sizeof...(Specs);
};

template <Route... R>
using RouteListOf = RouteList<RouteSpec<R>...>;

using AllRoutes = RouteListOf<Route::token_translate, Route::flashmla_block_table, Route::canonical_page_table,
                              Route::read_table, Route::decode_metadata, Route::eager_funnel,
                              Route::kv_indices_inplace, Route::write_loc, Route::swa_translate,
                              Route::mamba_translate, Route::full_prefill_table, Route::dcp_read_translate,
                              Route::transfer_ids
#if defined(KVADDR_TEST_ROUTE)
                              , Route::test_route
#endif
                              >;

inline constexpr int kRouteCount = static_cast<int>(AllRoutes::size);

namespace route_list_detail {

template <class... S>
constexpr bool in_enumerator_order(RouteList<S...>) {
  int i = 0;
  return ((static_cast<int>(S::id) == i++) && ...);
}
static_assert(in_enumerator_order(AllRoutes{}), "AllRoutes must list Route's enumerators in order, once each");

#if !defined(__CUDACC__)
// Whether V is a named enumerator of its enum: the compiler spells an unnamed value as a cast,
// "(kvaddr::Route)13", in the function signature (GCC and Clang).
template <auto V>
constexpr bool is_named_enumerator() {
  constexpr std::string_view f = __PRETTY_FUNCTION__;
  constexpr std::size_t eq = f.rfind("= ");
  return eq != std::string_view::npos && f[eq + 2] != '(';
}
template <std::size_t... I>
constexpr int named_routes(std::index_sequence<I...>) {
  return (int{is_named_enumerator<static_cast<Route>(I)>()} + ...);
}
static_assert(is_named_enumerator<Route::token_translate>() && !is_named_enumerator<static_cast<Route>(-1)>(),
              "the enumerator probe does not work with this compiler");
static_assert(named_routes(std::make_index_sequence<256>{}) == kRouteCount,
              "every Route enumerator needs exactly one RouteSpec in AllRoutes");
#endif

template <class F, class... S>
constexpr void for_each(F& f, RouteList<S...>) {
  (f(S{}), ...);
}

template <class F, class... S>
constexpr auto visit(Route r, F& f, RouteList<S...>) {
  using R = std::common_type_t<decltype(f(S{}))...>;
  if constexpr (std::is_void_v<R>) {
    (void)((r == S::id ? (f(S{}), true) : false) || ...);
  } else {
    R out{};
    (void)((r == S::id ? (out = f(S{}), true) : false) || ...);
    return out;
  }
}

template <class... S>
constexpr std::array<Route, sizeof...(S)> ids(RouteList<S...>) {
  return {S::id...};
}

template <class... S>
constexpr int count_per_id(RouteList<S...>) {
  return (0 + ... + int{uses_per_id_runner<S>});
}
template <std::size_t N, class... S>
constexpr std::array<Route, N> per_id_ids(RouteList<S...>) {
  std::array<Route, N> r{};
  std::size_t i = 0;
  ((uses_per_id_runner<S> ? void(r[i++] = S::id) : void()), ...);
  return r;
}

}  // namespace route_list_detail

// Calls f(RouteSpec<R>{}) for every route, in enumerator order.
template <class F>
constexpr void for_each_route(F&& f) {
  route_list_detail::for_each(f, AllRoutes{});
}

// Calls f(RouteSpec<r>{}) for the spec of the runtime route r and returns its result (all
// overloads' results must share a common type). A value outside the enum calls nothing and
// returns a value-initialised result.
template <class F>
constexpr auto visit_route(Route r, F&& f) {
  return route_list_detail::visit(r, f, AllRoutes{});
}

// Every route, in enumerator order.
inline constexpr std::array<Route, AllRoutes::size> kAllRoutes = route_list_detail::ids(AllRoutes{});

// The per-id routes run by the per-id runner (KVADDR_PER_ID_ROUTE_SPEC), in enumerator order.
inline constexpr std::array<Route, static_cast<std::size_t>(route_list_detail::count_per_id(AllRoutes{}))> kPerIdRoutes =
    route_list_detail::per_id_ids<static_cast<std::size_t>(route_list_detail::count_per_id(AllRoutes{}))>(AllRoutes{});

// Which single behaviours belong to a route (its spec's accepts()).
constexpr bool behaviour_in_route(Route r, Behaviour b) {
  return visit_route(r, [b](auto spec) { return decltype(spec)::accepts(b); });
}

// A route accepts a variant iff every behaviour of it belongs to the route and no two of them
// conflict (production always). Host entry points reject the others with InvalidArgument("variant").
constexpr bool route_accepts(Route r, Variant v) {
  if (v.column_block < 1) return false;
  for (int i = 0; i < kBehaviourCount; ++i)
    if (has(v, static_cast<Behaviour>(i)) && !behaviour_in_route(r, static_cast<Behaviour>(i))) return false;
  return variant_conflict(v) == nullptr;
}

// Routes whose lane arithmetic (lanes.hpp) or host loop carries a variant; equals route_accepts.
constexpr bool lane_plants(Route r, Variant v) { return route_accepts(r, v); }

}  // namespace kvaddr
