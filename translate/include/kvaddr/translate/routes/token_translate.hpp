#pragma once
// Route spec of token_translate (spec §4.1): the output element type (int32 or int64) is a parameter.
// Its host route and CUDA launcher are the per-id runner and launcher over this spec's Lane.
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#include "kvaddr/translate/routes/shared_rules.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

KVADDR_ROUTE_SPEC_OUT(token_translate, TokenTranslateArgs)
  // The arguments, by spec / manifest name, for the Args of output element type Out.
  template <class Out>
  static constexpr auto fields_of() {
    using A = ArgsOf<Out>;
    return std::tuple{required_arg("ids", &A::ids).widening(), required_arg("v2p", &A::v2p), required_arg("page_size", &A::page_size),
                      optional_arg("multiplier", &A::multiplier), required_arg("out", &A::out),
                      optional_arg("variant", &A::variant)};
  }
  static constexpr auto fields() { return fields_of<std::int64_t>(); }
  static constexpr std::string_view doc =
      "§4.1: out[i] = 0 if t < 0 else max(v2p[t // ps]*ps*M + t % ps, 0). out int64 (or int32), same size.";
  // The zoo grid also runs the route in place (out == ids).
  template <class Sample>
  static void grid_sample(Sample& s) {
    s.alias = true;
  }
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::b17_doc_formula, Behaviour::e03_int32_offset, Behaviour::int32_wrap,
                  Behaviour::int32_lane_offsets);
  }
  // The per-id runner's pieces (route_spec.hpp), for either output type A = ArgsOf<Out>.
  template <class A, class C>
  static void check_scalars(const A& a, const C& c) {
    c.page_size(a.page_size);
    c.multiplier(a.multiplier);
    c.stride(a.page_size, a.multiplier);
  }
  // out[i] = token_translate_lane(ids[i]) with S = ps * M (B17, E03 in the lane; int32_wrap at the store).
  template <class I, class D>
  using Lane = spec_rules::TokenLane<I, D, false>;
  template <class I, class D, class A, class Make>
  static constexpr Lane<I, D> lane(const A& a, const Make& make) {
    return {make.div(a.page_size), make.stride(a.page_size, a.multiplier), a.variant};
  }
};

#if !defined(__CUDACC__)
// The model's lane of id `id` over `table` (model/formulas.hpp), the call's scalars in `s` by field name.
template <class Src>
std::int64_t id_model(RouteSpec<Route::token_translate>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  return model::kernel_id(table, s.scalar("page_size"), s.scalar("multiplier"), model::VirtualToken(id)).value;
}
#endif

}  // namespace kvaddr
