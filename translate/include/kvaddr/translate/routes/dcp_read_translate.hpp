#pragma once
// Route spec of dcp_read_translate (spec §4.12).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::dcp_read_translate> {
  static constexpr Route id = Route::dcp_read_translate;
  static constexpr std::string_view name = "dcp_read_translate";
  using Args = DcpReadTranslateArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("ids", &A::ids),
        required_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        optional_arg("multiplier", &A::multiplier),
        optional_arg("dcp_size", &A::dcp_size),
        required_arg("out", &A::out),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b14_dcp_untranslated;
  }
};

}  // namespace kvaddr
