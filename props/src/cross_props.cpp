// Cross-route agreements (spec §2.3, I7, §4.2, §4.5, §4.6, §4.7, §4.8, §4.4) and the int32
// no-silent-wrap property. These compare routes with each other, not with the model, so a bug
// shared by the model and one route is still caught by the disagreement with another route.
#include <algorithm>

#include "check.hpp"
#include "gen.hpp"
#include "table_args.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::props::detail {
namespace {

namespace g = kvaddr::props::gen;
namespace tr = kvaddr::translate;

// Runs a route that must succeed on the generated input (in-table ids, small values).
template <class F>
void must_run(std::string_view name, F&& f) {
  (void)call_route(name, Expect{}, std::forward<F>(f));
}

std::vector<i64> token_translate64(Variant v, const std::vector<i64>& ids, const std::vector<i64>& v2p, i64 ps, i64 M) {
  std::vector<i64> out(ids.size(), -99);
  TokenTranslateArgs<i64> a;
  a.ids = cvec(ids);
  a.v2p = cvec(v2p);
  a.page_size = ps;
  a.multiplier = M;
  a.out = mvec(out);
  a.variant = for_route(Route::token_translate, v);
  must_run("token_translate", [&] { tr::token_translate(a); });
  return out;
}

struct Table {
  i64 rows = 0, cols = 0;
  std::vector<i32> data;
  i32 at(i64 r, i64 c) const { return data[uz(r * cols + c)]; }
  Mat<i32> view() { return {data.data(), rows, cols, cols, 1}; }
};
Table make_table(i64 rows, i64 cols, i32 fill) {
  Table t;
  t.rows = rows;
  t.cols = std::max<i64>(cols, 1);
  t.data.assign(uz(t.rows * t.cols), fill);
  return t;
}

// The batch's rows as a page-table route reads them, with the given lengths.
TableBatch table_batch(const g::Batch& b, const std::vector<i64>& lens) {
  return {cmat(b.req_to_token, b.rows, b.cols), cvec(b.req_pool_indices), cvec(lens), b.max_pages};
}

// Runs page-table route Spec on the batch into a fresh table (`fill` where the route writes nothing);
// `src` holds the route's other fields.
template <class Spec>
Table run_table(Variant v, const g::Batch& b, const std::vector<i64>& lens, const std::vector<i64>& v2p, i64 M,
                i64 cols, i32 fill, ViewSource src = {}) {
  Table t = make_table(b.batch(), cols, fill);
  const auto a = table_args<Spec>(v, table_batch(b, lens), v2p, b.ps, M, t.view(), std::move(src));
  must_run(Spec::name, [&] { Spec::run(a); });
  return t;
}

Table canonical(Variant v, const g::Batch& b, const std::vector<i64>& v2p, i64 M) {
  return run_table<RouteSpec<Route::canonical_page_table>>(v, b, b.seq_lens, v2p, M, b.max_pages, -77);
}

Table flashmla(Variant v, const g::Batch& b, const std::vector<i64>& lens, const std::vector<i64>& v2p, i64 M) {
  i64 w = 1;
  for (i64 l : lens) w = std::max(w, model::ceil_div(l, b.ps));
  return run_table<RouteSpec<Route::flashmla_block_table>>(v, b, lens, v2p, M, w, -1);
}

Table read_table(Variant v, const g::Batch& b, i64 delta, const std::vector<i64>& v2p, i64 M) {
  ViewSource src;
  src.set("seq_len_delta", delta);
  return run_table<RouteSpec<Route::read_table>>(v, b, b.seq_lens, v2p, M, b.max_pages, -77, std::move(src));
}

std::vector<i64> lens_plus(const g::Batch& b, i64 delta) {
  std::vector<i64> l = b.seq_lens;
  for (auto& x : l) x += delta;
  return l;
}

// The inputs of a batch agreement, drawn in this order: page size (powers of two only when asked),
// multiplier, tables, and a batch of the given shape over them.
struct BatchInput {
  i64 ps = 0, M = 0;
  g::Tables t;
  g::Batch b;
};
BatchInput draw_batch(bool pow2_ps, g::BatchShape shape) {
  BatchInput in;
  in.ps = *g::page_size(pow2_ps);
  in.M = *g::multiplier();
  in.t = *g::tables();
  in.b = *g::batch(in.t, in.ps, shape);
  return in;
}

void check_entry(std::string_view what, i64 b, i64 c, i64 got, i64 want) {
  if (got != want) {
    RC_FAIL(std::string(what) + " row " + std::to_string(b) + " column " + std::to_string(c) + ": " +
            std::to_string(got) + " != " + std::to_string(want));
  }
}

// X1 (§2.3, I1, I7): every live token whose page is bound reads entry*ps + o through each
// page-granular route, and token_translate gives the same row.
void prop_token_vs_page(Variant v) {
  const auto [ps, M, t, b] = draw_batch(false, {.lens_within_max_pages = true, .allow_delta = false});
  const auto can = canonical(v, b, t.v2p, M);
  const auto fm = flashmla(v, b, b.seq_lens, t.v2p, M);
  const auto rt = read_table(v, b, 0, t.v2p, M);
  for (i64 i = 0; i < b.batch(); ++i) {
    const i64 row = b.req_pool_indices[uz(i)];
    std::vector<i64> toks;
    std::vector<std::pair<i64, i64>> where;
    for (i64 j = 0; j < b.seq_lens[uz(i)]; ++j) {
      const i64 start = b.tok(row, (j / ps) * ps);
      const i64 tok = b.tok(row, j);
      if (start < 0 || tok < 0 || t.v2p[uz(start / ps)] < 0) continue;  // padding / tombstoned page
      toks.push_back(tok);
      where.emplace_back(j / ps, j % ps);
    }
    const auto d = token_translate64(v, toks, t.v2p, ps, M);
    for (std::size_t k = 0; k < toks.size(); ++k) {
      const auto [c, o] = where[k];
      check_entry("canonical*ps+o vs token_translate", i, c, can.at(i, c) * ps + o, d[k]);
      check_entry("flashmla*ps+o vs token_translate", i, c, fm.at(i, c) * ps + o, d[k]);
      check_entry("read_table*ps+o vs token_translate", i, c, rt.at(i, c) * ps + o, d[k]);
    }
  }
}

// X2 (§4.5, §5.2 "fa3 table = flashmla table on the live prefix"): decode_metadata (Era B remap)
// = canonical = flashmla = read_table on every live column, tombstones and padding included.
void prop_decode_vs_tables(Variant v) {
  const auto [ps, M, t, b] = draw_batch(true, {.lens_within_max_pages = true});
  const i64 B = b.batch();
  const i64 msp = b.max_pages;
  std::vector<i32> cache(uz(B)), cu(uz(B + 1));
  Table pt = make_table(B, msp, -55);
  DecodeMetadataArgs a = decode_batch(cvec(b.seq_lens), cmat(b.req_to_token, b.rows, b.cols), cvec(b.req_pool_indices),
                                      msp, ps);
  a.seq_len_delta = b.delta;
  a.v2p = cvec(t.v2p);
  a.multiplier = M;
  set_decode_outputs(a, mvec(cache), mvec(cu), pt.view());
  a.variant = for_route(Route::decode_metadata, v);
  must_run("decode_metadata", [&] { tr::decode_metadata(a); });
  g::Batch wide = b;
  wide.seq_lens = lens_plus(b, b.delta);
  // canonical and read_table are the clamped references (they accept era_b_unclamped too).
  const auto can = canonical(Variant::production, wide, t.v2p, M);
  const auto fm = flashmla(v, b, wide.seq_lens, t.v2p, M);
  const auto rt = read_table(Variant::production, b, b.delta, t.v2p, M);
  for (i64 i = 0; i < B; ++i) {
    check_entry("cache_seqlens vs seq_lens + delta", i, 0, cache[uz(i)], wide.seq_lens[uz(i)]);
    const i64 live = std::min(model::ceil_div(wide.seq_lens[uz(i)], ps), msp);
    for (i64 c = 0; c < live; ++c) {
      check_entry("decode page_table vs canonical", i, c, pt.at(i, c), can.at(i, c));
      check_entry("flashmla vs canonical", i, c, fm.at(i, c), can.at(i, c));
      check_entry("read_table vs canonical", i, c, rt.at(i, c), can.at(i, c));
    }
  }
}

// X3 (§4.6): eager_funnel over the page-start token table = canonical on the live prefix; 0 for
// tombstones and padding columns.
void prop_funnel_vs_canonical(Variant v) {
  const auto [ps, M, t, b] = draw_batch(false, {.lens_within_max_pages = true, .allow_delta = false, .max_batch = 4});
  const i64 B = std::max<i64>(b.batch(), 1);
  const i64 mp = b.max_pages;
  std::vector<i64> starts(uz(B * mp), -1);
  for (i64 i = 0; i < b.batch(); ++i) {
    const i64 live = model::ceil_div(b.seq_lens[uz(i)], ps);
    for (i64 c = 0; c < live; ++c) starts[uz(i * mp + c)] = b.tok(b.req_pool_indices[uz(i)], c * ps);
  }
  std::vector<i64> out(starts.size(), -55);
  auto a = eager_funnel_args(v, starts, B, mp, t.v2p, ps, M, out);
  must_run("eager_funnel", [&] { tr::eager_funnel(a); });
  const auto can = canonical(v, b, t.v2p, M);
  for (i64 i = 0; i < b.batch(); ++i) {
    const i64 live = model::ceil_div(b.seq_lens[uz(i)], ps);
    for (i64 c = 0; c < mp; ++c) {
      check_entry("eager_funnel vs canonical", i, c, out[uz(i * mp + c)], c < live ? can.at(i, c) : 0);
    }
  }
}

// X4 (§4.8, §7 Q9): owned lanes of write_loc = token_translate(loc div dcp); every positive loc
// is owned by exactly one rank; padded lanes and [N, width) are the sink 0.
void prop_write_loc_vs_token(Variant v) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  const auto t = *g::tables();
  const i64 dcp = g::elem<i64>({1, 2, 3, 4});
  const auto toks = *g::tokens(t, ps, false);
  std::vector<i64> loc, collapsed;
  for (i64 x : toks) {
    const i64 w = x < 0 ? -1 : x * dcp + g::any<i64>(0, dcp);
    loc.push_back(w);
    collapsed.push_back(w < 0 ? -1 : w / dcp);
  }
  const auto d = token_translate64(v, collapsed, t.v2p, ps, M);
  const i64 width = static_cast<i64>(loc.size()) + g::any<i64>(0, 3);
  std::vector<int> owners(loc.size(), 0);
  for (i64 r = 0; r < dcp; ++r) {
    std::vector<i64> out(uz(width), 4242);
    auto a = write_loc_args(v, loc, t.v2p, ps, M, dcp, r, out);
    must_run("write_loc", [&] { tr::write_loc(a); });
    for (std::size_t i = 0; i < loc.size(); ++i) {
      const bool owned = loc[i] > 0 && loc[i] % dcp == r;
      owners[i] += owned ? 1 : 0;
      check_entry(owned ? "write_loc owned lane vs token_translate" : "write_loc non-owned/padded lane vs sink",
                  r, static_cast<i64>(i), out[i], owned ? d[i] : 0);
    }
    for (i64 i = static_cast<i64>(loc.size()); i < width; ++i) check_entry("write_loc tail vs sink", r, i, out[uz(i)], 0);
  }
  for (std::size_t i = 0; i < loc.size(); ++i) {
    if (loc[i] > 0) check_entry("owners of a positive write loc", 0, static_cast<i64>(i), owners[i], 1);
  }
}

// X5 (§4.4): the packed stream over a built read table has lane = entry*ps + pos%ps, and on live
// bound pages that is token_translate of the token at pos.
void prop_stream_vs_table(Variant v) {
  const auto [ps, M, t, b] = draw_batch(false, {.lens_within_max_pages = true, .allow_delta = false});
  const i64 B = b.batch();
  const auto rt = read_table(v, b, 0, t.v2p, M);
  std::vector<i32> indptr(1, 0);
  for (i64 i = 0; i < B; ++i) indptr.push_back(static_cast<i32>(indptr.back() + b.seq_lens[uz(i)]));
  std::vector<i32> stream(uz(indptr.back()), -3);
  ReadStreamArgs a;
  a.table = {rt.data.data(), rt.rows, rt.cols, rt.cols, 1};
  a.indptr = cvec(indptr);
  a.page_size = ps;
  a.stream = mvec(stream);
  must_run("read_stream", [&] { tr::read_stream(a); });
  for (i64 i = 0; i < B; ++i) {
    const i64 row = b.req_pool_indices[uz(i)];
    std::vector<i64> toks;
    std::vector<i64> pos_of;
    for (i64 p = 0; p < b.seq_lens[uz(i)]; ++p) {
      const i64 lane = indptr[uz(i)] + p;
      check_entry("stream lane vs entry*ps + pos%ps", i, p, stream[uz(lane)], rt.at(i, p / ps) * ps + p % ps);
      const i64 start = b.tok(row, (p / ps) * ps);
      const i64 tok = b.tok(row, p);
      if (start >= 0 && tok >= 0 && t.v2p[uz(start / ps)] >= 0) {
        toks.push_back(tok);
        pos_of.push_back(p);
      }
    }
    const auto d = token_translate64(v, toks, t.v2p, ps, M);
    for (std::size_t k = 0; k < toks.size(); ++k)
      check_entry("stream lane vs token_translate", i, pos_of[k], stream[uz(indptr[uz(i)] + pos_of[k])], d[k]);
  }
}

// X6 (§4.7): kv_indices_inplace over the CSR of page-start tokens = flashmla block_table*ps on
// live pages (and clamped to the sink on tombstones / padding).
void prop_kv_indices_vs_block_table(Variant v) {
  const auto [ps, M, t, b] = draw_batch(false, {.allow_delta = false});
  const i64 B = b.batch();
  const auto fm = flashmla(v, b, b.seq_lens, t.v2p, M);
  std::vector<i32> indptr(1, 0), kv;
  for (i64 i = 0; i < B; ++i) {
    const i64 n = model::ceil_div(b.seq_lens[uz(i)], ps);
    for (i64 c = 0; c < n; ++c) kv.push_back(b.tok(b.req_pool_indices[uz(i)], c * ps));
    indptr.push_back(static_cast<i32>(kv.size()));
  }
  const std::vector<i32> virt = kv;
  kv.push_back(1 << 30);  // stale tail entry outside any table
  KvIndicesInplaceArgs a;
  a.kv_indices = mvec(kv);
  a.kv_indptr = cvec(indptr);
  a.batch_size = B;
  a.v2p = cvec(t.v2p);
  a.page_size = ps;
  a.multiplier = M;
  a.variant = for_route(Route::kv_indices_inplace, v);
  must_run("kv_indices_inplace", [&] { tr::kv_indices_inplace(a); });
  check_entry("kv_indices stale tail", 0, static_cast<i64>(virt.size()), kv.back(), 1 << 30);
  for (i64 i = 0; i < B; ++i) {
    for (i64 j = indptr[uz(i)]; j < indptr[uz(i + 1)]; ++j) {
      const i64 c = j - indptr[uz(i)];
      check_entry("kv_indices vs flashmla*ps", i, c, kv[uz(j)], i64{fm.at(i, c)} * ps);
    }
  }
}

// X7 (I8, §7 Q6): int32 outputs never wrap silently. Tables with huge physical page ids: every
// int32-producing route either throws Overflow or writes exactly the int64 model value.
// The variant under test reaches the routes that accept it (int32_wrap: token_translate<int32>
// and the four int32 page tables), so a silent wrap of a huge entry is a failure here.
void prop_int32_no_wrap(Variant v) {
  const i64 ps = *g::page_size(true);
  const i64 M = *g::multiplier();
  const auto t = *g::wide_tables();
  const int route = g::any<int>(0, 8);
  Expect e;
  auto entry = [&](i64 tok) -> i64 {
    const i64 page = tok < 0 ? 0 : tok / ps;
    return model_lane(e, [&] { return model::block_entry(t.v2p, M, model::VirtualPage(page)); }).value_or(0);
  };
  auto narrow = [&](i64 x) -> i32 {
    if (!fits32(x)) {
      e.ovf = true;
      return 0;
    }
    return static_cast<i32>(x);
  };
  if (route <= 2) {  // token_translate<int32>, swa_translate<int32>, kv_indices_inplace
    const auto ids = *g::tokens(t, ps, false);
    std::vector<i32> want(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
      want[i] = narrow(model_lane(e, [&] { return model::kernel_id(t.v2p, ps, M, model::VirtualToken(ids[i])).value; })
                           .value_or(0));
    std::vector<i32> out(ids.size(), 0);
    if (route == 0) {
      TokenTranslateArgs<i32> a{cvec(ids), cvec(t.v2p), ps, M, mvec(out), for_route(Route::token_translate, v)};
      if (call_route("token_translate<int32>", e, [&] { tr::token_translate(a); })) same("token_translate<int32>", out, want);
    } else if (route == 1) {
      SwaTranslateArgs<i32> a{cvec(ids), cvec(t.v2p), ps, M, mvec(out), Variant::production};
      if (call_route("swa_translate<int32>", e, [&] { tr::swa_translate(a); })) same("swa_translate<int32>", out, want);
    } else {
      for (std::size_t i = 0; i < ids.size(); ++i) out[i] = static_cast<i32>(ids[i]);
      std::vector<i32> indptr{0, static_cast<i32>(ids.size())};
      KvIndicesInplaceArgs a;
      a.kv_indices = mvec(out);
      a.kv_indptr = cvec(indptr);
      a.batch_size = 1;
      a.v2p = cvec(t.v2p);
      a.page_size = ps;
      a.multiplier = M;
      if (call_route("kv_indices_inplace", e, [&] { tr::kv_indices_inplace(a); })) same("kv_indices_inplace", out, want);
    }
    return;
  }
  if (route == 6) {  // mamba_translate
    std::vector<i64> slots;
    for (i64 x : *g::tokens(t, 1, false)) slots.push_back(std::max<i64>(x, 0));
    std::vector<i32> want(slots.size()), out(slots.size(), 0);
    for (std::size_t i = 0; i < slots.size(); ++i)
      want[i] = narrow(model_lane(e, [&] { return model::mamba_slot(t.v2p, slots[i], false); }).value_or(0));
    MambaTranslateArgs a{cvec(slots), cvec(t.v2p), false, mvec(out)};
    if (call_route("mamba_translate", e, [&] { tr::mamba_translate(a); })) same("mamba_translate", out, want);
    return;
  }
  g::BatchShape shape;
  shape.allow_delta = false;
  shape.lens_within_max_pages = true;
  const auto b = *g::batch(t, ps, shape);
  const i64 B = b.batch();
  Table out = make_table(B, b.max_pages, 0);
  Table want = out;
  for (i64 i = 0; i < B; ++i) {
    const i64 n = std::min(model::ceil_div(b.seq_lens[uz(i)], ps), b.max_pages);
    for (i64 c = 0; c < n; ++c) want.data[uz(i * want.cols + c)] = narrow(entry(b.tok(b.req_pool_indices[uz(i)], c * ps)));
  }
  // A page-table route on the batch into `out`, compared with `want` when it runs.
  const auto table_route = [&](auto spec, std::string_view label) {
    using Spec = decltype(spec);
    const auto a = table_args<Spec>(v, table_batch(b, b.seq_lens), t.v2p, ps, M, out.view());
    if (call_route(Spec::name, e, [&] { Spec::run(a); })) same(label, out.data, want.data);
  };
  if (route == 3) {
    table_route(RouteSpec<Route::canonical_page_table>{}, "canonical");
  } else if (route == 7) {
    table_route(RouteSpec<Route::flashmla_block_table>{}, "flashmla");
  } else if (route == 4) {
    table_route(RouteSpec<Route::read_table>{}, "read_table");
  } else {
    std::vector<i32> cache(uz(B)), cu(uz(B + 1));
    DecodeMetadataArgs a = decode_batch(cvec(b.seq_lens), cmat(b.req_to_token, b.rows, b.cols),
                                        cvec(b.req_pool_indices), b.max_pages, ps);
    a.v2p = cvec(t.v2p);
    a.multiplier = M;
    set_decode_outputs(a, mvec(cache), mvec(cu), out.view());
    a.variant = for_route(Route::decode_metadata, v);
    if (call_route("decode_metadata", e, [&] { tr::decode_metadata(a); })) same("decode page_table", out.data, want.data);
  }
}

// X8 (issue 33): every lane of a per-id launch (token_translate, write_loc) loads and stores its own
// element, also on launches of 2^31 lanes or more, which no host buffer here holds. The lane-to-element
// map the host runner applies to every lane (lanes::launch_lane in run_per_id, routes_per_id.ipp) is
// evaluated at lanes drawn next to 2^31, 2^32, the launch's last lane and anywhere, of launches of
// 2^31 - 256 .. 2^33 lanes: no buffer is allocated, so only the map is checked, not the lane's value
// (which the per-id properties check below 2^31). int32_lane_offsets maps lane 2^31 to element -2^31.
void prop_launch_lanes_in_place(Variant v) {
  constexpr i64 two31 = i64{1} << 31;
  const Route route = g::elem<Route>({Route::token_translate, Route::write_loc});
  const Variant rv = for_route(route, v);
  const i64 n = g::any<i64>(two31 - 256, 4 * two31 + 1);
  const auto near = [&](i64 at) { return std::clamp<i64>(at + g::any<i64>(-4, 5), 0, n - 1); };
  for (const i64 lane : {near(two31), near(2 * two31), near(n - 1), g::any<i64>(0, n)}) {
    const i64 e = lanes::launch_lane(lane, rv);
    if (e != lane) {
      RC_FAIL(std::string(to_string(route)) + ": lane " + std::to_string(lane) + " of a launch of " + std::to_string(n) +
              " lanes stores element " + std::to_string(e) +
              (e < 0 ? " (before the buffer: its own element stays unwritten)" : " (another lane's element)"));
    }
  }
}

}  // namespace

void register_cross_properties(std::vector<PropertyDef>& out) {
  using V = Variant;
  using R = Route;
  out.push_back({{"token_vs_page_entry", "I7: entry*ps + o of canonical / flashmla / read_table = token_translate",
                  {V::b17_doc_formula, V::e09_floor_pages, V::e10_batch_index_rows}, {R::token_translate, R::canonical_page_table, R::flashmla_block_table, R::read_table}}, prop_token_vs_page});
  out.push_back({{"decode_vs_canonical_vs_flashmla", "fa3 decode table = canonical = flashmla = read_table on live prefixes",
                  {V::era_b_unclamped}, {R::decode_metadata, R::flashmla_block_table}}, prop_decode_vs_tables});
  out.push_back({{"eager_funnel_vs_canonical", "eager funnel = canonical on live prefix, 0 past it",
                  {V::b02_rank2_index_select}, {R::eager_funnel}}, prop_funnel_vs_canonical});
  out.push_back({{"write_loc_vs_token_translate", "owned write locs = token_translate(loc div dcp), ownership partition",
                  {V::b06_stale_tail, V::b17_doc_formula}, {R::write_loc, R::token_translate}}, prop_write_loc_vs_token});
  out.push_back({{"read_stream_vs_table", "stream lane = entry*ps + pos%ps = token_translate on live pages", {}, {}},
                 prop_stream_vs_table});
  out.push_back({{"kv_indices_vs_block_table", "in-place kv_indices = flashmla block_table*ps on live pages",
                  {V::b05_rebind_fresh}, {R::kv_indices_inplace}}, prop_kv_indices_vs_block_table});
  out.push_back({{"int32_no_silent_wrap", "int32 outputs: Overflow or the exact int64 value (huge page ids)",
                  {V::int32_wrap},
                  {R::token_translate, R::flashmla_block_table, R::canonical_page_table, R::read_table, R::decode_metadata}},
                 prop_int32_no_wrap});
  out.push_back({{"launch_lanes_in_place", "per-id launches of 2^31 - 256 .. 2^33 lanes: lane i stores element i "
                  "(the runner's lane map at lanes around 2^31 and 2^32)",
                  {V::int32_lane_offsets}, {R::token_translate, R::write_loc}},
                 prop_launch_lanes_in_place});
}

}  // namespace kvaddr::props::detail
