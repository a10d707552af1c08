// Differential check, page-granular cases: canonical_page_table, full_prefill_table, read_table,
// flashmla_block_table, read_stream, eager_funnel and decode_metadata. Every element of each
// output buffer is compared (guard rows and columns, tails and padded rows included); the model
// checks the live lanes and that everything outside them keeps its initial contents.
#include <limits>

#include "diff_case.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::gpu::diffcase {

// A page-table case with wide entries in production: the host must raise Overflow exactly when a
// live lane's model entry is >= 2^31, and then leave the output bit-identical. Returns true when
// the case ends here (Overflow raised, or a wrong outcome reported); a call that rightly did not
// raise goes on as an ordinary case. The live lanes are the columns [0, live(r)) of the rows
// [0, rows); entry(r, col) is the model's entry of one.
template <class T, class Run, class Live, class Entry>
bool overflow_case(Ctx& c, const Wide& w, std::vector<T>& out, const std::vector<T>& initial, Run&& run, i64 rows,
                   Live&& live, Entry&& entry) {
  if (!w.expect_overflow) return false;
  const bool want = [&] {
    for (i64 r = 0; r < rows; ++r)
      for (i64 col = 0; col < live(r); ++col)
        if (entry(r, col) > std::numeric_limits<i32>::max()) return true;
    return false;
  }();
  c.geo.kv("expect_overflow", want);
  bool threw = false;
  try {
    run();
  } catch (const Overflow&) {
    threw = true;
  }
  ++c.res.model_compared;
  if (threw != want)
    c.fail("model", {}, 1, want ? "an entry >= 2^31 did not raise Overflow" : "Overflow raised with no entry >= 2^31");
  else if (threw && out != initial)
    c.fail("model", {}, 1, "the output changed although the route raised Overflow");
  return threw || c.res.mismatch.has_value();
}

void case_canonical(Ctx& c, bool full_prefill) {
  c.variant = full_prefill ? c.choose_variant({Variant::b04_prefill_no_remap})
                           : c.choose_variant({Variant::b09_no_padding_guard, Variant::e02_minus_one_sentinel,
                                               Variant::e10_batch_index_rows, Variant::e01_no_column_bound});
  if (!full_prefill) plant_grid_spill(c);
  // I10: a static pool (no v2p, M = 1; entry tok / ps) in one production case in five.
  const bool static_pool = c.variant == Variant::production && c.rng.chance(0.2);
  const Wide wide = full_prefill || static_pool ? Wide{} : draw_wide(c);
  const i64 ps = b09_ps(c, pick_ps(c, false)), M = static_pool ? 1 : pick_m(c);
  mark_ps(c, ps);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  if (wide.on) gen::widen_entries(c.edge, p, M);
  const auto pv = static_pool ? std::nullopt : draw_parent_v2p(c, p);
  const i64 max_pages = table_cols(c, ps);
  const double pad = table_pad(c, ps, false, pv.has_value());
  // E01 (no column bound) and grid_spill read and write past max_pages: those extra columns stay
  // inside req_to_token and inside the row's guard columns (see case_read_table for why).
  const i64 extra_cols = spill_cols(c, max_pages);
  Batch b = extra_cols > 0 ? make_batch(c, p, max_pages + extra_cols, (max_pages + extra_cols) * ps, pad)
                           : make_batch(c, p, max_pages, max_pages * ps + 2 * ps, pad);
  spill_lens(c, b, max_pages, extra_cols, ps, 0);
  if (pv) deepen_padding(c, b, ps, pv->before);
  const i64 gr = c.rng.uniform(0, 2), gc = c.rng.uniform(extra_cols, extra_cols + 8);
  const i64 orows = b.B + gr, ocols = max_pages + gc;
  const gen::Layout lo = out_layout(c, orows, ocols), li = in_layout(c, b.R, b.C);
  c.geo.kv("max_pages", max_pages).kv("out", std::to_string(orows) + "x" + std::to_string(ocols));
  if (static_pool) c.geo.kv("static", true);
  if (lo.strided() || lo.offset) c.geo.kv("out_row_stride", lo.row_stride).kv("out_offset", lo.offset);
  if (li.strided()) c.geo.kv("r2t_row_stride", li.row_stride);
  std::vector<i32> out = stale<i32>(c, lo.parent_size());
  const std::vector<i32> initial = out;
  const std::vector<i32> r2t = gen::place(li, b.r2t, -1);
  const Mat<const i32> hr2t = view(r2t.data(), li);
  const Vec<const i64> hv2p = static_pool ? Vec<const i64>{}
                              : pv ? Vec<const i64>{pv->parent.data() + pv->before, ssz(p.v2p.size()), pv->before, pv->after}
                                   : cvec(p.v2p);
  const auto run = [&](Variant v) {
    out = initial;
    if (full_prefill) translate::full_prefill_table({hr2t, cvec(b.rows), cvec(b.lens), hv2p, ps, M, max_pages, view(out.data(), lo), v});
    else translate::canonical_page_table({hr2t, cvec(b.rows), cvec(b.lens), hv2p, ps, M, max_pages, view(out.data(), lo), v});
  };
  // The model side uses the production column count (a forced E01 spill shows up as touched guard columns).
  const auto live = [&](i64 r) {
    return r < b.B ? lanes::table_columns<i64>(b.lens[sz(r)], ps, max_pages, Variant::production) : i64(0);
  };
  const auto entry = [&](i64 r, i64 col) {
    const i64 tok = b.r2t[sz(b.rows[sz(r)] * b.C + col * ps)];
    return static_pool ? tok / ps : model_entry(p, tok);  // static: truncating division (I10)
  };
  if (overflow_case(c, wide, out, initial, [&] { run(Variant::production); }, b.B, live, entry)) return;
  c.host_route(run);
  if (!c.host_only) {
  i32* d_out = c.dev.up(initial);
  const Mat<const i32> dr2t = view<const i32>(c.dev.up(r2t), li);
  const Vec<const i64> drows{c.dev.up(b.rows), b.B}, dlens{c.dev.up(b.lens), b.B};
  const Vec<const i64> dv2p = static_pool ? Vec<const i64>{}
                              : pv ? c.dev.up_parent(*pv) : Vec<const i64>{c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
  if (full_prefill) launch_full_prefill_table({dr2t, drows, dlens, dv2p, ps, M, max_pages, view(d_out, lo), c.variant}, nullptr);
  else launch_canonical_page_table({dr2t, drows, dlens, dv2p, ps, M, max_pages, view(d_out, lo), c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", out, d_out);
  }
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 n = live(r);
    c.res.lanes += n;
    for (i64 col = 0; col < n && !c.res.mismatch; ++col)
      c.model_lane("out", lo.at(r, col), out[sz(lo.at(r, col))], [&] { return entry(r, col); });
  }
  // Prefix-only: every other element (columns past the live prefix, guard rows, the parent around
  // a strided output) keeps its contents.
  untouched_layout(c, "out", out, initial, lo, live);
}

void case_read_table(Ctx& c) {
  c.variant = c.choose_variant({Variant::b09_no_padding_guard, Variant::b10_no_max_pages_bound,
                                Variant::e02_minus_one_sentinel, Variant::e10_batch_index_rows,
                                Variant::e01_no_column_bound, Variant::e09_floor_pages});
  plant_grid_spill(c);
  // I10: a static pool (no v2p, M = 1; entry tok / ps) in one production case in five.
  const bool static_pool = c.variant == Variant::production && c.rng.chance(0.2);
  const Wide wide = static_pool ? Wide{} : draw_wide(c);
  const i64 ps = b09_ps(c, pick_ps(c, false)), M = static_pool ? 1 : pick_m(c);
  mark_ps(c, ps);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  if (wide.on) gen::widen_entries(c.edge, p, M);
  const auto pv = static_pool ? std::nullopt : draw_parent_v2p(c, p);
  const i64 max_pages = std::max<i64>(1, table_cols(c, ps));
  const i64 delta = c.rng.pick<i64>({0, 0, 1, ps + 1, 2 * ps});
  const double pad = table_pad(c, ps, false, pv.has_value());
  // B10 / E01 / grid_spill read (and write) past max_pages: their extra columns stay inside the
  // row's guard columns. A spill into the next row would be written by two GPU blocks (that row's
  // own column 0.. and this row's spill) in no fixed order, so GPU and host could disagree by a
  // race, not by a bug (seen: seed 1, case 227 on an H200).
  const i64 extra_cols = spill_cols(c, max_pages);
  const i64 gc = c.rng.uniform(extra_cols, extra_cols + 7);
  const i64 ocols = max_pages + gc;
  // Lengths so that every read column (B10: up to max_pages + extra_cols) stays inside req_to_token.
  Batch b = make_batch(c, p, max_pages + extra_cols, (max_pages + extra_cols) * ps - delta, pad);
  for (auto& l : b.lens) l = std::max<i64>(0, l);
  spill_lens(c, b, max_pages, extra_cols, ps, delta);
  if (pv) deepen_padding(c, b, ps, pv->before);
  const bool zero_tail = c.rng.chance(0.4);
  const i64 orows = b.B + 1 + c.rng.uniform(0, 2);  // guard rows
  const gen::Layout lo = out_layout(c, orows, ocols), li = in_layout(c, b.R, b.C);
  // Huge offsets (GPU leg only, one case in 40 where the device has the memory): req_to_token's
  // rows sit at r * row_stride with the last one past element 2^31; the host keeps them packed.
  const gen::HugeRows huge = gen::huge_rows(b.R, b.C);
  const bool huge_drawn = c.edge_on(1.0 / 40);  // drawn in host-only runs too: the same edge stream
  const bool use_huge = huge_drawn && !c.host_only && b.R >= 2 && c.dev.fits(huge.parent_elements() * 4);
  c.geo.kv("max_pages", max_pages).kv("delta", delta).kv("zero_tail", zero_tail)
      .kv("out", std::to_string(orows) + "x" + std::to_string(ocols));
  if (lo.strided() || lo.offset) c.geo.kv("out_row_stride", lo.row_stride).kv("out_offset", lo.offset);
  if (li.strided()) c.geo.kv("r2t_row_stride", li.row_stride);
  if (use_huge) {
    c.mark("offset_past_2^31");
    c.geo.kv("r2t_huge_row_stride", huge.row_stride);
  }
  std::vector<i32> out = stale<i32>(c, lo.parent_size());
  const std::vector<i32> initial = out;
  const std::vector<i32> r2t = gen::place(li, b.r2t, -1);
  if (static_pool) c.geo.kv("static", true);
  const Vec<const i64> hv2p = static_pool ? Vec<const i64>{}
                              : pv ? Vec<const i64>{pv->parent.data() + pv->before, ssz(p.v2p.size()), pv->before, pv->after}
                                   : cvec(p.v2p);
  const auto run = [&](Variant v) {
    out = initial;
    translate::read_table({view(r2t.data(), li), cvec(b.rows), cvec(b.lens), delta, max_pages, hv2p, ps, M,
                           view(out.data(), lo), zero_tail, v});
  };
  // The model side uses the production column count: a forced E09 (floor) then misses the last
  // partial page, and B10 / E01 / grid_spill spills show up as touched guard columns.
  const auto live = [&](i64 r) {
    return r < b.B ? lanes::table_columns<i64>(b.lens[sz(r)] + delta, ps, max_pages, Variant::production) : i64(0);
  };
  const auto entry = [&](i64 r, i64 col) {
    const i64 tok = b.r2t[sz(b.rows[sz(r)] * b.C + col * ps)];
    return static_pool ? tok / ps : model_entry(p, tok);  // static: truncating division (I10)
  };
  if (overflow_case(c, wide, out, initial, [&] { run(Variant::production); }, b.B, live, entry)) return;
  c.host_route(run);
  if (!c.host_only) {
  i32* d_out = c.dev.up(initial);
  const Mat<const i32> dr2t = use_huge ? c.dev.up_rows(b.r2t, huge) : view<const i32>(c.dev.up(r2t), li);
  const Vec<const i64> dv2p = static_pool ? Vec<const i64>{}
                              : pv ? c.dev.up_parent(*pv) : Vec<const i64>{c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
  launch_read_table({dr2t, {c.dev.up(b.rows), b.B}, {c.dev.up(b.lens), b.B}, delta, max_pages, dv2p, ps, M,
                     view(d_out, lo), zero_tail, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", out, d_out);
  c.dev.release();  // a huge req_to_token is not kept past its case
  }
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 n = live(r);
    c.res.lanes += n;
    for (i64 col = 0; col < n && !c.res.mismatch; ++col)
      c.model_lane("out", lo.at(r, col), out[sz(lo.at(r, col))], [&] { return entry(r, col); });
    // §4.4 zero_tail: the sink 0 on [live, max_pages) (E02 fills the pad -1).
    if (zero_tail)
      for (i64 col = n; col < max_pages && !c.res.mismatch; ++col)
        c.model_lane("out", lo.at(r, col), out[sz(lo.at(r, col))], [] { return i64(0); });
  }
  if (zero_tail)  // and on every column < max_pages of the padded rows [B, out.rows)
    for (i64 r = b.B; r < orows && !c.res.mismatch; ++r)
      for (i64 col = 0; col < max_pages && !c.res.mismatch; ++col)
        c.model_lane("out", lo.at(r, col), out[sz(lo.at(r, col))], [] { return i64(0); });
  // Every element outside the live prefix (and outside [0, max_pages) with zero_tail) is untouched.
  untouched_layout(c, "out", out, initial, lo, [&](i64 r) { return zero_tail ? max_pages : live(r); });
}

void case_flashmla(Ctx& c) {
  c.variant = c.choose_variant({Variant::era_b_unclamped, Variant::b09_no_padding_guard, Variant::e10_batch_index_rows,
                                Variant::e09_floor_pages});
  const bool static_kernel = c.variant == Variant::production && c.rng.chance(0.2);
  const Wide wide = static_kernel ? Wide{} : draw_wide(c);
  const i64 ps = b09_ps(c, pick_ps(c, false)), M = static_kernel ? 1 : pick_m(c);
  mark_ps(c, ps);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  if (wide.on) gen::widen_entries(c.edge, p, M);
  const auto pv = static_kernel ? std::nullopt : draw_parent_v2p(c, p);
  const i64 W = std::max<i64>(1, table_cols(c, ps));
  const double pad = table_pad(c, ps, false, pv.has_value());
  Batch b = make_batch(c, p, W + 2, (W + 1) * ps, pad);  // lengths may exceed W pages: bounded by W
  if (pv) deepen_padding(c, b, ps, pv->before);
  const bool with_start = c.rng.chance(0.5);
  std::vector<i64> start(sz(b.B), 0);
  if (with_start)
    for (auto& s : start) s = c.rng.uniform(0, ps);
  const gen::Layout lo = out_layout(c, b.B, W), li = in_layout(c, b.R, b.C);
  c.geo.kv("W", W).kv("kv_start_idx", with_start).kv("static", static_kernel);
  if (lo.strided() || lo.offset) c.geo.kv("out_row_stride", lo.row_stride).kv("out_offset", lo.offset);
  if (li.strided()) c.geo.kv("r2t_row_stride", li.row_stride);
  // Prefilled with -1 by the backend; the parent around a strided output holds stale values.
  std::vector<i32> out = lo.parent_size() == b.B * W ? std::vector<i32>(sz(b.B * W), -1) : gen::stale<i32>(c.edge, lo.parent_size());
  for (i64 r = 0; r < b.B; ++r)
    for (i64 col = 0; col < W; ++col) out[sz(lo.at(r, col))] = -1;
  const std::vector<i32> initial = out;
  const std::vector<i32> r2t = gen::place(li, b.r2t, -1);
  const Vec<const i64> hv2p = static_kernel ? Vec<const i64>{}
                              : pv ? Vec<const i64>{pv->parent.data() + pv->before, ssz(p.v2p.size()), pv->before, pv->after}
                                   : cvec(p.v2p);
  const auto run = [&](Variant v) {
    out = initial;
    translate::flashmla_block_table({view(r2t.data(), li), cvec(b.rows), cvec(b.lens), with_start ? cvec(start) : Vec<const i64>{},
                                     hv2p, ps, M, view(out.data(), lo), v});
  };
  const auto live = [&](i64 r) { return std::min<i64>(lanes::ceil_div<i64>(b.lens[sz(r)], ps), W); };
  const auto tok_at = [&](i64 r, i64 col) { return i64(b.r2t[sz(b.rows[sz(r)] * b.C + start[sz(r)] + col * ps)]); };
  if (overflow_case(c, wide, out, initial, [&] { run(Variant::production); }, b.B, live,
                    [&](i64 r, i64 col) { return model_entry(p, tok_at(r, col)); }))
    return;
  c.host_route(run);
  if (!c.host_only) {
  i32* d_out = c.dev.up(initial);
  const Vec<const i64> dv2p = static_kernel ? Vec<const i64>{}
                              : pv ? c.dev.up_parent(*pv) : Vec<const i64>{c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
  launch_flashmla_block_table({view<const i32>(c.dev.up(r2t), li), {c.dev.up(b.rows), b.B}, {c.dev.up(b.lens), b.B},
                               with_start ? Vec<const i64>{c.dev.up(start), b.B} : Vec<const i64>{}, dv2p, ps, M,
                               view(d_out, lo), c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("kv_indices", out, d_out);
  }
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 n = live(r);
    c.res.lanes += n;
    for (i64 col = 0; col < n && !c.res.mismatch; ++col) {
      const i64 tok = tok_at(r, col);
      c.model_lane("kv_indices", lo.at(r, col), out[sz(lo.at(r, col))],
                   [&] { return static_kernel ? tok / ps : model_entry(p, tok); });  // static: trunc division (I10)
    }
  }
  untouched_layout(c, "kv_indices", out, initial, lo, live);
}

void case_read_stream(Ctx& c) {
  c.variant = Variant::production;
  const i64 ps = pick_ps(c, false);
  mark_ps(c, ps);
  const i64 cols = std::max<i64>(1, std::min<i64>(512, c.scale / ps));
  const i64 B = c.rng.uniform(0, 64);
  const i64 trows = B + c.rng.uniform(0, 2);
  std::vector<i32> table(sz(std::max<i64>(trows, 1) * cols));
  for (auto& e : table) e = c.rng.chance(0.1) ? 0 : static_cast<i32>(c.rng.uniform(0, 1 << 16));
  const bool with_start = c.rng.chance(0.5);
  std::vector<i64> start(sz(B), 0);
  std::vector<i32> indptr(sz(B + 1), 0);
  for (i64 b = 0; b < B; ++b) {
    if (with_start) start[sz(b)] = c.rng.uniform(0, 2 * ps);
    const i64 len = ragged_len(c, ps, std::max<i64>(0, cols * ps - start[sz(b)]));
    indptr[sz(b + 1)] = static_cast<i32>(indptr[sz(b)] + len);
  }
  const i64 total = indptr[sz(B)];
  const i64 slack = c.rng.uniform(0, 50);
  c.geo.kv("ps", ps).kv("B", B).kv("table_cols", cols).kv("kv_start_idx", with_start).kv("lanes", total);
  std::vector<i32> stream = stale<i32>(c, total + slack);
  const std::vector<i32> initial = stream;
  const i64 tr = std::max<i64>(trows, 1);
  const gen::Layout li = in_layout(c, tr, cols);
  const std::vector<i32> placed = gen::place(li, table, -1);
  translate::read_stream({view(placed.data(), li), cvec(indptr), with_start ? cvec(start) : Vec<const i64>{}, ps, mvec(stream)});
  if (!c.host_only) {
  i32* d_stream = c.dev.up(initial);
  launch_read_stream({view<const i32>(c.dev.up(placed), li), {c.dev.up(indptr), B + 1},
                      with_start ? Vec<const i64>{c.dev.up(start), B} : Vec<const i64>{}, ps, {d_stream, ssz(initial.size())}}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("stream", stream, d_stream);
  }
  c.res.lanes += total;
}

void case_eager(Ctx& c) {
  c.variant = c.choose_variant({Variant::b02_rank2_index_select});
  i64 ps = pick_ps(c, false);
  if (c.variant == Variant::b02_rank2_index_select && ps == 1) ps = 2;  // ps = 1 throws: tested separately
  mark_ps(c, ps);
  const i64 M = pick_m(c);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), false);
  const i64 cols = std::max<i64>(1, table_cols(c, ps));
  const i64 rows = c.rng.uniform(0, std::max<i64>(1, std::min<i64>(256, c.scale / cols)));
  const bool alias = c.rng.chance(0.3);
  std::vector<i64> pt(sz(rows * cols));
  for (auto& t : pt) {
    t = token(c, p, 0.05);
    if (t > 0) t -= t % ps;  // page-start tokens
  }
  // out == page_table (same origin and strides) when aliased; otherwise each its own placement.
  const gen::Layout lo = out_layout(c, rows, cols), li = alias ? lo : in_layout(c, rows, cols);
  if (alias) c.mark("alias_admitted");
  c.geo.kv("rows", rows).kv("cols", cols).kv("alias", alias);
  if (lo.strided() || lo.offset) c.geo.kv("out_row_stride", lo.row_stride).kv("out_offset", lo.offset);
  std::vector<i64> out = alias ? gen::place(lo, pt, i64(0x5A5A5A5)) : stale<i64>(c, lo.parent_size());
  const std::vector<i64> initial = out;
  const std::vector<i64> pt_host = gen::place(li, pt, i64(-1));
  translate::eager_funnel({view<const i64>(alias ? out.data() : pt_host.data(), li), cvec(p.v2p), ps, M, view(out.data(), lo), c.variant});
  if (!c.host_only) {
  i64* d_out = c.dev.up(initial);
  const i64* d_pt = alias ? d_out : c.dev.up(pt_host);
  launch_eager_funnel({view(d_pt, li), {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, view(d_out, lo), c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", out, d_out);
  }
  c.res.lanes += rows * cols;
  for (i64 r = 0; r < rows && !c.res.mismatch; ++r)
    for (i64 col = 0; col < cols && !c.res.mismatch; ++col)
      c.model_lane("out", lo.at(r, col), out[sz(lo.at(r, col))], [&] {
        return model::kernel_id(p.v2p, ps, M, model::VirtualToken(pt[sz(r * cols + col)])).value / ps;
      });
  untouched_layout(c, "out", out, initial, lo, [&](i64) { return cols; });
}

void case_decode(Ctx& c) {
  c.variant = c.choose_variant({Variant::era_b_unclamped, Variant::b09_no_padding_guard, Variant::e10_batch_index_rows});
  const i64 ps = pick_ps(c, true);
  int log2 = 0;
  while ((i64(1) << log2) < ps) ++log2;
  // Edge classes: lengths whose prefix sum overflows int32 (prefix sums only), wide entries (the
  // Era B remap), batches of more than one 128-row block.
  const bool ovf = c.variant == Variant::production && !c.forced && c.edge_on(0.12);
  const Wide wide = ovf ? Wide{} : draw_wide(c);
  // Modes: 0 static, 1 Era B remap, 2 Era C copy, 3 Era D prefix sums only.
  i64 mode = c.variant == Variant::production ? c.rng.uniform(0, 3) : 1;
  if (ovf) mode = 3;
  if (wide.on) mode = 1;
  const bool big = c.edge_on(0.15);
  if (big) c.mark("batch_over_128_rows");
  const i64 M = mode == 1 ? pick_m(c) : 1;
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  if (wide.on) gen::widen_entries(c.edge, p, M);
  const auto pv = mode == 1 ? draw_parent_v2p(c, p) : std::nullopt;
  const bool swa = mode != 3 && c.rng.chance(0.3);
  // Era C's call form (src_is_kernel_page_table: the req_to_token rows are canonical rows, no SWA) in half
  // the copy cases; the static SWA pool's token-level map in two SWA cases in five.
  const bool src_rows = mode == 2 && !swa && c.rng.chance(0.5);
  const bool swa_map = swa && c.rng.chance(0.4);
  Pool sp = swa ? make_pool(c, ps, pick_m(c), c.rng.uniform(2, 1 << 14), true) : Pool{};
  if (swa) sp.v2p.resize(p.v2p.size() > sp.v2p.size() ? p.v2p.size() : sp.v2p.size(), -1);  // owner-sized (B12)
  if (swa) sp.v2p.back() = -1;
  const std::optional<i64> fixed_rows = big ? std::optional<i64>(gen::large_batch(c.edge))
                                        : ovf ? std::optional<i64>(c.edge.uniform(2, 8)) : std::nullopt;
  i64 max_seq_pages = table_cols(c, ps);
  if (big) max_seq_pages = std::min<i64>(max_seq_pages, std::max<i64>(1, 4096 / *fixed_rows));
  const i64 delta = c.rng.pick<i64>({0, 0, 1, ps});
  Batch b = make_batch(c, p, max_seq_pages, std::max<i64>(0, max_seq_pages * ps + ps - delta),
                       table_pad(c, ps, true, pv.has_value()), fixed_rows);
  // The fa3 shift floors: a page -k token reads v2p[-k] or v2p[-k - 1], so k < before. Under
  // swa_no_padding_guard the SWA gather reads its map at the padding's page too, and the SWA map has one
  // guard element before it (DevPool::up_v2p): its padding stays -1.
  if (pv && !(swa && has(c.variant, Behaviour::swa_no_padding_guard))) deepen_padding(c, b, ps, pv->before - 1);
  bool expect_overflow = false;
  if (ovf) {
    b.lens = gen::overflowing_lens(c.edge, b.B, delta);
    if (c.may_plant() && c.edge.chance(0.5)) {
      c.variant = Variant::int32_wrap;
      c.mark("overflow_lens_wrap");
    } else {
      expect_overflow = true;
      c.mark("overflow_lens");
    }
  }
  // era_d_read_table writes up to one column past max_seq_pages (lengths stop at max_seq_pages + 1
  // pages) at flat addresses: one guard column at least keeps that column inside the row.
  const i64 gc = c.rng.uniform(has(c.variant, Behaviour::era_d_read_table) ? 1 : 0, 5);
  const i64 pcols = max_seq_pages + gc;
  const i64 prow = std::max<i64>(b.B, 1);
  const gen::Layout lo = out_layout(c, prow, pcols), li = in_layout(c, b.R, b.C);
  c.geo.kv("mode", mode).kv("swa", swa).kv("max_seq_pages", max_seq_pages).kv("delta", delta);
  if (src_rows) c.geo.kv("src_is_kernel_page_table", true);
  if (swa_map) c.geo.kv("full_to_swa_index_mapping", true);
  if (lo.strided() || lo.offset) c.geo.kv("page_table_row_stride", lo.row_stride).kv("page_table_offset", lo.offset);
  if (li.strided()) c.geo.kv("r2t_row_stride", li.row_stride);
  std::vector<i32> kpt;  // Era C canonical table to copy (src_rows: one row per req_to_token row)
  const i64 kpt_rows = src_rows ? b.R : std::max<i64>(b.B, 1);
  if (mode == 2) {
    kpt.resize(sz(kpt_rows * max_seq_pages));
    for (auto& e : kpt) e = static_cast<i32>(c.rng.uniform(0, 1 << 20));
  }
  std::vector<i64> to_swa;  // token -> SWA slot (0 = unmapped), over every token of req_to_token
  if (swa_map) {
    i64 top = 0;
    for (const i32 t : b.r2t) top = std::max<i64>(top, t);
    to_swa.resize(sz(top + 1));
    for (auto& e : to_swa) e = c.rng.chance(0.2) ? 0 : c.rng.uniform(0, 1 << 20);
    to_swa[0] = 0;
  }
  std::vector<i32> cache = stale<i32>(c, b.B + 2), cu = stale<i32>(c, b.B + 3);
  std::vector<i32> pt = stale<i32>(c, lo.parent_size()), spt = stale<i32>(c, prow * pcols);
  const auto i_cache = cache, i_cu = cu, i_pt = pt, i_spt = spt;
  const std::vector<i32> r2t = gen::place(li, b.r2t, -1);
  DecodeMetadataArgs h;
  h.seq_lens = cvec(b.lens);
  h.req_to_token = view(r2t.data(), li);
  h.req_pool_indices = cvec(b.rows);
  h.max_seq_pages = max_seq_pages;
  h.seq_len_delta = delta;
  h.page_size = ps;
  if (mode == 1) h.v2p = pv ? Vec<const i64>{pv->parent.data() + pv->before, ssz(p.v2p.size()), pv->before, pv->after} : cvec(p.v2p);
  h.multiplier = M;
  if (mode == 2 && !src_rows) h.kernel_page_table = {kpt.data(), kpt_rows, max_seq_pages, max_seq_pages, 1};
  if (src_rows) {
    h.req_to_token = {kpt.data(), kpt_rows, max_seq_pages, max_seq_pages, 1};
    h.src_is_kernel_page_table = true;
  }
  h.skip_page_table = mode == 3;
  h.cache_seqlens = mvec(cache);
  h.cu_seqlens_k = mvec(cu);
  h.page_table = view(pt.data(), lo);
  if (swa) {
    if (swa_map) h.full_to_swa_index_mapping = cvec(to_swa);
    else h.swa_v2p = cvec(sp.v2p);
    h.swa_multiplier = swa_map ? 1 : sp.M;
    h.swa_page_table = {spt.data(), prow, pcols, pcols, 1};
  }
  const auto run = [&](Variant v) {
    std::copy(i_cache.begin(), i_cache.end(), cache.begin());  // in place: h points into these
    std::copy(i_cu.begin(), i_cu.end(), cu.begin());
    std::copy(i_pt.begin(), i_pt.end(), pt.begin());
    std::copy(i_spt.begin(), i_spt.end(), spt.begin());
    h.variant = v;
    translate::decode_metadata(h);
  };
  const auto columns = [&](i64 r) {
    return mode == 3 || r >= b.B ? i64(0) : lanes::decode_columns<i64>(b.lens[sz(r)] + delta, ps, log2, max_seq_pages);
  };
  const auto tok_at = [&](i64 r, i64 col) { return i64(b.r2t[sz(b.rows[sz(r)] * b.C + col * ps)]); };
  if (expect_overflow) {  // cu_seqlens_k's int32 prefix sum overflows: Overflow naming it, nothing written
    ++c.res.model_compared;
    try {
      run(Variant::production);
      c.fail("model", {}, 1, "a cu_seqlens_k prefix sum past 2^31 - 1 did not raise Overflow");
    } catch (const Overflow& e) {
      if (std::string(e.what()).find("cu_seqlens_k") == std::string::npos)
        c.fail("model", {}, 1, std::string("Overflow does not name cu_seqlens_k: ") + e.what());
      else if (cache != i_cache || cu != i_cu)
        c.fail("model", {}, 1, "cache_seqlens / cu_seqlens_k changed although the route raised Overflow");
    }
    return;
  }
  if (overflow_case(c, wide, pt, i_pt, [&] { run(Variant::production); }, b.B, columns,
                    [&](i64 r, i64 col) { return model_entry(p, tok_at(r, col)); }))
    return;
  c.host_route(run);
  h.variant = c.variant;

  if (!c.host_only) {
  DecodeMetadataArgs d = h;
  d.seq_lens = {c.dev.up(b.lens), b.B};
  d.req_to_token = view<const i32>(c.dev.up(r2t), li);
  d.req_pool_indices = {c.dev.up(b.rows), b.B};
  if (mode == 1) d.v2p = pv ? c.dev.up_parent(*pv) : Vec<const i64>{c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
  if (mode == 2 && !src_rows) d.kernel_page_table.data = c.dev.up(kpt);
  // The canonical rows are their own matrix (kpt_rows x max_seq_pages, packed), not req_to_token's layout.
  if (src_rows) d.req_to_token = {c.dev.up(kpt), kpt_rows, max_seq_pages, max_seq_pages, 1};
  i32* d_cache = c.dev.up(i_cache);
  i32* d_cu = c.dev.up(i_cu);
  i32* d_pt = c.dev.up(i_pt);
  i32* d_spt = c.dev.up(i_spt);
  d.cache_seqlens.data = d_cache;
  d.cu_seqlens_k.data = d_cu;
  d.page_table = view(d_pt, lo);
  if (swa) {
    if (swa_map) d.full_to_swa_index_mapping = {c.dev.up_v2p(to_swa), ssz(to_swa.size())};  // map[-1]: the guard
    else d.swa_v2p = {c.dev.up_v2p(sp.v2p), ssz(sp.v2p.size())};
    d.swa_page_table.data = d_spt;
  }
  launch_decode_metadata(d, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("cache_seqlens", cache, d_cache);
  c.compare("cu_seqlens_k", cu, d_cu);
  c.compare("page_table", pt, d_pt);
  if (swa) c.compare("swa_page_table", spt, d_spt);
  }
  i64 total = 0;
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 len = b.lens[sz(r)] + delta;
    total += len;
    c.model_lane("cu_seqlens_k", r + 1, cu[sz(r + 1)], [&] { return total; });
    if (mode == 3) continue;
    const i64 n = columns(r);
    c.res.lanes += n * (swa ? 2 : 1);
    for (i64 col = 0; col < n && !c.res.mismatch; ++col) {
      const i64 tok = tok_at(r, col);
      c.model_lane("page_table", lo.at(r, col), pt[sz(lo.at(r, col))], [&]() -> i64 {
        if (src_rows) return kpt[sz(b.rows[sz(r)] * max_seq_pages + col)];  // the request's canonical row
        if (mode == 2) return kpt[sz(r * max_seq_pages + col)];
        if (mode == 0) return tok < 0 ? -1 : tok / ps;  // static: arithmetic shift of the token
        return model_entry(p, tok);
      });
    }
  }
  // Outside the written columns (and everywhere under prefix sums only) the page table keeps its contents.
  untouched_layout(c, "page_table", pt, i_pt, lo, columns);
  c.res.lanes += b.B;
}

}  // namespace kvaddr::gpu::diffcase
