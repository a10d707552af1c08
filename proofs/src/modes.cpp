// Obligations on the upstream call modes (issue 35 item 3): the static pool of every table route and
// of decode_metadata (v2p absent, spec I10) writes the spec's static entry tok div ps and equals the
// unified entry over an identity v2p at M = 1 (the "byte-identical to static" promise); the same with
// a multiplier M > 1 (what validate rejects for a static pool) is refuted. decode_metadata's
// token-level full -> SWA map (§4.5 general path) loads only inside the map and sends padding to the
// unmapped slot 0; its b09 form (no padding guard) reads before the map and is refuted. The lanes are
// the ones the host routes and the kernels run (spec_rules::table_entry, lanes::decode_static_lane,
// lanes::swa_slot_entry_lane); the spec's side is raw Z3 terms (no mutation site).
#include <string>
#include <utility>

#include "common.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::proofs {
namespace {

// tok div ps as the spec states it, for tok >= 0 (Z3's integer division is floor for ps >= 1).
Sym spec_div(const Sym& tok, const Sym& ps) { return Sym(tok.expr() / ps.expr()); }

// The query of a static-pool obligation: at a live token 0 <= tok < NV*ps (N = NV, v2p = identity on the
// pages read), the static entry `stat` equals tok div ps and the unified entry `unified`.
Outcome identity_query(std::string header, bool any_multiplier, SymPool& p, const Sym& tok, const Sym& stat,
                       const Sym& unified, const RunOptions& o) {
  Query q;
  q.header = std::move(header) + (any_multiplier ? " multiplier=M" : " multiplier=1");
  p.constrain(q);
  q.require(tok >= Sym(0) && tok < p.NV * p.ps && p.N == p.NV);
  q.require(p.v2p.loaded_entries([&](const Sym& i, const Sym& val) { return i == p.NV || val == i; }));
  p.show(q);
  q.show({{"tok", tok}, {"static", stat}, {"unified", unified}});
  q.tables.push_back(&p.v2p);
  q.ensure("static_is_tok_div_ps", stat == spec_div(tok, p.ps));
  q.ensure("static_equals_unified_identity", stat == unified);
  return check(q, o.timeout_ms);
}

// The static entry of Spec at a live token and the unified entry over v2p = identity on the pages
// read, at multiplier 1 (any_multiplier false) or at the pool's symbolic M >= 1 (true: refuted).
template <class Spec>
Outcome static_table(bool any_multiplier, const RunOptions& o) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  SymPool p(0);
  const Sym tok = var("tok");
  const Sym stat = spec_rules::table_entry<Spec>(tok, p.v2p, p.ps, Sym(1), Variant::production, false);
  const Sym unified =
      spec_rules::table_entry<Spec>(tok, p.v2p, p.ps, any_multiplier ? p.M : Sym(1), Variant::production, true);
  return identity_query("static pool route=" + std::string(Spec::name), any_multiplier, p, tok, stat, unified, o);
}

// decode_metadata's static call (the shift) against tok div ps and the Era B remap over an identity
// v2p, for every power-of-two page size of the sweep.
Outcome static_decode(bool any_multiplier, const RunOptions& o) {
  return sweep(pow2_sweep(), [&](std::int64_t psv) {
    z3::context ctx;
    Env env(ctx, Mode::integer);
    const int k = ceil_log2(psv);
    SymPool p(psv);
    const Sym tok = var("tok");
    const Sym stat = lanes::decode_static_lane(tok, k);
    const Sym unified = lanes::decode_entry_lane(tok, p.v2p, k, any_multiplier ? p.M : Sym(1), Variant::production);
    return identity_query("static pool route=decode_metadata ps=" + std::to_string(psv), any_multiplier, p, tok, stat,
                          unified, o);
  });
}

// The token-level full -> SWA map over a map of n >= 1 slots whose entries are >= 0 with map[0] = 0
// (the unmapped sink), at a padding token -1 or a live token 0 <= tok < n: every load inside the map,
// padding -> 0, a live token -> map[tok] div ps.
Outcome swa_slot_map(Variant v, const RunOptions& o) {
  return sweep(pow2_sweep(), [&](std::int64_t psv) {
    z3::context ctx;
    Env env(ctx, Mode::integer);
    const int k = ceil_log2(psv);
    const Sym tok = var("tok"), n = var("map_size");
    sym::SymTable map("full_to_swa_index_mapping", n);
    const Sym out = lanes::swa_slot_entry_lane(tok, map, k, v);
    Query q;
    q.header = "swa slot map route=decode_metadata ps=" + std::to_string(psv) + " variant=" +
               std::string(variant_name(v));
    q.require(n >= Sym(1) && n < Sym(kTwo31) && tok >= Sym(-1) && tok < n);
    q.require(map.loaded_entries([&](const Sym& i, const Sym& val) {
      return val >= Sym(0) && val < Sym(kTwo31) && (i != Sym(0) || val == Sym(0));
    }));
    q.require(map.at(Sym(0)) == Sym(0));
    q.show({{"tok", tok}, {"map_size", n}, {"swa_entry", out}});
    q.tables.push_back(&map);
    q.ensure("loads_in_bounds", map.loads_in_bounds());
    q.ensure("padding_to_unmapped", implies(tok < Sym(0), out == Sym(0)));
    q.ensure("live_is_slot_div_ps", implies(tok >= Sym(0), out == spec_div(map.at(tok), Sym(psv))));
    return check(q, o.timeout_ms);
  });
}

}  // namespace

void add_mode_obligations(std::vector<Def>& out) {
  using enum Verdict;
  const auto add_static = [&](auto spec) {
    using S = decltype(spec);
    const std::string r(S::name);
    out.push_back(make({"I10.static." + r, "§2.4 I10, §4 (static pools)",
                        "v2p absent; 0 <= tok < NV*ps; for the comparison v2p = identity on the pages read, M = 1",
                        "the static entry equals tok div ps and the unified entry over the identity table",
                        "unbounded integers, ps, N = NV symbolic", proved},
                       [](const RunOptions& o) { return static_table<S>(false, o); }));
    out.push_back(make({"I10.static." + r + ".multiplier", "§2.4 I10 (why validate demands M = 1)",
                        "as I10.static." + r + " with any M >= 1",
                        "the static entry equals the unified entry over the identity table at M (fails at M > 1)",
                        "unbounded integers, ps, M, N = NV symbolic", refuted},
                       [](const RunOptions& o) { return static_table<S>(true, o); }));
  };
  add_static(RouteSpec<Route::flashmla_block_table>{});
  add_static(RouteSpec<Route::canonical_page_table>{});
  add_static(RouteSpec<Route::read_table>{});
  add_static(RouteSpec<Route::full_prefill_table>{});
  add_obligations(out, {
      {{"I10.static.decode_metadata", "§2.4 I10, §4.5 (\"with v2p = None, M = 1 identical to the static call\")",
        "0 <= tok < NV*ps, v2p = identity on the pages read, M = 1",
        "the static shift equals tok div ps and the Era B remap over the identity table",
        "ps = 2^0..2^3 (the power-of-two sweep), N = NV symbolic", proved},
       [](const RunOptions& o) { return static_decode(false, o); }},
      {{"I10.static.decode_metadata.multiplier", "§2.4 I10", "as I10.static.decode_metadata with any M >= 1",
        "the static shift equals the remap over the identity table at M (fails at M > 1)",
        "ps = 2^0..2^3, M, N = NV symbolic", refuted},
       [](const RunOptions& o) { return static_decode(true, o); }},
      {{"route.decode_metadata.swa_slot_map", "§4.5 general path (full_to_swa_index_mapping)",
        "map of n >= 1 slots, entries >= 0, map[0] = 0; tok = -1 or 0 <= tok < n",
        "loads inside the map; padding -> 0; a live token -> map[tok] div ps",
        "ps = 2^0..2^3, n and the map symbolic", proved},
       [](const RunOptions& o) { return swa_slot_map(Variant::production, o); }},
      {{"route.decode_metadata.swa_slot_map.b09", "§6 B09", "as route.decode_metadata.swa_slot_map",
        "the same without the padding guard (fails: -1 loads map[-1])", "ps = 2^0..2^3", refuted},
       [](const RunOptions& o) { return swa_slot_map(Variant::b09_no_padding_guard, o); }},
      {{"route.decode_metadata.swa_slot_map.swa_no_padding_guard", "issue 33 (decode_metadata's SWA gather unguarded)",
        "as route.decode_metadata.swa_slot_map", "the same with the gather's lane variant of swa_no_padding_guard "
        "(RouteSpec<decode_metadata>::swa_entry_variant; fails: -1 loads map[-1])", "ps = 2^0..2^3", refuted},
       [](const RunOptions& o) {
         return swa_slot_map(RouteSpec<Route::decode_metadata>::swa_entry_variant(Variant::swa_no_padding_guard), o);
       }}});
}

}  // namespace kvaddr::proofs
