// Obligations on the arithmetic behaviours inferred from recorded upstream calls (issue 33,
// docs/variants.md): each behaviour X is stated as what the kernel does, proved for the variant
// (route.<r>.X) and refuted for production (route.<r>.X.production); the contract's obligation run under
// X is refuted as well (route.per_id.lane_offset.int32_lane_offsets here, route.decode_metadata.columns
// .int32_lengths in spec_rules.cpp, route.decode_metadata.swa_slot_map.swa_no_padding_guard in modes.cpp).
// The lanes under proof are the ones the host routes and the kernels run (lanes::launch_lane,
// RouteSpec<decode_metadata>::columns / swa_entry_variant with lanes::decode_length and
// lanes::swa_slot_entry_lane); the statements are raw Z3 terms (no mutation site).
#include <string>

#include "common.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::proofs {
namespace {

using Decode = RouteSpec<Route::decode_metadata>;
constexpr std::int64_t kTwo32 = std::int64_t{1} << 32;

// x's low 32 bits as a signed int32 (the statement's own wrap, not the lanes' kv_wrap32).
z3::expr low32(const z3::expr& x) {
  auto& c = x.ctx();
  return z3::mod(x + c.int_val(kTwo31), c.int_val(kTwo32)) - c.int_val(kTwo31);
}

// ---- int32_lane_offsets (token_translate, write_loc) -------------------------------------------
// A per-id launch of n lanes over a buffer of n elements (n < 2^40); lane i in [0, n) loads and stores
// element e = launch_lane(i, v). statement false: the contract, e == i (every lane its own element,
// inside the buffer). statement true: int32_lane_offsets as docs/variants.md states it: below 2^31
// e == i; on [2^31, 2^32) e < 0 (before the buffer: element i is not written by its lane); on
// [2^32, 2^32 + 2^31) e == i - 2^32 (element i - 2^32 is stored again); e is never past the buffer.
Outcome lane_offset_query(Variant v, bool statement, const RunOptions& o) {
  return check_integer(o.timeout_ms, {"lane", "launch_lanes"}, [&](Query& q, const auto& s) {
    const Sym& i = s[0];
    const Sym& n = s[1];
    const Sym e = lanes::launch_lane(i, v);
    q.header = "route=token_translate,write_loc variant=" + std::string(variant_name(v));
    q.require(n >= Sym(1) && n < Sym(std::int64_t{1} << 40) && i >= Sym(0) && i < n);
    q.show("element", e);
    if (!statement) {
      q.ensure("lane_stores_its_own_element", e == i);
      return;
    }
    const Sym two31(kTwo31), two32(kTwo32);
    q.ensure("below_2^31_its_own_element", implies(i < two31, e == i));
    q.ensure("2^31_to_2^32_unwritten", implies(i >= two31 && i < two32, e < Sym(0)));
    q.ensure("from_2^32_element_i_minus_2^32", implies(i >= two32 && i < two32 + two31, e == i - two32));
    q.ensure("never_past_the_buffer", e < n);
  });
}

// ---- int32_lengths (decode_metadata) -----------------------------------------------------------
// One row of KV length len = seq_len + delta, 0 <= len < 2^40 (int64 upstream), at ps = 2^k. The
// statement (the fa3 metadata kernel after seq_len.to(int32)): with L the low 32 bits of len, signed,
// a row whose int32 page count wraps (L < 0 or L + ps - 1 >= 2^31) writes no column; otherwise its
// columns are min(ceil(L / ps), max_seq_pages), i.e. those of the length L, not len.
Outcome int32_lengths_query(Variant v, std::int64_t psv, const RunOptions& o) {
  return check_integer(o.timeout_ms, {"seq_len_plus_delta", "max_seq_pages"}, [&](Query& q, const auto& s) {
    const Sym& len = s[0];
    const Sym& bound = s[1];
    const int k = ceil_log2(psv);
    const Sym cols = Decode::columns(lanes::decode_length(len, v), Sym(psv), k, bound, v);
    q.header = "route=decode_metadata variant=" + std::string(variant_name(v)) + " ps=" + std::to_string(psv);
    q.require(len >= Sym(0) && len < Sym(std::int64_t{1} << 40) && bound >= Sym(1) && bound < Sym(kTwo31));
    const z3::expr l = low32(len.expr()), m = cols.expr(), bd = bound.expr();
    const z3::expr p = len.expr().ctx().int_val(psv);
    q.show({{"int32_length", Sym(l)}, {"columns", cols}});
    const SymBool wraps(l < 0 || l + p - 1 >= len.expr().ctx().int_val(kTwo31));
    q.ensure("wrapped_page_count_writes_no_column", implies(wraps, SymBool(m <= 0)));
    const SymBool counted(!wraps.expr());
    q.ensure("columns_within_max_seq_pages", implies(counted, SymBool(m >= 0 && m <= bd)));
    q.ensure("int32_length_pages_covered", implies(counted, SymBool(m == bd || m * p >= l)));
    q.ensure("no_column_past_the_int32_length", implies(counted, SymBool(m == 0 || (m - 1) * p < l)));
  });
}

// ---- swa_no_padding_guard (decode_metadata) ----------------------------------------------------
// decode_metadata's SWA gather through the token-level map (lanes::swa_slot_entry_lane under
// Spec::swa_entry_variant(v)) over a map of n >= 1 slots with the parent's element map[-1] before it:
// the statement is the unguarded gather: a padding token -1 loads map[-1] and stores map[-1] >> log2 ps
// (the parent's lane, any value), a live token loads map[tok] and stores map[tok] >> log2 ps; no load
// outside [-1, n).
Outcome swa_no_guard_query(Variant v, std::int64_t psv, const RunOptions& o) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const int k = ceil_log2(psv);
  const Sym tok = var("tok"), n = var("map_size");
  sym::SymTable map("full_to_swa_index_mapping", n);
  const Sym out = lanes::swa_slot_entry_lane(tok, map, k, Decode::swa_entry_variant(v));
  Query q;
  q.header = "swa gather route=decode_metadata ps=" + std::to_string(psv) + " variant=" + std::string(variant_name(v));
  q.require(n >= Sym(1) && n < Sym(kTwo31) && tok >= Sym(-1) && tok < n);
  q.require(map.loaded_entries([](const Sym&, const Sym& val) { return val >= Sym(-kTwo31) && val < Sym(kTwo31); }));
  q.require(map.at(Sym(-1)) >= Sym(-kTwo31) && map.at(Sym(-1)) < Sym(kTwo31));
  q.show({{"tok", tok}, {"map_size", n}, {"map[-1]", map.at(Sym(-1))}, {"swa_entry", out}});
  q.tables.push_back(&map);
  // slot >> log2 ps: Z3's integer division by a positive divisor is floor division, as the shift is.
  const auto shifted = [&](const Sym& slot) { return Sym(slot.expr() / ctx.int_val(psv)); };
  q.ensure("padding_reads_the_element_before_the_map", implies(tok < Sym(0), out == shifted(map.at(Sym(-1)))));
  q.ensure("live_is_slot_shifted", implies(tok >= Sym(0), out == shifted(map.at(tok))));
  return check(q, o.timeout_ms);
}

// The same behaviour on decode_metadata's page-level SWA gather (swa_v2p, lanes::decode_entry_lane under
// Spec::swa_entry_variant(v)) over a table of n >= 1 pages with the parent's elements t[-2], t[-1] before it,
// multiplier M >= 1: a token -2 ps <= tok < n ps loads t[tok >> log2 ps] (t[-1] for -ps <= tok < 0, t[-2]
// below) and stores max(t[...] * M, 0).
Outcome swa_page_gather_query(Variant v, std::int64_t psv, const RunOptions& o) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const int k = ceil_log2(psv);
  const Sym tok = var("tok"), n = var("swa_pages"), m = var("swa_multiplier");
  sym::SymTable t("swa_v2p", n);
  const Sym out = lanes::decode_entry_lane(tok, t, k, m, Decode::swa_entry_variant(v));
  Query q;
  q.header = "swa page gather route=decode_metadata ps=" + std::to_string(psv) + " variant=" +
             std::string(variant_name(v));
  q.require(n >= Sym(1) && n < Sym(kTwo31) && m >= Sym(1) && m <= Sym(kMaxM));
  q.require(tok >= Sym(-2 * psv) && tok < n * Sym(psv));
  const auto entry_ok = [](const Sym& val) { return val >= Sym(-1) && val < Sym(kTwo31); };
  q.require(t.loaded_entries([&](const Sym&, const Sym& val) { return entry_ok(val); }));
  q.require(entry_ok(t.at(Sym(-1))) && entry_ok(t.at(Sym(-2))));
  const Sym page(tok.expr() / ctx.int_val(psv));  // tok >> log2 ps: floor division
  const Sym want(z3::max(t.at(page).expr() * m.expr(), ctx.int_val(0)));
  q.show({{"tok", tok}, {"swa_pages", n}, {"swa_multiplier", m}, {"page", page}, {"swa_entry", out}});
  q.tables.push_back(&t);
  q.ensure("padding_reads_the_page_before_the_table", implies(tok < Sym(0), out == want));
  q.ensure("live_is_the_page_entry", implies(tok >= Sym(0), out == want));
  return check(q, o.timeout_ms);
}

// The ps values of the decode queries: the fa3 shift's powers of two 2^0..2^4 (enough to show the
// shift of map[-1]: ps 16 stores map[-1] >> 4).
std::vector<std::int64_t> decode_ps() { return {1, 2, 4, 8, 16}; }

Outcome over_decode_ps(Outcome (*one)(Variant, std::int64_t, const RunOptions&), Variant v, const RunOptions& o) {
  return sweep(decode_ps(), [&](std::int64_t ps) { return one(v, ps, o); });
}

}  // namespace

void add_inferred_obligations(std::vector<Def>& out) {
  using enum Verdict;
  const Variant lane32 = Variant::int32_lane_offsets;
  const char* lane_pre = "a per-id launch of 1 <= n < 2^40 lanes over n elements; 0 <= i < n";
  const char* lane_dom = "i, n symbolic (exact integers)";
  add_obligations(out, {
      {{"route.per_id.lane_offset", "§4.1, §4.8 (lane i of the launch is element i)", lane_pre,
        "lanes::launch_lane(i) == i: every lane loads and stores its own element", lane_dom, proved},
       [](const RunOptions& o) { return lane_offset_query(Variant::production, false, o); }},
      {{"route.per_id.lane_offset.int32_lane_offsets", "issue 33 (offs = pid * BLOCK + arange in int32)",
        lane_pre, "the same under int32_lane_offsets (fails at i = 2^31)", lane_dom, refuted},
       [lane32](const RunOptions& o) { return lane_offset_query(lane32, false, o); }},
      {{"route.per_id.int32_lane_offsets", "issue 33 (what the int32 lane offset does)", lane_pre,
        "under int32_lane_offsets: element i below 2^31; a negative offset (before the buffer, element i "
        "unwritten) on [2^31, 2^32); element i - 2^32 on [2^32, 2^32 + 2^31); never past the buffer",
        lane_dom, proved},
       [lane32](const RunOptions& o) { return lane_offset_query(lane32, true, o); }},
      {{"route.per_id.int32_lane_offsets.production", "issue 33", lane_pre,
        "the int32_lane_offsets statement for production (fails: lane 2^31 stores element 2^31)", lane_dom, refuted},
       [](const RunOptions& o) { return lane_offset_query(Variant::production, true, o); }},
  });
  const char* len_pre = "0 <= seq_len + delta < 2^40 (int64), 1 <= max_seq_pages < 2^31; ps = 2^0..2^4";
  const char* len_dom = "ps = 1, 2, 4, 8, 16 (one query each); length, max_seq_pages symbolic";
  const char* len_concl =
      "with L = the length's low 32 bits (signed): a row whose int32 page count wraps (L < 0 or L + ps - 1 >= 2^31) "
      "writes no column, else its columns are min(ceil(L / ps), max_seq_pages)";
  add_obligations(out, {
      {{"route.decode_metadata.int32_lengths", "issue 33 (seq_len.to(int32) in the fa3 metadata kernel)", len_pre,
        len_concl, len_dom, proved},
       [](const RunOptions& o) { return over_decode_ps(int32_lengths_query, Variant::int32_lengths, o); }},
      {{"route.decode_metadata.int32_lengths.production", "issue 33", len_pre,
        "the int32_lengths statement for production (fails: a length of 2^31 or more keeps its pages)", len_dom, refuted},
       [](const RunOptions& o) { return over_decode_ps(int32_lengths_query, Variant::production, o); }},
  });
  const char* map_pre = "token map of 1 <= n < 2^31 slots with a parent element map[-1] before it; tok = -1 or 0 <= tok < n";
  const char* map_dom = "ps = 1, 2, 4, 8, 16 (one query each); n, tok, the map and map[-1] symbolic";
  const char* page_pre =
      "swa_v2p of 1 <= n < 2^31 pages with parent elements t[-2], t[-1] before it; 1 <= M <= 4096; -2 ps <= tok < n ps";
  const char* page_dom = "ps = 1, 2, 4, 8, 16 (one query each); n, M, tok, the table and t[-2], t[-1] symbolic";
  add_obligations(out, {
      {{"route.decode_metadata.swa_no_padding_guard", "issue 33 (the SWA gather without its padding guard)", map_pre,
        "under swa_no_padding_guard, through the token map: padding -1 stores map[-1] >> log2 ps (the parent's "
        "element), a live token map[tok] >> log2 ps",
        map_dom, proved},
       [](const RunOptions& o) { return over_decode_ps(swa_no_guard_query, Variant::swa_no_padding_guard, o); }},
      {{"route.decode_metadata.swa_no_padding_guard.production", "issue 33", map_pre,
        "the swa_no_padding_guard statement (token map) for production (fails: padding stores the unmapped slot)",
        map_dom, refuted},
       [](const RunOptions& o) { return over_decode_ps(swa_no_guard_query, Variant::production, o); }},
      {{"route.decode_metadata.swa_no_padding_guard.swa_v2p", "issue 33 (the SWA page gather without its guard)",
        page_pre,
        "under swa_no_padding_guard, through swa_v2p: a token stores max(t[tok >> log2 ps] * M, 0): t[-1] for "
        "-ps <= tok < 0, t[-2] below",
        page_dom, proved},
       [](const RunOptions& o) { return over_decode_ps(swa_page_gather_query, Variant::swa_no_padding_guard, o); }},
      {{"route.decode_metadata.swa_no_padding_guard.swa_v2p.production", "issue 33", page_pre,
        "the swa_no_padding_guard statement (swa_v2p) for production (fails: padding reads page 0)", page_dom, refuted},
       [](const RunOptions& o) { return over_decode_ps(swa_page_gather_query, Variant::production, o); }},
  });
}

}  // namespace kvaddr::proofs
