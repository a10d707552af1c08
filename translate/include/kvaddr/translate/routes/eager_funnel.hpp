#pragma once
// Route spec of eager_funnel (spec §4.6): a page-start token table to physical page ids.
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(eager_funnel, EagerFunnelArgs)
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("page_table", &A::page_table), required_arg("v2p", &A::v2p),
                      required_arg("page_size", &A::page_size), optional_arg("multiplier", &A::multiplier),
                      required_arg("out", &A::out), optional_arg("variant", &A::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b02_rank2_index_select; }
};

}  // namespace kvaddr
