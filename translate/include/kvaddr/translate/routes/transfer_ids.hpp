#pragma once
// Route spec of transfer_ids (spec §4.13).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::transfer_ids> {
  static constexpr Route id = Route::transfer_ids;
  static constexpr std::string_view name = "transfer_ids";
  using Args = TransferIdsArgs;
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b16_virtual_as_physical;
  }
};

}  // namespace kvaddr
