#pragma once
// Route spec of eager_funnel (spec §4.6).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::eager_funnel> {
  static constexpr Route id = Route::eager_funnel;
  static constexpr std::string_view name = "eager_funnel";
  using Args = EagerFunnelArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("page_table", &A::page_table),
        required_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        optional_arg("multiplier", &A::multiplier),
        required_arg("out", &A::out),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b02_rank2_index_select;
  }
};

}  // namespace kvaddr
