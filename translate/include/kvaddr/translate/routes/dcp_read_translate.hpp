#pragma once
// Route spec of dcp_read_translate (spec §4.12): token_translate of floor(id / dcp_size).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(dcp_read_translate, DcpReadTranslateArgs)
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("ids", &A::ids).widening(), required_arg("v2p", &A::v2p), required_arg("page_size", &A::page_size),
                      optional_arg("multiplier", &A::multiplier), optional_arg("dcp_size", &A::dcp_size),
                      required_arg("out", &A::out), optional_arg("variant", &A::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b14_dcp_untranslated; }
};

}  // namespace kvaddr
