// Route obligations (spec §4, §2.5, §6, §7): every production route maps padding and tombstones
// to the sink, loads only inside its table, stays inside the kernel-facing id space, computes
// exactly in int64 and fits its int32 output; each bug variant is refuted. All lanes are the
// templates of translate/lanes.hpp instantiated over sym::Sym. The obligations on the route specs'
// row / columns / tail rules are in spec_rules.cpp.
#include <string>

#include "common.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::proofs {
namespace {

// Which lane function a page-table route runs.
enum class PageLane { entry, decode, eager };

// Page-granular tables (flashmla_block_table, canonical_page_table, read_table, decode_metadata,
// eager_funnel): one lane per (row, column) from the page-start token `tok` of req_to_token.
Outcome page_table_query(Route r, Variant v, PageLane kind, bool pinned, std::int64_t ps_value, Mode mode,
                         unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, mode);
  SymPool pool(ps_value);
  const Sym tok = Sym::var("tok");
  env.clear_overflow();
  Sym out(0);
  const int log2_ps = ceil_log2(ps_value);
  switch (kind) {
    case PageLane::entry:  // the table route's spec entry (the lane the table runner and row kernel run)
      visit_route(r, [&](auto spec) {
        using S = decltype(spec);
        if constexpr (spec_rules::is_table_route<S>) out = S::entry(tok, pool.v2p, pool.ps, pool.M, v, true);
        else throw kvaddr::InvalidArgument("route", std::string(S::name), "not a page-table route");
      });
      break;
    case PageLane::decode: out = lanes::decode_entry_lane(tok, pool.v2p, log2_ps, pool.M, v); break;
    case PageLane::eager: out = lanes::eager_funnel_lane(tok, pool.v2p, pool.ps, pool.stride()); break;
  }
  const SymBool exact(env.no_overflow());
  Query q;
  q.header = route_header(r, v) + (pinned ? "" : " v2p0_pinned=0");
  pool.constrain(q, pinned);
  q.require(admitted_token(pool, tok));
  pool.show(q);
  q.show({{"tok", tok}, {"entry", out}});
  q.tables.push_back(&pool.v2p);
  const Sym page = sym::floor_div(tok, pool.ps);
  q.ensure("loads_in_bounds", pool.v2p.loads_in_bounds());
  q.ensure("padding_to_sink", implies(tok < Sym(0), out == Sym(0)));
  q.ensure("tombstone_to_sink", implies(tok >= Sym(0) && pool.v2p.at(page) == Sym(-1), out == Sym(0)));
  q.ensure("entry_in_range", out >= Sym(0) && out < pool.N * pool.M);
  q.ensure("int64_exact", exact);
  q.ensure("int32_fits", sym::kv_narrow32(out) == out);
  return check(q, timeout_ms);
}

// Token-level routes: token_translate (kernel-facing), transfer_ids (physical), swa_translate,
// dcp_read_translate (collapsed reads), write_loc (widened, owned lanes).
enum class TokenLane { token, transfer, swa, dcp_read, write_loc };

// The DCP collapse lemma for the ids of the DCP routes: for 1 <= D < 2^31, 1 <= K < 2^31 and
// -1 <= a < K*D, the truncating quotient q = a / D and remainder r = a % D satisfy a = q*D + r;
// for 0 <= a: 0 <= r < D and 0 <= q < K; for the padding id a = -1: (q, r) = (-1, 0) when D = 1,
// else (0, -1). dcp_collapse_lemma_query proves it (for the lanes' kv_div / kv_rem, or for the
// given wrong division in the vacuity tests); the all-dcp_size route queries abstract a / dcp_size
// and a % dcp_size to fresh (q, r) and assume of them only the instance below, with K = NV*ps (the
// defining equation, which the instance does not need, is left out: it is the one nonlinear
// part). The two obligations compose into the route obligation for every dcp_size at once.
inline constexpr std::int64_t kDcpSizeBound = kTwo31;  // all-dcp_size queries: 1 <= dcp_size < 2^31

SymBool dcp_padding_divrem(const Sym& D, const Sym& q, const Sym& r) {
  const SymBool one = D == Sym(1);
  return (one && q == Sym(-1) && r == Sym(0)) || (!one && q == Sym(0) && r == Sym(-1));
}

SymBool dcp_collapse_instance(const Sym& a, const Sym& D, const Sym& K, const Sym& q, const Sym& r) {
  return implies(a >= Sym(0) && a < K * D, q >= Sym(0) && q < K && r >= Sym(0) && r < D) &&
         implies(a == Sym(-1), dcp_padding_divrem(D, q, r));
}

Outcome token_query(Route r, Variant v, TokenLane kind, bool pinned, std::int64_t dcp_value, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  SymPool pool(0, kind == TokenLane::swa ? "swa_v2p" : "v2p");
  const Sym t = Sym::var(kind == TokenLane::write_loc ? "loc" : (kind == TokenLane::dcp_read ? "w" : "t"));
  const Sym dcp = dcp_value > 0 ? Sym(dcp_value) : Sym::var("dcp_size");
  const Sym rank = Sym::var("dcp_rank");
  const bool has_dcp = kind == TokenLane::dcp_read || kind == TokenLane::write_loc;
  // dcp_value = 0 on a DCP route: every dcp_size in [1, 2^31) at once, the collapse abstracted
  // (see dcp_collapse_instance).
  const bool all_dcp = has_dcp && dcp_value <= 0;
  if (all_dcp) env.abstract_divisions_by(dcp.expr());
  const Sym stride = kind == TokenLane::transfer ? pool.ps : pool.stride();
  env.clear_overflow();
  Sym out(0);
  switch (kind) {
    case TokenLane::token: out = lanes::token_translate_lane(t, pool.v2p, pool.ps, stride, v); break;
    case TokenLane::transfer: out = lanes::transfer_lane(t, pool.v2p, pool.ps, v); break;
    case TokenLane::swa: out = lanes::swa_translate_lane(t, pool.v2p, pool.ps, stride, v); break;
    case TokenLane::dcp_read: out = lanes::dcp_read_lane(t, pool.v2p, pool.ps, stride, dcp, v); break;
    case TokenLane::write_loc: out = lanes::write_loc_lane(t, pool.v2p, pool.ps, stride, dcp, rank); break;
  }
  const SymBool exact(env.no_overflow());
  // The collapsed token a lane translates (w / dcp_size, loc / dcp_size) and the reference
  // token_translate of it, for the agreement conclusions.
  // (t >= 0 wherever it matters, where truncation = floor: I9.nonneg_div_kind.)
  const Sym collapsed = has_dcp ? sym::kv_div(t, dcp) : t;
  Query q;
  q.header = route_header(r, v) + (pinned ? "" : " v2p0_pinned=0") + (has_dcp && dcp_value > 0 ? " dcp_size=" + std::to_string(dcp_value) : "") +
             (all_dcp ? " dcp_size=symbolic (collapse lemma)" : "");
  if (has_dcp) {
    q.require(dcp >= Sym(1) && dcp <= Sym(all_dcp ? kDcpSizeBound - 1 : kMaxDcpSize) && rank >= Sym(0) && rank < dcp);
    q.require(t >= Sym(-1) && t < pool.NV * pool.ps * dcp);  // padding -1, 0 (padded write loc), ids
  } else {
    q.require(admitted_token(pool, t));
  }
  pool.show(q);
  if (has_dcp) {
    q.show({{"dcp_size", dcp}, {"dcp_rank", rank}});
  }
  q.show({{kind == TokenLane::write_loc ? "loc" : (kind == TokenLane::dcp_read ? "w" : "t"), t}, {"out", out}});
  const Sym page = sym::floor_div(collapsed, pool.ps);
  const Sym bound = pool.N * stride;
  q.ensure("loads_in_bounds", pool.v2p.loads_in_bounds());
  if (kind == TokenLane::write_loc) {
    const SymBool keep = (t > Sym(0)) && (sym::kv_rem(t, dcp) == rank);
    q.ensure("padding_or_not_owned_to_sink", implies(!keep, out == Sym(0)));
    const Sym ref = lanes::token_translate_lane(collapsed, pool.v2p, pool.ps, stride, Variant::production);
    q.ensure("owned_equals_token_translate", implies(keep, out == ref));
  } else {
    q.ensure("padding_to_sink", implies(t < Sym(0), out == Sym(0)));
    q.ensure("tombstone_to_sink", implies(t >= Sym(0) && pool.v2p.at(page) == Sym(-1), out == Sym(0)));
    if (kind == TokenLane::dcp_read) {
      const Sym ref = lanes::token_translate_lane(collapsed, pool.v2p, pool.ps, stride, Variant::production);
      q.ensure("equals_token_translate_of_collapsed", implies(t >= Sym(0), out == ref));
    }
  }
  if (kind == TokenLane::write_loc) {
    // Range and int32 width of owned lanes follow from route.token_translate, whose domain
    // contains every collapsed id (stated here); stating them again only slows the query.
    q.ensure("collapsed_id_admitted", implies(t > Sym(0), collapsed >= Sym(0) && collapsed < pool.NV * pool.ps));
  } else {
    q.ensure("id_in_range", out >= Sym(0) && out < bound);
    q.ensure("int32_fits", sym::kv_narrow32(out) == out);
  }
  q.ensure("int64_exact", exact);
  pool.constrain(q, pinned);
  if (all_dcp) {
    // Every a / dcp_size and a % dcp_size above (the lane's and the reference's, one pair per
    // dividend) is a fresh (q, r) of which only the collapse lemma's instance is assumed.
    for (const auto& d : env.abstract_divisions()) {
      q.require(dcp_collapse_instance(Sym(d.dividend), dcp, pool.NV * pool.ps, Sym(d.quotient), Sym(d.remainder)));
      q.show({{"collapsed_q", Sym(d.quotient)}, {"collapsed_r", Sym(d.remainder)}});
    }
  }
  q.tables.push_back(&pool.v2p);
  return check(q, timeout_ms);
}

// The collapse lemma itself (see dcp_collapse_instance), over a division (q, r) = div(a, D).
Outcome dcp_collapse_lemma_query(const DcpDivFn& div, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const auto [a, D, K] = vars("a", "dcp_size", "K");
  const auto [quot, rem] = div(a, D);
  Query q;
  q.header = "lemma=dcp_collapse";
  q.require(D >= Sym(1) && D < Sym(kDcpSizeBound) && K >= Sym(1) && K < Sym(kTwo31));
  q.require(a >= Sym(-1) && a < K * D);
  q.show({{"a", a}, {"dcp_size", D}, {"K", K}, {"q", quot}, {"r", rem}});
  q.ensure("defining_equation", a == quot * D + rem);
  q.ensure("remainder_range", implies(a >= Sym(0), rem >= Sym(0) && rem < D));
  q.ensure("quotient_below_K", implies(a >= Sym(0), quot >= Sym(0) && quot < K));
  q.ensure("padding_truncates", implies(a == Sym(-1), dcp_padding_divrem(D, quot, rem)));
  return check(q, timeout_ms);
}

// §4.10 / §7 Q3: mamba_translate is a raw gather (page size 1); clamp is the Q3 parameter.
Outcome mamba_query(bool clamp, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  SymPool pool(1, "mamba_v2p");
  const Sym slot = Sym::var("slot");
  const Sym out = lanes::mamba_lane(slot, pool.v2p, clamp);
  Query q;
  q.header = std::string("route=mamba_translate variant=production mamba_clamp=") + (clamp ? "1" : "0");
  q.require(slot >= Sym(0) && slot < pool.NV);
  pool.constrain(q, true);
  q.require(pool.M == Sym(1));
  pool.show(q);
  q.show({{"slot", slot}, {"out", out}});
  q.tables.push_back(&pool.v2p);
  q.ensure("loads_in_bounds", pool.v2p.loads_in_bounds());
  q.ensure("tombstone_to_sink", implies(pool.v2p.at(slot) == Sym(-1), out == Sym(0)));
  q.ensure("slot_in_range", out >= Sym(0) && out < pool.N);
  return check(q, timeout_ms);
}

// §2.7 int32 stores of the table routes (issue 17): a lane's exact value x (a table entry
// v2p * M, or decode_metadata's seq_len + delta and its prefix sum) stored into an int32 output.
// Without the I8 bound x reaches 2^31; production's checked store raises, int32_wrap stores a
// different (negative) value.
Outcome store_query(Route r, Variant v, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const Sym x = Sym::var("lane_value");
  const Sym stored = lanes::store32_lane(x, v);
  Query q;
  q.header = route_header(r, v) + " domain=no_I8";
  q.require(x >= Sym(0) && x < Sym(std::int64_t{1} << 40));
  q.show({{"lane_value", x}, {"stored", stored}});
  q.ensure("int32_store_exact", stored == x);
  return check(q, timeout_ms);
}

// §6 B12: the SWA side is a non-owner; its v2p is indexed by the owner's virtual ids.
Outcome swa_sizing_query(bool by_owner, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const auto [ps, m_swa, owner_ids, swa_pages] = vars("ps", "M_swa", "owner_num_virtual_ids", "swa_num_pages");
  sym::SymTable swa_v2p("swa_v2p", (by_owner ? owner_ids : swa_pages) + Sym(1));
  const Sym t = Sym::var("t");
  const Sym out = lanes::swa_translate_lane(t, swa_v2p, ps, ps * m_swa, Variant::production);
  Query q;
  q.header = std::string("route=swa_translate variant=production swa_v2p_sized_by=") +
             (by_owner ? "owner_num_virtual_ids" : "swa_num_pages");
  q.require(ps >= Sym(1) && ps <= Sym(kMaxPs) && m_swa >= Sym(1) && m_swa <= Sym(kMaxM));
  q.require(swa_pages >= Sym(1) && owner_ids >= Sym(1) && owner_ids * ps < Sym(kTwo31));
  q.require(swa_pages * ps * m_swa < Sym(kTwo31));
  q.require(t >= Sym(-1) && t < owner_ids * ps);  // full-side virtual tokens, or padding
  q.require(swa_v2p.loaded_entries([pages = swa_pages](const Sym&, const Sym& val) {
    return val == Sym(-1) || (val >= Sym(0) && val < pages);
  }));
  q.show({{"ps", ps}, {"M_swa", m_swa}, {"owner_num_virtual_ids", owner_ids}, {"swa_num_pages", swa_pages}, {"t", t}});
  q.tables.push_back(&swa_v2p);
  q.ensure("loads_in_bounds", swa_v2p.loads_in_bounds());
  return check(q, timeout_ms);
}

// §6 E03 over the int64 domain of the int64 route outputs (I8 dropped: N*S may reach 2^62, as for
// token_translate / write_loc with int64 `out`): the lane of variant v agrees with the exact int64
// production lane. Production proves it; e03_int32_offset (P*S + o formed in int32) is refuted by
// any live id with P*S + o >= 2^31.
Outcome e03_query(bool write_loc, Variant v, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  SymPool pool(0);
  const Sym t = Sym::var(write_loc ? "loc" : "t");
  const Sym stride = pool.stride();
  env.clear_overflow();
  Sym out(0), ref(0);
  if (write_loc) {
    out = lanes::write_loc_lane(t, pool.v2p, pool.ps, stride, Sym(1), Sym(0), v);
    ref = lanes::write_loc_lane(t, pool.v2p, pool.ps, stride, Sym(1), Sym(0), Variant::production);
  } else {
    // int32_wrap: the lane's value as an int32 output keeps it (two's complement).
    out = lanes::store32_lane(lanes::token_translate_lane(t, pool.v2p, pool.ps, stride, v), v);
    ref = lanes::token_translate_lane(t, pool.v2p, pool.ps, stride, Variant::production);
  }
  const SymBool exact(env.no_overflow());
  Query q;
  q.header = route_header(write_loc ? Route::write_loc : Route::token_translate, v) + " domain=int64_outputs" +
             (write_loc ? " dcp_size=1" : "");
  q.require(pool.ps >= Sym(1) && pool.ps <= Sym(kMaxPs) && pool.M >= Sym(1) && pool.M <= Sym(kMaxM));
  q.require(pool.N >= Sym(1) && pool.NV >= Sym(1));
  q.require(pool.N * pool.ps * pool.M < Sym(std::int64_t{1} << 62));  // int64 outputs: no I8 bound
  q.require(pool.NV * pool.ps < Sym(kTwo31));                          // virtual ids: int32 req_to_token
  q.require(pool.v2p.loaded_entries([&](const Sym& i, const Sym& val) { return pool.entry_ok(i, val, true); }));
  q.require(write_loc ? (t >= Sym(-1) && t < pool.NV * pool.ps) : admitted_token(pool, t));
  pool.show(q);
  q.show({{write_loc ? "loc" : "t", t}, {"out", out}, {"int64_reference", ref}});
  q.tables.push_back(&pool.v2p);
  q.ensure("agrees_with_int64_lane", out == ref);
  q.ensure("int64_exact", exact);
  return check(q, timeout_ms);
}

constexpr const char* kPoolDomain =
    "ps in 1..2^16 and M in 1..4096 symbolic, num_pages N >= 1 and num_virtual_ids NV >= 1 symbolic with "
    "N*ps*M < 2^31 and NV*ps < 2^31; exact integers with every intermediate checked to lie in int64";
constexpr const char* kPow2Domain =
    "every power of two ps = 2^k, k = 0..16 (one query each; the fa3 kernel asserts a power of two), M in "
    "1..4096, N, NV symbolic with N*ps*M < 2^31, NV*ps < 2^31";

// The route obligations' preconditions: the pool domain and table entries, the v2p[0] pin (or its
// removal), the trailing row, then what the ids range over.
std::string pool_preconditions(bool pinned, const std::string& ids) {
  return std::string("pool domain; table entries -1 or a physical page < N") +
         (pinned ? ", v2p[0] = 0 (pinned)" : ", v2p[0] unconstrained (pin removed)") + ", v2p[NV] = -1; " + ids;
}

// The lane function of a page-table route and of a token-level route: exhaustive switches (no default),
// so a route added to Route is a -Wswitch warning here until it is given its kind; a route of the other
// kind is a programming error of the obligation list.
PageLane page_lane(Route r) {
  switch (r) {
    case Route::flashmla_block_table:
    case Route::canonical_page_table:
    case Route::full_prefill_table:
    case Route::read_table: return PageLane::entry;
    case Route::decode_metadata: return PageLane::decode;
    case Route::eager_funnel: return PageLane::eager;
    case Route::token_translate:
    case Route::kv_indices_inplace:
    case Route::write_loc:
    case Route::swa_translate:
    case Route::mamba_translate:
    case Route::dcp_read_translate:
    case Route::transfer_ids:
#if defined(KVADDR_TEST_ROUTE)
    case Route::test_route:  // per-id: proved through its spec lane
#endif
      break;
  }
  throw kvaddr::InvalidArgument("route", std::string(route_name(r)), "not a page-table route (page_lane)");
}
TokenLane token_lane(Route r) {
  switch (r) {
    case Route::token_translate:
    case Route::kv_indices_inplace: return TokenLane::token;
    case Route::transfer_ids: return TokenLane::transfer;
    case Route::swa_translate: return TokenLane::swa;
    case Route::dcp_read_translate: return TokenLane::dcp_read;
    case Route::write_loc: return TokenLane::write_loc;
    case Route::flashmla_block_table:
    case Route::canonical_page_table:
    case Route::read_table:
    case Route::decode_metadata:
    case Route::eager_funnel:
    case Route::mamba_translate:
    case Route::full_prefill_table:
#if defined(KVADDR_TEST_ROUTE)
    case Route::test_route:  // per-id: proved through its spec lane
#endif
      break;
  }
  throw kvaddr::InvalidArgument("route", std::string(route_name(r)), "no token lane among the route obligations (token_lane)");
}

void add_page_route(std::vector<Def>& out, Route r, Variant v, Verdict expected, std::string name, std::string spec,
                    bool pinned = true) {
  const PageLane kind = page_lane(r);
  const bool decode = kind == PageLane::decode;
  out.push_back(make({std::move(name), std::move(spec),
                      pool_preconditions(pinned, "tok = -1 (padding) or 0 <= tok < NV*ps"),
                      "every v2p load lies in [0, NV], padding and tombstones give the sink 0, 0 <= entry < N*M, "
                      "int64 arithmetic exact, int32 store lossless",
                      decode ? kPow2Domain : kPoolDomain, expected},
                     [=](const RunOptions& o) {
                       if (!decode) return page_table_query(r, v, kind, pinned, 0, Mode::integer, o.timeout_ms);
                       return sweep(pow2_sweep(), [&](std::int64_t ps) {
                         return page_table_query(r, v, kind, pinned, ps, Mode::integer, o.timeout_ms);
                       });
                     }));
}

void add_token_route(std::vector<Def>& out, Route r, Variant v, Verdict expected, std::string name, std::string spec,
                     std::string conclusion, bool pinned = true) {
  const TokenLane kind = token_lane(r);
  const bool has_dcp = kind == TokenLane::dcp_read || kind == TokenLane::write_loc;
  Def d = make({std::move(name), std::move(spec),
                pool_preconditions(pinned, "ids: -1 (padding) or 0 <= id < NV*ps (times dcp_size for widened ids)"),
                std::move(conclusion),
                std::string(kPoolDomain) + (has_dcp ? "; " + describe_dcp_sweep(false) + ", dcp_rank symbolic" : ""),
                expected},
               [=](const RunOptions& o) {
                 if (!has_dcp) return token_query(r, v, kind, pinned, 0, o.timeout_ms);
                 return sweep(dcp_sweep(o.full_sweep),
                              [&](std::int64_t dcp) { return token_query(r, v, kind, pinned, dcp, o.timeout_ms); });
               });
  if (has_dcp) d.domain_full = std::string(kPoolDomain) + "; " + describe_dcp_sweep(true) + ", dcp_rank symbolic";
  out.push_back(std::move(d));
}

// The all-dcp_size twin of a DCP route obligation: one query with dcp_size symbolic in [1, 2^31)
// and the collapse abstracted to the lemma dcp.collapse_lemma (registered beside it).
void add_all_dcp_route(std::vector<Def>& out, Route r, std::string name, std::string spec, std::string conclusion,
                       bool pinned = true) {
  const TokenLane kind = token_lane(r);
  out.push_back(make({std::move(name), std::move(spec),
                      pool_preconditions(pinned,
                                         "1 <= dcp_size < 2^31, 0 <= dcp_rank < dcp_size; id -1 (padding) or "
                                         "0 <= id < NV*ps*dcp_size; id / dcp_size and id % dcp_size are fresh (q, r) "
                                         "with 0 <= q < NV*ps and 0 <= r < dcp_size for id >= 0, and the truncated "
                                         "(q, r) of -1 for id = -1 (the instance of dcp.collapse_lemma with K = NV*ps)"),
                      std::move(conclusion),
                      std::string(kPoolDomain) +
                          "; dcp_size symbolic in [1, 2^31) and dcp_rank symbolic, one query (composed with "
                          "dcp.collapse_lemma: every dcp_size at once)",
                      Verdict::proved},
                     [=](const RunOptions& o) {
                       return token_query(r, Variant::production, kind, pinned, 0, o.timeout_ms);
                     }));
}

}  // namespace

Outcome dcp_collapse_lemma_of(const RunOptions& o, const DcpDivFn& div) {
  return dcp_collapse_lemma_query(div, o.timeout_ms);
}

void add_route_obligations(std::vector<Def>& out) {
  using enum Verdict;
  const std::string tok_concl =
      "every v2p load lies in [0, NV], padding and tombstones give the sink 0, 0 <= id < N*S, int64 exact, "
      "int32 store lossless";
  add_token_route(out, Route::token_translate, Variant::production, proved, "route.token_translate",
                  "§4.1, §2.5, I6, I9", tok_concl);
  add_token_route(out, Route::transfer_ids, Variant::production, proved, "route.transfer_ids",
                  "§4.13 (phys = M = 1 translate)", tok_concl);
  add_token_route(out, Route::swa_translate, Variant::production, proved, "route.swa_translate", "§4.9, §3.5",
                  tok_concl + " (S = ps*M_swa)");
  add_token_route(out, Route::swa_translate, Variant::b11_swa_no_clamp, refuted, "route.swa_translate.b11", "§6 B11",
                  tok_concl);
  add_token_route(out, Route::dcp_read_translate, Variant::production, proved, "route.dcp_read_translate",
                  "§4.12, §7 Q9", tok_concl + "; w >= 0 gives token_translate(w / dcp_size)");
  add_token_route(out, Route::write_loc, Variant::production, proved, "route.write_loc", "§4.8, §7 Q9",
                  "loads in bounds, loc <= 0 or not owned gives 0, owned loc gives token_translate(loc / dcp_size) "
                  "of an admitted collapsed id (so range and int32 width follow from route.token_translate), int64 "
                  "exact");

  {
    const DcpDivFn lane_div = [](const Sym& a, const Sym& D) {
      return std::pair<Sym, Sym>(sym::kv_div(a, D), sym::kv_rem(a, D));
    };
    out.push_back(make({"dcp.collapse_lemma", "§4.8, §4.12, §7 Q9 (the collapse w / dcp_size of DCP ids)",
                        "1 <= dcp_size < 2^31, 1 <= K < 2^31, -1 <= a < K*dcp_size",
                        "q = a / dcp_size and r = a % dcp_size (the lanes' kv_div / kv_rem) satisfy a = q*dcp_size + "
                        "r; a >= 0 gives 0 <= r < dcp_size and 0 <= q < K; a = -1 gives (q, r) = (-1, 0) at "
                        "dcp_size 1, else (0, -1)",
                        "a, dcp_size and K symbolic; exact integers (one query)", proved},
                       [lane_div](const RunOptions& o) { return dcp_collapse_lemma_query(lane_div, o.timeout_ms); }));
  }
  add_all_dcp_route(out, Route::dcp_read_translate, "route.dcp_read_translate.all_dcp_sizes", "§4.12, §7 Q9, issue 16",
                    tok_concl + "; w >= 0 gives token_translate(w / dcp_size)");
  add_all_dcp_route(out, Route::write_loc, "route.write_loc.all_dcp_sizes", "§4.8, §7 Q9, issue 16",
                    "as route.write_loc: loads in bounds, loc <= 0 or not owned gives 0, owned loc gives "
                    "token_translate(loc / dcp_size) of an admitted collapsed id, int64 exact");

  add_page_route(out, Route::flashmla_block_table, Variant::production, proved,
                 "route.flashmla_block_table", "§4.2, §2.3, I7");
  add_page_route(out, Route::flashmla_block_table, Variant::era_b_unclamped, refuted,
                 "route.flashmla_block_table.era_b_unclamped", "§4.2, I7, §7 Q5 (tombstone -> -M)");
  add_page_route(out, Route::flashmla_block_table, Variant::b09_no_padding_guard, refuted,
                 "route.flashmla_block_table.b09", "§6 B09, I9");
  add_page_route(out, Route::canonical_page_table, Variant::production, proved,
                 "route.canonical_page_table", "§4.3 with the sign guard");
  add_page_route(out, Route::canonical_page_table, Variant::b09_no_padding_guard, refuted,
                 "route.canonical_page_table.b09", "§6 B09, I9 (ps = 1, tok = -1 loads v2p[-1])");
  add_page_route(out, Route::read_table, Variant::production, proved,
                 "route.read_table", "§4.4");
  add_page_route(out, Route::read_table, Variant::b09_no_padding_guard, refuted,
                 "route.read_table.b09", "§6 B09, E11");
  add_page_route(out, Route::decode_metadata, Variant::production, proved,
                 "route.decode_metadata", "§4.5 (shift by log2 ps)");
  add_page_route(out, Route::decode_metadata, Variant::b09_no_padding_guard, refuted,
                 "route.decode_metadata.b09", "§4.5, §7 Q7 (unguarded shift: -1 >> k = -1)");
  add_page_route(out, Route::decode_metadata, Variant::era_b_unclamped, refuted,
                 "route.decode_metadata.era_b_unclamped", "§4.5 Era B remap, §7 Q7");
  add_page_route(out, Route::eager_funnel, Variant::production, proved,
                 "route.eager_funnel", "§4.6, I7");

  {
    const Def d = make({"route.mamba_translate", "§4.10, §7 Q3 (upstream: no clamp)",
                        "slot in [0, NV) (padding excluded: the route has no guard), entries -1 or < N",
                        "loads in bounds, a tombstone gives the sink, 0 <= out < N", "ps = 1, N, NV symbolic", refuted},
                       [](const RunOptions& o) { return mamba_query(false, o.timeout_ms); });
    out.push_back(d);
    out.push_back(variant_of(d, "Q3.mamba_translate.clamped", "§7 Q3 with mamba_clamp = on",
                             [](const RunOptions& o) { return mamba_query(true, o.timeout_ms); }, proved));
  }
  add_read_table_column_obligations(out, false);  // spec_rules.cpp
  {
    const Def d = make({"B12.swa_sizing.owner_ids", "§6 B12, §3.5 (#37560)",
                        "swa_v2p has owner_num_virtual_ids + 1 rows; t = -1 or a full-side virtual token < owner ids * ps",
                        "every swa_v2p load lies inside the table", "ps, M_swa, both id counts symbolic", proved},
                       [](const RunOptions& o) { return swa_sizing_query(true, o.timeout_ms); });
    out.push_back(d);
    Def own = variant_of(d, "B12.swa_sizing.own_pages", d.info.spec,
                         [](const RunOptions& o) { return swa_sizing_query(false, o.timeout_ms); });
    own.info.preconditions = "swa_v2p has swa_num_pages + 1 rows (the B12 sizing); otherwise as above";
    out.push_back(std::move(own));
  }

  // §6 E02 on canonical_page_table: the variant drops the clamp, so a tombstone leaks as -M.
  add_page_route(out, Route::canonical_page_table, Variant::e02_minus_one_sentinel, refuted,
                 "route.canonical_page_table.e02", "§6 E02 (tombstone entry -1 * M < 0 instead of the sink)");

  // §6 E03 over the int64 output domain (I8 dropped).
  {
    const char* pre =
        "ps in 1..2^16, M in 1..4096, N, NV >= 1 with N*ps*M < 2^62 (int64 outputs, no I8 bound), NV*ps < 2^31; "
        "entries -1 or a physical page < N, v2p[0] = 0, v2p[NV] = -1; id -1 or 0 <= id < NV*ps";
    const char* dom = "ps, M, N, NV, the id and the loaded entries symbolic; exact integers";
    for (bool wl : {false, true}) {
      const std::string base = wl ? "route.write_loc.int64_domain" : "route.token_translate.int64_domain";
      const Def d = make({base, wl ? "§4.8, I8 (int64 out), dcp_size = 1" : "§4.1, I8 (int64 out)", pre,
                          "the lane equals the exact int64 lane (every intermediate within int64)", dom, proved},
                         [wl](const RunOptions& o) { return e03_query(wl, Variant::production, o.timeout_ms); });
      out.push_back(d);
      out.push_back(variant_of(d, base + ".e03", "§6 E03 (vLLM #57030: P*S + o formed in int32)",
                               [wl](const RunOptions& o) { return e03_query(wl, Variant::e03_int32_offset, o.timeout_ms); }));
    }
  }
  out.push_back(make({"route.token_translate.int32_store.wrap", "§2.7, issue 17 (an int32 out of translate_v2p wraps)",
                      "as route.token_translate.int64_domain (no I8 bound); the result stored through an int32 output",
                      "the stored value equals the exact int64 lane",
                      "ps, M, N, NV, the id and the loaded entries symbolic", refuted},
                     [](const RunOptions& o) { return e03_query(false, Variant::int32_wrap, o.timeout_ms); }));

  // Issues 17 / 18: the upstream kernels as written. The fa3 decode remap of PR #33046 (no padding
  // guard, no clamp, int32 stores) reads before v2p at every page size and leaks -M for a tombstone;
  // the Era-B flashmla block table has the same shape; grid_spill writes past max_pages.
  for (Route r : {Route::flashmla_block_table, Route::canonical_page_table, Route::read_table,
                  Route::decode_metadata}) {
    out.push_back(make({"route." + std::string(route_name(r)) + ".int32_store.wrap", "§2.7, issue 17 (int32 stores wrap)",
                        "a lane value 0 <= x < 2^40 (no I8 bound: entries or lengths >= 2^31)", "the int32 store keeps x",
                        "x symbolic", refuted},
                       [r](const RunOptions& o) { return store_query(r, Variant::int32_wrap, o.timeout_ms); }));
  }
  add_page_route(out, Route::decode_metadata, Variant::pr33046_as_written, refuted,
                 "route.decode_metadata.pr33046_as_written", "§4.5, issue 18 (padding -1 reads v2p[-1] at every ps; a tombstone gives -M)");
  add_page_route(out, Route::flashmla_block_table, Variant::flashmla_era_b_as_written, refuted,
                 "route.flashmla_block_table.era_b_as_written", "§4.2, issue 18 (same shape as PR #33046)");
  add_page_route(out, Route::canonical_page_table, Variant::era_b_unclamped, refuted,
                 "route.canonical_page_table.unclamped", "§4.3, issue 17 (tombstone -> -M)");
  add_page_route(out, Route::read_table, Variant::era_b_unclamped, refuted,
                 "route.read_table.unclamped", "§4.4, issue 17 (tombstone -> -M)");
  add_read_table_column_obligations(out, true);  // spec_rules.cpp

  // §4.2-§4.5 row selection; §6 E10 (spec_rules.cpp: the specs' row()).
  add_row_obligations(out);

  // §7 Q2: which routes still send padding to the sink when v2p[0] = 0 is not pinned.
  add_token_route(out, Route::token_translate, Variant::production, proved, "Q2.unpinned.token_translate",
                  "§7 Q2 (sign guard returns 0 before any load)", tok_concl, false);
  add_token_route(out, Route::write_loc, Variant::production, proved, "Q2.unpinned.write_loc",
                  "§7 Q2, §2.5 (loc = 0 never loads v2p[0])", "as route.write_loc, with v2p[0] unconstrained", false);
  add_all_dcp_route(out, Route::write_loc, "Q2.unpinned.write_loc.all_dcp_sizes", "§7 Q2, §2.5, issue 16",
                    "as route.write_loc.all_dcp_sizes, with v2p[0] unconstrained", false);
  add_page_route(out, Route::eager_funnel, Variant::production, proved,
                 "Q2.unpinned.eager_funnel", "§7 Q2 (goes through token_translate)", false);
  add_page_route(out, Route::canonical_page_table, Variant::production, refuted,
                 "Q2.unpinned.canonical_page_table", "§7 Q2 (padding -> page 0 -> v2p[0]*M)", false);
  add_page_route(out, Route::read_table, Variant::production, refuted,
                 "Q2.unpinned.read_table", "§7 Q2", false);
  add_page_route(out, Route::flashmla_block_table, Variant::production, refuted,
                 "Q2.unpinned.flashmla_block_table", "§7 Q2", false);
  add_page_route(out, Route::decode_metadata, Variant::production, refuted,
                 "Q2.unpinned.decode_metadata", "§7 Q2", false);
}

}  // namespace kvaddr::proofs
