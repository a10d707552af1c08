#pragma once
// Route spec of dcp_read_translate (spec §4.12): token_translate of floor(id / dcp_size).
#include "kvaddr/translate/route_spec.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

KVADDR_ROUTE_SPEC(dcp_read_translate, DcpReadTranslateArgs)
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("ids", &A::ids).widening(), required_arg("v2p", &A::v2p), required_arg("page_size", &A::page_size),
                      optional_arg("multiplier", &A::multiplier), optional_arg("dcp_size", &A::dcp_size),
                      required_arg("out", &A::out), optional_arg("variant", &A::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b14_dcp_untranslated; }
  // The zoo grid under DCP 2: each live token t as the widened id 2t + 1 (padding stays -1).
  template <class Sample>
  static void grid_sample(Sample& s) {
    for (auto& id : s.ids) id = id < 0 ? id : id * 2 + 1;
    s.scalars.set("dcp_size", std::int64_t{2});
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
