#pragma once
// Route spec of transfer_ids (spec §4.13): physical token ids, no multiplier.
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(transfer_ids, TransferIdsArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids).widening(), required_arg("v2p", &Args::v2p), required_arg("page_size", &Args::page_size),
                      required_arg("out", &Args::out), optional_arg("variant", &Args::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b16_virtual_as_physical; }
};

}  // namespace kvaddr
