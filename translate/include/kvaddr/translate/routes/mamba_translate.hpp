#pragma once
// Route spec of mamba_translate (spec §4.10): slot ids through the mamba map; no variants.
#include <cstddef>
#include <vector>

#include "kvaddr/translate/route_spec.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

KVADDR_ROUTE_SPEC(mamba_translate, MambaTranslateArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("slots", &Args::slots).widening(), required_arg("v2p", &Args::v2p),
                      optional_arg("clamp", &Args::clamp), required_arg("out", &Args::out)};
  }
  static constexpr bool accepts(Behaviour) { return false; }
  static constexpr std::string_view doc = "§4.10 int32(v2p[v]); raw gather (clamp: spec §7 Q3).";
  // The zoo grid's slots: 0..63 through a 65-entry map v -> 64 - v (slot 9 freed, -1).
  template <class Sample>
  static void grid_sample(Sample& s) {
    s.table.assign(65, -1);
    s.table[0] = 0;
    for (std::size_t v = 1; v < 64; ++v) s.table[v] = (v == 9) ? -1 : static_cast<std::int64_t>(64 - v);
    s.ids.clear();
    for (std::int64_t v = 0; v < 64; ++v) s.ids.push_back(v);
  }
};

#if !defined(__CUDACC__)
// The model's lane of id `id` over `table` (model/formulas.hpp), the call's scalars in `s` by field name.
template <class Src>
std::int64_t id_model(RouteSpec<Route::mamba_translate>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  return model::mamba_slot(table, id, s.flag("clamp"));
}
#endif

}  // namespace kvaddr
