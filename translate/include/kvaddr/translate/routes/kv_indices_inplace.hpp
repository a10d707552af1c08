#pragma once
// Route spec of kv_indices_inplace (spec §4.7): kv_indices rewritten in place, batch rows by kv_indptr.
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

KVADDR_ROUTE_SPEC(kv_indices_inplace, KvIndicesInplaceArgs)
  // kv_indices is read and written (its virtual ids in, physical ids out); src, when given, is read instead.
  static constexpr auto fields() {
    using A = Args;
    return std::tuple{required_arg("kv_indices", &A::kv_indices), required_arg("kv_indptr", &A::kv_indptr),
                      required_arg("batch_size", &A::batch_size), optional_arg("src", &A::src),
                      required_arg("v2p", &A::v2p), required_arg("page_size", &A::page_size),
                      optional_arg("multiplier", &A::multiplier), optional_arg("variant", &A::variant)};
  }
  // Adjacent layouts (harness/adjacent.hpp); rejected: kv_indices sharing a lane of kv_indptr or v2p.
  static constexpr AdjacentLayout adjacent_admitted[] = {{"kv_indices kv_indptr"}, {"kv_indptr kv_indices"},
                                                         {"v2p kv_indices"}, {"kv_indices v2p"}};
  static constexpr AdjacentLayout adjacent_rejected[] = {{"kv_indptr kv_indices", 1}, {"v2p kv_indices", 2}};
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b05_rebind_fresh; }
  static constexpr std::string_view doc = "§4.7: kv_indices[:kv_indptr[bs]] translated in place; returns kv_indices.";

  // B05: the results go to a fresh buffer; the bound kv_indices keeps its virtual ids (untouched).
  KVADDR_HD static constexpr bool rebinds_fresh(Variant v) { return has(v, Behaviour::b05_rebind_fresh); }
};

}  // namespace kvaddr
