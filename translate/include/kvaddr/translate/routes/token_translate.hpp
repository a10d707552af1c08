#pragma once
// Route spec of token_translate (spec §4.1): the output element type (int32 or int64) is a parameter.
#include "kvaddr/translate/route_spec.hpp"

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
  static constexpr bool accepts(Behaviour b) {
    return one_of(b, Behaviour::b17_doc_formula, Behaviour::e03_int32_offset, Behaviour::int32_wrap);
  }
};

}  // namespace kvaddr
