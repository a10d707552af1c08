#pragma once
// Route spec of swa_translate (spec §4.9): token_translate over the SWA map, int32 or int64 out.
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC_OUT(swa_translate, SwaTranslateArgs)
  template <class Out>
  static constexpr auto fields_of() {
    using A = ArgsOf<Out>;
    return std::tuple{required_arg("ids", &A::ids).widening(), required_arg("swa_v2p", &A::swa_v2p),
                      required_arg("page_size", &A::page_size), optional_arg("swa_multiplier", &A::swa_multiplier),
                      required_arg("out", &A::out), optional_arg("variant", &A::variant)};
  }
  static constexpr auto fields() { return fields_of<std::int64_t>(); }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b11_swa_no_clamp; }
};

}  // namespace kvaddr
