#pragma once
// Route spec of mamba_translate (spec §4.10): slot ids through the mamba map; no variants.
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(mamba_translate, MambaTranslateArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("slots", &Args::slots).widening(), required_arg("v2p", &Args::v2p),
                      optional_arg("clamp", &Args::clamp), required_arg("out", &Args::out)};
  }
  static constexpr bool accepts(Behaviour) { return false; }
};

}  // namespace kvaddr
