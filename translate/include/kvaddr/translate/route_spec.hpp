#pragma once
// RouteSpec<R>: everything about route R that is not its per-lane arithmetic (lanes.hpp), in one
// specialisation per route (kvaddr/translate/routes/<name>.hpp): its stable name, its argument
// struct and its fields (fields(): one ArgField per member, by spec / manifest name), the catalogue
// behaviours it accepts as variants. route_list.hpp lists them all.
//
// Optional members, read by the checks where a spec has them:
//   doc                           the Python binding's docstring;
//   grid_sample(sample)           the zoo grid's inputs of a per-id route (one id input, one table,
//                                 one output lane per id) where they differ from the default (the
//                                 grid's live tokens and a padding id over its v2p): other ids,
//                                 another table, scalars, the in-place run (`alias`).
// and, host only, beside the spec (model/ is C++20; nvcc reads the spec headers as C++17):
//   id_model(RouteSpec<R>, table, s, id)   the model's lane of one id of a per-id route
//                                 (model/formulas.hpp), the call's scalars in `s` by field name:
//                                 the reference of replay, the zoo grid and the properties.
#include <cstdint>
#include <string_view>
#include <tuple>

#include "kvaddr/translate/arg_field.hpp"

#include "kvaddr/translate/contracts.hpp"

namespace kvaddr {

template <Route R>
struct RouteSpec;

// Whether b is one of `list` (a spec's accepts()).
template <class... B>
constexpr bool one_of(Behaviour b, B... list) {
  return ((b == list) || ...);
}

}  // namespace kvaddr

// Opens the spec of route `r` (a Route enumerator, spelt as its host function in kvaddr::translate,
// routes.hpp) with argument struct `A`, inheriting the shared rules given after it: its id, its
// stable name (the enumerator's spelling), Args and run(a), the host route. The body follows.
#define KVADDR_ROUTE_SPEC(r, A, ...)                      \
  namespace translate {                                   \
  void r(const A& a);                                     \
  }                                                       \
  template <>                                             \
  struct RouteSpec<Route::r> __VA_ARGS__ {                \
    static constexpr Route id = Route::r;                 \
    static constexpr std::string_view name = #r;          \
    using Args = A;                                       \
    static void run(const Args& a) { translate::r(a); }

// The same for a route whose output element type is a parameter: `T` is the struct template,
// ArgsOf<Out> its instance, Args the int64 form, run(a) the host route for either; the spec lists
// its fields as fields_of<Out>() and fields() (the int64 form).
#define KVADDR_ROUTE_SPEC_OUT(r, T)                                      \
  namespace translate {                                                  \
  template <class Out>                                                   \
  void r(const T<Out>& a);                                               \
  }                                                                      \
  template <>                                                            \
  struct RouteSpec<Route::r> {                                           \
    static constexpr Route id = Route::r;                                \
    static constexpr std::string_view name = #r;                         \
    template <class Out>                                                 \
    using ArgsOf = T<Out>;                                               \
    using Args = T<std::int64_t>;                                        \
    template <class Out>                                                 \
    static void run(const ArgsOf<Out>& a) { translate::r<Out>(a); }
