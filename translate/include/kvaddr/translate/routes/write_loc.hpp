#pragma once
// Route spec of write_loc (spec §4.8): token ids to KV write lanes, out_width >= N lanes.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(write_loc, WriteLocArgs)
  // The arguments, by spec / manifest name; out has out_width >= N lanes, [N, out_width) its tail.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("loc", &A::loc).widening(), required_arg("v2p", &A::v2p), required_arg("page_size", &A::page_size),
                      optional_arg("multiplier", &A::multiplier), optional_arg("dcp_size", &A::dcp_size),
                      optional_arg("dcp_rank", &A::dcp_rank), required_arg("out", &A::out).with_tail_lanes(),
                      optional_arg("variant", &A::variant)};
  }
  static constexpr std::string_view doc = "§4.8 write_loc_to_kernel_ids; lanes [N, out_width) zeroed.";
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::b06_stale_tail, Behaviour::e02_minus_one_sentinel, Behaviour::e03_int32_offset);
  }

  // The tail [N, out_width): zeroed (the sink) in production; B06 leaves it stale; E02 fills the pad -1.
  KVADDR_HD static constexpr bool keeps_tail(Variant v) { return has(v, Behaviour::b06_stale_tail); }
  template <class I>
  KVADDR_HD static constexpr I tail_fill(Variant v) {
    return has(v, Behaviour::e02_minus_one_sentinel) ? I(-1) : I(0);
  }
};

}  // namespace kvaddr
