#pragma once
// Route spec of swa_translate (spec §4.9): token_translate over the SWA map, int32 or int64 out. Its
// host route and CUDA launcher are the per-id runner and launcher over this spec's Lane.
#include <cstddef>
#include <vector>

#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

KVADDR_ROUTE_SPEC_OUT(swa_translate, SwaTranslateArgs)
  template <class Out>
  static constexpr auto fields_of() {
    using A = ArgsOf<Out>;
    return std::tuple{required_arg("ids", &A::ids).widening(), required_arg("swa_v2p", &A::swa_v2p),
                      required_arg("page_size", &A::page_size), optional_arg("swa_multiplier", &A::swa_multiplier),
                      required_arg("out", &A::out), optional_arg("variant", &A::variant)};
  }
  static constexpr auto fields() { return fields_of<std::int64_t>(); }
  // The zoo grid's SWA side: a non-owner table sized by the owner's id space (the grid's v2p), with
  // slid-out pages (every third), M_swa = 2.
  template <class Sample>
  static void grid_sample(Sample& s) {
    std::vector<std::int64_t> swa(s.table.size(), -1);
    swa[0] = 0;
    for (std::size_t p = 1; p + 1 < swa.size(); ++p) swa[p] = (p % 3 == 0) ? -1 : static_cast<std::int64_t>((p * 7) % 500 + 1);
    s.table = swa;
    s.scalars.set("swa_multiplier", std::int64_t{2});
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b11_swa_no_clamp; }
  // The per-id runner's pieces (route_spec.hpp), for either output type A = ArgsOf<Out>.
  template <class A, class C>
  static void check_scalars(const A& a, const C& c) {
    c.page_size(a.page_size);
    c.multiplier(a.swa_multiplier, "swa_multiplier");
    c.stride(a.page_size, a.swa_multiplier, "swa_multiplier");
  }
  // out[i] = swa_translate_lane(ids[i]) with S_swa = ps * M_swa (B11: no clamp).
  template <class I, class D>
  using Lane = spec_rules::TokenLane<I, D, true>;
  template <class I, class D, class A, class Make>
  static constexpr Lane<I, D> lane(const A& a, const Make& make) {
    return {make.div(a.page_size), make.stride(a.page_size, a.swa_multiplier), a.variant};
  }
};

#if !defined(__CUDACC__)
// The model's lane of id `id` over `table` (model/formulas.hpp), the call's scalars in `s` by field name.
template <class Src>
std::int64_t id_model(RouteSpec<Route::swa_translate>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  return model::swa_id(table, s.scalar("page_size"), s.scalar("swa_multiplier"), model::VirtualToken(id)).value;
}
#endif

}  // namespace kvaddr
