#pragma once
// Route spec of token_translate (spec §4.1).
#include "kvaddr/translate/route_spec.hpp"

namespace kvaddr {

template <>
struct RouteSpec<Route::token_translate> {
  static constexpr Route id = Route::token_translate;
  static constexpr std::string_view name = "token_translate";
  using Args = TokenTranslateArgs<std::int64_t>;
  // The output element type is a parameter of the route (int32 or int64); Args is the int64 form.
  template <class Out>
  using ArgsOf = TokenTranslateArgs<Out>;
  // The arguments, by spec / manifest name, for the Args of output element type Out.
  template <class Out>
  static constexpr auto fields_of() {
    using A = ArgsOf<Out>;
    return std::tuple{
        required_arg("ids", &A::ids),
        required_arg("v2p", &A::v2p),
        required_arg("page_size", &A::page_size),
        optional_arg("multiplier", &A::multiplier),
        required_arg("out", &A::out),
        optional_arg("variant", &A::variant)};
  }
  static constexpr auto fields() { return fields_of<std::int64_t>(); }
  // The catalogue behaviours this route accepts as variants.
  static constexpr bool accepts(Behaviour b) {
    return b == Behaviour::b17_doc_formula ||
           b == Behaviour::e03_int32_offset ||
           b == Behaviour::int32_wrap;
  }
};

}  // namespace kvaddr
