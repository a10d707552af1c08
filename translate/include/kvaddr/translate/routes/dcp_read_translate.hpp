#pragma once
// Route spec of dcp_read_translate (spec §4.12).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::dcp_read_translate> {
  static constexpr Route id = Route::dcp_read_translate;
  static constexpr std::string_view name = "dcp_read_translate";
  using Args = DcpReadTranslateArgs;
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b14_dcp_untranslated;
  }
};

}  // namespace kvaddr
