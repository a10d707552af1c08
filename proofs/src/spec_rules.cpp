// Obligations on the row / columns / tail rules of the route specs
// (translate/include/kvaddr/translate/routes/<route>.hpp): each spec template is instantiated over
// sym::Sym, the same functions the host loops and the kernels call, and compared with the rule as
// the address model states it (model/ and spec §4): the row a batch lane reads (§4.2-§4.5, E10), the
// live-column bound (§4.2-§4.5, B10, E01, E09, grid_spill), read_table's zero_tail (§4.4, E02),
// write_loc's tail (§4.8, model::write_loc_lanes, B06, E02) and kv_indices_inplace's in-place
// write (§4.7, B05). The model side is built from raw Z3 terms (no mutation site), so a vacuity
// mutant (sym::mutation) only ever changes the spec's side.
#include <string>

#include "common.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::proofs {
namespace {

// ---- the model side: raw Z3 terms --------------------------------------------------------------
Sym ite(const SymBool& c, const Sym& a, const Sym& b) { return Sym(z3::ite(c.expr(), a.expr(), b.expr())); }
// ceil(len / ps) for len >= 0, ps >= 1.
Sym model_pages(const Sym& len, const Sym& ps) { return Sym((len.expr() + ps.expr() - 1) / ps.expr()); }
// The live columns of a row (§4.2-§4.5): ceil(len / ps) pages, never past the bound.
Sym model_columns(const Sym& len, const Sym& ps, const Sym& bound) {
  const Sym pages = model_pages(len, ps);
  return ite(pages < bound, pages, bound);
}

// The entry lane of a page-table route at token tok (production: the row rule is under proof).
template <class Spec>
Sym entry_of(const Sym& tok, SymPool& pool) {
  if constexpr (Spec::id == Route::decode_metadata) {
    return lanes::decode_entry_lane(tok, pool.v2p, 0, pool.M, Variant::production);
  } else {
    return Spec::entry(tok, pool.v2p, pool.ps, pool.M, Variant::production, true);
  }
}

// §4.2-§4.5 row selection, E10 (attention-gym #189 shape). A symbolic two-row req_to_token of
// width W (flat, row r at [r*W, r*W + W)), symbolic req_pool_indices over {0, 1}, batch lane
// b in {0, 1} and column col < W. The row is Spec::row (the pool row is the load
// req_pool_indices[b]); the model's row is request req_pool_indices[b]. The lane's entry must equal
// the entry of the model's token at (req_pool_indices[b], col). E10 reads row b and is refuted by a
// non-identity row map whose two rows name pages with different v2p entries.
template <class Spec>
Outcome rows_query(Variant v, unsigned timeout_ms) {
  constexpr bool decode = Spec::id == Route::decode_metadata;
  z3::context ctx;
  Env env(ctx, Mode::integer);
  SymPool pool(decode ? 1 : 0);  // decode: the shift lane at ps = 1 (log2 ps = 0)
  const auto [width, b, col] = vars("row_width", "b", "col");
  sym::SymTable r2t("req_to_token", Sym(2) * width);
  sym::SymTable rows("req_pool_indices", Sym(2));
  const Sym row = Spec::row(b, [&rows](const Sym& lane) { return rows(lane, lane == lane); }, v);
  const Sym tok = r2t(ite(row == Sym(0), col, width + col), col == col);
  const Sym out = entry_of<Spec>(tok, pool);
  // The model: the token of request req_pool_indices[b] at column col.
  const Sym want_row = rows(b, b == b);
  const Sym ref_tok = r2t.at(ite(want_row == Sym(0), col, width + col));
  const Sym ref = entry_of<Spec>(ref_tok, pool);
  Query q;
  q.header = route_header(Spec::id, v) + " rows=2 (symbolic req_to_token, req_pool_indices)";
  q.require(width >= Sym(1) && width < Sym(kTwo31));
  q.require(b >= Sym(0) && b < Sym(2) && col >= Sym(0) && col < width);
  q.require(rows.loaded_entries([](const Sym&, const Sym& val) { return val >= Sym(0) && val < Sym(2); }));
  q.require(r2t.loaded_entries([&](const Sym&, const Sym& val) { return admitted_token(pool, val); }));
  q.require(admitted_token(pool, ref_tok));
  pool.constrain(q, true);
  pool.show(q);
  q.show({{"row_width", width}, {"b", b}, {"col", col}, {"req_pool_indices[b]", want_row}, {"row_read", row},
          {"tok", tok}, {"entry", out}, {"spec_entry", ref}});
  q.tables.insert(q.tables.end(), {&pool.v2p, &r2t, &rows});
  q.ensure("loads_in_bounds", pool.v2p.loads_in_bounds() && r2t.loads_in_bounds() && rows.loads_in_bounds());
  q.ensure("row_is_req_pool_index", out == ref);
  return check(q, timeout_ms);
}

// The spec's live columns of a row of KV length len against the route's bound (max_pages,
// max_seq_pages or the table width).
template <class Spec>
Sym spec_columns(const Sym& len, const Sym& ps, int log2_ps, const Sym& bound, Variant v) {
  if constexpr (Spec::id == Route::decode_metadata) {
    return Spec::columns(lanes::decode_length(len, v), ps, log2_ps, bound, v);
  } else if constexpr (Spec::id == Route::flashmla_block_table) {
    return Spec::columns(Spec::pages(len, ps, v), bound);
  } else {
    return Spec::columns(len, ps, bound, v);
  }
}

template <class Spec>
constexpr const char* bound_name() {
  if constexpr (Spec::id == Route::decode_metadata) return "max_seq_pages";
  else if constexpr (Spec::id == Route::flashmla_block_table) return "table_width";
  else return "max_pages";
}

// §4.2-§4.5 live columns: the spec's column count equals the model's ceil(len / ps) bounded by the
// route's bound (max_pages, max_seq_pages, the table width W). ps_value > 0: ps is that power of
// two (decode_metadata's shift), else symbolic.
template <class Spec>
Outcome columns_query(Variant v, std::int64_t ps_value, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const int log2_ps = ceil_log2(ps_value);
  const Sym ps = ps_value > 0 ? Sym(ps_value) : Sym::var("ps");
  const Sym len = Sym::var("seq_len_plus_delta");
  const std::string bname = bound_name<Spec>();
  const Sym bound = Sym::var(bname);
  const Sym cols = spec_columns<Spec>(len, ps, log2_ps, bound, v);
  const Sym want = model_columns(len, ps, bound);
  Query q;
  q.header = route_header(Spec::id, v);
  q.require(ps >= Sym(1) && ps <= Sym(kMaxPs) && len >= Sym(0) && len < Sym(kTwo31));
  q.require(bound >= Sym(1) && bound < Sym(kTwo31));
  q.show({{"ps", ps}, {"seq_len_plus_delta", len}, {bname, bound}, {"columns", cols}, {"model_columns", want}});
  // cols = min(ceil(len / ps), bound), by the defining inequalities of the model's count (a stated
  // division by the symbolic ps makes the refutations slow to find): within the bound, every live
  // page covered up to the bound, and no column past the last live page.
  const z3::expr m = cols.expr(), l = len.expr(), p = ps.expr(), bd = bound.expr();
  q.ensure("columns_within_" + bname, SymBool(m <= bd));
  q.ensure("live_pages_covered", SymBool(m == bd || m * p >= l));
  q.ensure("no_column_past_the_live_pages", SymBool(m == 0 || (m - 1) * p < l));
  return check(q, timeout_ms);
}

template <class Spec>
Def columns_def(std::string name, std::string spec, Variant v, Verdict expected) {
  constexpr bool decode = Spec::id == Route::decode_metadata;
  return make({std::move(name), std::move(spec),
               "1 <= ps <= 2^16, 0 <= seq_len + delta < 2^31, 1 <= bound < 2^31 (max_pages, max_seq_pages or the "
               "table width)",
               "the spec's columns(...) equals the model's min(ceil(len / ps), bound): no column at or past the "
               "bound, every live page below the bound written, no column past the last live page",
               decode ? "every power of two ps = 2^k, k = 0..16 (one query each); lengths, max_seq_pages symbolic"
                      : "ps, lengths, " + std::string(bound_name<Spec>()) + " symbolic",
               expected},
              [v](const RunOptions& o) {
                if (!decode) return columns_query<Spec>(v, 0, o.timeout_ms);
                return sweep(pow2_sweep(), [&](std::int64_t ps) { return columns_query<Spec>(v, ps, o.timeout_ms); });
              });
}

// §4.4 read_table zero_tail. One row of KV length len with column c >= 0 (any column of out, whose
// width is at least max_pages), a live entry value `entry` and the value `stale` the caller left in
// out. The spec: columns [0, live) get the entry, [live, written) the tail fill, the rest keeps
// `stale` (live = Spec::columns, written = Spec::written_columns, fill = Spec::tail_fill). The model:
// the live prefix min(ceil(len / ps), max_pages) gets the entry; with zero_tail [live, max_pages)
// gets the sink 0; everything else is untouched. A padded row [B, out.rows) has no live prefix.
Outcome read_table_tail_query(Variant v, bool zero_tail, const ReadTableTailRule& rule, unsigned timeout_ms) {
  using Spec = RouteSpec<Route::read_table>;
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const auto [ps, len, max_pages, c, entry, stale] = vars("ps", "seq_len_plus_delta", "max_pages", "c", "entry", "stale");
  const Sym live = Spec::columns(len, ps, max_pages, v);
  const Sym written = rule.written(live, max_pages, zero_tail);
  const Sym fill = rule.fill(v);
  const Sym pad_written = rule.written(Sym(0), max_pages, zero_tail);
  const Sym got = ite(c < live, entry, ite(c < written, fill, stale));
  const Sym got_pad = ite(c < pad_written, fill, stale);
  const Sym model_live = model_columns(len, ps, max_pages);
  const SymBool in_tail = zero_tail ? (c < max_pages) : SymBool(false);
  const Sym want = ite(c < model_live, entry, ite(in_tail, Sym(0), stale));
  const Sym want_pad = ite(in_tail, Sym(0), stale);
  Query q;
  q.header = route_header(Route::read_table, v) + " zero_tail=" + (zero_tail ? "1" : "0");
  q.require(ps >= Sym(1) && ps <= Sym(kMaxPs) && len >= Sym(0) && len < Sym(kTwo31));
  q.require(max_pages >= Sym(1) && max_pages < Sym(kTwo31) && c >= Sym(0));
  q.require(entry >= Sym(0) && stale != Sym(0));  // a stale value the sink would overwrite
  q.show({{"ps", ps}, {"seq_len_plus_delta", len}, {"max_pages", max_pages}, {"column", c}, {"stale", stale},
          {"live", live}, {"written", written}, {"value", got}, {"model_value", want}, {"padded_row_value", got_pad}});
  q.ensure("row_as_model", got == want);
  q.ensure("padded_row_as_model", got_pad == want_pad);
  return check(q, timeout_ms);
}

// §4.8 write_loc tail, model::write_loc_lanes: lanes [0, N) get the lane's value, lanes
// [N, out_width) the sink 0. The spec: the tail keeps the caller's value when Spec::keeps_tail
// (B06), else gets Spec::tail_fill (E02: -1).
Outcome write_loc_tail_query(Variant v, const WriteLocTailRule& rule, unsigned timeout_ms) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const auto [i, n, width, lane, stale] = vars("i", "num_locs", "out_width", "lane_value", "stale");
  const Sym tail = rule.keeps(v) ? stale : rule.fill(v);
  const Sym got = ite(i < n, lane, tail);
  const Sym want = ite(i < n, lane, Sym(0));
  Query q;
  q.header = route_header(Route::write_loc, v);
  q.require(n >= Sym(0) && n <= width && width < Sym(kTwo31) && i >= Sym(0) && i < width);
  q.require(stale != Sym(0));  // a stale value the sink would overwrite
  q.show({{"num_locs", n}, {"out_width", width}, {"i", i}, {"stale", stale}, {"out_i", got}});
  q.ensure("tail_is_sink", got == want);
  return check(q, timeout_ms);
}

// §4.7 kv_indices_inplace: after the call, lane i < n of the bound kv_indices holds d(t) of the
// virtual id t it held (model::kernel_id: t < 0 -> 0, else max(v2p[t div ps]*S + t mod ps, 0)). The
// spec: the lane token_translate_lane writes in place unless Spec::rebinds_fresh (B05: the results
// go to a fresh buffer and the bound one keeps t).
Outcome kv_indices_in_place_query(Variant v, unsigned timeout_ms) {
  using Spec = RouteSpec<Route::kv_indices_inplace>;
  z3::context ctx;
  Env env(ctx, Mode::integer);
  SymPool pool(0);
  const Sym t = Sym::var("t");
  const Sym d = lanes::token_translate_lane(t, pool.v2p, pool.ps, pool.stride(), Variant::production);
  const Sym got = Spec::rebinds_fresh(v) ? t : d;
  const Sym page = sym::floor_div(t, pool.ps);
  const Sym raw(pool.v2p.at(page).expr() * pool.stride().expr() + sym::floor_mod(t, pool.ps).expr());
  const Sym want = ite(t < Sym(0), Sym(0), ite(raw < Sym(0), Sym(0), raw));
  Query q;
  q.header = route_header(Route::kv_indices_inplace, v);
  q.require(admitted_token(pool, t));
  pool.constrain(q, true);
  pool.show(q);
  q.show({{"t", t}, {"bound_kv_indices_i", got}, {"kernel_id", want}});
  q.tables.push_back(&pool.v2p);
  q.ensure("loads_in_bounds", pool.v2p.loads_in_bounds());
  q.ensure("bound_buffer_holds_kernel_ids", got == want);
  return check(q, timeout_ms);
}

template <class Spec>
void add_rows(std::vector<Def>& out, bool with_e10) {
  const std::string base = "route." + std::string(Spec::name) + ".rows";
  Def d;
  d.info = {base, "§4.2-§4.5 (batch lane b reads req_to_token row req_pool_indices[b])",
            "two-row req_to_token of symbolic width W, entries admitted tokens; req_pool_indices over {0, 1}; "
            "b in {0, 1}, 0 <= col < W; pool domain, v2p[0] = 0",
            "the lane's entry equals the entry of req_to_token[req_pool_indices[b], col]; loads in bounds",
            Spec::id == Route::decode_metadata ? "ps = 1 (shift lane), M, N, NV, W and all entries symbolic"
                                               : "ps, M, N, NV, W and all entries symbolic",
            Verdict::proved};
  d.run = [](const RunOptions& o) { return rows_query<Spec>(Variant::production, o.timeout_ms); };
  out.push_back(d);
  if (!with_e10) return;
  out.push_back(variant_of(d, base + ".e10", "§6 E10 (attention-gym #189: batch position used as the row)",
                           [](const RunOptions& o) { return rows_query<Spec>(Variant::e10_batch_index_rows, o.timeout_ms); }));
}

}  // namespace

ReadTableTailRule read_table_tail_rule() {
  using Spec = RouteSpec<Route::read_table>;
  return {[](Variant v) { return Spec::tail_fill<Sym>(v); },
          [](const Sym& live, const Sym& max_pages, bool zero_tail) {
            return Spec::written_columns(live, max_pages, zero_tail);
          }};
}

WriteLocTailRule write_loc_tail_rule() {
  using Spec = RouteSpec<Route::write_loc>;
  return {[](Variant v) { return Spec::keeps_tail(v); }, [](Variant v) { return Spec::tail_fill<Sym>(v); }};
}

Outcome read_table_tail_of(const RunOptions& o, Variant v, const ReadTableTailRule& rule) {
  return sweep({0, 1}, [&](std::int64_t zero_tail) { return read_table_tail_query(v, zero_tail != 0, rule, o.timeout_ms); });
}

Outcome write_loc_tail_of(const RunOptions& o, Variant v, const WriteLocTailRule& rule) {
  return write_loc_tail_query(v, rule, o.timeout_ms);
}

void add_row_obligations(std::vector<Def>& out) {
  add_rows<RouteSpec<Route::flashmla_block_table>>(out, true);
  add_rows<RouteSpec<Route::canonical_page_table>>(out, true);
  add_rows<RouteSpec<Route::read_table>>(out, true);
  add_rows<RouteSpec<Route::decode_metadata>>(out, true);
}

void add_read_table_column_obligations(std::vector<Def>& out, bool grid_spill) {
  using Spec = RouteSpec<Route::read_table>;
  using enum Verdict;
  if (grid_spill) {
    Def d = columns_def<Spec>("route.read_table.columns.grid_spill",
                              "§4.3, §4.4, issue 17 (spill bounded by the launch grid)", Variant::grid_spill, refuted);
    d.info.preconditions = std::string("as route.read_table.columns; G = 256");
    out.push_back(std::move(d));
    return;
  }
  out.push_back(columns_def<Spec>("route.read_table.columns", "§4.4 max_pages bound", Variant::production, proved));
  out.push_back(columns_def<Spec>("route.read_table.columns.b10", "§6 B10", Variant::b10_no_max_pages_bound, refuted));
}

void add_spec_rule_obligations(std::vector<Def>& out) {
  using enum Verdict;
  using Canonical = RouteSpec<Route::canonical_page_table>;
  using Flashmla = RouteSpec<Route::flashmla_block_table>;
  using Prefill = RouteSpec<Route::full_prefill_table>;
  using Decode = RouteSpec<Route::decode_metadata>;
  // Live columns of the other page-table routes.
  out.push_back(columns_def<Canonical>("route.canonical_page_table.columns", "§4.3 max_pages bound",
                                       Variant::production, proved));
  out.push_back(columns_def<Canonical>("route.canonical_page_table.columns.e01", "§6 E01 (no column bound)",
                                       Variant::e01_no_column_bound, refuted));
  out.push_back(columns_def<Prefill>("route.full_prefill_table.columns", "§4.11 max_pages bound",
                                     Variant::production, proved));
  out.push_back(columns_def<Flashmla>("route.flashmla_block_table.columns", "§4.2 (never past the table width)",
                                      Variant::production, proved));
  out.push_back(columns_def<Flashmla>("route.flashmla_block_table.columns.e09",
                                      "§6 E09 (PyTorch #160861: floor page count)", Variant::e09_floor_pages, refuted));
  out.push_back(columns_def<Decode>("route.decode_metadata.columns", "§4.5 (live pages by shift, max_seq_pages)",
                                    Variant::production, proved));
  // The decode behaviours inferred from recorded upstream calls (issue 33): each breaks the contract's
  // column count (the counterexample shows where).
  out.push_back(columns_def<Decode>("route.decode_metadata.columns.int32_lengths",
                                    "issue 33 (seq_len.to(int32): the page count wraps past 2^31 - ps)",
                                    Variant::int32_lengths, refuted));
  out.push_back(columns_def<Decode>("route.decode_metadata.columns.full_width",
                                    "issue 33 (the older kernel writes every column below max_seq_pages)",
                                    Variant::full_width_page_table, refuted));
  out.push_back(columns_def<Decode>("route.decode_metadata.columns.era_d_read_table",
                                    "issue 33 (Era D: build_kv_read_table's grid spills past max_seq_pages)",
                                    Variant::era_d_read_table, refuted));
  add_rows<Prefill>(out, false);

  // Tails and untouched lanes.
  {
    const char* pre =
        "1 <= ps <= 2^16, 0 <= seq_len + delta < 2^31, 1 <= max_pages < 2^31, column c >= 0, entry >= 0, the "
        "caller's value stale != 0; zero_tail in {0, 1} (one query each)";
    const char* concl =
        "with Spec::columns, written_columns and tail_fill, a row's column c holds the entry below "
        "min(ceil(len / ps), max_pages), the sink 0 on [live, max_pages) with zero_tail, else stale; a padded row "
        "holds 0 on [0, max_pages) with zero_tail, else stale";
    Def d;
    d.info = {"route.read_table.tail", "§4.4 zero_tail", pre, concl, "ps, lengths, max_pages, c symbolic", proved};
    d.run = [](const RunOptions& o) { return read_table_tail_of(o, Variant::production, read_table_tail_rule()); };
    out.push_back(d);
    out.push_back(variant_of(d, "route.read_table.tail.e02", "§6 E02 (zero_tail fills the slot-map pad -1)",
                             [](const RunOptions& o) {
                               return read_table_tail_of(o, Variant::e02_minus_one_sentinel, read_table_tail_rule());
                             }));
  }
  {
    const char* pre = "0 <= N <= out_width < 2^31, 0 <= i < out_width, the caller's value stale != 0";
    const char* concl =
        "with Spec::keeps_tail and tail_fill, lane i holds the lane value below N and the sink 0 on [N, out_width) "
        "(model::write_loc_lanes)";
    Def d;
    d.info = {"route.write_loc.tail", "§4.8 (the tail [N, out_width) is zeroed)", pre, concl,
              "N, out_width, i symbolic", proved};
    d.run = [](const RunOptions& o) { return write_loc_tail_of(o, Variant::production, write_loc_tail_rule()); };
    out.push_back(d);
    const auto tail_of = [](Variant v) {
      return [v](const RunOptions& o) { return write_loc_tail_of(o, v, write_loc_tail_rule()); };
    };
    out.push_back(variant_of(d, "route.write_loc.tail.b06", "§6 B06 (the capture buffer keeps a stale tail)",
                             tail_of(Variant::b06_stale_tail)));
    out.push_back(variant_of(d, "route.write_loc.tail.e02", "§6 E02 (the tail gets the slot-map pad -1)",
                             tail_of(Variant::e02_minus_one_sentinel)));
  }
  {
    Def d;
    d.info = {"route.kv_indices_inplace.in_place", "§4.7 (kv_indices[:n] <- d(kv_indices[:n]) in place)",
              "pool domain; table entries -1 or a physical page < N, v2p[0] = 0, v2p[NV] = -1; t = -1 or "
              "0 <= t < NV*ps",
              "with Spec::rebinds_fresh, the bound kv_indices lane holds model::kernel_id(t) after the call; loads in "
              "bounds",
              "ps, M, N, NV, t and the loaded entries symbolic; exact integers", proved};
    d.run = [](const RunOptions& o) { return kv_indices_in_place_query(Variant::production, o.timeout_ms); };
    out.push_back(d);
    out.push_back(variant_of(d, "route.kv_indices_inplace.in_place.b05",
                             "§6 B05 (results rebound to a fresh buffer; the bound one keeps virtual ids)",
                             [](const RunOptions& o) { return kv_indices_in_place_query(Variant::b05_rebind_fresh, o.timeout_ms); }));
  }
}

}  // namespace kvaddr::proofs
