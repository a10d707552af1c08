#pragma once
// Route spec of mamba_translate (spec §4.10): slot ids through the mamba map; no variants. A per-id
// route: the per-id runner, launcher and differential case run it from this spec.
#include <cstddef>
#include <vector>

#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

KVADDR_PER_ID_ROUTE_SPEC(mamba_translate, MambaTranslateArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("slots", &Args::slots).widening(), required_arg("v2p", &Args::v2p),
                      optional_arg("clamp", &Args::clamp), required_arg("out", &Args::out)};
  }
  // Adjacent layouts (harness/adjacent.hpp): the per-id rule's admitted ones; rejected: out sharing an int64
  // element of slots or v2p.
  static constexpr AdjacentLayout adjacent_rejected[] = {{"slots out", 2}, {"v2p out", 2}};
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
  // A drawn call (the differential check): slots anywhere in the map [0, size); clamp in 3 calls of 10,
  // and only then padding slots (-1), which an unclamped gather would read before the map.
  template <class Sample, class Rng>
  static void draw_sample(Sample& s, Rng& rng) {
    const bool clamp = rng.chance(0.3);
    const auto last = static_cast<std::int64_t>(s.table.size()) - 1;
    for (auto& v : s.ids) v = clamp && rng.chance(0.05) ? -1 : rng.uniform(0, last);
    s.scalars.set("clamp", clamp);
  }
  // No page size, no divisor: the lane reads the map at the slot itself.
  template <class C>
  static void check_scalars(const Args&, const C&) {}
  // out[i] = v2p[slots[i]] (clamp: padding slots and tombstones to the sink 0).
  template <class I, class D>
  struct Lane {
    bool clamp;
    template <class G>
    KVADDR_HD I operator()(I v, G&& v2p) const { return lanes::mamba_lane(v, v2p, clamp); }
  };
  template <class I, class D, class Make>
  static constexpr Lane<I, D> lane(const Args& a, const Make&) { return {a.clamp}; }
  // The sink contract (route.mamba_translate.spec_lane) under clamp: the upstream gather, unclamped,
  // reads v2p[-1] for a padding slot (spec §7 Q3; proved refuted by route.mamba_translate).
  static void sink_safe(Args& a) { a.clamp = true; }
};

#if !defined(__CUDACC__)
// The model's lane of id `id` over `table` (model/formulas.hpp), the call's scalars in `s` by field name.
template <class Src>
std::int64_t id_model(RouteSpec<Route::mamba_translate>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  return model::mamba_slot(table, id, s.flag("clamp"));
}
#endif

}  // namespace kvaddr
