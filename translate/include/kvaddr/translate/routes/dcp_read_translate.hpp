#pragma once
// Route spec of dcp_read_translate (spec §4.12): token_translate of floor(id / dcp_size). A per-id
// route: the per-id runner, launcher and differential case run it from this spec.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

// §4.12 dcp_read_translate: translate_kv_loc(w / dcp_size).
struct DcpReadTranslateArgs {
  Vec<const std::int64_t> ids;
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  std::int64_t dcp_size = 1;
  Vec<std::int64_t> out;
  Variant variant = Variant::production;
};

KVADDR_PER_ID_ROUTE_SPEC(dcp_read_translate, DcpReadTranslateArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids).widening(), required_arg("v2p", &Args::v2p),
                      required_arg("page_size", &Args::page_size), optional_arg("multiplier", &Args::multiplier),
                      optional_arg("dcp_size", &Args::dcp_size), required_arg("out", &Args::out),
                      optional_arg("variant", &Args::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b14_dcp_untranslated; }
  // The zoo grid under DCP 2: each live token t as the widened id 2t + 1 (padding stays -1).
  template <class Sample>
  static void grid_sample(Sample& s) {
    for (auto& w : s.ids) w = w < 0 ? w : w * 2 + 1;
    s.scalars.set("dcp_size", std::int64_t{2});
  }
  // A drawn call (the differential check): a DCP size of {1, 2, 4, 8, 14, 16}, each live token t as
  // a widened id t * dcp_size + r, r < dcp_size (padding stays -1).
  template <class Sample, class Rng>
  static void draw_sample(Sample& s, Rng& rng) {
    const std::int64_t dcp = rng.template pick<std::int64_t>({1, 2, 4, 8, 14, 16});
    for (auto& w : s.ids) w = w < 0 ? -1 : w * dcp + rng.uniform(0, dcp - 1);
    s.scalars.set("dcp_size", dcp);
  }
  template <class C>
  static void check_scalars(const Args& a, const C& c) {
    c.page_size(a.page_size);
    c.multiplier(a.multiplier);
    c.stride(a.page_size, a.multiplier);
    c.require(a.dcp_size >= 1, "dcp_size", a.dcp_size, "dcp_size must be >= 1");
  }
  // out[i] = translate_kv_loc(ids[i] / dcp_size); padding -> 0 (B14: collapsed, untranslated).
  template <class I, class D>
  struct Lane {
    lanes::divisor_at_t<D, 0> ps;
    I stride;
    lanes::divisor_at_t<D, 1> dcp;
    Variant v;
    template <class G>
    KVADDR_HD I operator()(I w, G&& v2p) const {
      return lanes::dcp_read_lane<I, lanes::divisor_at_t<D, 0>, lanes::divisor_at_t<D, 1>>(w, v2p, ps, stride, dcp, v);
    }
  };
  template <class I, class D, class Make>
  static constexpr Lane<I, D> lane(const Args& a, const Make& make) {
    return {make.div(a.page_size), make.stride(a.page_size, a.multiplier), make.div(a.dcp_size), a.variant};
  }
};

#if !defined(__CUDACC__)
// The model's lane of id `id` over `table` (model/formulas.hpp), the call's scalars in `s` by field
// name: d(floor(id / dcp_size)); padding ids give the sink 0.
template <class Src>
std::int64_t id_model(RouteSpec<Route::dcp_read_translate>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  const auto tok = model::VirtualToken(model::floor_div(id, s.scalar("dcp_size")));
  return id < 0 ? 0 : model::kernel_id(table, s.scalar("page_size"), s.scalar("multiplier"), tok).value;
}
#endif

}  // namespace kvaddr
