// Route names (the route list's identifiers). The validation rules themselves are in
// validate_body.ipp, instantiated by routes_plain.cpp and by the mutation campaign's library.
#include "kvaddr/translate/validate.hpp"

#include <string>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr {

// ---- names -------------------------------------------------------------------------------------
// A route's name is its spec's identifier (route_list.hpp).
std::string_view to_string(Route r) noexcept {
  const std::string_view name = visit_route(r, [](auto spec) { return decltype(spec)::name; });
  return name.empty() ? std::string_view("unknown") : name;
}
Route parse_route(std::string_view name) {
  bool found = false;
  Route route{};
  for_each_route([&](auto spec) {
    if (!found && decltype(spec)::name == name) {
      found = true;
      route = decltype(spec)::id;
    }
  });
  if (!found) throw InvalidArgument("route", std::string(name), "unknown route");
  return route;
}

}  // namespace kvaddr
