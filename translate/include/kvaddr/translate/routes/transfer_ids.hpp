#pragma once
// Route spec of transfer_ids (spec §4.13): physical token ids, no multiplier.
#include "kvaddr/translate/route_spec.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

KVADDR_ROUTE_SPEC(transfer_ids, TransferIdsArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids).widening(), required_arg("v2p", &Args::v2p), required_arg("page_size", &Args::page_size),
                      required_arg("out", &Args::out), optional_arg("variant", &Args::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b16_virtual_as_physical; }
};

#if !defined(__CUDACC__)
// The model's lane of id `id` over `table` (model/formulas.hpp), the call's scalars in `s` by field name.
template <class Src>
std::int64_t id_model(RouteSpec<Route::transfer_ids>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  return model::phys(table, s.scalar("page_size"), model::VirtualToken(id)).value;
}
#endif

}  // namespace kvaddr
