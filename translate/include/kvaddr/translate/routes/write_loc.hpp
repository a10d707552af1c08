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
  // Adjacent layouts (harness/adjacent.hpp): loc or v2p beside out.
  static constexpr AdjacentLayout adjacent_admitted[] = {{"loc out"}, {"out loc"}, {"v2p out"}, {"out v2p"}};
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::b06_stale_tail, Behaviour::e02_minus_one_sentinel, Behaviour::e03_int32_offset,
                  Behaviour::int32_lane_offsets);
  }

  // Its lane on the per-id runner and launcher (route_spec.hpp; a per-id route with tail lanes).
  template <class C>
  static void check_scalars(const Args& a, const C& c) {
    c.page_size(a.page_size);
    c.multiplier(a.multiplier);
    c.stride(a.page_size, a.multiplier);
    c.dcp(a.dcp_size, a.dcp_rank);
  }
  // out[i] = keep(loc[i]) ? d(loc[i] / dcp_size) : 0 (keep: loc > 0 owned by dcp_rank; E03: int32
  // id arithmetic). Divisors: the page size (position 0) and the DCP size (position 1).
  template <class I, class D>
  struct Lane {
    lanes::divisor_at_t<D, 0> ps;
    I stride;
    lanes::divisor_at_t<D, 1> dcp;
    I rank;
    Variant v;
    template <class G>
    KVADDR_HD I operator()(I loc, G&& v2p) const {
      return lanes::write_loc_lane<I, lanes::divisor_at_t<D, 0>, lanes::divisor_at_t<D, 1>>(loc, v2p, ps, stride, dcp,
                                                                                            rank, v);
    }
  };
  template <class I, class D, class Make>
  static constexpr Lane<I, D> lane(const Args& a, const Make& make) {
    return {make.div(a.page_size), make.stride(a.page_size, a.multiplier), make.div(a.dcp_size), I(a.dcp_rank),
            a.variant};
  }
  // The tail lanes [N, out_width): zeroed (the sink) in production; B06 leaves them stale; E02 fills
  // the pad -1.
  KVADDR_HD static constexpr bool keeps_tail(Variant v) { return has(v, Behaviour::b06_stale_tail); }
  template <class I>
  KVADDR_HD static constexpr I tail_fill(Variant v) {
    return has(v, Behaviour::e02_minus_one_sentinel) ? I(-1) : I(0);
  }
};

}  // namespace kvaddr
