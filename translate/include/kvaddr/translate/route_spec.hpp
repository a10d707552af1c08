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
//
// A per-id route (one id input, one table, scalars, one output lane per id, in that field order)
// opened with KVADDR_PER_ID_ROUTE_SPEC has no host body, validation or kernel of its own: the
// host runner (translate/src/routes_per_id.ipp), the CUDA launcher (kernels/src/kernels_per_id.cu)
// and the differential check run it from its spec, which then holds
//   check_scalars(a, c)           its scalar rules, through the checker c (c.page_size(ps),
//                                 c.multiplier(m), c.stride(ps, m), c.require(ok, name, value, reason));
//   Lane<I, D>                    its lane: lane(id, table) -> I, over the integer I; its k-th divisor
//                                 has type lanes::divisor_at_t<D, k> (D for one type for all; the
//                                 launcher's Pow2Pack gives compile-time powers of two);
//   lane<I, D>(a, make)           the Lane of a call, from its scalars (constexpr; make.div(d): the
//                                 next divisor, in member order; make.stride(ps, m): S = ps * M, the
//                                 host runner's stride site).
// A per-id route whose output has tail lanes [N, out.size) past its ids (write_loc) adds
//   keeps_tail(v), tail_fill<I>(v) whether the variant leaves the tail stale, else the value the
//                                 runner and the launcher write there; its output may then alias
//                                 the ids as a prefix (out longer than the ids) instead of exactly.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kvaddr/translate/arg_field.hpp"

#include "kvaddr/translate/contracts.hpp"

namespace kvaddr {

template <Route R>
struct RouteSpec;

// The route of a per-id route's argument struct: `value` (KVADDR_PER_ID_ROUTE_SPEC specialises it).
template <class A>
struct PerIdRouteOf {};

namespace translate::detail {
// The host runner of per-id route r over its Args at `args` (the library instantiates it for every
// per-id route of the list), and its validation alone.
void per_id_entry(Route r, const void* args);
void per_id_check(Route r, const void* args);
}  // namespace translate::detail

// Whether b is one of `list` (a spec's accepts()).
template <class... B>
constexpr bool one_of(Behaviour b, B... list) {
  return ((b == list) || ...);
}

namespace per_id_detail {
// Index of the n-th field of kind k in the field tuple F (its size when there is none).
template <class F, std::size_t... I>
constexpr std::size_t nth_of_kind(ArgKind k, std::size_t n, std::index_sequence<I...>) {
  constexpr ArgKind kinds[] = {std::tuple_element_t<I, F>::kind...};
  for (std::size_t i = 0; i < sizeof...(I); ++i)
    if (kinds[i] == k && n-- == 0) return i;
  return sizeof...(I);
}
template <class Spec>
using Fields = decltype(Spec::fields());
template <class Spec>
constexpr std::size_t field_index(ArgKind k, std::size_t n) {
  return nth_of_kind<Fields<Spec>>(k, n, std::make_index_sequence<std::tuple_size<Fields<Spec>>::value>{});
}
template <class Spec, class = void>
struct HasVariant : std::false_type {};
template <class Spec>
struct HasVariant<Spec, std::void_t<decltype(std::declval<typename Spec::Args&>().variant)>> : std::true_type {};
// The output element type Out of an argument struct template instance T<Out>.
template <class A>
struct OutParam {};
template <template <class> class T, class O>
struct OutParam<T<O>> {
  using type = O;
};
template <class Spec, class = void>
struct HasLane : std::false_type {};
template <class Spec>
struct HasLane<Spec, std::void_t<typename Spec::template Lane<std::int64_t, std::int64_t>>> : std::true_type {};
// The `make` of a spec's lane() that counts the divisors it asks for.
struct CountDivisors {
  int* n;
  constexpr std::int64_t div(std::int64_t d) const {
    ++*n;
    return d;
  }
  constexpr std::int64_t stride(std::int64_t ps, std::int64_t m) const { return ps * m; }
};
template <class Spec, class = void>
struct UsesRunner : std::false_type {};
template <class Spec>
struct UsesRunner<Spec, std::enable_if_t<Spec::per_id_runner>> : std::true_type {};
template <class Spec, class = void>
struct HasTailLanes : std::false_type {};
template <class Spec>
struct HasTailLanes<Spec, std::void_t<decltype(Spec::keeps_tail(Variant{}))>> : std::true_type {};

}  // namespace per_id_detail

// Whether a per-id Spec writes tail lanes [N, out.size) past its ids (keeps_tail / tail_fill).
template <class Spec>
inline constexpr bool has_tail_lanes = per_id_detail::HasTailLanes<Spec>::value;
// Whether Spec is run by the per-id runner (opened with KVADDR_PER_ID_ROUTE_SPEC).
template <class Spec>
inline constexpr bool uses_per_id_runner = per_id_detail::UsesRunner<Spec>::value;
// How many divisors a spec's lane() takes (make.div calls: divisor positions 0, 1, ... of
// lanes::divisor_at), evaluated at compile time over a default argument struct.
template <class Spec>
constexpr int spec_divisor_count() {
  int n = 0;
  (void)Spec::template lane<std::int64_t, std::int64_t>(typename Spec::Args{}, per_id_detail::CountDivisors{&n});
  return n;
}

// Whether Spec has a per-id Lane (the per-id routes; token_translate and swa_translate, whose host
// routes and launchers run that Lane on the per-id runner for either output type; write_loc, whose
// runner and launcher add its tail lanes).
template <class Spec>
inline constexpr bool has_spec_lane = per_id_detail::HasLane<Spec>::value;

// The three arrays of a per-id route, read off its field list: the ids (the first 1-D input), the
// table (the second) and the output, each with its field name.
template <class Spec>
struct PerIdShape {
  static constexpr std::size_t kIds = per_id_detail::field_index<Spec>(ArgKind::vec_in, 0);
  static constexpr std::size_t kTable = per_id_detail::field_index<Spec>(ArgKind::vec_in, 1);
  static constexpr std::size_t kOut = per_id_detail::field_index<Spec>(ArgKind::vec_out, 0);
  static constexpr std::string_view ids_name = std::get<kIds>(Spec::fields()).name;
  static constexpr std::string_view table_name = std::get<kTable>(Spec::fields()).name;
  static constexpr std::string_view out_name = std::get<kOut>(Spec::fields()).name;
  static constexpr bool has_variant = per_id_detail::HasVariant<Spec>::value;
  // The field list of the argument struct A: Spec::fields(), or, for a route whose output element type
  // is a parameter, Spec::fields_of<Out>() of A = ArgsOf<Out> (the same fields in the same order).
  template <class A>
  static constexpr auto fields_for() {
    if constexpr (std::is_same_v<A, typename Spec::Args>) return Spec::fields();
    else return Spec::template fields_of<typename per_id_detail::OutParam<A>::type>();
  }
  template <class A>
  static constexpr const auto& ids(const A& a) { return a.*(std::get<kIds>(fields_for<A>()).member); }
  template <class A>
  static constexpr const auto& table(const A& a) { return a.*(std::get<kTable>(fields_for<A>()).member); }
  template <class A>
  static constexpr const auto& out(const A& a) { return a.*(std::get<kOut>(fields_for<A>()).member); }
};

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

// Opens the spec of a per-id route `r` run by the per-id runner: as KVADDR_ROUTE_SPEC, and
// translate::r(a) is the runner over the spec's lane (no host body, validation or kernel of its own).
#define KVADDR_PER_ID_ROUTE_SPEC(r, A, ...)                                    \
  template <>                                                                  \
  struct PerIdRouteOf<A> {                                                     \
    static constexpr Route value = Route::r;                                   \
  };                                                                           \
  namespace translate {                                                        \
  inline void r(const A& a) { detail::per_id_entry(Route::r, &a); }            \
  }                                                                            \
  template <>                                                                  \
  struct RouteSpec<Route::r> __VA_ARGS__ {                                     \
    static constexpr Route id = Route::r;                                      \
    static constexpr std::string_view name = #r;                               \
    static constexpr bool per_id_runner = true;                                \
    using Args = A;                                                            \
    static void run(const Args& a) { translate::r(a); }
