// Invalid and aliased inputs of the page-table routes flashmla_block_table, canonical_page_table,
// full_prefill_table (§4.2, §4.3, §4.11) and decode_metadata (§4.5): the cases, drawn as
// invalid_routes_props.cpp's header describes, over one allocation (invalid_carve.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "invalid_carve.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::props::detail {
namespace {

using namespace carve;
namespace tr = kvaddr::translate;
namespace m = kvaddr::model;

// ---- page tables (§4.2, §4.3, §4.11) --------------------------------------------------------------
enum class TableRoute { flashmla, canonical, full_prefill };

// req_to_token [R, C] of page-consistent rows (token = v * ps + o, v inside the table).
struct R2t {
  Mat<const i32> m;
  i64 rows = 0, cols = 0;
};
R2t draw_r2t(Pool& pool, i64 nrows_v2p, i64 ps, i64 rows, i64 cols) {
  Mat<i32> w = pool.mat<i32>(rows, cols, cols, 1, 0);
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; c += ps) {
      const i64 v = g::any<i64>(0, nrows_v2p);
      for (i64 o = 0; o < ps && c + o < cols; ++o) w.data[r * cols + c + o] = static_cast<i32>(v * ps + o);
    }
  return {{w.data, rows, cols, cols, 1}, rows, cols};
}

void page_table_route(TableRoute route) {
  const std::string_view name = route == TableRoute::flashmla    ? "flashmla_block_table"
                                : route == TableRoute::canonical ? "canonical_page_table"
                                                                 : "full_prefill_table";
  const std::string out_name = route == TableRoute::flashmla ? "kv_indices" : "out";
  const std::string lens_name = route == TableRoute::flashmla ? "page_kernel_lens" : "seq_lens";
  Pool pool;
  const auto [ps, mult, v2p_values, nrows] = draw_table_pool({1, 2, 3});
  const i64 max_pages = g::any<i64>(1, 4);
  const i64 r_rows = g::any<i64>(1, 4);
  const i64 r_cols = max_pages * ps + g::any<i64>(0, 2);
  const i64 B = g::any<i64>(0, 4);
  std::vector<i64> rpi(uz(B)), lens(uz(B)), starts(uz(B), 0);
  const bool with_start = route == TableRoute::flashmla && g::coin();
  for (i64 b = 0; b < B; ++b) {
    rpi[uz(b)] = g::any<i64>(0, r_rows);
    if (with_start) starts[uz(b)] = g::any<i64>(0, 2) * ps;
    lens[uz(b)] = g::any<i64>(0, r_cols - starts[uz(b)] + 1);
  }
  const R2t r2t = draw_r2t(pool, nrows, ps, r_rows, r_cols);
  Vec<const i64> v_rpi = pool.vec<const i64>(rpi);
  Vec<const i64> v_lens = pool.vec<const i64>(lens);
  Vec<const i64> v_start = with_start ? pool.vec<const i64>(starts) : Vec<const i64>{};
  Vec<const i64> v2p = pool.vec<const i64>(v2p_values);
  maybe_parent(pool, v_rpi);
  maybe_parent(pool, v2p);
  // flashmla's width is its own column count (the caller's W); the others ask for max_pages.
  const i64 out_rows = B + g::any<i64>(0, 2);
  const i64 out_cols = max_pages + g::any<i64>(0, 2);
  const bool packed = route == TableRoute::canonical || g::coin();
  const i64 cs = packed ? 1 : 2;
  const i64 rs = (out_cols - 1) * cs + 1 + g::any<i64>(0, 2);  // rows touching, or a gap
  Mat<i32> out = pool.mat<i32>(out_rows, out_cols, rs, cs, -7);
  i64 s_ps = ps, s_m = mult, s_max = max_pages;
  Mat<const i32> s_r2t = r2t.m;
  Verdict want = accept("touching buffers");
  const Draw d = draw_fault(17, 6);
  const bool flashmla = route == TableRoute::flashmla;
  // flashmla's v2p may be absent (the static kernel); kv_start_idx is flashmla's alone.
  const Views views{rules<Rules::mat>(s_r2t, "req_to_token"),
                    rules<Rules::vec>(v_rpi, "req_pool_indices"),
                    rules<Rules::vec>(v_lens, lens_name),
                    flashmla ? rules<Rules::vec>(v2p, "v2p") : rules<Rules::required>(v2p, "v2p"),
                    rules<Rules::out_extent>(out, out_name),
                    flashmla ? rules<Rules::vec>(v_start, "kv_start_idx") : Breaker{}};
  views.apply(d, want);
  switch (d.c) {
    case 0: s_ps = g::elem<i64>({0, -1}); want = reject(kIA, "page_size", "page_size < 1"); break;
    case 1: s_m = 0; want = reject(kIA, "multiplier", "multiplier 0"); break;
    case 2:
      if (route == TableRoute::flashmla) break;
      s_max = -1;
      want = reject(kIA, "max_pages", "max_pages -1");
      break;
    case 3:
    case 4:
    case 5:
    case 6:
    case 7: want = views.any_rule(d.c - 3); break;
    case 8:
      if (out_rows < 2 || out_cols < 2) break;
      want = break_out_mat(out, out_name);
      break;
    case 9:
      if (B == 0) break;
      want = g::coin() ? one_short(v_lens.size, B, lens_name, lens_name + " one short")
                          : one_short(out.rows, B, out_name, "out one row short");
      break;
    case 10:
      out.rows = B;
      if (route != TableRoute::flashmla) out.cols = max_pages;
      want = accept("out exactly B x max_pages");
      break;
    case 11:
      if (route == TableRoute::flashmla) {
        if (!with_start || B == 0) break;
        want = one_short(v_start.size, B, "kv_start_idx", "kv_start_idx one short");
      } else {
        want = one_short(out.cols, max_pages, "out", "out one column short");
      }
      break;
    case 12:  // every table route: v2p absent is the static pool (I10), multiplier 1 only
      v2p = {};
      if (g::coin()) {
        want = accept("static kernel: v2p absent, multiplier 1");
        s_m = 1;
      } else {
        s_m = 2;
        want = reject(kIA, "multiplier", "static kernel with multiplier 2");
      }
      break;
    case 13:  // a one-row out starting on the last element of req_to_token (B <= 1: shape admitted)
      if (B > 1 || out_rows == 0) break;
      out.data = const_cast<i32*>(r2t.m.data) + r2t.rows * r2t.cols - 1;
      out.rows = 1;
      want = reject(kIA, out_name, "out overlaps the last element of req_to_token");
      break;
    case 14:
      if (route != TableRoute::canonical) break;
      if (g::coin()) {
        want = one_short(s_r2t.cols, max_pages * ps, "req_to_token",
                         "req_to_token one column narrower than max_pages * ps");
      } else {
        s_r2t.cols = max_pages * ps;
        want = accept("req_to_token exactly max_pages * ps wide");
      }
      break;
    case 15:
      if (route != TableRoute::canonical || out_rows < 1 || out_cols < 2) break;
      out.col_stride = 2;
      out.row_stride = std::max(out.row_stride, 2 * (out_cols - 1) + 1);
      want = reject(kIA, "out", "canonical out not packed (col_stride 2)");
      break;
    default: break;
  }
  // Rows whose live columns reach past a narrowed req_to_token are cut short here so that the
  // admitted-width case stays admitted (canonical: width exactly max_pages * ps).
  if (want.ok)
    for (i64 b = 0; b < v_lens.size; ++b) const_cast<i64*>(v_lens.data)[b] = std::min(v_lens.data[b], s_r2t.cols - starts[uz(b)]);
  Expected exp(pool);
  if (want.ok) {
    const i64 width = route == TableRoute::flashmla ? out.cols : s_max;
    for (i64 b = 0; b < B; ++b) {
      const i64 n = std::min(m::ceil_div(v_lens.data[b], s_ps), width);
      for (i64 c = 0; c < n; ++c) {
        const i64 tok = s_r2t.data[v_rpi.data[b] * s_r2t.row_stride + starts[uz(b)] + c * s_ps];
        const i64 page = tok < 0 ? 0 : tok / s_ps;
        const i64 e = v2p.present() ? m::block_entry(span_of(v2p), s_m, m::VirtualPage(page)) : tok / s_ps;
        exp.set(out.data + b * out.row_stride + c * out.col_stride, e);
      }
    }
  }
  if (route == TableRoute::flashmla) {
    FlashmlaBlockTableArgs a{s_r2t, v_rpi, v_lens, v_start, v2p, s_ps, s_m, out};
    check_call(name, want, exp, [&] { tr::flashmla_block_table(a); });
  } else if (route == TableRoute::canonical) {
    CanonicalPageTableArgs a{s_r2t, v_rpi, v_lens, v2p, s_ps, s_m, s_max, out};
    check_call(name, want, exp, [&] { tr::canonical_page_table(a); });
  } else {
    FullPrefillTableArgs a{s_r2t, v_rpi, v_lens, v2p, s_ps, s_m, s_max, out};
    check_call(name, want, exp, [&] { tr::full_prefill_table(a); });
  }
}

}  // namespace

void invalid_flashmla(Variant) { page_table_route(TableRoute::flashmla); }
void invalid_canonical(Variant) { page_table_route(TableRoute::canonical); }
void invalid_full_prefill(Variant) { page_table_route(TableRoute::full_prefill); }

// ---- decode_metadata (§4.5): Era B remap (v2p), static, Era D (skip_page_table) ------------------
void invalid_decode(Variant) {
  Pool pool;
  const auto [ps, mult, v2p_values, nrows] = draw_table_pool({1, 2, 4});
  const i64 msp = g::any<i64>(1, 4);
  const i64 r_rows = g::any<i64>(1, 4), r_cols = msp * ps;
  const i64 B = g::any<i64>(0, 4);
  const int era = g::any<int>(0, 3);  // 0 remap, 1 static, 2 skip
  std::vector<i64> lens(uz(B)), rpi(uz(B));
  for (i64 b = 0; b < B; ++b) {
    lens[uz(b)] = g::any<i64>(0, r_cols + 1);
    rpi[uz(b)] = g::any<i64>(0, r_rows);
  }
  const R2t r2t = draw_r2t(pool, nrows, ps, r_rows, r_cols);
  Vec<const i64> v_lens = pool.vec<const i64>(lens);
  Vec<const i64> v_rpi = pool.vec<const i64>(rpi);
  Vec<const i64> v2p = era == 0 ? pool.vec<const i64>(v2p_values) : Vec<const i64>{};
  Vec<i32> cache = pool.fill<i32>(B + g::any<i64>(0, 2), -7);
  Vec<i32> cu = pool.fill<i32>(B + 1 + g::any<i64>(0, 2), -7);
  const i64 pt_cols = msp + g::any<i64>(0, 2);
  Mat<i32> pt = pool.mat<i32>(B + g::any<i64>(0, 2), pt_cols, pt_cols, 1, -7);
  i64 s_ps = ps, s_m = era == 0 ? mult : 1, s_msp = msp;
  bool skip = era == 2;
  Verdict want = accept("touching buffers");
  Vec<const i64> swa_v2p{};
  Mat<const i32> kpt{};
  Mat<const i32> s_r2t = r2t.m;
  const Draw d = draw_fault(16, 9);
  // With skip_page_table the page_table output is not read.
  const Views views{rules<Rules::vec>(v_lens, "seq_lens"),        rules<Rules::vec>(cache, "cache_seqlens"),
                    rules<Rules::vec>(cu, "cu_seqlens_k"),         rules<Rules::vec>(v2p, "v2p"),
                    rules<Rules::mat>(kpt, "kernel_page_table"),   rules<Rules::vec>(swa_v2p, "swa_v2p"),
                    rules<Rules::mat>(s_r2t, "req_to_token"),      rules<Rules::vec>(v_rpi, "req_pool_indices"),
                    skip ? Breaker{} : rules<Rules::out_extent>(pt, "page_table")};
  views.apply(d, want);
  switch (d.c) {
    // page_size < 1 is not drawn here: the power-of-two rule rejects 0 and -1 again (same error).
    case 1:
      if (ps == 1) break;
      s_ps = ps + 1;  // 3 or 5: the first non-power of two above ps
      want = reject(kIA, "page_size", "page_size not a power of two");
      break;
    case 2: s_m = 0; want = reject(kIA, "multiplier", "multiplier 0"); break;
    case 3:
      if (era != 1) break;
      s_m = 2;
      want = reject(kIA, "multiplier", "static kernel with multiplier 2");
      break;
    case 4: s_msp = -1; want = reject(kIA, "max_seq_pages", "max_seq_pages -1"); break;
    case 5:
    case 6:
    case 7: want = views.any_rule(d.c - 5); break;
    case 8:
      if (g::coin()) {
        if (B == 0) break;
        want = one_short(cache.size, B, "cache_seqlens", "cache_seqlens one short");
      } else {
        cu.size = B;
        want = reject(kSmall, "cu_seqlens_k", "cu_seqlens_k one short (B entries)");
      }
      break;
    case 9:
      cache.size = B;
      cu.size = B + 1;
      pt.rows = B;
      pt.cols = msp;
      want = accept("every output exactly as large as needed");
      break;
    case 10:  // cache_seqlens ending one element into cu_seqlens_k
      if (B == 0) break;
      cache.data = cu.data - (B - 1);
      cache.size = B;
      want = reject(kIA, "cache_seqlens", "cache_seqlens overlaps cu_seqlens_k by one element");
      break;
    case 11:
      if (skip) break;
      if (B == 0) break;
      want = g::coin() ? one_short(pt.rows, B, "page_table", "page_table one row short")
                          : one_short(pt.cols, msp, "page_table", "page_table one column short");
      break;
    case 12:
      if (skip || pt.rows == 0 || B > 1) break;
      pt.data = cu.data + cu.size - 1;  // page_table starting on the last cu_seqlens_k element
      pt.rows = 1;
      want = reject(kIA, "page_table", "page_table overlaps cu_seqlens_k");
      break;
    case 13:
      if (skip) break;
      if (B == 0) break;
      want = one_short(v_rpi.size, B, "req_pool_indices", "req_pool_indices one short");
      break;
    case 14:
      if (skip || pt.rows < 2 || pt.cols < 2) break;
      want = break_out_mat(pt, "page_table");
      break;
    default: break;
  }
  Expected exp(pool);
  if (want.ok && B > 0) {
    i64 sum = 0;
    exp.set(cu.data, 0);
    for (i64 b = 0; b < B; ++b) {
      sum += lens[uz(b)];
      exp.set(cache.data + b, lens[uz(b)]);
      exp.set(cu.data + b + 1, sum);
      if (skip) continue;
      const i64 live = std::min(m::ceil_div(lens[uz(b)], s_ps), s_msp);
      for (i64 c = 0; c < live; ++c) {
        const i64 tok = r2t.m.data[rpi[uz(b)] * r2t.cols + c * s_ps];
        const i64 value = m::floor_div(tok, s_ps);
        const i64 e = era == 0 ? m::block_entry(span_of(v2p), s_m, m::VirtualPage(tok < 0 ? 0 : value)) : value;
        exp.set(pt.data + b * pt.row_stride + c * pt.col_stride, e);
      }
    }
  }
  DecodeMetadataArgs a = decode_batch(v_lens, s_r2t, v_rpi, s_msp, s_ps);
  a.kernel_page_table = kpt;
  a.swa_v2p = swa_v2p;
  a.v2p = v2p;
  a.multiplier = s_m;
  a.skip_page_table = skip;
  set_decode_outputs(a, cache, cu, pt);
  check_call("decode_metadata", want, exp, [&] { tr::decode_metadata(a); });
}

}  // namespace kvaddr::props::detail
