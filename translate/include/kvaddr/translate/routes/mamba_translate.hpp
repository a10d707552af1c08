#pragma once
// Route spec of mamba_translate (spec §4.10).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::mamba_translate> {
  static constexpr Route id = Route::mamba_translate;
  static constexpr std::string_view name = "mamba_translate";
  using Args = MambaTranslateArgs;
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour) { return false; }
};

}  // namespace kvaddr
