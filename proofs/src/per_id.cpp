// The obligation of every route whose spec has a per-id Lane (route_spec.hpp's has_spec_lane: the
// routes opened with KVADDR_PER_ID_ROUTE_SPEC, token_translate and swa_translate), read off its spec:
// the spec's own Lane (the function the host runner, the CUDA launcher and the differential check
// run) instantiated over Z3 integers, over a symbolic pool and a symbolic id. A route added to the
// list gets it with no edit here. Conclusions (spec §1 "Padding ids", §2 the sink, I6 range): every
// table load in [0, NV], the padding id -1 gives the sink 0, 0 <= out < N * S (S = ps times the
// route's multiplier, ps alone for a route without one), int64 arithmetic exact.
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::proofs {
namespace {

// The sweep: page sizes (1, an odd one, the common 64) and multipliers; the route's other scalars
// keep their argument struct's defaults.
const std::vector<std::int64_t> kPageSizes = {1, 3, 64};
const std::vector<std::int64_t> kMultipliers = {1, 3};

constexpr bool is_multiplier(std::string_view name) {
  constexpr std::string_view m = "multiplier";
  return name.size() >= m.size() && name.substr(name.size() - m.size()) == m;
}

// A route without a page size reads its table at the id itself: page size 1 only.
template <class Spec>
constexpr bool has_page_size() {
  return std::apply([](const auto&... f) { return ((f.kind == ArgKind::int64 && f.name == "page_size") || ...); },
                    Spec::fields());
}

template <class Spec>
constexpr bool has_multiplier() {
  return std::apply([](const auto&... f) { return ((f.kind == ArgKind::int64 && is_multiplier(f.name)) || ...); },
                    Spec::fields());
}

// The call's argument struct: page_size = ps, the multiplier field(s) = m, the variant v, every other
// field at its default (the arrays stay empty: the lane reads its scalars only), then the spec's
// sink_safe(a) where it has one (the scalars under which it promises the sink contract).
template <class Spec>
typename Spec::Args args_of(std::int64_t ps, std::int64_t m, Variant v) {
  typename Spec::Args a{};
  auto set = [&](const auto& f) {
    using F = std::remove_cvref_t<decltype(f)>;
    if constexpr (F::kind == ArgKind::int64) {
      if (f.name == "page_size") a.*(f.member) = ps;
      else if (is_multiplier(f.name)) a.*(f.member) = m;
    } else if constexpr (F::kind == ArgKind::variant) {
      a.*(f.member) = v;
    }
  };
  std::apply([&](const auto&... f) { (set(f), ...); }, Spec::fields());
  if constexpr (requires { Spec::sink_safe(a); }) Spec::sink_safe(a);
  return a;
}

// The Z3 values of a spec's lane(a, make): divisors and the stride as numerals.
struct NumeralValues {
  Sym div(std::int64_t d) const { return Sym(d); }
  Sym stride(std::int64_t ps, std::int64_t m) const { return Sym(ps * m); }
};

template <class Spec>
Outcome spec_lane_query(Variant v, std::int64_t ps, std::int64_t m, unsigned timeout_ms) {
  using P = PerIdShape<Spec>;
  z3::context ctx;
  Env env(ctx, Mode::integer);
  SymPool pool(ps, std::string(P::table_name));
  const Sym id = Sym::var(std::string(P::ids_name));
  const std::int64_t mult = has_multiplier<Spec>() ? m : 1;
  env.clear_overflow();
  const auto lane = Spec::template lane<Sym, Sym>(args_of<Spec>(ps, mult, v), NumeralValues{});
  const Sym out = lane(id, pool.v2p);
  const SymBool exact(env.no_overflow());
  Query q;
  q.header = "route=" + std::string(Spec::name) + " variant=" + std::string(variant_name(v)) +
             " ps=" + std::to_string(ps) + " M=" + std::to_string(mult) + " (the spec's lane)";
  q.require(id >= Sym(-1) && id < pool.NV * pool.ps);
  q.require(pool.M == Sym(mult));
  pool.show(q);
  q.show({{std::string(P::ids_name), id}, {std::string(P::out_name), out}});
  q.tables.push_back(&pool.v2p);
  q.ensure("loads_in_bounds", pool.v2p.loads_in_bounds());
  q.ensure("padding_to_sink", implies(id == Sym(-1), out == Sym(0)));
  q.ensure("id_in_range", out >= Sym(0) && out < pool.N * pool.stride());
  q.ensure("int64_exact", exact);
  pool.constrain(q, true);
  return check(q, timeout_ms);
}

template <class Spec>
Outcome spec_lane_sweep(Variant v, unsigned timeout_ms) {
  const std::vector<std::int64_t> ms = has_multiplier<Spec>() ? kMultipliers : std::vector<std::int64_t>{1};
  const std::vector<std::int64_t> pss = has_page_size<Spec>() ? kPageSizes : std::vector<std::int64_t>{1};
  return sweep(pss, [&](std::int64_t ps) {
    return sweep(ms, [&](std::int64_t m) { return spec_lane_query<Spec>(v, ps, m, timeout_ms); });
  });
}

}  // namespace

Outcome per_id_spec_lane_of(Route r, Variant v, const RunOptions& o) {
  return visit_route(r, [&](auto spec) -> Outcome {
    using S = decltype(spec);
    if constexpr (has_spec_lane<S>) {
      return spec_lane_sweep<S>(v, o.timeout_ms);
    } else {
      throw kvaddr::InvalidArgument("route", std::string(S::name), "not a route with a per-id Lane in its spec");
    }
  });
}

void add_per_id_obligations(std::vector<Def>& out) {
  for_each_route([&](auto spec) {
    using S = decltype(spec);
    if constexpr (has_spec_lane<S>) {
      const std::string name(S::name);
      out.push_back(make({"route." + name + ".spec_lane",
                          "§1 padding ids, §2 the sink, I6; routes/" + name + ".hpp (the spec's Lane)",
                          "pool domain; table entries -1 or a physical page < N, v2p[0] = 0 (pinned), v2p[NV] = -1; "
                          "id -1 (padding) or 0 <= id < NV*ps; the route's other scalars at their defaults",
                          "every table load lies in [0, NV], the padding id gives the sink 0, 0 <= out < N*S "
                          "(S = ps*M, or ps without a multiplier), int64 exact",
                          std::string(!has_page_size<S>() ? "ps 1 (no page size)"
                                      : has_multiplier<S>() ? "ps in {1, 3, 64}, M in {1, 3}"
                                                            : "ps in {1, 3, 64}") +
                              (requires(typename S::Args a) { S::sink_safe(a); } ? " under the spec's sink_safe scalars" : "") +
                              ", N, NV and the table symbolic",
                          Verdict::proved},
                         [id = S::id](const RunOptions& o) { return per_id_spec_lane_of(id, Variant::production, o); }));
    }
  });
}

}  // namespace kvaddr::proofs
