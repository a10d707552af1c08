#pragma once
// fill_args<Spec>(source): a route's Args struct built by name from a key/value source, through the
// field list of its spec (RouteSpec::fields, arg_field.hpp). Host only.
//
// A source is any object with
//   std::vector<std::string> names() const      every key it holds
//   bool has(std::string_view) const
//   ValueKind kind(std::string_view) const      what a held key holds
//   std::int64_t scalar(std::string_view)       kind integer
//   bool flag(std::string_view)                 kind boolean
//   std::string text(std::string_view)          kind text (a variant name)
//   template <class T> Vec<T> vec(std::string_view)   kind vec_i32 / vec_i64 (T's element width)
//   template <class T> Mat<T> mat(std::string_view)   kind mat_i32 / mat_i64
// The source owns the arrays; the views it returns must outlive the Args.
//
// Errors (InvalidArgument naming the field): a required field the source lacks, a key that is not
// a field of the route, a key whose kind is not the field's.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr {

// What a source holds under a key.
enum class ValueKind { integer, boolean, text, vec_i32, vec_i64, mat_i32, mat_i64 };

constexpr std::string_view to_string(ValueKind k) {
  switch (k) {
    case ValueKind::integer: return "an integer";
    case ValueKind::boolean: return "a boolean";
    case ValueKind::text: return "a text";
    case ValueKind::vec_i32: return "a 1-D int32 array";
    case ValueKind::vec_i64: return "a 1-D int64 array";
    case ValueKind::mat_i32: return "a 2-D int32 array";
    case ValueKind::mat_i64: return "a 2-D int64 array";
  }
  return "?";
}

namespace fill_args_detail {

template <class View>
constexpr ValueKind array_kind() {
  using E = typename arg_field_detail::KindOf<View>::Element;
  static_assert(std::is_same_v<E, std::int32_t> || std::is_same_v<E, std::int64_t>, "arrays are int32 or int64");
  constexpr bool is32 = std::is_same_v<E, std::int32_t>;
  constexpr ArgKind k = arg_field_detail::KindOf<View>::value;
  if constexpr (k == ArgKind::vec_in || k == ArgKind::vec_out) return is32 ? ValueKind::vec_i32 : ValueKind::vec_i64;
  else return is32 ? ValueKind::mat_i32 : ValueKind::mat_i64;
}

// The value kind a field of member type M takes.
template <class M>
constexpr ValueKind value_kind() {
  constexpr ArgKind k = arg_field_detail::KindOf<M>::value;
  if constexpr (k == ArgKind::int64) return ValueKind::integer;
  else if constexpr (k == ArgKind::boolean) return ValueKind::boolean;
  else if constexpr (k == ArgKind::variant) return ValueKind::text;
  else return array_kind<M>();
}

inline std::string fmt_missing(std::string_view route) {
  return "required by route " + std::string(route) + " but not given";
}

template <class Args, class M, class Source>
void fill_one(Args& a, const ArgField<Args, M>& f, Source& src, std::string_view route) {
  const std::string name(f.name);
  if (!src.has(f.name)) {
    if (f.required) throw InvalidArgument(name, "(missing)", fmt_missing(route));
    return;
  }
  constexpr ValueKind want = value_kind<M>();
  const ValueKind got = src.kind(f.name);
  if (got != want) {
    throw InvalidArgument(name, std::string(to_string(got)),
                          std::string(to_string(want)) + " expected by route " + std::string(route));
  }
  constexpr ArgKind k = ArgField<Args, M>::kind;
  if constexpr (k == ArgKind::int64) a.*(f.member) = src.scalar(f.name);
  else if constexpr (k == ArgKind::boolean) a.*(f.member) = src.flag(f.name);
  else if constexpr (k == ArgKind::variant) a.*(f.member) = parse_variant(src.text(f.name));
  else if constexpr (k == ArgKind::vec_in || k == ArgKind::vec_out) {
    using T = std::remove_pointer_t<decltype(M{}.data)>;
    a.*(f.member) = src.template vec<T>(f.name);
  } else {
    using T = std::remove_pointer_t<decltype(M{}.data)>;
    a.*(f.member) = src.template mat<T>(f.name);
  }
}

template <class Fields>
bool is_field(const Fields& fields, std::string_view key) {
  return std::apply([&](const auto&... f) { return ((f.name == key) || ...); }, fields);
}

}  // namespace fill_args_detail

// The names of a field list, in its order.
template <class Fields>
std::vector<std::string_view> field_names(const Fields& fields) {
  return std::apply([](const auto&... f) { return std::vector<std::string_view>{f.name...}; }, fields);
}

// Builds an Args from `fields` and `src`; `route` names the route in the errors. Every key of the
// source is checked to be a field before any value is read.
template <class Args, class Fields, class Source>
Args fill_args_from(const Fields& fields, Source& src, std::string_view route) {
  for (const std::string& key : src.names()) {
    if (!fill_args_detail::is_field(fields, key)) {
      throw InvalidArgument(key, "(given)", "not an argument of route " + std::string(route));
    }
  }
  Args a{};
  std::apply([&](const auto&... f) { (fill_args_detail::fill_one(a, f, src, route), ...); }, fields);
  return a;
}

// A field of a spec as plain data, for consumers that decide at run time what to supply.
struct FieldInfo {
  std::string_view name;
  ArgKind kind = ArgKind::int64;
  bool int32 = false;  // an array of int32 elements (int64 otherwise)
  bool required = false;
  std::string_view partner;
  bool wider_than_ids = false;
  int lanes_past_batch = 0;
  bool widens_int32 = false;
  bool output() const { return kind == ArgKind::vec_out || kind == ArgKind::mat_out; }
  bool matrix() const { return kind == ArgKind::mat_in || kind == ArgKind::mat_out; }
  bool array() const { return kind != ArgKind::int64 && kind != ArgKind::boolean && kind != ArgKind::variant; }
};

namespace fill_args_detail {
template <class Args, class M>
FieldInfo info_of(const ArgField<Args, M>& f) {
  constexpr ArgKind k = ArgField<Args, M>::kind;
  FieldInfo i{f.name, k, false, f.required, f.partner, f.wider_than_ids, f.lanes_past_batch, f.widens_int32};
  if constexpr (k != ArgKind::int64 && k != ArgKind::boolean && k != ArgKind::variant) {
    i.int32 = std::is_same_v<typename arg_field_detail::KindOf<M>::Element, std::int32_t>;
  }
  return i;
}
}  // namespace fill_args_detail

// The fields of a spec (Spec::fields(), the int64 form for a route whose output type is a parameter).
template <class Spec>
std::vector<FieldInfo> field_infos() {
  return std::apply([](const auto&... f) { return std::vector<FieldInfo>{fill_args_detail::info_of(f)...}; },
                    Spec::fields());
}

// Whether a call must give field `f` of Spec: a required field, or one the spec's needs(name, given)
// asks for given the other fields (`given(name)`: whether the call gives that field).
template <class Spec, class Given>
bool field_needed(const FieldInfo& f, Given&& given) {
  if (f.required) return true;
  if constexpr (requires { Spec::needs(f.name, given); }) return Spec::needs(f.name, given);
  else return false;
}

// Sets every int64 and bool field of Spec that `src` does not hold yet (src.has / src.set, e.g. a
// ViewSource) to its argument struct's default: the scalars a call leaves out, for id_model or fill_args.
template <class Spec, class Src>
void set_scalar_defaults(Src& src) {
  const typename Spec::Args defaults{};
  auto one = [&](const auto& f) {
    constexpr ArgKind k = std::remove_cvref_t<decltype(f)>::kind;
    if constexpr (k == ArgKind::int64 || k == ArgKind::boolean) {
      if (!src.has(f.name)) src.set(f.name, defaults.*(f.member));
    }
  };
  std::apply([&](const auto&... f) { (one(f), ...); }, Spec::fields());
}

// Whether the spec's output element type is a parameter (ArgsOf<Out>, fields_of<Out>()).
template <class Spec>
inline constexpr bool has_out_parameter = requires { typename Spec::template ArgsOf<std::int32_t>; };

// ---- the shape of a route, read off its field list ---------------------------------------------
// How many fields of Spec are of kind k; whether one has a tail of lanes; whether one is named `name`.
template <class Spec>
constexpr int count_fields_of_kind(ArgKind k) {
  return std::apply([k](const auto&... f) { return (0 + ... + int{f.kind == k}); }, Spec::fields());
}
template <class Spec>
constexpr bool any_tail_lanes() {
  return std::apply([](const auto&... f) { return (false || ... || f.wider_than_ids); }, Spec::fields());
}
template <class Spec>
constexpr bool has_field(std::string_view name) {
  return std::apply([name](const auto&... f) { return (false || ... || (f.name == name)); }, Spec::fields());
}

// A per-id route: one id input, one table, scalars, one output lane per id (the inputs in that
// order: the ids are the first 1-D input, the table the second).
template <class Spec>
inline constexpr bool is_per_id_route =
    count_fields_of_kind<Spec>(ArgKind::vec_in) == 2 && count_fields_of_kind<Spec>(ArgKind::vec_out) == 1 &&
    count_fields_of_kind<Spec>(ArgKind::mat_in) == 0 && count_fields_of_kind<Spec>(ArgKind::mat_out) == 0 &&
    !any_tail_lanes<Spec>();
// A page-table route: req_to_token in, one int32 table out.
template <class Spec>
inline constexpr bool is_table_route = count_fields_of_kind<Spec>(ArgKind::mat_in) == 1 &&
                                       count_fields_of_kind<Spec>(ArgKind::mat_out) == 1 &&
                                       count_fields_of_kind<Spec>(ArgKind::vec_out) == 0 && has_field<Spec>("req_to_token");

namespace fill_args_detail {
template <ArgKind K, std::size_t N, class Tuple, std::size_t I = 0>
constexpr auto nth_of_kind() {
  if constexpr (I == std::tuple_size_v<Tuple>) {
    return std::type_identity<void>{};
  } else {
    using F = std::tuple_element_t<I, Tuple>;
    if constexpr (F::kind == K && N == 0) return std::type_identity<typename F::Member>{};
    else if constexpr (F::kind == K) return nth_of_kind<K, N - 1, Tuple, I + 1>();
    else return nth_of_kind<K, N, Tuple, I + 1>();
  }
}
}  // namespace fill_args_detail

// The member type of the N-th field of kind K of Spec (void if there is none), and the element
// type of an array field (Vec<const int64_t> -> int64_t).
template <class Spec, ArgKind K, std::size_t N = 0>
using field_member_t =
    typename decltype(fill_args_detail::nth_of_kind<K, N, std::remove_cvref_t<decltype(Spec::fields())>>())::type;
template <class View>
using element_t = std::remove_const_t<std::remove_pointer_t<decltype(View{}.data)>>;

// Sets the variant of `a` to v (an Args without a variant, mamba_translate's, is left as it is).
template <class A>
void set_variant(A& a, Variant v) {
  if constexpr (requires { a.variant = v; }) a.variant = v;
}

// A source over values and views the caller owns (set(name, value)): the views are handed over as
// they are, so they must outlive the Args.
class ViewSource {
 public:
  void set(std::string_view k, std::int64_t v) { put(k, {ValueKind::integer, v}); }
  void set(std::string_view k, bool v) { put(k, {ValueKind::boolean, 0, v}); }
  template <class T>
  void set(std::string_view k, Vec<T> v) {
    put(k, {sizeof(T) == 4 ? ValueKind::vec_i32 : ValueKind::vec_i64, 0, false, const_cast<void*>(static_cast<const void*>(v.data)),
            v.size, v.before, v.after});
  }
  template <class T>
  void set(std::string_view k, Mat<T> m) {
    Entry e{sizeof(T) == 4 ? ValueKind::mat_i32 : ValueKind::mat_i64, 0, false, const_cast<void*>(static_cast<const void*>(m.data))};
    e.rows = m.rows;
    e.cols = m.cols;
    e.row_stride = m.row_stride;
    e.col_stride = m.col_stride;
    put(k, e);
  }

  std::vector<std::string> names() const {
    std::vector<std::string> r;
    for (const auto& [k, e] : entries_) r.push_back(k);
    return r;
  }
  bool has(std::string_view k) const { return find(k) != nullptr; }
  ValueKind kind(std::string_view k) const { return find(k)->kind; }
  std::int64_t scalar(std::string_view k) const { return find(k)->number; }
  bool flag(std::string_view k) const { return find(k)->flag; }
  std::string text(std::string_view k) const { throw InvalidArgument(std::string(k), "(text)", "not a value of this source"); }
  template <class T>
  Vec<T> vec(std::string_view k) const {
    const Entry& e = *find(k);
    return {static_cast<T*>(e.data), e.size, e.before, e.after};
  }
  template <class T>
  Mat<T> mat(std::string_view k) const {
    const Entry& e = *find(k);
    return {static_cast<T*>(e.data), e.rows, e.cols, e.row_stride, e.col_stride};
  }

 private:
  struct Entry {
    ValueKind kind;
    std::int64_t number = 0;
    bool flag = false;
    void* data = nullptr;
    std::int64_t size = 0, before = 0, after = 0;
    std::int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 1;
  };
  void put(std::string_view k, Entry e) {
    for (auto& [name, old] : entries_)
      if (name == k) {
        old = e;
        return;
      }
    entries_.emplace_back(std::string(k), e);
  }
  const Entry* find(std::string_view k) const {
    for (const auto& [name, e] : entries_)
      if (name == k) return &e;
    return nullptr;
  }
  std::vector<std::pair<std::string, Entry>> entries_;
};

// The route's Args (Spec::Args) from a key/value source, by the spec's field names.
template <class Spec, class Source>
typename Spec::Args fill_args(Source& src) {
  return fill_args_from<typename Spec::Args>(Spec::fields(), src, Spec::name);
}

// The same for a route whose output element type is a parameter (token_translate, swa_translate).
template <class Spec, class Out, class Source>
typename Spec::template ArgsOf<Out> fill_args_of(Source& src) {
  return fill_args_from<typename Spec::template ArgsOf<Out>>(Spec::template fields_of<Out>(), src, Spec::name);
}

}  // namespace kvaddr
