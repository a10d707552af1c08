// Identities of spec §2.4 (I1-I10), the int32 bound (I8, B08, E03), cross-route agreement
// (§4.2-§4.6, Era D), the B03 detector and the variant refutations stated as disagreements
// (B04, B14, B16, B17, Era B flashmla).
#include <string>

#include "common.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::proofs {
namespace {

// ---- I1: (P*S + o) div ps = P*M, mod = o --------------------------------------------------------
Outcome i1(const RunOptions& o) {
  return check_integer(o.timeout_ms, {"ps", "M", "P", "o"}, [](Query& q, const auto& v) {
    const auto& [ps, M, P, off] = v;
    q.header = "identity=I1";
    q.require(ps >= Sym(1) && M >= Sym(1) && P >= Sym(0) && off >= Sym(0) && off < ps);
    const Sym x = P * (ps * M) + off;
    q.ensure("floor_div", sym::floor_div(x, ps) == P * M);
    q.ensure("floor_mod", sym::floor_mod(x, ps) == off);
    q.ensure("trunc_div", sym::kv_div(x, ps) == P * M);  // the kernels' operator agrees (x >= 0)
    q.ensure("trunc_rem", sym::kv_rem(x, ps) == off);
  });
}

// I1 at the kernel width: 64-bit bit-vectors, divisions as shifts (power-of-two ps, the fa3
// kernels) with P, M symbolic and P*S + o < 2^63.
Outcome i1_bv(const RunOptions& o) {
  return sweep(pow2_sweep(), [&](std::int64_t psv) {
    z3::context ctx;
    Env env(ctx, Mode::bv64);
    const int k = ceil_log2(psv);
    // Q stands for the page entry P*M (any value up to 2^31 * 4096 = 2^43 covers P < 2^31, M <= 4096).
    const Sym ps(psv), Q = var("PM"), off = var("o");
    Query q;
    q.header = "identity=I1 width=int64 ps=" + std::to_string(psv);
    q.require(Q >= Sym(0) && Q < Sym(std::int64_t{1} << 43) && off >= Sym(0) && off < ps);
    const Sym x = Q * ps + off;
    q.show({{"PM", Q}, {"o", off}});
    q.ensure("int64_exact", SymBool(env.no_overflow()));
    q.ensure("shift", sym::kv_shr(x, k) == Q);
    q.ensure("mask", x - sym::kv_shr(x, k) * ps == off);
    return check(q, o.timeout_ms);
  });
}

// A symbolic pool + one token, for the lane-level identities.
struct Lane1 {
  z3::context ctx;
  Env env{ctx, Mode::integer};
  SymPool pool{0};
  Sym t = var("t");

  // The production token_translate and transfer_ids lanes at t (run them before admitted_query: the
  // table invariant covers the loads made so far).
  Sym translated() { return lanes::token_translate_lane(t, pool.v2p, pool.ps, pool.stride(), Variant::production); }
  Sym physical() { return lanes::transfer_lane(t, pool.v2p, pool.ps, Variant::production); }

  // A query named `header` over an admitted t: the pool's domain and table invariant (call after
  // the lanes have run), t admitted; the pool, t and the loaded entries shown.
  Query admitted_query(std::string header) const {
    Query q;
    q.header = std::move(header);
    pool.constrain(q);
    q.require(admitted_token(pool, t));
    pool.show(q);
    q.show("t", t);
    q.tables.push_back(&pool.v2p);
    return q;
  }
};

// I2: d(t) = phi(phys(t)) for every admitted t and every entry (tombstones included).
// I2 by composition: (a) the lanes reduce to the case split "t < 0 or tombstone -> 0, else
// P*S + o" (token_translate) and "P*ps + o" (transfer), over symbolic ps and a symbolic table;
// (b) phi(P*ps + o) = P*S + o for P >= 0, 0 <= o < ps and phi(0) = 0, over symbolic ps, M
// (the same lane function phi_lane). Together: d(t) = phi(phys(t)).
Outcome i2_lanes(const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym d = L.translated(), phys = L.physical();
  const Sym P = p.v2p.at(sym::floor_div(L.t, p.ps));
  const Sym off = sym::floor_mod(L.t, p.ps);
  const SymBool live = L.t >= Sym(0) && P >= Sym(0);
  Query q = L.admitted_query("identity=I2 route=token_translate,transfer_ids lemma=lane_cases");
  q.ensure("d_cases", d == sym::kv_pick(live, P * p.stride() + off, Sym(0)));
  q.ensure("phys_cases", phys == sym::kv_pick(live, P * p.ps + off, Sym(0)));
  q.ensure("offset_range", implies(L.t >= Sym(0), off >= Sym(0) && off < p.ps));
  return check(q, o.timeout_ms);
}

}  // namespace

Outcome i2_phi_of(const RunOptions& o, const PhiFn& phi) {
  return check_integer(o.timeout_ms, {"ps", "M", "P", "o"}, [&](Query& q, const auto& v) {
    const auto& [ps, M, P, off] = v;
    q.header = "identity=I2 lemma=phi";
    q.require(ps >= Sym(1) && M >= Sym(1) && P >= Sym(0) && off >= Sym(0) && off < ps);
    // phi is evaluated at every x = P*ps + o (not only at the sink 0): phi(x) = P*S + o, and
    // phi(0) = 0. A wrong phi (x*M, a dropped offset, ...) is refuted here.
    const Sym x = P * ps + off;
    const Sym stride = ps * M;
    q.ensure("quotient", sym::kv_div(x, ps) == P);
    q.ensure("remainder", sym::kv_rem(x, ps) == off);
    q.ensure("phi_general", phi(x, ps, stride) == P * stride + off);
    q.ensure("phi_sink", phi(Sym(0), ps, stride) == Sym(0));
  });
}

namespace {

Outcome i2_phi(const RunOptions& o) {
  return i2_phi_of(o, [](const Sym& x, const Sym& ps, const Sym& stride) { return lanes::phi_lane(x, ps, stride); });
}

Outcome i2(const RunOptions& o) {
  Outcome a = i2_lanes(o);
  if (a.verdict == Verdict::refuted) return a;
  Outcome b = i2_phi(o);
  b.seconds += a.seconds;
  b.queries += a.queries;
  if (b.verdict == Verdict::proved && a.verdict == Verdict::unknown) return a;
  return b;
}

// I3: M = 1 => d(t) = phys(t).
Outcome i3(const RunOptions& o) {
  Lane1 L;
  const Sym d = L.translated(), phys = L.physical();
  Query q = L.admitted_query("identity=I3 route=token_translate");
  q.require(L.pool.M == Sym(1));
  q.ensure("d_equals_phys", d == phys);
  return check(q, o.timeout_ms);
}

// I4: distinct live tokens on pages bound to distinct physical pages get distinct d (< N*S).
Outcome i4(const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym t2 = var("t2");
  const Sym d1 = lanes::token_translate_lane(L.t, p.v2p, p.ps, p.stride(), Variant::production);
  const Sym d2 = lanes::token_translate_lane(t2, p.v2p, p.ps, p.stride(), Variant::production);
  const Sym p1 = sym::floor_div(L.t, p.ps), p2 = sym::floor_div(t2, p.ps);
  const Sym P1 = p.v2p.at(p1), P2 = p.v2p.at(p2);
  Query q;
  q.header = "identity=I4 route=token_translate";
  p.constrain(q);
  q.require(L.t >= Sym(0) && L.t < p.NV * p.ps && t2 >= Sym(0) && t2 < p.NV * p.ps && L.t != t2);
  q.require(P1 >= Sym(0) && P2 >= Sym(0));                 // both live
  q.require(implies(p1 != p2, P1 != P2));                   // v2p is injective on live pages (§4.14 a)
  p.show(q);
  q.show({{"t", L.t}, {"t2", t2}});
  q.tables.push_back(&p.v2p);
  q.ensure("injective", d1 != d2);
  q.ensure("range", d1 >= Sym(0) && d1 < p.N * p.stride());
  return check(q, o.timeout_ms);
}

// I6: d = 0 <=> t < 0 or P*S + o <= 0; a tombstone gives 0; P = 0 gives 0 exactly at o = 0.
Outcome i6(const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym d = L.translated();
  const Sym P = p.v2p.at(sym::floor_div(L.t, p.ps));
  const Sym off = sym::floor_mod(L.t, p.ps);
  Query q = L.admitted_query("identity=I6 route=token_translate");
  q.ensure("sink_iff", (d == Sym(0)) == (L.t < Sym(0) || P * p.stride() + off <= Sym(0)));
  q.ensure("tombstone", implies(L.t >= Sym(0) && P == Sym(-1), d == Sym(0)));
  q.ensure("page0", implies(L.t >= Sym(0) && P == Sym(0), (d == Sym(0)) == (off == Sym(0))));
  return check(q, o.timeout_ms);
}

// I7: eager_funnel(tok) = page entry(tok) for every admitted tok (tombstones, padding included).
Outcome i7(Variant flashmla, const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym eager = lanes::eager_funnel_lane(L.t, p.v2p, p.ps, p.stride());
  const Sym entry = lanes::page_entry_lane(L.t, p.v2p, p.ps, p.M, flashmla);
  Query q;
  q.header = "identity=I7 route=eager_funnel,flashmla_block_table variant=" + std::string(variant_name(flashmla));
  p.constrain(q);
  q.require(admitted_token(p, L.t));
  p.show(q);
  q.show({{"tok", L.t}, {"eager", eager}, {"entry", entry}});
  q.tables.push_back(&p.v2p);
  q.ensure("eager_equals_entry", eager == entry);
  return check(q, o.timeout_ms);
}

// I8: the int32 bound. `rows_bound` is the precondition on n_rows = N*ps*M; `with_rows` adds the
// row count itself (the exclusive bound kernels compare ids against) to what must fit.
enum class Bound { n_rows, max_id };
Outcome i8(Bound kind, std::int64_t bound, bool with_rows, const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym pos = var("pos");
  L.env.clear_overflow();
  const Sym d = lanes::token_translate_lane(L.t, p.v2p, p.ps, p.stride(), Variant::production);
  const Sym entry = lanes::page_entry_lane(L.t, p.v2p, p.ps, p.M, Variant::production);
  const Sym stream = lanes::stream_lane(entry, pos, p.ps);
  const SymBool exact(L.env.no_overflow());
  const Sym rows = p.N * p.ps * p.M;
  const Sym max_id = (p.N - Sym(1)) * p.ps * p.M + p.ps - Sym(1);  // last page, last offset
  Query q;
  q.header = "identity=I8 route=token_translate,read_table(stream)";
  q.require(p.ps >= Sym(1) && p.ps <= Sym(kMaxPs) && p.M >= Sym(1) && p.M <= Sym(kMaxM) && p.N >= Sym(1));
  q.require(p.NV == p.N);
  q.require((kind == Bound::n_rows ? rows : max_id) <= Sym(bound));
  q.require(admitted_token(p, L.t) && pos >= Sym(0) && pos < Sym(kTwo31));
  q.require(p.v2p.loaded_entries([&](const Sym& i, const Sym& v) { return p.entry_ok(i, v, true); }));
  p.show(q);
  q.show({{"n_rows", rows}, {"max_id", max_id}, {"t", L.t}, {"d", d}, {"int32(d)", sym::kv_narrow32(d)}});
  q.tables.push_back(&p.v2p);
  q.ensure("int64_exact", exact);
  q.ensure("token_id_fits_int32", sym::kv_narrow32(d) == d);
  q.ensure("page_entry_fits_int32", sym::kv_narrow32(entry) == entry);
  q.ensure("stream_token_fits_int32", sym::kv_narrow32(stream) == stream);
  if (with_rows) q.ensure("n_rows_fits_int32", sym::kv_narrow32(rows) == rows);
  return check(q, o.timeout_ms);
}

// I8 necessity: whenever the largest id (N-1)*ps*M + ps - 1 is >= 2^31, the largest live id (last
// virtual page bound to the last physical page, last offset) wraps in an int32 store.
Outcome i8_necessary(const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym t = (p.NV - Sym(1)) * p.ps + p.ps - Sym(1);
  const Sym d = lanes::token_translate_lane(t, p.v2p, p.ps, p.stride(), Variant::production);
  Query q;
  q.header = "identity=I8.necessary route=token_translate";
  q.require(p.ps >= Sym(1) && p.ps <= Sym(kMaxPs) && p.M >= Sym(1) && p.M <= Sym(kMaxM) && p.N >= Sym(1));
  q.require(p.NV == p.N && (p.N - Sym(1)) * p.ps * p.M + p.ps - Sym(1) >= Sym(kTwo31) &&
            p.N * p.ps * p.M < Sym(std::int64_t{1} << 62));
  q.require(p.v2p.at(p.NV - Sym(1)) == p.N - Sym(1));
  p.show(q);
  q.tables.push_back(&p.v2p);
  q.ensure("largest_id_wraps", sym::kv_narrow32(d) != d);
  return check(q, o.timeout_ms);
}

// E03 / B08: element and row offsets. `width32` computes the offset in int32 (the bug);
// otherwise in int64. Bit-vector encoding (the kernels' widths).
Outcome e03(bool elem, bool width32, const RunOptions& o) {
  z3::context ctx;
  Env env(ctx, Mode::bv64);
  const Sym a = var(elem ? "d" : "row");
  const Sym b = var(elem ? "D" : "row_stride");
  Query q;
  q.header = std::string("identity=E03 offset=") + (elem ? "d*D" : "row*stride") + " width=" +
             (width32 ? "int32" : "int64");
  // Declared maxima: ids and rows below 2^31 (I8 / int32 tables), widths and strides below 2^31.
  q.require(a >= Sym(0) && a < Sym(kTwo31) && b >= Sym(1) && b < Sym(kTwo31));
  env.clear_overflow();
  const Sym wide = a * b;
  const SymBool exact(env.no_overflow());
  const Sym narrow = sym::kv_narrow32(sym::kv_narrow32(a) * sym::kv_narrow32(b));
  const Sym off = width32 ? narrow : wide;
  q.show({{elem ? "d" : "row", a}, {elem ? "D" : "row_stride", b}, {"offset", off}});
  q.ensure("int64_exact", exact);
  q.ensure("offset_is_exact_product", off == wide);
  q.ensure("offset_nonnegative", off >= Sym(0));
  return check(q, o.timeout_ms);
}

// Cross-route: block entry * ps + offset = token translate, on live pages.
Outcome agree_block_token(const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym page = var("p"), off = var("o");
  const Sym entry = lanes::page_entry_lane(page * p.ps, p.v2p, p.ps, p.M, Variant::production);
  const Sym d = lanes::token_translate_lane(page * p.ps + off, p.v2p, p.ps, p.stride(), Variant::production);
  Query q;
  q.header = "agreement=block_entry_vs_token route=flashmla_block_table,canonical_page_table,token_translate";
  p.constrain(q);
  q.require(page >= Sym(0) && page < p.NV && off >= Sym(0) && off < p.ps && p.v2p.at(page) >= Sym(0));
  p.show(q);
  q.show({{"p", page}, {"o", off}});
  q.tables.push_back(&p.v2p);
  q.ensure("entry_times_ps_plus_o", entry * p.ps + off == d);
  return check(q, o.timeout_ms);
}

// Cross-route: fa3 decode_metadata (shift) = canonical_page_table = flashmla_block_table
// (production) entry by entry, and the same live column count. Per power-of-two ps.
Outcome agree_fa3(const RunOptions& o) {
  return sweep(pow2_sweep(), [&](std::int64_t psv) {
    z3::context ctx;
    Env env(ctx, Mode::integer);
    const int k = ceil_log2(psv);
    SymPool p(psv);
    const Sym tok = var("tok"), len = var("len"), max_pages = var("max_pages");
    const Sym fa3 = lanes::decode_entry_lane(tok, p.v2p, k, p.M, Variant::production);
    const Sym canon = lanes::page_entry_lane(tok, p.v2p, p.ps, p.M, Variant::production);
    Query q;
    q.header = "agreement=fa3_canonical_flashmla route=decode_metadata,canonical_page_table,flashmla_block_table";
    p.constrain(q);
    q.require(admitted_token(p, tok) && len >= Sym(0) && len < Sym(kTwo31) && max_pages >= Sym(1));
    p.show(q);
    q.show({{"tok", tok}, {"len", len}, {"max_pages", max_pages}});
    q.tables.push_back(&p.v2p);
    q.ensure("entries_agree", fa3 == canon);
    q.ensure("columns_agree", lanes::decode_columns(len, p.ps, k, max_pages) ==
                                  lanes::table_columns(len, p.ps, max_pages, Variant::production));
    return check(q, o.timeout_ms);
  });
}

// Cross-route: Era D (token-major, no multiplier) ids = the Era C model at M = 1: kernel-facing
// id = physical id, block entry v2p[p] rebuilds it as entry*ps + o.
Outcome agree_era_d(const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym page = sym::floor_div(L.t, p.ps), off = sym::floor_mod(L.t, p.ps);
  const Sym d = lanes::token_translate_lane(L.t, p.v2p, p.ps, p.ps, Variant::production);  // M = 1
  const Sym x = lanes::transfer_lane(L.t, p.v2p, p.ps, Variant::production);
  const Sym entry = lanes::page_entry_lane(page * p.ps, p.v2p, p.ps, Sym(1), Variant::production);
  Query q;
  q.header = "agreement=era_d_equals_m1 route=token_translate,read_table";
  p.constrain(q);
  q.require(L.t >= Sym(0) && L.t < p.NV * p.ps && p.v2p.at(page) >= Sym(0));
  p.show(q);
  q.show("t", L.t);
  q.tables.push_back(&p.v2p);
  q.ensure("kernel_id_is_physical", d == x);
  q.ensure("entry_rebuilds_id", entry * p.ps + off == x);
  return check(q, o.timeout_ms);
}

// Production route vs its reference, or a bug variant vs production (expected refuted).
enum class Pair { token_vs_spec, full_prefill, dcp_read, transfer, static_identity };

Outcome pair(Pair which, Variant v, const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const Sym dcp = var("dcp_size");
  Sym got(0), want(0);
  std::string route;
  const Sym page = sym::floor_div(L.t, p.ps), off = sym::floor_mod(L.t, p.ps);
  Query q;
  switch (which) {
    case Pair::token_vs_spec:  // §2.2 restated with floor operations, for t >= 0
      route = "token_translate";
      got = lanes::token_translate_lane(L.t, p.v2p, p.ps, p.stride(), v);
      want = p.v2p(page, SymBool(true)) * p.stride() + off;
      want = sym::kv_pick(want < Sym(0), Sym(0), want);
      q.require(L.t >= Sym(0) && L.t < p.NV * p.ps);
      break;
    case Pair::full_prefill:
      route = "full_prefill_table";
      got = RouteSpec<Route::full_prefill_table>::entry(L.t, p.v2p, p.ps, p.M, v, true);
      want = lanes::page_entry_lane(L.t, p.v2p, p.ps, p.M, Variant::production);
      q.require(admitted_token(p, L.t));
      break;
    case Pair::dcp_read:
      route = "dcp_read_translate";
      got = lanes::dcp_read_lane(L.t, p.v2p, p.ps, p.stride(), dcp, v);
      want = lanes::token_translate_lane(sym::floor_div(L.t, dcp), p.v2p, p.ps, p.stride(), Variant::production);
      q.require(dcp >= Sym(1) && dcp <= Sym(64) && L.t >= Sym(0) && L.t < p.NV * p.ps * dcp);
      q.show("dcp_size", dcp);
      break;
    case Pair::transfer:  // physical token: max(v2p[t div ps]*ps + t mod ps, 0)
      route = "transfer_ids";
      got = lanes::transfer_lane(L.t, p.v2p, p.ps, v);
      want = p.v2p(page, SymBool(true)) * p.ps + off;
      want = sym::kv_pick(want < Sym(0), Sym(0), want);
      q.require(L.t >= Sym(0) && L.t < p.NV * p.ps);
      break;
    case Pair::static_identity:  // I10: v2p = identity, M = 1 reproduce the static entry tok / ps
      route = "flashmla_block_table";
      got = lanes::page_entry_lane(L.t, p.v2p, p.ps, p.M, Variant::production);
      want = lanes::static_entry_lane(L.t, p.ps);
      q.require(L.t >= Sym(0) && L.t < p.NV * p.ps && p.M == Sym(1) && p.N == p.NV);
      q.require(p.v2p.loaded_entries([&](const Sym& i, const Sym& val) { return i == p.NV || val == i; }));
      break;
  }
  q.header = "agreement route=" + route + " variant=" + std::string(variant_name(v));
  p.constrain(q);
  p.show(q);
  q.show({{"t", L.t}, {"got", got}, {"want", want}});
  q.tables.push_back(&p.v2p);
  q.ensure("equal", got == want);
  return check(q, o.timeout_ms);
}

// B03: the unified-detection predicate. Translation is enabled by `detector`; a disabled rank
// writes the static entry tok / ps. Whenever the pool is unified (v2p present) the entry used
// must be the translated one.
Outcome b03(bool multiplier_detector, const RunOptions& o) {
  Lane1 L;
  auto& p = L.pool;
  const z3::expr has_v2p_e = L.ctx.bool_const("has_v2p");
  const SymBool has_v2p(has_v2p_e);
  const SymBool enabled = multiplier_detector ? (p.M > Sym(1)) : has_v2p;
  const Sym translated = lanes::page_entry_lane(L.t, p.v2p, p.ps, p.M, Variant::production);
  const Sym used = sym::kv_pick(enabled, translated, lanes::static_entry_lane(L.t, p.ps));
  Query q;
  q.header = std::string("detector=") + (multiplier_detector ? "multiplier_gt_1" : "v2p_present") +
             " route=flashmla_block_table";
  p.constrain(q);
  q.require(L.t >= Sym(0) && L.t < p.NV * p.ps && p.N == p.NV);
  p.show(q);
  q.show({{"has_v2p", Sym(z3::ite(has_v2p_e, L.ctx.int_val(1), L.ctx.int_val(0)))}, {"tok", L.t}, {"entry_used", used},
          {"entry_translated", translated}});
  q.tables.push_back(&p.v2p);
  q.ensure("unified_rank_translates", implies(has_v2p, used == translated));
  return check(q, o.timeout_ms);
}

// I9: for t >= 0 truncation and floor agree (the division kind is irrelevant for live ids).
Outcome i9(const RunOptions& o) {
  return check_integer(o.timeout_ms, {"t", "ps"}, [](Query& q, const auto& v) {
    const auto& [t, ps] = v;
    q.header = "identity=I9";
    q.require(t >= Sym(0) && ps >= Sym(1));
    q.ensure("div", sym::kv_div(t, ps) == sym::floor_div(t, ps));
    q.ensure("mod", sym::kv_rem(t, ps) == sym::floor_mod(t, ps));
  });
}

constexpr const char* kSymPool =
    "ps in 1..2^16, M in 1..4096, N, NV symbolic with N*ps*M < 2^31, NV*ps < 2^31 (exact integers, int64 "
    "range of every intermediate checked where stated)";

// Obligations that compare two lanes (`pair`) over the symbolic pool (domain kSymPool), one row
// each: name, spec, preconditions, conclusion, expected verdict, the pair and the variant it runs.
struct PairRow {
  const char* name;
  const char* spec;
  const char* preconditions;
  const char* conclusion;
  Verdict expected;
  Pair which;
  Variant variant;
};
void add_pairs(std::vector<Def>& out, std::initializer_list<PairRow> rows) {
  for (const PairRow& r : rows) {
    out.push_back(make({r.name, r.spec, r.preconditions, r.conclusion, kSymPool, r.expected},
                       [which = r.which, v = r.variant](const RunOptions& o) { return pair(which, v, o); }));
  }
}

}  // namespace

void add_identity_obligations(std::vector<Def>& out) {
  using enum Verdict;
  add_obligations(out, {
      {{"I1.algebra", "§2.4 I1",
        "ps >= 1, M >= 1, P >= 0, 0 <= o < ps",
        "(P*ps*M + o) div ps = P*M and mod ps = o, for floor and truncating operators",
        "unbounded integers, ps, M, P, o symbolic", proved},
       i1},
      {{"I1.int64", "§2.4 I1 at the kernel width",
        "ps = 2^k, 1 <= M <= 4096, 0 <= P < 2^31, 0 <= o < ps, no int64 overflow in P*ps*M + o",
        "(P*ps*M + o) >> k = P*M and the low bits are o (64-bit two's complement)",
        "64-bit bit-vectors; every power of two ps = 2^0..2^16 (17 queries)", proved},
       i1_bv},
      {{"I2", "§2.4 I2",
        "pool domain; entries -1 or < N; t padding or < NV*ps",
        "token_translate(t) = phi(transfer(t)) with phi(x) = (x / ps)*S + x % ps (tombstones: both 0)",
        std::string(kSymPool) + "; two lemma queries (lane case split, phi)", proved},
       i2},
      {{"I3", "§2.4 I3, §7 Q1",
        "pool domain with M = 1",
        "kernel-facing id = physical id",
        kSymPool, proved},
       i3},
      {{"I4", "§2.4 I4",
        "two distinct live tokens; v2p injective on live pages (§4.14 a)",
        "their kernel-facing ids differ, and each is < N*ps*M",
        kSymPool, proved},
       i4},
      {{"I6", "§2.4 I6",
        "pool domain; admitted t",
        "d = 0 iff t < 0 or P*S + o <= 0; tombstone -> 0; P = 0 -> (d = 0 iff o = 0)",
        kSymPool, proved},
       i6},
      {{"I7.eager_vs_canonical", "§2.4 I7, §4.6",
        "pool domain (v2p[0] pinned); admitted tok",
        "eager_funnel(tok) = canonical/clamped page entry(tok), tombstones and padding included",
        kSymPool, proved},
       [](const RunOptions& o) { return i7(Variant::production, o); }},
      {{"I7.eager_vs_flashmla.era_b_unclamped", "§2.4 I7, §4.2, §7 Q5",
        "as I7.eager_vs_canonical",
        "eager_funnel(tok) = Era B unclamped flashmla entry(tok) (fails: tombstone gives -M vs 0)",
        kSymPool, refuted},
       [](const RunOptions& o) { return i7(Variant::era_b_unclamped, o); }}});
  // I8 at a bound (below 2^31, proved) and one past it (refuted): the same domain, checked by i8.
  const std::string i8_domain = "ps in 1..2^16, M in 1..4096, N symbolic";
  const auto add_i8 = [&](Bound kind, bool with_rows, ObligationInfo at, ObligationInfo one_past) {
    out.push_back(make(std::move(at), [=](const RunOptions& o) { return i8(kind, kTwo31 - 1, with_rows, o); }));
    out.push_back(make(std::move(one_past), [=](const RunOptions& o) { return i8(kind, kTwo31, with_rows, o); }));
  };
  add_i8(Bound::n_rows, true,
         {"I8.int32_sufficient", "§2.4 I8, B08, §7 Q6",
          "n_rows = N*ps*M < 2^31 (Era C assert), entries -1 or < N, admitted t, 0 <= pos < 2^31",
          "token ids, page entries, stream tokens entry*ps + pos % ps and n_rows itself fit int32; "
          "int64 arithmetic exact",
          i8_domain, proved},
         {"I8.int32_one_past", "§2.4 I8", "n_rows <= 2^31 (one past the assert); otherwise as above",
          "as I8.int32_sufficient (fails: n_rows = 2^31, the view's row count, does not fit int32)", i8_domain,
          refuted});
  add_i8(Bound::max_id, false,
         {"I8.ids_exact", "§2.4 I8", "largest id (N-1)*ps*M + ps - 1 < 2^31 (weaker than n_rows < 2^31 when M > 1)",
          "token ids, page entries and stream tokens fit int32; int64 exact", i8_domain, proved},
         {"I8.ids_one_past", "§2.4 I8", "largest id <= 2^31 (one past I8.ids_exact)",
          "every stored id fits int32 (fails: the id 2^31 wraps to -2^31)", i8_domain, refuted});
  add_obligations(out, {
      {{"I8.necessary", "§2.4 I8",
        "largest id (N-1)*ps*M + ps - 1 >= 2^31, n_rows < 2^62, last virtual page bound to the last physical page",
        "the largest live id (last page, last offset) does not survive an int32 store",
        i8_domain, proved},
       i8_necessary}});
  // E03 at one offset (row*row_stride, or the element offset d*D): formed in int64, then in int32.
  const auto add_e03 = [&](bool elem, ObligationInfo int64, ObligationInfo int32) {
    out.push_back(make(std::move(int64), [elem](const RunOptions& o) { return e03(elem, false, o); }));
    out.push_back(make(std::move(int32), [elem](const RunOptions& o) { return e03(elem, true, o); }));
  };
  add_e03(false,
          {"E03.row_offset.int64", "§6 E03, I8", "0 <= row < 2^31, 1 <= row_stride < 2^31",
           "row*row_stride computed in int64 is exact and non-negative", "64-bit bit-vectors, row and stride symbolic",
           proved},
          {"E03.row_offset.int32", "§6 E03", "as E03.row_offset.int64",
           "row*row_stride computed in int32 equals the exact product (fails: wraps at 2^31)",
           "64-bit bit-vectors, int32 computation by truncation + sign extension", refuted});
  add_e03(true,
          {"E03.elem_offset.int64", "§6 E03, B08, I8", "0 <= d < 2^31 (I8), 1 <= D < 2^31",
           "element offset d*D computed in int64 is exact and non-negative", "64-bit bit-vectors", proved},
          {"E03.elem_offset.int32", "§6 B08 (CuTe int32 slot-stride wrap)", "as E03.elem_offset.int64",
           "d*D computed in int32 equals the exact product (fails: wraps)", "64-bit bit-vectors", refuted});
  add_obligations(out, {
      {{"I9.nonneg_div_kind", "§2.4 I9, §7 Q8",
        "t >= 0, ps >= 1",
        "truncating and floor division / modulo agree",
        "unbounded integers, t, ps symbolic", proved},
       i9},
      {{"I10.static_identity", "§2.4 I10",
        "v2p = identity on the pages read, M = 1, t >= 0",
        "the unified page entry equals the static entry tok / ps",
        kSymPool, proved},
       [](const RunOptions& o) { return pair(Pair::static_identity, Variant::production, o); }},
      {{"agree.block_entry_vs_token", "§2.3, §4.2 properties",
        "live page p (v2p[p] >= 0), 0 <= o < ps",
        "page entry(p*ps)*ps + o = token_translate(p*ps + o)",
        kSymPool, proved},
       agree_block_token},
      {{"agree.fa3_canonical_flashmla", "§4.5 properties, §4.3, §4.2",
        "ps = 2^k, pool domain, admitted tok, 0 <= len < 2^31, max_pages >= 1",
        "decode_metadata entry = canonical = flashmla (production) entry; same live column count",
        "every power of two ps = 2^0..2^16 (17 queries), M, N, NV symbolic", proved},
       agree_fa3},
      {{"agree.era_d_equals_m1", "§7 Q1, §3.7, I3",
        "live t, M = 1",
        "kernel-facing id = physical id = block entry v2p[p] * ps + o",
        kSymPool, proved},
       agree_era_d}});
  add_pairs(out, {
      {"agree.token_translate.spec", "§2.2", "0 <= t < NV*ps", "the lane equals max(v2p[t div ps]*S + t mod ps, 0) restated with floor operations", proved, Pair::token_vs_spec, Variant::production},
      {"agree.token_translate.b17", "§6 B17", "as agree.token_translate.spec", "the docstring formula (no v2p gather) equals §2.2 (fails after any remap)", refuted, Pair::token_vs_spec, Variant::b17_doc_formula},
      {"agree.full_prefill.b04", "§6 B04", "admitted tok", "the B04 prefill entry (tok / ps, no remap) equals the canonical entry", refuted, Pair::full_prefill, Variant::b04_prefill_no_remap},
      {"agree.full_prefill", "§4.11 (#37418)", "admitted tok", "the prefill entry equals the canonical entry", proved, Pair::full_prefill, Variant::production},
      {"agree.dcp_read.b14", "§6 B14", "1 <= dcp_size <= 64, 0 <= w < NV*ps*dcp_size", "the untranslated DCP read equals token_translate(w / dcp_size)", refuted, Pair::dcp_read, Variant::b14_dcp_untranslated},
      {"agree.transfer.b16", "§6 B16", "0 <= t < NV*ps", "the id handed to PD transfer equals phys(t) (fails: virtual id used)", refuted, Pair::transfer, Variant::b16_virtual_as_physical}});
  add_obligations(out, {
      {{"B03.detector.v2p_present", "§6 B03, §4.15, I3",
        "pool domain, live tok, any M >= 1",
        "a rank whose allocator exposes v2p writes the translated entry",
        kSymPool, proved},
       [](const RunOptions& o) { return b03(false, o); }},
      {{"B03.detector.multiplier_gt_1", "§6 B03",
        "as B03.detector.v2p_present",
        "same conclusion with detection 'M > 1' (fails at M = 1 with a compacted page)",
        kSymPool, refuted},
       [](const RunOptions& o) { return b03(true, o); }}});
}

}  // namespace kvaddr::proofs
