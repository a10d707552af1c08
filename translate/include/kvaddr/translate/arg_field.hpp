#pragma once
// ArgField: one argument of a route's Args struct as the route's spec lists it (RouteSpec::fields):
// its spec / manifest name, the member it fills, whether a caller must give it, and its kind,
// read off the member's type. fill_args.hpp builds an Args struct from such a list by name.
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "kvaddr/translate/variant.hpp"

namespace kvaddr {

// The views of contracts.hpp (declared here so that the route specs, which contracts.hpp
// includes last, can name them).
template <class T>
struct Vec;
template <class T>
struct Mat;

// What an argument holds: a scalar (int64, bool, a variant) or a view of a caller array
// (1-D or 2-D; `in` views are read-only, `out` views are written by the route).
enum class ArgKind { int64, boolean, variant, vec_in, mat_in, vec_out, mat_out };

namespace arg_field_detail {
template <class M>
struct KindOf;
template <>
struct KindOf<std::int64_t> { static constexpr ArgKind value = ArgKind::int64; };
template <>
struct KindOf<bool> { static constexpr ArgKind value = ArgKind::boolean; };
template <>
struct KindOf<Variant> { static constexpr ArgKind value = ArgKind::variant; };
template <class T>
struct KindOf<Vec<T>> {
  static constexpr ArgKind value = std::is_const_v<T> ? ArgKind::vec_in : ArgKind::vec_out;
  using Element = std::remove_const_t<T>;
};
template <class T>
struct KindOf<Mat<T>> {
  static constexpr ArgKind value = std::is_const_v<T> ? ArgKind::mat_in : ArgKind::mat_out;
  using Element = std::remove_const_t<T>;
};
}  // namespace arg_field_detail

template <class Args, class M>
struct ArgField {
  using Struct = Args;
  using Member = M;
  static constexpr ArgKind kind = arg_field_detail::KindOf<M>::value;
  using Pointer = M Args::*;
  std::string_view name;
  Pointer member;
  // A required argument must be given; an optional one keeps the struct's default when absent
  // (a scalar's initialiser, an absent view for an array).
  bool required;
  // An optional argument given exactly when the argument named `partner` is ("" for none).
  std::string_view partner{};
  // A 1-D output that may have more lanes than the route's ids (the lanes past them are the tail).
  bool wider_than_ids = false;
  // A 1-D output of a batch route with this many lanes more than the batch (cu_seqlens_k: 1).
  int lanes_past_batch = 0;
  // An int64 input (ids, lengths, row ids) that a caller may hand over as int32 and have widened;
  // tables such as v2p are int64 only.
  bool widens_int32 = false;

  constexpr ArgField given_with(std::string_view other) const {
    ArgField f = *this;
    f.partner = other;
    return f;
  }
  constexpr ArgField with_tail_lanes() const {
    ArgField f = *this;
    f.wider_than_ids = true;
    return f;
  }
  constexpr ArgField widening() const {
    ArgField f = *this;
    f.widens_int32 = true;
    return f;
  }
  constexpr ArgField with_lanes_past_batch(int n) const {
    ArgField f = *this;
    f.lanes_past_batch = n;
    return f;
  }
};

// A required / optional argument of member `m` named `name`.
template <class Args, class M>
constexpr ArgField<Args, M> required_arg(std::string_view name, M Args::*m) {
  return {name, m, true};
}
template <class Args, class M>
constexpr ArgField<Args, M> optional_arg(std::string_view name, M Args::*m) {
  return {name, m, false};
}

// One candidate layout of a route's arrays as adjacent slices of one allocation (harness/adjacent.hpp): the
// members' field names in backing order, separated by spaces, and the int32 lanes each member shares with the
// previous one (0: touching). A spec lists them as adjacent_admitted[] (touching, shared 0) and
// adjacent_rejected[] (partial overlaps validation rejects, the output second).
struct AdjacentLayout {
  std::string_view members;
  int shared = 0;
};

}  // namespace kvaddr
