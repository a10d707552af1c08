#pragma once
// Route spec of kv_indices_inplace (spec §4.7).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::kv_indices_inplace> {
  static constexpr Route id = Route::kv_indices_inplace;
  static constexpr std::string_view name = "kv_indices_inplace";
  using Args = KvIndicesInplaceArgs;
  // The arguments, by spec / manifest name.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{
        required_arg("kv_indices", &A::kv_indices),
        required_arg("kv_indptr", &A::kv_indptr),
        required_arg("batch_size", &A::batch_size),
        optional_arg("src", &A::src),
        required_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        optional_arg("multiplier", &A::multiplier),
        optional_arg("variant", &A::variant)};
  }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b05_rebind_fresh;
  }

  // B05: the results go to a fresh buffer; the bound kv_indices keeps its virtual ids (untouched).
  KVADDR_HD static constexpr bool rebinds_fresh(Variant v) { return has(v, Behaviour::b05_rebind_fresh); }
};

}  // namespace kvaddr
