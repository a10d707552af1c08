#pragma once
// RouteSpec<R>: everything about route R that is not its per-lane arithmetic (lanes.hpp), in one
// specialisation per route (kvaddr/translate/routes/<name>.hpp): its stable name, its argument
// struct and its fields (fields(): one ArgField per member, by spec / manifest name), the catalogue
// behaviours it accepts as variants. route_list.hpp lists them all.
#include <cstdint>
#include <string_view>
#include <tuple>

#include "kvaddr/translate/arg_field.hpp"

#include "kvaddr/translate/contracts.hpp"

namespace kvaddr {

template <Route R>
struct RouteSpec;

}  // namespace kvaddr
