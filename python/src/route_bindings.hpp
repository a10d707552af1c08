#pragma once
// Private to the pybind11 module: the Python bindings of the host routes, one generic binding per
// route, registered by a loop over the route list (translate/route_list.hpp). A per-id route's
// signature is its field list in order; any other route's PyRoute table gives what only Python has:
// the signature (keyword names in order, defaults) and how a fresh output is sized. The parameter types, dtypes, int32 widening, which arrays may be None and
// which output goes with which input come from the route's field list (RouteSpec::fields); the call
// is fill_args + Spec::run over a source of the converted Python arguments.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <span>
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

// How a fresh output (out=None) is sized, every element `fill`:
//   like            the shape of the input `rows`;
//   batch           len(rows) + the field's lanes past the batch (cu_seqlens_k: B + 1);
//   rows_by_scalar  [len(rows), the scalar `cols`] (`cols` is checked as a size even when out is given);
//   rows_by_pages   [len(rows), the most pages of the lengths `cols`];
//   tail            the width `cols` (a parameter of no field, None: len(rows)); the output's lanes are
//                   that width, len(rows) <= width <= len(out).
// `unless`: a flag under which no fresh output is made (the output is None unless given).
struct Fresh {
  enum class Rule { like, batch, rows_by_scalar, rows_by_pages, tail };
  Rule rule = Rule::like;
  std::string_view rows{};
  std::string_view cols{};
  int64_t fill = 0;
  std::string_view unless{};
  constexpr Fresh unless_flag(std::string_view f) const {
    Fresh r = *this;
    r.unless = f;
    return r;
  }
};
constexpr Fresh like(std::string_view input) { return {Fresh::Rule::like, input}; }
constexpr Fresh batch(std::string_view input) { return {Fresh::Rule::batch, input}; }
constexpr Fresh rows_by_scalar(std::string_view rows, std::string_view cols) {
  return {Fresh::Rule::rows_by_scalar, rows, cols};
}
constexpr Fresh rows_by_pages(std::string_view rows, std::string_view lens, int64_t fill) {
  return {Fresh::Rule::rows_by_pages, rows, lens, fill};
}
constexpr Fresh tail(std::string_view ids, std::string_view width) { return {Fresh::Rule::tail, ids, width}; }

// One Python parameter: its keyword name, its default, the field it fills (its own name unless
// `fills`; a `width` parameter fills none: it is the Fresh::tail width, an int or None), for an
// output how a fresh one is sized, and two Python conventions beyond the field list: a 1-D field
// that takes an array of any shape, flattened (the ids and out of a per-id route), and an int64
// input taking int32 although its field does not widen (eager_funnel's page_table).
struct PyParam {
  std::string_view name;
  Default def = Default::required;
  int64_t integer = 0;
  bool boolean = false;
  std::string_view text{};
  std::string_view field{};
  Fresh fresh{};
  bool any_shape = false;
  bool widen = false;
  bool width = false;
  constexpr std::string_view field_name() const { return field.empty() ? name : field; }
  template <class M>
  constexpr PyParam with(M PyParam::*m, M v) const {
    PyParam p = *this;
    p.*m = v;
    return p;
  }
  constexpr PyParam fills(std::string_view f) const { return with(&PyParam::field, f); }
  constexpr PyParam sized(Fresh f) const { return with(&PyParam::fresh, f); }
  constexpr PyParam of_any_shape() const { return with(&PyParam::any_shape, true); }
  constexpr PyParam widening() const { return with(&PyParam::widen, true); }
};
constexpr PyParam req(std::string_view n) { return {n}; }
constexpr PyParam none(std::string_view n) { return {n, Default::none}; }
constexpr PyParam integer(std::string_view n, int64_t v) { return {n, Default::integer, v}; }
constexpr PyParam flag(std::string_view n, bool v) { return {n, Default::boolean, 0, v}; }
constexpr PyParam variant_param() { return {"variant", Default::text, 0, false, "production"}; }
constexpr PyParam width(std::string_view n) { return none(n).with(&PyParam::width, true); }
// The ids and output of a per-id route: any shape, one output lane per id.
constexpr PyParam per_id(std::string_view n) { return req(n).of_any_shape(); }
constexpr PyParam per_id_out(std::string_view ids) { return none("out").of_any_shape().sized(like(ids)); }

// The Python signature of a per-id route read off its field list, in field order: the ids (the
// first 1-D input, any shape) and the other arrays and required scalars as required parameters, an
// optional scalar with its argument struct's default, the output `out` sized like the ids (any
// shape), the variant.
// The name of field n (0-based) of kind k of Spec ("" when there is none): a per-id route's ids (its first 1-D
// input), its table (the second) and its output (the first vec_out).
template <class Spec>
constexpr std::string_view nth_field(ArgKind k, int n = 0) {
  std::string_view name{};
  int seen = 0;
  std::apply([&](const auto&... f) { ((f.kind == k && seen++ == n ? (name = f.name, true) : false), ...); },
             Spec::fields());
  return name;
}
template <class Spec>
constexpr std::string_view ids_field() {
  return nth_field<Spec>(ArgKind::vec_in, 0);
}
template <class Spec, class F>
constexpr PyParam field_param(const F& f) {
  constexpr typename Spec::Args defaults{};
  if constexpr (F::kind == ArgKind::variant) return variant_param();
  else if constexpr (F::kind == ArgKind::vec_out) return per_id_out(ids_field<Spec>()).fills(f.name);
  else if constexpr (F::kind == ArgKind::int64) return f.required ? req(f.name) : integer(f.name, defaults.*(f.member));
  else if constexpr (F::kind == ArgKind::boolean) return f.required ? req(f.name) : flag(f.name, defaults.*(f.member));
  else if (f.name == ids_field<Spec>()) return per_id(f.name);
  else return f.required ? req(f.name) : none(f.name);
}

struct GenericRoute {
  static constexpr bool generic = true;
  static constexpr bool page_size_first = false;  // page_size >= 1 checked before the outputs
};
struct NoTable {
  static constexpr bool generic = false;
};
template <class Spec>
struct FieldOrderRoute : GenericRoute {
  static constexpr auto params = std::apply(
      [](const auto&... f) { return std::array<PyParam, sizeof...(f)>{field_param<Spec>(f)...}; }, Spec::fields());
};

// A route's Python binding: a per-id route's signature is its field list (FieldOrderRoute) unless
// it has a PyRoute table of its own; a route of another shape needs one (it does not compile
// without). The docstring is the spec's `doc`.
template <Route R>
struct PyRoute : std::conditional_t<is_per_id_route<RouteSpec<R>>, FieldOrderRoute<RouteSpec<R>>, NoTable> {};

template <>
struct PyRoute<Route::token_translate> : FieldOrderRoute<RouteSpec<Route::token_translate>> {
  static constexpr bool page_size_first = true;
};
template <>
struct PyRoute<Route::flashmla_block_table> : GenericRoute {
  static constexpr std::array params{
      req("req_to_token"), req("req_pool_indices"), req("page_kernel_lens"), none("v2p"), none("kv_start_idx"),
      integer("page_size", 64), integer("multiplier", 1),
      none("out").fills("kv_indices").sized(rows_by_pages("req_pool_indices", "page_kernel_lens", -1)), variant_param()};
  static constexpr bool page_size_first = true;
};
template <>
struct PyRoute<Route::canonical_page_table> : GenericRoute {
  static constexpr std::array params{req("req_to_token"), req("req_pool_indices"), req("seq_lens"), none("v2p"),
                                     req("page_size"), integer("multiplier", 1), req("max_pages"),
                                     none("out").sized(rows_by_scalar("req_pool_indices", "max_pages")),
                                     variant_param()};
};
template <>
struct PyRoute<Route::read_table> : GenericRoute {
  static constexpr std::array params{req("req_to_token"), req("req_pool_indices"), req("seq_lens"), none("v2p"),
                                     req("page_size"), integer("multiplier", 1), req("max_pages"),
                                     integer("seq_len_delta", 0), flag("zero_tail", false),
                                     none("out").sized(rows_by_scalar("req_pool_indices", "max_pages")),
                                     variant_param()};
};
template <>
struct PyRoute<Route::decode_metadata> : GenericRoute {
  static constexpr Fresh table = rows_by_scalar("seq_lens", "max_seq_pages");
  static constexpr std::array params{
      req("seq_lens"), none("req_to_token"), none("req_pool_indices"), req("max_seq_pages"), req("page_size"),
      integer("seq_len_delta", 0), none("v2p"), integer("multiplier", 1), none("kernel_page_table"),
      flag("skip_page_table", false), none("swa_v2p"), integer("swa_multiplier", 1),
      none("cache_seqlens").sized(batch("seq_lens")), none("cu_seqlens_k").sized(batch("seq_lens")),
      none("page_table").sized(table.unless_flag("skip_page_table")), none("swa_page_table").sized(table),
      flag("src_is_kernel_page_table", false), none("full_to_swa_index_mapping"), variant_param()};
};
template <>
struct PyRoute<Route::eager_funnel> : GenericRoute {
  static constexpr std::array params{req("page_table").widening(), req("v2p"), req("page_size"), integer("multiplier", 1),
                                     none("out").sized(like("page_table")), variant_param()};
};
template <>
struct PyRoute<Route::kv_indices_inplace> : GenericRoute {
  static constexpr std::array params{req("kv_indices"), req("kv_indptr"), req("batch_size"), req("v2p"),
                                     req("page_size"), integer("multiplier", 1), none("src"), variant_param()};
};
template <>
struct PyRoute<Route::write_loc> : GenericRoute {
  static constexpr std::array params{req("loc"), req("v2p"), req("page_size"), integer("multiplier", 1),
                                     integer("dcp_size", 1), integer("dcp_rank", 0),
                                     none("out").sized(tail("loc", "out_width")), width("out_width"), variant_param()};
};
// mamba_translate's slots and out are 1-D in Python (no any-shape ids), and it has no variant.
template <>
struct PyRoute<Route::mamba_translate> : GenericRoute {
  static constexpr std::array params{req("slots"), req("v2p"), flag("clamp", false), none("out").sized(like("slots"))};
};
template <>
struct PyRoute<Route::full_prefill_table> : GenericRoute {
  static constexpr std::array params = PyRoute<Route::canonical_page_table>::params;
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
  using type = StrictInt;  // (arrays.hpp: a bool is no integer)
};
template <>
struct PyTypeOf<ArgKind::boolean> {
  using type = StrictBool;  // (a flag is True / False or numpy.bool_)
};
template <>
struct PyTypeOf<ArgKind::variant> {
  using type = std::string;
};

template <class Spec, class Sig, std::size_t I, bool Width = Sig::params[I].width>
struct ParamOf {
  using type = typename PyTypeOf<field_traits<Spec>(Sig::params[I].field_name()).kind>::type;
};
template <class Spec, class Sig, std::size_t I>
struct ParamOf<Spec, Sig, I, true> {
  using type = std::optional<StrictInt>;
};
template <class Spec, class Sig, std::size_t I>
using ParamT = typename ParamOf<Spec, Sig, I>::type;

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

  template <std::size_t I>
  static constexpr bool is_output() {
    if constexpr (Sig::params[I].width) return false;
    else return field_traits<Spec>(Sig::params[I].field_name()).output();
  }
  template <std::size_t... I>
  static constexpr std::size_t count_outputs(std::index_sequence<I...>) {
    return (std::size_t{is_output<I>()} + ...);
  }
  template <std::size_t... I>
  static constexpr std::size_t first_output(std::index_sequence<I...>) {
    std::size_t at = N;
    ((is_output<I>() && at == N ? (at = I, true) : false), ...);
    return at;
  }
  static constexpr std::size_t kOutputs = count_outputs(std::make_index_sequence<N>{});
  static constexpr std::size_t kOut = first_output(std::make_index_sequence<N>{});
  static_assert(kOutputs >= 1, "a route binding returns at least one output");
  // One output: the call returns it; several: a dict of them by name (None where not made).
  using Result = std::conditional_t<(kOutputs > 1), py::dict, py::array>;

  struct Call {
    CallSource src;
    std::optional<int64_t> width;
    std::array<py::handle, N> outs{};
    std::array<py::object, N> made{};
  };

  template <std::size_t I, class A>
  static void take(Call& c, const A& a) {
    constexpr PyParam p = Sig::params[I];
    if constexpr (p.width) {
      if (a) c.width = static_cast<int64_t>(*a);
    } else {
      constexpr FieldTraits t = field_traits<Spec>(p.field_name());
      constexpr std::string_view f = p.field_name();
      if constexpr (t.kind == ArgKind::int64) c.src.views.set(f, static_cast<int64_t>(a));
      else if constexpr (t.kind == ArgKind::boolean) c.src.views.set(f, static_cast<bool>(a));
      else if constexpr (t.kind == ArgKind::variant) c.src.variant = std::string(a);
      else if constexpr (!t.output()) {
        constexpr int lo = t.matrix() ? 2 : (p.any_shape ? 0 : 1);
        constexpr int hi = t.matrix() ? 2 : (p.any_shape ? 32 : 1);
        if constexpr (t.int32) c.src.add(f, input<int32_t>(a, p.name.data(), lo, hi, false, !t.required), t.matrix());
        else c.src.add(f, input<int64_t>(a, p.name.data(), lo, hi, t.widens || p.widen, !t.required), t.matrix());
      } else if constexpr (p.def == Default::required) {
        c.made[I] = put_out<I, std::conditional_t<t.int32, int32_t, int64_t>>(c, a);  // an in-place buffer, in order
      } else {
        c.outs[I] = py::handle(a);
      }
    }
  }

  template <std::size_t I>
  static std::pair<std::vector<int64_t>, const char*> fresh_shape(const Call& c) {
    constexpr PyParam p = Sig::params[I];
    constexpr Fresh r = p.fresh;
    if constexpr (r.rule == Fresh::Rule::like) {
      return {c.src.shape(r.rows), p.name.data()};
    } else if constexpr (r.rule == Fresh::Rule::batch) {
      constexpr int64_t past = lanes_past_batch_of(p.field_name());  // (a constant: no field lookup per call)
      return {{c.src.size(r.rows) + past}, p.name.data()};
    } else if constexpr (r.rule == Fresh::Rule::rows_by_scalar) {
      return {{c.src.size(r.rows), c.src.scalar(r.cols)}, r.cols.data()};
    } else if constexpr (r.rule == Fresh::Rule::rows_by_pages) {
      const In<int64_t>& lens = c.src.in64(r.cols);
      const int64_t rows = c.src.size(r.rows);
      require_size(lens.size >= rows, r.cols.data(), lens.size, "needs one entry per batch row");
      return {{rows, max_pages_of(lens, c.src.scalar("page_size"), 0)}, r.cols.data()};
    } else {
      return {{c.width.value_or(c.src.size(r.rows))}, r.cols.data()};
    }
  }
  static constexpr int64_t lanes_past_batch_of(std::string_view name) {
    int64_t n = 0;
    std::apply([&](const auto&... f) { ((f.name == name ? (n = f.lanes_past_batch, true) : false), ...); },
               Spec::fields());
    return n;
  }

  template <std::size_t I, class T>
  static py::array put_out(Call& c, py::handle obj) {
    constexpr PyParam p = Sig::params[I];
    constexpr Fresh r = p.fresh;
    constexpr const char* name = p.name.data();
    constexpr bool mat = field_traits<Spec>(p.field_name()).matrix();
    constexpr int lo = mat ? 2 : (p.any_shape ? 0 : 1);
    constexpr int hi = mat ? 2 : (p.any_shape ? 32 : 1);
    if constexpr (r.rule == Fresh::Rule::tail) {
      if (c.width) check_dim(*c.width, r.cols.data());
    }
    Out<T> o;
    if (p.def == Default::required || !obj.is_none()) {
      o = output<T>(as_ndarray(obj, name), name, lo, hi);
    } else {
      const auto [shape, size_name] = fresh_shape<I>(c);
      o = output<T>(fresh<T>(shape, static_cast<T>(r.fill), size_name), name, lo, hi);
    }
    if constexpr (r.rule == Fresh::Rule::tail) {
      const int64_t ids = c.src.size(r.rows);
      const int64_t w = c.width.value_or(o.size);
      require_size(w >= ids, r.cols.data(), w,
                   "must be >= len(" + std::string(r.rows) + ") = " + std::to_string(ids));
      require_size(o.size >= w, name, o.size, "shorter than " + std::string(r.cols) + " = " + std::to_string(w));
      c.src.views.set(p.field_name(), Vec<T>{o.ptr, w});
    } else if constexpr (mat) {
      c.src.views.set(p.field_name(), o.mat());
    } else {
      c.src.views.set(p.field_name(), o.vec());
    }
    return o.arr;
  }

  // Output I of the call, unless it is not made: an output given with a partner input is made fresh
  // only when the partner is given (one the caller hands over is used: decode_metadata's
  // swa_page_table with the token-level full_to_swa_index_mapping); one sized `unless` a flag is not
  // made fresh under that flag.
  template <std::size_t I>
  static void make_output(Call& c) {
    if constexpr (is_output<I>() && Sig::params[I].def != Default::required) {
      constexpr PyParam p = Sig::params[I];
      constexpr std::string_view partner = field_partner(p.field_name());
      if constexpr (!partner.empty()) {
        if (!c.src.has(partner) && c.outs[I].is_none()) return;
      }
      if constexpr (!p.fresh.unless.empty()) {
        if (c.outs[I].is_none() && c.src.flag(p.fresh.unless)) return;
      }
      using T = std::conditional_t<field_traits<Spec>(p.field_name()).int32, int32_t, int64_t>;
      c.made[I] = put_out<I, T>(c, c.outs[I]);
    }
  }
  static constexpr std::string_view field_partner(std::string_view name) {
    std::string_view r{};
    std::apply([&](const auto&... f) { ((f.name == name ? (r = f.partner, true) : false), ...); }, Spec::fields());
    return r;
  }
  template <std::size_t I>
  static void check_size_scalar(const Call& c) {
    if constexpr (is_output<I>() && Sig::params[I].fresh.rule == Fresh::Rule::rows_by_scalar) {
      check_dim(c.src.scalar(Sig::params[I].fresh.cols), Sig::params[I].fresh.cols.data());
    }
  }

  // The route called with the Python arguments `a` (in the order of Sig::params).
  template <class... A>
  static Result call(const A&... a) {
    static_assert(sizeof...(A) == N, "one argument per Python parameter");
    return call_in_order(std::index_sequence_for<A...>{}, a...);
  }

 private:
  template <std::size_t... I, class... A>
  static Result call_in_order(std::index_sequence<I...>, const A&... a) {
    Call c;
    for (auto& h : c.outs) h = py::none();
    (take<I>(c, a), ...);
    if constexpr (Sig::page_size_first) {
      const int64_t ps = c.src.scalar("page_size");
      require(ps >= 1, "page_size", ps, "page size must be >= 1");
    }
    (check_size_scalar<I>(c), ...);
    if constexpr (has_out_parameter<Spec>) {
      static_assert(kOutputs == 1, "a route with an output type parameter has one output");
      const py::handle obj = c.outs[kOut];
      if (!obj.is_none() && is_dtype<int32_t>(as_ndarray(obj, Sig::params[kOut].name.data()))) {
        const py::array out = put_out<kOut, int32_t>(c, obj);
        Spec::run(fill_args_of<Spec, int32_t>(c.src));
        return out;
      }
    }
    (make_output<I>(c), ...);
    Spec::run(fill_args<Spec>(c.src));
    if constexpr (kOutputs == 1) {
      return py::reinterpret_borrow<py::array>(c.made[kOut]);
    } else {
      py::dict d;
      (put_result<I>(d, c), ...);
      return d;
    }
  }
  // Output I (None where not made) into the result dict; nothing for another parameter (decided at compile time:
  // a field lookup by name per parameter and call cost microseconds).
  template <std::size_t I>
  static void put_result(py::dict& d, const Call& c) {
    if constexpr (is_output<I>()) d[Sig::params[I].name.data()] = c.made[I] ? c.made[I] : py::object(py::none());
  }
};

// The generic binding of route R called from C++ (the aliases of module.cpp), arguments as in Python.
template <Route R, class... A>
auto call_route(const A&... a) {
  return Binding<RouteSpec<R>, PyRoute<R>>::call(a...);
}

// How many parameters of Sig fill the field `field`.
template <class Sig>
constexpr int fills(std::string_view field) {
  int n = 0;
  for (const PyParam& p : Sig::params) n += !p.width && p.field_name() == field ? 1 : 0;
  return n;
}
// Every field of Spec is filled by exactly one Python parameter.
template <class Spec, class Sig>
constexpr bool fills_every_field() {
  return std::apply([](const auto&... f) { return ((fills<Sig>(f.name) == 1) && ...); }, Spec::fields());
}

template <class Spec, class Sig, std::size_t... I>
void def_route(py::module_& m, std::index_sequence<I...>) {
  static_assert(fills_every_field<Spec, Sig>(), "a PyRoute table fills every field of its route once");
  auto f = [](ParamT<Spec, Sig, I>... a) { return Binding<Spec, Sig>::call(a...); };
  if constexpr (requires { Spec::doc; }) m.def(Spec::name.data(), f, py_arg<Sig, I>()..., Spec::doc.data());
  else m.def(Spec::name.data(), f, py_arg<Sig, I>()...);
}

// Every route of the list, in list order; a route without a PyRoute table does not compile.
inline void def_routes(py::module_& m) {
  for_each_route([&](auto spec) {
    using S = decltype(spec);
    using Sig = PyRoute<S::id>;
    static_assert(Sig::generic, "every route of the list needs a PyRoute table");
    def_route<S, Sig>(m, std::make_index_sequence<Sig::params.size()>{});
  });
}

// The fields of a route's field list, by name, in list order.
inline std::vector<std::string> route_fields(Route r) {
  return visit_route(r, [](auto spec) {
    std::vector<std::string> v;
    for (const FieldInfo& f : field_infos<decltype(spec)>()) v.emplace_back(f.name);
    return v;
  });
}
// A route's shape as plain data for the Python harness (python/kvaddr/route_tables.py): whether it is a
// per-id route (is_per_id_route: one id input, one table, scalars, one output lane per id) and its
// fields in list order as (name, kind, int32 elements, required, default of an int64 / bool scalar
// in the argument struct, else None). kind: "int64", "bool", "variant", "vec_in", "mat_in",
// "vec_out", "mat_out".
inline py::dict route_shape(Route r) {
  return visit_route(r, [](auto spec) {
    using S = decltype(spec);
    constexpr typename S::Args defaults{};
    py::list fields;
    std::apply(
        [&](const auto&... f) {
          auto one = [&](const auto& x) {
            using F = std::remove_cvref_t<decltype(x)>;
            static constexpr std::string_view kinds[] = {"int64", "bool", "variant", "vec_in", "mat_in", "vec_out", "mat_out"};
            const FieldInfo i = fill_args_detail::info_of(x);
            py::object def = py::none();
            if constexpr (F::kind == ArgKind::int64) def = py::int_(defaults.*(x.member));
            else if constexpr (F::kind == ArgKind::boolean) def = py::bool_(defaults.*(x.member));
            fields.append(py::make_tuple(std::string(x.name), std::string(kinds[static_cast<int>(F::kind)]), i.int32,
                                         x.required, def));
          };
          (one(f), ...);
        },
        S::fields());
    py::dict d;
    d["per_id"] = is_per_id_route<S>;
    d["fields"] = fields;
    return d;
  });
}
// The model's lanes of a per-id route (its spec's id_model over model/formulas.hpp) for `ids` over
// `table`, the call's scalars (int64 and bool fields) by field name in `scalars` (a missing one: its
// argument struct's default). InvalidArgument for a route of another shape or a name that is no scalar
// field of it.
inline std::vector<std::int64_t> id_model_lanes(Route r, const std::vector<std::int64_t>& table,
                                                const std::vector<std::int64_t>& ids,
                                                const std::map<std::string, std::int64_t>& scalars) {
  return visit_route(r, [&](auto spec) {
    using S = decltype(spec);
    std::vector<std::int64_t> lanes;
    if constexpr (!is_per_id_route<S>) {
      throw InvalidArgument("route", std::string(S::name), "not a per-id route: it has no id_model");
    } else {
      ViewSource src;
      const std::vector<FieldInfo> infos = field_infos<S>();
      for (const auto& [k, v] : scalars) {
        const auto f = std::find_if(infos.begin(), infos.end(), [&](const FieldInfo& i) { return i.name == k; });
        if (f == infos.end() || (f->kind != ArgKind::int64 && f->kind != ArgKind::boolean))
          throw InvalidArgument("scalars", k, "not a scalar field of " + std::string(S::name));
        if (f->kind == ArgKind::boolean) src.set(k, v != 0);
        else src.set(k, v);
      }
      set_scalar_defaults<S>(src);
      // the scalars under the route's own contract (its validate on these ids, this table and an output of one
      // lane per id): a page size of 0 or a dcp_size of -1 is the route's InvalidArgument, not a lane
      using OutView = field_member_t<S, ArgKind::vec_out>;
      std::vector<std::remove_const_t<element_t<OutView>>> scratch(ids.size());
      ViewSource call = src;
      call.set(ids_field<S>(), Vec<const std::int64_t>{ids.data(), static_cast<std::int64_t>(ids.size())});
      call.set(nth_field<S>(ArgKind::vec_in, 1), Vec<const std::int64_t>{table.data(), static_cast<std::int64_t>(table.size())});
      call.set(nth_field<S>(ArgKind::vec_out), Vec<std::remove_const_t<element_t<OutView>>>{scratch.data(), static_cast<std::int64_t>(scratch.size())});
      validate(fill_args<S>(call));
      for (std::int64_t id : ids) lanes.push_back(id_model(spec, std::span<const std::int64_t>(table), src, id));
    }
    return lanes;
  });
}
// The Python parameters of a route's binding, in order, each with the field it fills (None: the
// width of a tail-lane output, no field).
inline std::vector<std::pair<std::string, std::optional<std::string>>> route_parameters(Route r) {
  return visit_route(r, [](auto spec) {
    std::vector<std::pair<std::string, std::optional<std::string>>> v;
    for (const PyParam& p : PyRoute<decltype(spec)::id>::params) {
      v.emplace_back(std::string(p.name), p.width ? std::nullopt : std::optional<std::string>(p.field_name()));
    }
    return v;
  });
}

}  // namespace kvaddr::python
