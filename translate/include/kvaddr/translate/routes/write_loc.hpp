#pragma once
// Route spec of write_loc (spec §4.8).
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::write_loc> {
  static constexpr Route id = Route::write_loc;
  static constexpr std::string_view name = "write_loc";
  using Args = WriteLocArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("loc", &A::loc),
        required_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        optional_arg("multiplier", &A::multiplier),
        optional_arg("dcp_size", &A::dcp_size),
        optional_arg("dcp_rank", &A::dcp_rank),
        required_arg("out", &A::out),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b06_stale_tail ||
           b == Behaviour::e02_minus_one_sentinel ||
           b == Behaviour::e03_int32_offset;
  }

  // The tail [N, out_width): zeroed (the sink) in production; B06 leaves it stale; E02 fills the pad -1.
  KVADDR_HD static constexpr bool keeps_tail(Variant v) { return has(v, Behaviour::b06_stale_tail); }
  template <class I>
  KVADDR_HD static constexpr I tail_fill(Variant v) {
    return has(v, Behaviour::e02_minus_one_sentinel) ? I(-1) : I(0);
  }
};

}  // namespace kvaddr
