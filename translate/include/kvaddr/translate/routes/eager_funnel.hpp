#pragma once
// Route spec of eager_funnel (spec §4.6).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::eager_funnel> {
  static constexpr Route id = Route::eager_funnel;
  static constexpr std::string_view name = "eager_funnel";
  using Args = EagerFunnelArgs;
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b02_rank2_index_select;
  }
};

}  // namespace kvaddr
