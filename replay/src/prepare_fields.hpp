#pragma once
// Private to replay/ (and the route-list test): the loading of a call from its route's field list,
// for a per-id route (prep_ids) and the pieces prepare.cpp's other loaders share. A template over
// the spec, so any spec of that shape is loaded with no code of its own.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kvaddr/translate/fill_args.hpp"
#include "prepare.hpp"

namespace kvaddr::replay::load {

// ---- the route's fields ------------------------------------------------------------------------
namespace fields_detail {

// The integer and flag arguments of S from the call's scalars, in field order: a required one
// must be given, an optional one defaults to the argument struct's initialiser.
template <class S>
ViewSource read_scalars(Call& c) {
  ViewSource src;
  const typename S::Args defaults{};
  auto one = [&](const auto& f) {
    constexpr ArgKind k = std::remove_cvref_t<decltype(f)>::kind;
    const std::string name(f.name);
    if constexpr (k == ArgKind::int64) {
      src.set(f.name, f.required ? c.integer(name) : c.integer(name, defaults.*(f.member)));
    } else if constexpr (k == ArgKind::boolean) {
      src.set(f.name, c.flag(name, defaults.*(f.member)));
    }
  };
  std::apply([&](const auto&... f) { (one(f), ...); }, S::fields());
  return src;
}

// Runs S on the Args filled from `src` under variant v (Out: the output element type of a route
// whose output type is a parameter).
template <class S, class Out = std::int64_t>
void run_filled(const ViewSource& src, Variant v) {
  if constexpr (has_out_parameter<S>) {
    auto a = fill_args_of<S, Out>(src);
    set_variant(a, v);
    S::template run<Out>(a);
  } else {
    auto a = fill_args<S>(src);
    set_variant(a, v);
    S::run(a);
  }
}

}  // namespace fields_detail

// ---- per-route preparation -------------------------------------------------------------------
// A per-id route over (ids, table) with an int32 / int64 out: the ids may be int32 (widened) and
// of rank 1 or 2; the output's dtype picks the element type of a route whose output type is a parameter.
template <class S>
Prepared prep_ids(Call& c) {
  const auto fields = field_infos<S>();
  std::vector<const FieldInfo*> in;
  const FieldInfo* out_field = nullptr;
  for (const FieldInfo& f : fields) {
    if (f.kind == ArgKind::vec_in) in.push_back(&f);
    if (f.kind == ArgKind::vec_out) out_field = &f;
  }
  const std::string ids_name(in[0]->name), table_name(in[1]->name), out_name(out_field->name);
  Arr ids = c.input(ids_name, in[0]->widens_int32 ? Want::widen : Want::i64, 1, 2);
  Arr table = c.input(table_name, Want::i64, 1, 1);
  const Want out_want = has_out_parameter<S> ? Want::i32_or_i64 : (out_field->int32 ? Want::i32 : Want::i64);
  Output out = c.output(out_name, out_want, 1, 2);
  if (static_cast<std::int64_t>(out.before.size()) < ids.size()) {
    bad(fmt::format("out has {} lanes but {} has {}", out.before.size(), ids.name, ids.size()));
  }
  const ViewSource scalars = fields_detail::read_scalars<S>(c);
  const bool o32 = out.dtype == NpyDtype::int32;
  Prepared p;
  p.outputs.push_back(out);
  if constexpr (requires(const I64& t) { id_model(S{}, t, scalars, std::int64_t{0}); }) {
    p.model = [ids = ids.v, table = table.v, before = out.before, scalars] {
      I64 o = before;
      for (std::size_t i = 0; i < ids.size(); ++i) o[i] = id_model(S{}, table, scalars, ids[i]);
      return std::vector<I64>{o};
    };
  }
  p.run = [ids = ids.v, table, before = out.before, o32, scalars, ids_name, table_name, out_name](Variant v) {
    ViewSource src = scalars;
    src.set(ids_name, view(ids));
    src.set(table_name, sview(table));
    if (o32) {
      I32 o = narrow_copy(before);
      src.set(out_name, mvec_of(o));
      fields_detail::run_filled<S, std::int32_t>(src, v);
      return std::vector<I64>{widen(o)};
    }
    I64 o = before;
    src.set(out_name, mvec_of(o));
    fields_detail::run_filled<S, std::int64_t>(src, v);
    return std::vector<I64>{o};
  };
  return p;
}

}  // namespace kvaddr::replay::load
