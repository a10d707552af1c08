#pragma once
// Shape/scalar validation of every route contract (no array contents are read, so the same
// checks guard the host routes and the CUDA launchers). Each throws a typed kvaddr::Error
// naming the argument and its value.
#include <string_view>
#include <vector>

#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/host_routes.hpp"

namespace kvaddr {

// Variant names: a single behaviour by its catalogue name ("b09_no_padding_guard"), production as
// "production", a composite as its behaviours joined by '+' in bit order
// ("b09_no_padding_guard+era_b_unclamped"), grid_spill with a non-default column block as
// "grid_spill@G". The route-aware form prints the route's registered composite name instead
// ("pr33046_as_written" for decode_metadata). The views stay valid for the program's lifetime.
std::string_view to_string(Variant v) noexcept;
std::string_view to_string(Variant v, Route r) noexcept;
std::string_view to_string(Behaviour b) noexcept;
std::string_view to_string(Route r) noexcept;
// Parses a name printed by to_string, a registered composite name, or any '+'-joined list of
// behaviour and composite names. InvalidArgument("variant", name) naming the unknown part.
Variant parse_variant(std::string_view name);
Route parse_route(std::string_view name);      // InvalidArgument("route", name) if unknown
// InvalidArgument("variant", ...) unless route_accepts: names the behaviour that is not the
// route's, or the two behaviours that conflict.
void require_variant(Route r, Variant v);
// The behaviours of v, in bit order.
std::vector<Behaviour> behaviours(Variant v);
// Every variant a route accepts whose behaviours are a subset of `within` (production first,
// then by size): the search space of "behaves like".
std::vector<Variant> accepted_subsets(Route r, Variant within);

// The contract check of every host entry point's argument struct (host_routes.hpp).
#define KVADDR_DECLARE_VALIDATE(fn, A) void validate(const A& a);
KVADDR_HOST_ROUTES(KVADDR_DECLARE_VALIDATE)
#undef KVADDR_DECLARE_VALIDATE
template <class Out> void validate(const TokenTranslateArgs<Out>& a);
template <class Out> void validate(const SwaTranslateArgs<Out>& a);
// The contract check of a per-id route's argument struct (KVADDR_PER_ID_ROUTE_SPEC, route_spec.hpp).
template <class A, class = decltype(PerIdRouteOf<A>::value)>
void validate(const A& a) {
  translate::detail::per_id_check(PerIdRouteOf<A>::value, &a);
}

}  // namespace kvaddr
