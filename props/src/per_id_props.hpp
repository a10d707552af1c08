#pragma once
// Private to props/ (and the route-list test): the property of a per-id route (fill_args.hpp:
// is_per_id_route) from its field list. per_id_case runs the route by field name and compares
// every lane with the route's id_model (beside its spec); prop_per_id draws the inputs of a
// per-id route that has no property of its own, and per_id_property registers it.
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "check.hpp"
#include "gen.hpp"
#include "kvaddr/translate/fill_args.hpp"

namespace kvaddr::props::detail {

inline i32 narrow(Expect& e, i64 v) {
  if (!fits32(v)) {
    e.ovf = true;
    return 0;
  }
  return static_cast<i32>(v);
}

// Runs the per-id route S on `ids` with the table and scalars in `src` (by the spec's field names)
// and compares its output (`out`, pre-filled) with the model's lanes (id_model, beside the spec;
// narrowed for an int32 output). With `alias` (int64 outputs only) the output buffer starts as a
// copy of the ids and is also the ids view: the route translates in place.
template <class S, class Out>
void per_id_case(Variant v, ViewSource src, const std::vector<i64>& ids, std::vector<Out>& out, bool alias) {
  std::string_view ids_name, table_name, out_name;
  for (const FieldInfo& f : field_infos<S>()) {
    if (f.kind == ArgKind::vec_in) (ids_name.empty() ? ids_name : table_name) = f.name;
    if (f.kind == ArgKind::vec_out) out_name = f.name;
  }
  const Vec<const i64> tv = src.vec<const i64>(table_name);
  const std::span<const i64> table(tv.data, uz(tv.size));
  Expect e;
  std::vector<Out> want = out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const i64 d = model_lane(e, [&] { return id_model(S{}, table, src, ids[i]); }).value_or(0);
    if constexpr (sizeof(Out) == 4) {
      want[i] = narrow(e, d);
    } else {
      want[i] = d;
    }
  }
  src.set(ids_name, cvec(ids));
  if constexpr (std::is_same_v<Out, i64>) {
    if (alias) {
      out = ids;
      src.set(ids_name, Vec<const i64>{out.data(), static_cast<i64>(out.size())});
    }
  }
  src.set(out_name, mvec(out));
  auto run = [&] {
    if constexpr (has_out_parameter<S>) {
      auto a = fill_args_of<S, Out>(src);
      a.variant = for_route(S::id, v);
      S::template run<Out>(a);
    } else {
      auto a = fill_args<S>(src);
      set_variant(a, for_route(S::id, v));
      S::run(a);
    }
  };
  if (call_route(S::name, e, run)) same(std::string(S::name) + " out", out, want);
}

// A per-id route with no property of its own: ids drawn over a drawn table (out-of-range ids
// included), page_size and multiplier drawn where it has them, its other scalars at their argument
// struct's defaults; an int64 output with or without the in-place alias, or an int32 one where the
// output type is a parameter.
template <class S>
void prop_per_id(Variant v) {
  namespace g = kvaddr::props::gen;
  const i64 ps = *g::page_size(false);
  const auto t = *g::tables();
  const auto ids = *g::tokens(t, ps, true);
  ViewSource src;
  set_scalar_defaults<S>(src);
  std::string_view ids_name;
  auto one = [&](const auto& f) {
    if constexpr (std::remove_cvref_t<decltype(f)>::kind == ArgKind::vec_in) {
      if (ids_name.empty()) ids_name = f.name;
      else src.set(f.name, cvec(t.v2p));
    }
  };
  std::apply([&](const auto&... f) { (one(f), ...); }, S::fields());
  if constexpr (has_field<S>("page_size")) src.set("page_size", ps);
  if constexpr (has_field<S>("multiplier")) src.set("multiplier", *g::multiplier());
  if constexpr (has_out_parameter<S>) {
    if (g::coin()) {
      std::vector<i32> out(ids.size(), static_cast<i32>(*g::stale_value()));
      per_id_case<S>(v, src, ids, out, false);
      return;
    }
  }
  using Out = element_t<field_member_t<S, ArgKind::vec_out>>;
  const bool alias = std::is_same_v<Out, i64> && g::coin();
  std::vector<Out> out(ids.size(), static_cast<Out>(*g::stale_value()));
  per_id_case<S>(v, src, ids, out, alias);
}

// The property "<route>_vs_model" of prop_per_id<S>: it must kill every single catalogue variant
// the route accepts.
template <class S>
PropertyDef per_id_property() {
  std::vector<Variant> kills;
  for (const Variant& x : kAllVariants)
    if (x != Variant::production && route_accepts(S::id, x)) kills.push_back(x);
  return {{std::string(S::name) + "_vs_model", std::string(S::name) + ": every lane = its id_model (from the field list)",
           kills, {S::id}},
          prop_per_id<S>};
}

}  // namespace kvaddr::props::detail
