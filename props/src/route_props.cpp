// Route-vs-model properties: every production route of translate/ agrees with model/ on every lane
// it writes and leaves every other lane of its output buffers untouched, bit for bit. Output
// buffers are pre-filled with a stale value (capture-stable buffers keep old tails) and carry
// guard rows and columns past the region the route may write.
#include <algorithm>
#include <span>

#include "check.hpp"
#include "gen.hpp"
#include "per_id_props.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::props::detail {
namespace {

namespace g = kvaddr::props::gen;
namespace tr = kvaddr::translate;
using model::VirtualPage;
using model::VirtualToken;

i64 kernel_lane(Expect& e, const std::vector<i64>& v2p, i64 ps, i64 M, i64 t) {
  return model_lane(e, [&] { return model::kernel_id(v2p, ps, M, VirtualToken(t)).value; }).value_or(0);
}
// Page-granular entry of the page holding token `tok`: page 0 for padding, max(v2p[page]*M, 0).
i64 entry_lane(Expect& e, const std::vector<i64>& v2p, i64 ps, i64 M, i64 tok) {
  const i64 page = tok < 0 ? 0 : model::floor_div(tok, ps);
  return model_lane(e, [&] { return model::block_entry(v2p, M, VirtualPage(page)); }).value_or(0);
}
// ---- §4.1 token_translate, §4.9 swa_translate ------------------------------------------------
// Route S on `ids` over the table named `table` with multiplier `mult` (its spec names), with an
// int32 output, or an int64 one with or without the in-place alias.
template <class S>
void out_typed_route(Variant v, const g::Tables& t, i64 ps, i64 M, const std::vector<i64>& ids,
                     std::string_view table, std::string_view mult) {
  ViewSource src;
  src.set(table, cvec(t.v2p));
  src.set("page_size", ps);
  src.set(mult, M);
  if (g::coin()) {
    std::vector<i32> out(ids.size(), static_cast<i32>(*g::stale_value()));
    per_id_case<S>(v, src, ids, out, false);
  } else {
    const bool alias = g::coin();
    std::vector<i64> out(ids.size(), *g::stale_value());
    per_id_case<S>(v, src, ids, out, alias);
  }
}

void prop_token_translate(Variant v) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  // 1 in 6: huge physical page ids (int64 rows past 2^31; int32 outputs must reject them).
  const auto t = g::any<int>(0, 6) == 5 ? *g::wide_tables() : *g::tables();
  const auto ids = *g::tokens(t, ps, true);
  out_typed_route<RouteSpec<Route::token_translate>>(v, t, ps, M, ids, "v2p", "multiplier");
}

void prop_swa_translate(Variant v) {
  const i64 ps = *g::page_size(false);
  // M_swa = 2 * L_swa (dense SWA views) or 1 (strided).
  const i64 M = g::elem<i64>({1, 2, 4, 6, 20});
  const auto t = *g::tables(40, true);  // non-owner: sized by the owner's id space (B12 fix)
  const auto ids = *g::tokens(t, ps, true);
  out_typed_route<RouteSpec<Route::swa_translate>>(v, t, ps, M, ids, "swa_v2p", "swa_multiplier");
}

// Output matrix with guard rows / columns, pre-filled with a stale value.
struct OutMat {
  i64 rows = 0, cols = 0;
  std::vector<i32> data;
  i32& at(i64 r, i64 c) { return data[uz(r * cols + c)]; }
};
OutMat out_mat(i64 rows, i64 cols) {
  OutMat m;
  m.rows = rows + g::any<i64>(0, 3);
  m.cols = std::max<i64>(cols + g::any<i64>(0, 3), 1);
  m.data.assign(uz(m.rows * m.cols), static_cast<i32>(*g::stale_value()));
  return m;
}
Mat<const i32> r2t_view(const g::Batch& b) { return cmat(b.req_to_token, b.rows, b.cols); }

// ---- §4.2 flashmla_block_table ---------------------------------------------------------------
void prop_flashmla(Variant v) {
  const i64 ps = *g::page_size(false);
  // Static path (v2p absent, I10) only for production: bug variants need the v2p table.
  const bool is_static = for_route(Route::flashmla_block_table, v) == Variant::production && g::any<int>(0, 5) == 4;
  const i64 M = is_static ? 1 : *g::multiplier();
  const auto t = *g::tables();
  g::BatchShape shape;
  shape.allow_delta = false;
  shape.allow_padding = !is_static;
  const auto b = *g::batch(t, ps, shape);
  const i64 B = b.batch();
  const bool has_start = g::coin();
  std::vector<i64> start(uz(B), 0), lens(uz(B), 0);
  i64 width = 0;
  for (i64 i = 0; i < B; ++i) {
    const i64 s = has_start ? g::any<i64>(0, b.cols + 1) : 0;
    start[uz(i)] = s;
    lens[uz(i)] = std::min(b.seq_lens[uz(i)], b.cols - s);
    width = std::max(width, model::ceil_div(lens[uz(i)], ps));
  }
  auto out = out_mat(B, width);
  if (g::coin()) std::fill(out.data.begin(), out.data.end(), -1);  // backend prefill
  Expect e;
  auto want = out;
  for (i64 i = 0; i < B; ++i) {
    const i64 n = model::ceil_div(lens[uz(i)], ps);
    for (i64 c = 0; c < n; ++c) {
      const i64 tok = b.tok(b.req_pool_indices[uz(i)], start[uz(i)] + c * ps);
      const i64 entry = is_static ? model::trunc_div(tok, ps) : entry_lane(e, t.v2p, ps, M, tok);
      want.at(i, c) = narrow(e, entry);
    }
  }
  FlashmlaBlockTableArgs a;
  a.req_to_token = r2t_view(b);
  a.req_pool_indices = cvec(b.req_pool_indices);
  a.page_kernel_lens = cvec(lens);
  if (has_start) a.kv_start_idx = cvec(start);
  if (!is_static) a.v2p = cvec(t.v2p);
  a.page_size = ps;
  a.multiplier = M;
  a.kv_indices = {out.data.data(), out.rows, out.cols, out.cols, 1};
  a.variant = for_route(Route::flashmla_block_table, v);
  if (call_route("flashmla_block_table", e, [&] { tr::flashmla_block_table(a); }))
    same("flashmla kv_indices", out.data, want.data, out.cols);
}

// ---- §4.3 canonical_page_table / §4.11 full_prefill_table ------------------------------------
template <class Args, class Route_>
void page_table_case(Variant v, Route r, std::string_view name, Route_&& route, bool b04_shape) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  const auto t = *g::tables();
  g::BatchShape shape;
  shape.allow_delta = false;  // lens may exceed max_pages * ps: columns stop at max_pages
  const auto b = *g::batch(t, ps, shape);
  const i64 B = b.batch();
  auto out = out_mat(B, b.max_pages);
  Expect e;
  auto want = out;
  for (i64 i = 0; i < B; ++i) {
    const i64 n = std::min(model::ceil_div(b.seq_lens[uz(i)], ps), b.max_pages);
    for (i64 c = 0; c < n; ++c) {
      const i64 tok = b.tok(b.req_pool_indices[uz(i)], c * ps);
      want.at(i, c) = narrow(e, entry_lane(e, t.v2p, ps, M, tok));
    }
  }
  (void)b04_shape;
  const auto a = page_table_args<Args>(v, r, b, t.v2p, ps, M, {out.data.data(), out.rows, out.cols, out.cols, 1});
  if (call_route(name, e, [&] { route(a); })) same(std::string(name) + " out", out.data, want.data, out.cols);
}

void prop_canonical(Variant v) {
  page_table_case<CanonicalPageTableArgs>(v, Route::canonical_page_table, "canonical_page_table",
                                          [](const CanonicalPageTableArgs& a) { tr::canonical_page_table(a); }, false);
}
void prop_full_prefill(Variant v) {
  page_table_case<FullPrefillTableArgs>(v, Route::full_prefill_table, "full_prefill_table",
                                        [](const FullPrefillTableArgs& a) { tr::full_prefill_table(a); }, true);
}

// ---- §4.4 read_table -------------------------------------------------------------------------
void prop_read_table(Variant v) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  const auto t = *g::tables();
  g::BatchShape shape;  // lens may exceed max_pages (verify widening near the context limit)
  const auto b = *g::batch(t, ps, shape);
  const i64 B = b.batch();
  const bool zero_tail = g::coin();
  auto out = out_mat(B, b.max_pages);
  Expect e;
  auto want = out;
  for (i64 i = 0; i < B; ++i) {
    const i64 n = std::min(model::ceil_div(b.seq_lens[uz(i)] + b.delta, ps), b.max_pages);
    for (i64 c = 0; c < n; ++c) {
      want.at(i, c) = narrow(e, entry_lane(e, t.v2p, ps, M, b.tok(b.req_pool_indices[uz(i)], c * ps)));
    }
    if (zero_tail) {
      for (i64 c = n; c < b.max_pages; ++c) want.at(i, c) = 0;
    }
  }
  if (zero_tail) {
    for (i64 r = B; r < out.rows; ++r)
      for (i64 c = 0; c < b.max_pages; ++c) want.at(r, c) = 0;
  }
  ReadTableArgs a;
  a.req_to_token = r2t_view(b);
  a.row_ids = cvec(b.req_pool_indices);
  a.seq_lens = cvec(b.seq_lens);
  a.seq_len_delta = b.delta;
  a.max_pages = b.max_pages;
  a.v2p = cvec(t.v2p);
  a.page_size = ps;
  a.multiplier = M;
  a.out = {out.data.data(), out.rows, out.cols, out.cols, 1};
  a.zero_tail = zero_tail;
  a.variant = for_route(Route::read_table, v);
  if (call_route("read_table", e, [&] { tr::read_table(a); })) same("read_table out", out.data, want.data, out.cols);
}

// ---- §4.4 read_stream ------------------------------------------------------------------------
void prop_read_stream(Variant) {
  const i64 ps = *g::page_size(false);
  const i64 B = g::any<i64>(0, 5);
  const i64 K = g::any<i64>(1, 6);
  const bool wide = g::any<int>(0, 6) == 5;
  const i64 hi = wide ? (i64{1} << 32) / std::max<i64>(ps, 1) : 64;
  std::vector<i32> table(uz(B * K));
  for (auto& x : table) x = static_cast<i32>(std::min<i64>(g::any<i64>(0, hi), INT32_MAX));
  const bool has_start = g::coin();
  std::vector<i64> start(uz(B), 0);
  std::vector<i32> indptr(1, 0);
  for (i64 i = 0; i < B; ++i) {
    const i64 s = has_start ? g::any<i64>(0, K * ps) : 0;
    start[uz(i)] = s;
    const i64 len = g::any<i64>(0, K * ps - s + 1);
    indptr.push_back(static_cast<i32>(indptr.back() + len));
  }
  const i64 n = indptr.back();
  std::vector<i32> stream(uz(n + g::any<i64>(0, 4)), static_cast<i32>(*g::stale_value()));
  Expect e;
  auto want = stream;
  for (i64 i = 0; i < B; ++i) {
    for (i64 j = indptr[uz(i)]; j < indptr[uz(i + 1)]; ++j) {
      const i64 pos = start[uz(i)] + (j - indptr[uz(i)]);
      const i64 entry = table[uz(i * K + pos / ps)];
      want[uz(j)] = narrow(e, model::token_from_entry(entry, pos % ps, ps));
    }
  }
  ReadStreamArgs a;
  a.table = cmat(table, B, K);
  a.indptr = cvec(indptr);
  if (has_start) a.kv_start_idx = cvec(start);
  a.page_size = ps;
  a.stream = mvec(stream);
  if (call_route("read_stream", e, [&] { tr::read_stream(a); })) same("read_stream", stream, want);
}

// ---- §4.5 decode_metadata --------------------------------------------------------------------
// KV lengths (seq_len + delta) at the int32 edge of the fa3 kernel's length arithmetic: from 2^31 - ps
// (the last length whose len + ps - 1 fits an int32), 2^31 - ps + 1 (the first that wraps) up to
// 2^31 + 2ps + 8 (from 2^31 on cache_seqlens itself does not fit). Each row of a batch of 1..4 gets one
// with even odds, at least one row does; the other rows keep their drawn small lengths. Only the live
// prefix, capped at max_seq_pages, is read (spec §4.5), so req_to_token stays max_pages * ps wide:
// nothing of 2^31 elements exists.
void draw_int32_edge_lengths(g::Batch& b, i64 ps) {
  if (b.batch() == 0) {
    b.req_pool_indices.push_back(0);
    b.seq_lens.push_back(0);
  }
  const i64 last_fit = (i64{1} << 31) - ps;
  const i64 hot = g::any<i64>(0, b.batch());
  for (i64 i = 0; i < b.batch(); ++i)
    if (i == hot || g::coin()) b.seq_lens[uz(i)] = last_fit + g::any<i64>(0, 3 * ps + 9) - b.delta;
}

// The body of decode_metadata_vs_model; with int32_edge, the lengths of draw_int32_edge_lengths.
void decode_metadata_case(Variant v, bool int32_edge) {
  const i64 ps = *g::page_size(true);
  const i64 M = *g::multiplier();
  const auto t = *g::tables();
  // 0 = Era B remap (v2p), 1 = static, 2 = Era C (src is the canonical table), 3 = Era D (skip).
  const int era = g::elem<int>({0, 1, 2, 3});
  const bool swa = era == 0 && g::any<int>(0, 3) == 2;
  const auto swa_t = swa ? *g::tables() : g::Tables{};
  const i64 M_swa = swa ? g::elem<i64>({1, 2, 4}) : 1;
  g::BatchShape shape;
  if (int32_edge) shape.max_batch = 4;
  auto b = *g::batch(t, ps, shape);
  if (int32_edge) draw_int32_edge_lengths(b, ps);
  const i64 B = b.batch();
  const i64 msp = b.max_pages;
  std::vector<i32> kpt;
  i64 kpt_cols = msp + 1;
  if (era == 2) {
    kpt.resize(uz(B * kpt_cols));
    for (auto& x : kpt) x = static_cast<i32>(g::any<i64>(0, 100));
  }
  const i32 stale = static_cast<i32>(*g::stale_value());
  std::vector<i32> cache(uz(B), stale), cu(uz(B + 1), stale);
  auto pt = out_mat(B, msp);
  auto spt = out_mat(B, msp);
  Expect e;
  auto want_cache = cache;
  auto want_cu = cu;
  auto want_pt = pt;
  auto want_spt = spt;
  i64 sum = 0;
  if (B > 0) want_cu[0] = 0;  // an empty batch launches nothing: cu_seqlens_k[0] keeps its old value
  auto shift = [&](i64 x) { return model::floor_div(x, ps); };  // arithmetic shift by log2(ps)
  for (i64 i = 0; i < B; ++i) {
    const i64 len = b.seq_lens[uz(i)] + b.delta;
    want_cache[uz(i)] = narrow(e, len);
    sum += len;
    want_cu[uz(i + 1)] = narrow(e, sum);
    const i64 live = std::min(model::ceil_div(len, ps), msp);
    for (i64 c = 0; c < live; ++c) {
      const i64 page_index = b.tok(b.req_pool_indices[uz(i)], c * ps);
      if (era == 0) {
        want_pt.at(i, c) = narrow(e, entry_lane(e, t.v2p, ps, M, page_index));
        if (swa) want_spt.at(i, c) = narrow(e, entry_lane(e, swa_t.v2p, ps, M_swa, page_index));
      } else if (era == 1) {
        want_pt.at(i, c) = narrow(e, shift(page_index));
      } else if (era == 2) {
        want_pt.at(i, c) = kpt[uz(i * kpt_cols + c)];
      }
    }
  }
  DecodeMetadataArgs a = decode_batch(cvec(b.seq_lens), r2t_view(b), cvec(b.req_pool_indices), msp, ps);
  a.seq_len_delta = b.delta;
  if (era == 0) {
    a.v2p = cvec(t.v2p);
    a.multiplier = M;
  }
  if (era == 2) a.kernel_page_table = cmat(kpt, B, kpt_cols);
  a.skip_page_table = era == 3;
  set_decode_outputs(a, mvec(cache), mvec(cu), {pt.data.data(), pt.rows, pt.cols, pt.cols, 1});
  if (swa) {
    a.swa_v2p = cvec(swa_t.v2p);
    a.swa_multiplier = M_swa;
    a.swa_page_table = {spt.data.data(), spt.rows, spt.cols, spt.cols, 1};
  }
  a.variant = for_route(Route::decode_metadata, v);
  if (call_route("decode_metadata", e, [&] { tr::decode_metadata(a); })) {
    same("cache_seqlens", cache, want_cache);
    same("cu_seqlens_k", cu, want_cu);
    same("page_table", pt.data, want_pt.data, pt.cols);
    same("swa_page_table", spt.data, want_spt.data, spt.cols);
  }
}

// ---- §4.6 eager_funnel -----------------------------------------------------------------------
void prop_eager_funnel(Variant v) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  const auto t = *g::tables();
  const i64 rows = g::any<i64>(1, 4);
  const i64 cols = g::any<i64>(1, 5);
  const auto table = *rc::gen::container<std::vector<i64>>(uz(rows * cols), g::token(t, ps, true));
  std::vector<i64> out(table.size(), *g::stale_value());
  Expect e;
  std::vector<i64> want(table.size());
  for (std::size_t i = 0; i < table.size(); ++i) want[i] = kernel_lane(e, t.v2p, ps, M, table[i]) / ps;
  auto a = eager_funnel_args(v, table, rows, cols, t.v2p, ps, M, out);
  if (call_route("eager_funnel", e, [&] { tr::eager_funnel(a); })) same("eager_funnel out", out, want, cols);
}

// ---- §4.7 kv_indices_inplace -----------------------------------------------------------------
void prop_kv_indices(Variant v) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  const auto t = *g::tables();
  const auto ids = *g::tokens(t, ps, true);
  const i64 n = static_cast<i64>(ids.size());
  const i64 B = g::any<i64>(0, 4);
  std::vector<i32> indptr(uz(B + 1), 0);
  for (i64 i = 1; i < B; ++i) indptr[uz(i)] = static_cast<i32>(g::any<i64>(indptr[uz(i - 1)], n + 1));
  if (B > 0) indptr[uz(B)] = static_cast<i32>(n);
  const i64 used = B > 0 ? n : 0;
  const i64 tail = g::any<i64>(0, 4);
  std::vector<i32> src32;
  for (i64 x : ids) src32.push_back(static_cast<i32>(x));
  // Tail: stale ids outside any table (must never be translated).
  std::vector<i32> buf = src32;
  for (i64 i = 0; i < tail; ++i) buf.push_back(static_cast<i32>(g::elem<i64>({1 << 30, -7, 123456789})));
  const bool separate_src = g::coin();
  if (separate_src) {
    for (i64 i = 0; i < used; ++i) buf[uz(i)] = static_cast<i32>(*g::stale_value());
  }
  Expect e;
  auto want = buf;
  for (i64 i = 0; i < used; ++i) want[uz(i)] = narrow(e, kernel_lane(e, t.v2p, ps, M, ids[uz(i)]));
  KvIndicesInplaceArgs a;
  a.kv_indices = mvec(buf);
  a.kv_indptr = cvec(indptr);
  a.batch_size = B;
  if (separate_src) a.src = cvec(src32);
  a.v2p = cvec(t.v2p);
  a.page_size = ps;
  a.multiplier = M;
  a.variant = for_route(Route::kv_indices_inplace, v);
  if (call_route("kv_indices_inplace", e, [&] { tr::kv_indices_inplace(a); })) same("kv_indices", buf, want);
}

// ---- §4.8 write_loc --------------------------------------------------------------------------
std::vector<i64> widen(const std::vector<i64>& toks, i64 dcp) {
  std::vector<i64> out;
  for (i64 x : toks) out.push_back(x < 0 ? -1 : x * dcp + g::any<i64>(0, dcp));
  return out;
}

// unpinned (§7 Q2, §2.5): v2p[0] names a live physical page (a grow-down pool), and padded write
// locs 0 are mixed in; loc = 0 must still give 0 without loading v2p[0] (keep = loc > 0).
void write_loc_case(Variant v, bool unpinned) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  auto t = g::any<int>(0, 6) == 5 ? *g::wide_tables() : *g::tables();
  const i64 dcp = g::elem<i64>({1, 2, 3, 4, 8, 14, 16});
  const i64 rank = g::any<i64>(0, dcp);
  auto loc = widen(*g::tokens(t, ps, true), dcp);
  if (unpinned) {
    t.v2p[0] = g::any<i64>(1, std::max<i64>(t.num_pages, 2));
    const i64 zeros = g::any<i64>(1, 4);
    for (i64 z = 0; z < zeros; ++z)
      loc.insert(loc.begin() + g::any<i64>(0, static_cast<i64>(loc.size()) + 1), 0);
  }
  const i64 width = static_cast<i64>(loc.size()) + g::any<i64>(0, 4);
  std::vector<i64> out(uz(width), *g::stale_value());
  Expect e;
  std::vector<i64> want(uz(width), 0);
  for (std::size_t i = 0; i < loc.size(); ++i) {
    want[i] = model_lane(e, [&] {
                return model::write_loc(t.v2p, ps, M, dcp, rank, model::WidenedWriteLoc(loc[i])).value;
              }).value_or(0);
  }
  auto a = write_loc_args(v, loc, t.v2p, ps, M, dcp, rank, out);
  if (call_route("write_loc", e, [&] { tr::write_loc(a); })) same("write_loc out", out, want);
}

void prop_write_loc(Variant v) { write_loc_case(v, false); }
void prop_write_loc_unpinned(Variant v) { write_loc_case(v, true); }

// ---- §4.10 mamba_translate -------------------------------------------------------------------
void prop_mamba(Variant v) {
  const auto t = *g::tables(40, false);
  const bool clamp = g::coin();
  // Mamba slot ids: live, tombstoned, sentinel; padding ids are excluded (spec §7 Q3: no padding
  // id may reach mamba_translate; see tests/regression for the padding behaviour).
  std::vector<i64> slots;
  for (i64 x : *g::tokens(t, 1, true)) slots.push_back(x < 0 ? 0 : x);
  std::vector<i32> out(slots.size(), static_cast<i32>(*g::stale_value()));
  ViewSource src;
  src.set("v2p", cvec(t.v2p));
  src.set("clamp", clamp);
  per_id_case<RouteSpec<Route::mamba_translate>>(v, src, slots, out, false);
}

// ---- §4.12 dcp_read_translate ----------------------------------------------------------------
void prop_dcp_read(Variant v) {
  const i64 ps = *g::page_size(false);
  const i64 M = *g::multiplier();
  const auto t = *g::tables();
  const i64 dcp = g::elem<i64>({1, 2, 3, 4, 8, 14, 16});
  const auto ids = widen(*g::tokens(t, ps, true), dcp);
  std::vector<i64> out(ids.size(), *g::stale_value());
  ViewSource src;
  src.set("v2p", cvec(t.v2p));
  src.set("page_size", ps);
  src.set("multiplier", M);
  src.set("dcp_size", dcp);
  per_id_case<RouteSpec<Route::dcp_read_translate>>(v, src, ids, out, g::coin());
}

// ---- §4.13 transfer_ids + envelope moves ------------------------------------------------------
void prop_transfer(Variant v) {
  const i64 ps = *g::page_size(false);
  const auto t = *g::tables();
  const auto ids = *g::tokens(t, ps, true);
  std::vector<i64> out(ids.size(), *g::stale_value());
  ViewSource src;
  src.set("v2p", cvec(t.v2p));
  src.set("page_size", ps);
  per_id_case<RouteSpec<Route::transfer_ids>>(v, src, ids, out, g::coin());

  // move_kv_cache: page-major runs of ps physical tokens -> whole-envelope page moves.
  const i64 runs = g::any<i64>(0, 5);
  std::vector<i64> dst_tok, src_tok, dst_pages(uz(runs), -7), src_pages(uz(runs), -7);
  std::vector<i64> want_dst, want_src;
  for (i64 r = 0; r < runs; ++r) {
    const i64 dp = g::any<i64>(0, t.num_pages);
    const i64 sp = g::any<i64>(0, t.num_pages);
    want_dst.push_back(dp);
    want_src.push_back(sp);
    for (i64 o = 0; o < ps; ++o) {
      dst_tok.push_back(dp * ps + o);
      src_tok.push_back(sp * ps + o);
    }
  }
  EnvelopeMoveArgs m;
  m.dst_tokens = cvec(dst_tok);
  m.src_tokens = cvec(src_tok);
  m.page_size = ps;
  m.dst_pages = mvec(dst_pages);
  m.src_pages = mvec(src_pages);
  if (call_route("envelope_moves", Expect{}, [&] { tr::envelope_moves(m); })) {
    same("envelope dst_pages", dst_pages, want_dst);
    same("envelope src_pages", src_pages, want_src);
  }
}

}  // namespace

void register_route_properties(std::vector<PropertyDef>& out) {
  using V = Variant;
  using R = Route;
  out.push_back({{"token_translate_vs_model", "§4.1 every lane = model kernel_id (int32/int64 out, aliasing, OOB ids rejected)",
                  {V::b17_doc_formula, V::e03_int32_offset}, {R::token_translate}}, prop_token_translate});
  out.push_back({{"flashmla_block_table_vs_model", "§4.2 live columns = max(v2p[page]*M, 0), static I10, -1/stale tail untouched",
                  {V::era_b_unclamped, V::b09_no_padding_guard, V::e09_floor_pages, V::e10_batch_index_rows}, {R::flashmla_block_table}}, prop_flashmla});
  out.push_back({{"canonical_page_table_vs_model", "§4.3 live prefix = page entry, prefix-only",
                  {V::b09_no_padding_guard, V::e01_no_column_bound, V::e02_minus_one_sentinel, V::e10_batch_index_rows}, {R::canonical_page_table}}, prop_canonical});
  out.push_back({{"read_table_vs_model", "§4.4 columns < min(ceil((len+delta)/ps), max_pages), zero_tail, guard rows",
                  {V::b10_no_max_pages_bound, V::b09_no_padding_guard, V::e01_no_column_bound, V::e02_minus_one_sentinel,
                   V::e09_floor_pages, V::e10_batch_index_rows}, {R::read_table}}, prop_read_table});
  out.push_back({{"read_stream_vs_model", "§4.4 stream lane = entry*ps + pos%ps, tail untouched", {}, {}}, prop_read_stream});
  out.push_back({{"decode_metadata_vs_model", "§4.5 cache_seqlens, cu_seqlens_k, Era B/C/D/static page_table, SWA",
                  {V::era_b_unclamped, V::b09_no_padding_guard, V::e10_batch_index_rows}, {R::decode_metadata}},
                 [](Variant v) { decode_metadata_case(v, false); }});
  out.push_back({{"decode_metadata_int32_lengths", "§4.5 at KV lengths 2^31 - ps .. 2^31 + 2ps + 8: every page of "
                  "the capped live prefix written, or Overflow (no int32 length arithmetic)",
                  {V::int32_lengths}, {R::decode_metadata}},
                 [](Variant v) { decode_metadata_case(v, true); }});
  out.push_back({{"eager_funnel_vs_model", "§4.6 rank-2 table -> d(tok) div ps", {V::b02_rank2_index_select}, {R::eager_funnel}},
                 prop_eager_funnel});
  out.push_back({{"kv_indices_inplace_vs_model", "§4.7 [:n] translated in place (src or aliased), tail untouched",
                  {V::b05_rebind_fresh}, {R::kv_indices_inplace}}, prop_kv_indices});
  out.push_back({{"write_loc_vs_model", "§4.8 keep lanes = d(loc div dcp), others and [N, width) = 0",
                  {V::b06_stale_tail, V::e02_minus_one_sentinel, V::e03_int32_offset}, {R::write_loc}}, prop_write_loc});
  out.push_back({{"write_loc_loc0_unpinned", "§2.5, §7 Q2 loc = 0 -> 0 without loading v2p[0], with v2p[0] a live page",
                  {V::b06_stale_tail, V::e02_minus_one_sentinel}, {R::write_loc}}, prop_write_loc_unpinned});
  out.push_back({{"swa_translate_vs_model", "§4.9 swa_id with tombstone clamp (int32/int64 out)", {V::b11_swa_no_clamp}, {R::swa_translate}},
                 prop_swa_translate});
  out.push_back({{"mamba_translate_vs_model", "§4.10 int32(v2p[v]) raw gather / clamp", {}, {R::mamba_translate}}, prop_mamba});
  out.push_back({{"full_prefill_table_vs_model", "§4.11 rebuilt from the live v2p", {V::b04_prefill_no_remap}, {R::full_prefill_table}},
                 prop_full_prefill});
  out.push_back({{"dcp_read_translate_vs_model", "§4.12 d(w div dcp_size), padding -> 0", {V::b14_dcp_untranslated}, {R::dcp_read_translate}},
                 prop_dcp_read});
  out.push_back({{"transfer_ids_vs_model", "§4.13 phys(t) and envelope run pages", {V::b16_virtual_as_physical}, {R::transfer_ids}},
                 prop_transfer});
  // A per-id route of the list without a property above gets the one of its field list.
  for_each_route([&](auto spec) {
    using S = decltype(spec);
    if constexpr (is_per_id_route<S>) {
      const bool has_own = std::any_of(out.begin(), out.end(), [](const PropertyDef& d) {
        return std::find(d.info.routes.begin(), d.info.routes.end(), S::id) != d.info.routes.end();
      });
      if (!has_own) out.push_back(per_id_property<S>());
    }
  });
}

}  // namespace kvaddr::props::detail
