#pragma once
// Route spec of transfer_ids (spec §4.13).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::transfer_ids> {
  static constexpr Route id = Route::transfer_ids;
  static constexpr std::string_view name = "transfer_ids";
  using Args = TransferIdsArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("ids", &A::ids),
        required_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        required_arg("out", &A::out),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b16_virtual_as_physical;
  }
};

}  // namespace kvaddr
