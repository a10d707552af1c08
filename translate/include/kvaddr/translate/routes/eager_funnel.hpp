#pragma once
// Route spec of eager_funnel (spec §4.6): a page-start token table to physical page ids.
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(eager_funnel, EagerFunnelArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("page_table", &Args::page_table), required_arg("v2p", &Args::v2p),
                      required_arg("page_size", &Args::page_size), optional_arg("multiplier", &Args::multiplier),
                      required_arg("out", &Args::out), optional_arg("variant", &Args::variant)};
  }
  // Adjacent layouts (harness/adjacent.hpp): page_table or v2p beside out.
  static constexpr AdjacentLayout adjacent_admitted[] = {{"page_table out"}, {"out page_table"}, {"v2p out"}, {"out v2p"}};
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b02_rank2_index_select; }
};

}  // namespace kvaddr
