#pragma once
// Route spec of mamba_translate (spec §4.10).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::mamba_translate> {
  static constexpr Route id = Route::mamba_translate;
  static constexpr std::string_view name = "mamba_translate";
  using Args = MambaTranslateArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("slots", &A::slots),
        required_arg("v2p", &A::v2p),
        optional_arg("clamp", &A::clamp),
        required_arg("out", &A::out)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour) { return false; }
};

}  // namespace kvaddr
