#pragma once
// Private to the pybind11 module: the Python bindings of the host routes, registered by a loop over
// the route list (translate/route_list.hpp). A route with a PyRoute table below gets one generic
// binding: the table gives its Python signature (keyword names in order, defaults) and the size of a
// fresh output; the parameter types, dtypes, int32 widening and which arrays may be None come from
// the route's field list (RouteSpec::fields), and the call is fill_args + Spec::run over a source of
// the converted Python arguments. write_loc and decode_metadata are bound by hand in module.cpp
// (bound_by_hand); a route with neither does not compile.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::python {

// ---- a route's Python signature ----------------------------------------------------------------
enum class Default { required, none, integer, boolean, text };

// One Python parameter: its keyword name, its default, the field it fills (its own name unless
// `fills`), and two Python conventions beyond the field list: a 1-D field that takes an array of any
// shape, flattened (the ids and out of a per-id route), and an int64 input taking int32 although its
// field does not widen (eager_funnel's page_table).
struct PyParam {
  std::string_view name;
  Default def = Default::required;
  int64_t integer = 0;
  bool boolean = false;
  std::string_view text{};
  std::string_view field{};
  bool any_shape = false;
  bool widen = false;
  constexpr std::string_view field_name() const { return field.empty() ? name : field; }
  constexpr PyParam fills(std::string_view f) const {
    PyParam p = *this;
    p.field = f;
    return p;
  }
  constexpr PyParam of_any_shape() const {
    PyParam p = *this;
    p.any_shape = true;
    return p;
  }
  constexpr PyParam widening() const {
    PyParam p = *this;
    p.widen = true;
    return p;
  }
};
constexpr PyParam req(std::string_view n) { return {n}; }
constexpr PyParam none(std::string_view n) { return {n, Default::none}; }
constexpr PyParam integer(std::string_view n, int64_t v) { return {n, Default::integer, v}; }
constexpr PyParam flag(std::string_view n, bool v) { return {n, Default::boolean, 0, v}; }
constexpr PyParam variant_param() { return {"variant", Default::text, 0, false, "production"}; }

// The shape of a fresh output (out=None): that of an input (`like`), [len(rows), scalar cols]
// (`rows_by_scalar`, cols checked as a size even when out is given), or [len(rows), the most pages
// of the lengths `cols`] (`rows_by_pages`); every element `fill`.
struct Fresh {
  enum class Rule { like, rows_by_scalar, rows_by_pages };
  Rule rule = Rule::like;
  std::string_view rows{};
  std::string_view cols{};
  int64_t fill = 0;
};
constexpr Fresh like(std::string_view input) { return {Fresh::Rule::like, input}; }
constexpr Fresh rows_by_scalar(std::string_view rows, std::string_view cols) {
  return {Fresh::Rule::rows_by_scalar, rows, cols};
}
constexpr Fresh rows_by_pages(std::string_view rows, std::string_view lens, int64_t fill) {
  return {Fresh::Rule::rows_by_pages, rows, lens, fill};
}

template <Route R>
struct PyRoute {
  static constexpr bool generic = false;
};
constexpr bool bound_by_hand(Route r) { return r == Route::write_loc || r == Route::decode_metadata; }

struct GenericRoute {
  static constexpr bool generic = true;
  static constexpr bool page_size_first = false;  // page_size >= 1 checked before the output
  static constexpr Fresh fresh{};
  static constexpr std::string_view doc{};
};

template <>
struct PyRoute<Route::token_translate> : GenericRoute {
  static constexpr std::array params{req("ids").of_any_shape(), req("v2p"), req("page_size"), integer("multiplier", 1),
                                     none("out").of_any_shape(), variant_param()};
  static constexpr bool page_size_first = true;
  static constexpr Fresh fresh = like("ids");
  static constexpr std::string_view doc =
      "§4.1: out[i] = 0 if t < 0 else max(v2p[t // ps]*ps*M + t % ps, 0). out int64 (or int32), same size.";
};
template <>
struct PyRoute<Route::flashmla_block_table> : GenericRoute {
  static constexpr std::array params{req("req_to_token"), req("req_pool_indices"), req("page_kernel_lens"), none("v2p"),
                                     none("kv_start_idx"), integer("page_size", 64), integer("multiplier", 1),
                                     none("out").fills("kv_indices"), variant_param()};
  static constexpr bool page_size_first = true;
  static constexpr Fresh fresh = rows_by_pages("req_pool_indices", "page_kernel_lens", -1);
  static constexpr std::string_view doc =
      "§4.2 (kv_indices): lanes c < ceil(len/ps) get v2p[tok // ps]*M (clamped in production); others untouched. "
      "out=None: a fresh [B, max pages] int32 table of -1.";
};
template <>
struct PyRoute<Route::canonical_page_table> : GenericRoute {
  static constexpr std::array params{req("req_to_token"), req("req_pool_indices"), req("seq_lens"), req("v2p"),
                                     req("page_size"), integer("multiplier", 1), req("max_pages"), none("out"),
                                     variant_param()};
  static constexpr Fresh fresh = rows_by_scalar("req_pool_indices", "max_pages");
  static constexpr std::string_view doc = "§4.3, prefix-only; out int32 [>= B, >= max_pages].";
};
template <>
struct PyRoute<Route::read_table> : GenericRoute {
  static constexpr std::array params{req("req_to_token"), req("req_pool_indices"), req("seq_lens"), req("v2p"),
                                     req("page_size"), integer("multiplier", 1), req("max_pages"),
                                     integer("seq_len_delta", 0), flag("zero_tail", false), none("out"),
                                     variant_param()};
  static constexpr Fresh fresh = rows_by_scalar("req_pool_indices", "max_pages");
  static constexpr std::string_view doc = "§4.4 build_kv_read_table; req_pool_indices are the row ids.";
};
template <>
struct PyRoute<Route::eager_funnel> : GenericRoute {
  static constexpr std::array params{req("page_table").widening(), req("v2p"), req("page_size"), integer("multiplier", 1),
                                     none("out"), variant_param()};
  static constexpr Fresh fresh = like("page_table");
};
template <>
struct PyRoute<Route::kv_indices_inplace> : GenericRoute {
  static constexpr std::array params{req("kv_indices"), req("kv_indptr"), req("batch_size"), req("v2p"),
                                     req("page_size"), integer("multiplier", 1), none("src"), variant_param()};
  static constexpr std::string_view doc =
      "§4.7: kv_indices[:kv_indptr[bs]] translated in place; returns kv_indices.";
};
template <>
struct PyRoute<Route::swa_translate> : GenericRoute {
  static constexpr std::array params{req("ids").of_any_shape(), req("swa_v2p"), req("page_size"),
                                     integer("swa_multiplier", 1), none("out").of_any_shape(), variant_param()};
  static constexpr Fresh fresh = like("ids");
};
template <>
struct PyRoute<Route::mamba_translate> : GenericRoute {
  static constexpr std::array params{req("slots"), req("v2p"), flag("clamp", false), none("out")};
  static constexpr Fresh fresh = like("slots");
  static constexpr std::string_view doc = "§4.10 int32(v2p[v]); raw gather (clamp: spec §7 Q3).";
};
template <>
struct PyRoute<Route::full_prefill_table> : GenericRoute {
  static constexpr std::array params = PyRoute<Route::canonical_page_table>::params;
  static constexpr Fresh fresh = rows_by_scalar("req_pool_indices", "max_pages");
};
template <>
struct PyRoute<Route::dcp_read_translate> : GenericRoute {
  static constexpr std::array params{req("ids").of_any_shape(), req("v2p"), req("page_size"), integer("multiplier", 1),
                                     integer("dcp_size", 1), none("out").of_any_shape(), variant_param()};
  static constexpr Fresh fresh = like("ids");
};
template <>
struct PyRoute<Route::transfer_ids> : GenericRoute {
  static constexpr std::array params{req("ids").of_any_shape(), req("v2p"), req("page_size"),
                                     none("out").of_any_shape(), variant_param()};
  static constexpr Fresh fresh = like("ids");
};

// ---- the field a parameter fills -----------------------------------------------------------------
struct FieldTraits {
  ArgKind kind = ArgKind::int64;
  bool int32 = false;
  bool required = false;
  bool widens = false;
  constexpr bool output() const { return kind == ArgKind::vec_out || kind == ArgKind::mat_out; }
  constexpr bool matrix() const { return kind == ArgKind::mat_in || kind == ArgKind::mat_out; }
};

template <class Args, class M>
constexpr FieldTraits traits_of(const ArgField<Args, M>& f) {
  FieldTraits t{ArgField<Args, M>::kind, false, f.required, f.widens_int32};
  if constexpr (requires { typename arg_field_detail::KindOf<M>::Element; }) {
    t.int32 = std::is_same_v<typename arg_field_detail::KindOf<M>::Element, int32_t>;
  }
  return t;
}

// The field of Spec named `name`; a name that is no field is not a constant expression.
template <class Spec>
constexpr FieldTraits field_traits(std::string_view name) {
  FieldTraits t{};
  bool found = false;
  std::apply([&](const auto&... f) { ((f.name == name ? (t = traits_of(f), found = true) : false), ...); },
             Spec::fields());
  if (!found) throw "a Python parameter names no field of the route";
  return t;
}

template <ArgKind K>
struct PyTypeOf {
  using type = py::handle;
};
template <>
struct PyTypeOf<ArgKind::int64> {
  using type = int64_t;
};
template <>
struct PyTypeOf<ArgKind::boolean> {
  using type = bool;
};
template <>
struct PyTypeOf<ArgKind::variant> {
  using type = std::string;
};

template <class Spec, class Sig, std::size_t I>
using ParamT = typename PyTypeOf<field_traits<Spec>(Sig::params[I].field_name()).kind>::type;

template <class Sig, std::size_t I>
auto py_arg() {
  constexpr PyParam p = Sig::params[I];
  py::arg a(p.name.data());
  if constexpr (p.def == Default::required) return a;
  else if constexpr (p.def == Default::none) return a = py::none();
  else if constexpr (p.def == Default::integer) return a = p.integer;
  else if constexpr (p.def == Default::boolean) return a = p.boolean;
  else return a = std::string(p.text);
}

// ---- the source fill_args reads: the converted arguments of one call, by field name --------------
class CallSource {
 public:
  ViewSource views;
  std::optional<std::string> variant;

  template <class T>
  void add(std::string_view field, In<T> in, bool matrix) {
    auto& store = inputs<T>();
    store.emplace_back(std::string(field), std::move(in));
    const In<T>& s = store.back().second;
    if (!s.present) return;
    if (matrix) views.set(field, s.mat());
    else views.set(field, s.vec());
  }
  const In<int64_t>& in64(std::string_view field) const { return find(in64_, field); }
  std::vector<int64_t> shape(std::string_view field) const {
    for (const auto& [k, in] : in32_)
      if (k == field) return in.shape;
    return find(in64_, field).shape;
  }
  int64_t size(std::string_view field) const {
    for (const auto& [k, in] : in32_)
      if (k == field) return in.size;
    return find(in64_, field).size;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> n = views.names();
    if (variant) n.emplace_back("variant");
    return n;
  }
  bool has(std::string_view k) const { return k == "variant" ? variant.has_value() : views.has(k); }
  ValueKind kind(std::string_view k) const { return k == "variant" ? ValueKind::text : views.kind(k); }
  int64_t scalar(std::string_view k) const { return views.scalar(k); }
  bool flag(std::string_view k) const { return views.flag(k); }
  std::string text(std::string_view) const { return *variant; }
  template <class T>
  Vec<T> vec(std::string_view k) const {
    return views.vec<T>(k);
  }
  template <class T>
  Mat<T> mat(std::string_view k) const {
    return views.mat<T>(k);
  }

 private:
  template <class T>
  std::deque<std::pair<std::string, In<T>>>& inputs() {
    if constexpr (std::is_same_v<T, int32_t>) return in32_;
    else return in64_;
  }
  template <class T>
  static const In<T>& find(const std::deque<std::pair<std::string, In<T>>>& store, std::string_view field) {
    for (const auto& [k, in] : store)
      if (k == field) return in;
    throw InvalidState("binding", std::string(field), "no such input of the call");
  }
  std::deque<std::pair<std::string, In<int32_t>>> in32_;
  std::deque<std::pair<std::string, In<int64_t>>> in64_;
};

// ---- one generic binding ---------------------------------------------------------------------
template <class Spec, class Sig>
struct Binding {
  static constexpr std::size_t N = Sig::params.size();

  template <std::size_t... I>
  static constexpr std::size_t output_index(std::index_sequence<I...>) {
    std::size_t at = N, count = 0;
    ((field_traits<Spec>(Sig::params[I].field_name()).output() ? (at = I, ++count) : 0), ...);
    if (count != 1) throw "a generic binding has exactly one output";
    return at;
  }
  static constexpr std::size_t kOut = output_index(std::make_index_sequence<N>{});
  static constexpr PyParam kOutParam = Sig::params[kOut];
  static constexpr FieldTraits kOutField = field_traits<Spec>(kOutParam.field_name());

  template <std::size_t I, class A>
  static void take(CallSource& src, const A& a, py::handle& out_obj, py::array& result) {
    constexpr PyParam p = Sig::params[I];
    constexpr FieldTraits t = field_traits<Spec>(p.field_name());
    constexpr std::string_view f = p.field_name();
    if constexpr (t.kind == ArgKind::int64) src.views.set(f, static_cast<int64_t>(a));
    else if constexpr (t.kind == ArgKind::boolean) src.views.set(f, static_cast<bool>(a));
    else if constexpr (t.kind == ArgKind::variant) src.variant = std::string(a);
    else if constexpr (!t.output()) {
      constexpr int lo = t.matrix() ? 2 : (p.any_shape ? 0 : 1);
      constexpr int hi = t.matrix() ? 2 : (p.any_shape ? 32 : 1);
      if constexpr (t.int32) src.add(f, input<int32_t>(a, p.name.data(), lo, hi, false, !t.required), t.matrix());
      else src.add(f, input<int64_t>(a, p.name.data(), lo, hi, t.widens || p.widen, !t.required), t.matrix());
    } else if constexpr (p.def == Default::required) {
      result = put_out<std::conditional_t<t.int32, int32_t, int64_t>>(src, a);  // an in-place buffer, in order
    } else {
      out_obj = py::handle(a);
    }
  }

  static std::pair<std::vector<int64_t>, const char*> fresh_shape(const CallSource& src) {
    constexpr Fresh r = Sig::fresh;
    if constexpr (r.rule == Fresh::Rule::like) {
      return {src.shape(r.rows), kOutParam.name.data()};
    } else if constexpr (r.rule == Fresh::Rule::rows_by_scalar) {
      return {{src.size(r.rows), src.scalar(r.cols)}, r.cols.data()};
    } else {
      const In<int64_t>& lens = src.in64(r.cols);
      const int64_t rows = src.size(r.rows);
      require_size(lens.size >= rows, r.cols.data(), lens.size, "needs one entry per batch row");
      return {{rows, max_pages_of(lens, src.scalar("page_size"), 0)}, r.cols.data()};
    }
  }

  template <class T>
  static py::array put_out(CallSource& src, py::handle obj) {
    constexpr PyParam p = kOutParam;
    constexpr const char* name = p.name.data();
    constexpr bool mat = kOutField.matrix();
    constexpr int lo = mat ? 2 : (p.any_shape ? 0 : 1);
    constexpr int hi = mat ? 2 : (p.any_shape ? 32 : 1);
    Out<T> o;
    if (p.def == Default::required || !obj.is_none()) {
      o = output<T>(as_ndarray(obj, name), name, lo, hi);
    } else {
      const auto [shape, size_name] = fresh_shape(src);
      o = output<T>(fresh<T>(shape, static_cast<T>(Sig::fresh.fill), size_name), name, lo, hi);
    }
    if constexpr (mat) src.views.set(p.field_name(), o.mat());
    else src.views.set(p.field_name(), o.vec());
    return o.arr;
  }

  // The route called with the Python arguments `a` (in the order of Sig::params); returns the output.
  template <class... A>
  static py::array call(const A&... a) {
    static_assert(sizeof...(A) == N, "one argument per Python parameter");
    return call_in_order(std::index_sequence_for<A...>{}, a...);
  }

 private:
  template <std::size_t... I, class... A>
  static py::array call_in_order(std::index_sequence<I...>, const A&... a) {
    CallSource src;
    py::handle out_obj = py::none();
    py::array result;
    (take<I>(src, a, out_obj, result), ...);
    if constexpr (Sig::page_size_first) {
      const int64_t ps = src.scalar("page_size");
      require(ps >= 1, "page_size", ps, "page size must be >= 1");
    }
    if constexpr (Sig::fresh.rule == Fresh::Rule::rows_by_scalar) check_dim(src.scalar(Sig::fresh.cols), Sig::fresh.cols.data());
    if constexpr (kOutParam.def != Default::required) {
      if constexpr (has_out_parameter<Spec>) {
        if (!out_obj.is_none() && is_dtype<int32_t>(as_ndarray(out_obj, kOutParam.name.data()))) {
          result = put_out<int32_t>(src, out_obj);
          Spec::run(fill_args_of<Spec, int32_t>(src));
          return result;
        }
      }
      result = put_out<std::conditional_t<kOutField.int32, int32_t, int64_t>>(src, out_obj);
    }
    Spec::run(fill_args<Spec>(src));
    return result;
  }
};

// The generic binding of route R called from C++ (the aliases of module.cpp), arguments as in Python.
template <Route R, class... A>
py::array call_route(const A&... a) {
  return Binding<RouteSpec<R>, PyRoute<R>>::call(a...);
}

template <class Spec, class Sig, std::size_t... I>
void def_route(py::module_& m, std::index_sequence<I...>) {
  auto f = [](ParamT<Spec, Sig, I>... a) { return Binding<Spec, Sig>::call(a...); };
  if (Sig::doc.empty()) m.def(Spec::name.data(), f, py_arg<Sig, I>()...);
  else m.def(Spec::name.data(), f, py_arg<Sig, I>()..., Sig::doc.data());
}

// Every route of the list with a PyRoute table, in list order.
inline void def_generic_routes(py::module_& m) {
  for_each_route([&](auto spec) {
    using S = decltype(spec);
    using Sig = PyRoute<S::id>;
    static_assert(Sig::generic != bound_by_hand(S::id), "a route needs a PyRoute table or a binding by hand");
    if constexpr (Sig::generic) def_route<S, Sig>(m, std::make_index_sequence<Sig::params.size()>{});
  });
}

}  // namespace kvaddr::python
