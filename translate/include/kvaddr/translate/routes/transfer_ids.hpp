#pragma once
// Route spec of transfer_ids (spec §4.13): physical token ids, no multiplier. A per-id route: the
// per-id runner, launcher and differential case run it from this spec.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

// §4.13 transfer_ids: virtual -> physical token ids for envelope transfer (PD, HiCache).
struct TransferIdsArgs {
  Vec<const std::int64_t> ids;
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  Vec<std::int64_t> out;
  Variant variant = Variant::production;
};

KVADDR_PER_ID_ROUTE_SPEC(transfer_ids, TransferIdsArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids).widening(), required_arg("v2p", &Args::v2p), required_arg("page_size", &Args::page_size),
                      required_arg("out", &Args::out), optional_arg("variant", &Args::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b16_virtual_as_physical; }
  template <class C>
  static void check_scalars(const Args& a, const C& c) { c.page_size(a.page_size); }
  // out[i] = phys(ids[i]) (B16: the virtual id itself, clamped at 0).
  template <class I, class D>
  struct Lane {
    lanes::divisor_at_t<D, 0> ps;
    Variant v;
    template <class G>
    KVADDR_HD I operator()(I t, G&& v2p) const { return lanes::transfer_lane<I, lanes::divisor_at_t<D, 0>>(t, v2p, ps, v); }
  };
  template <class I, class D, class Make>
  static constexpr Lane<I, D> lane(const Args& a, const Make& make) { return {make.div(a.page_size), a.variant}; }
};

#if !defined(__CUDACC__)
// The model's lane of id `id` over `table` (model/formulas.hpp), the call's scalars in `s` by field name.
template <class Src>
std::int64_t id_model(RouteSpec<Route::transfer_ids>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  return model::phys(table, s.scalar("page_size"), model::VirtualToken(id)).value;
}
#endif

}  // namespace kvaddr
