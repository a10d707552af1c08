// Per-route preparation of a replayed call: see prepare.hpp.
#include "prepare.hpp"

#include "prepare_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/preconditions.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::replay::load {

Prepared prep_write_loc(Call& c) {
  Arr loc = c.input("loc", Want::widen, 1, 1);
  Arr v2p = c.input("v2p", Want::i64, 1, 1);
  Output out = c.output("out", Want::i64, 1, 1);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  const std::int64_t dcp_size = c.integer("dcp_size", 1);
  const std::int64_t dcp_rank = c.integer("dcp_rank", 0);
  const auto width = static_cast<std::int64_t>(out.before.size());
  if (auto w = c.opt_int("out_width"); w && *w != width) {
    bad(fmt::format("scalar out_width = {} but out has {} lanes", *w, width));
  }
  if (width < loc.size()) bad(fmt::format("out has {} lanes but loc has {} (out_width >= N)", width, loc.size()));
  Prepared p;
  p.outputs.push_back(out);
  p.model = [loc = loc.v, v2p = v2p.v, width, ps, mult, dcp_size, dcp_rank] {
    std::vector<kvaddr::model::WidenedWriteLoc> w;
    for (std::int64_t x : loc) w.emplace_back(x);
    return std::vector<I64>{kvaddr::model::write_loc_lanes(v2p, ps, mult, dcp_size, dcp_rank, w, width)};
  };
  p.run = [loc = loc.v, v2p = v2p, before = out.before, ps, mult, dcp_size, dcp_rank](Variant v) {
    I64 o = before;
    translate::write_loc({view(loc), sview(v2p), ps, mult, dcp_size, dcp_rank, mvec_of(o), v});
    return std::vector<I64>{o};
  };
  return p;
}

Prepared prep_kv_indices(Call& c) {
  Output kv = c.output("kv_indices", Want::i32, 1, 1);
  Arr indptr = c.input("kv_indptr", Want::i32, 1, 1);
  Arr src = c.input("src", Want::i32, 1, 1, true);
  Arr v2p = c.input("v2p", Want::i64, 1, 1);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  const std::int64_t bs = c.integer("batch_size", indptr.size() - 1);
  if (bs < 0 || bs + 1 > indptr.size()) {
    bad(fmt::format("scalar batch_size = {} but kv_indptr has {} entries (needs batch_size + 1)", bs, indptr.size()));
  }
  Prepared p;
  p.outputs.push_back(kv);
  p.run = [before = kv.before, indptr = indptr.i32(), src = src.i32(), has_src = src.present, v2p = v2p, bs, ps,
           mult](Variant v) {
    I32 o = narrow_copy(before);
    translate::kv_indices_inplace({mvec_of(o), view(indptr), bs, view(src, has_src), sview(v2p), ps, mult, v});
    return std::vector<I64>{widen(o)};
  };
  return p;
}

// A page-table route (flashmla_block_table, canonical_page_table, read_table, full_prefill_table):
// req_to_token and the batch's row ids and lengths in, one int32 table out (with guard columns).
template <class S>
Prepared prep_table(Call& c, const Claim& claim) {
  const auto fields = field_infos<S>();
  std::string lens_name, out_name;
  bool v2p_optional = false;
  for (const FieldInfo& f : fields) {
    if (f.name == "seq_lens" || f.name == "page_kernel_lens") lens_name = f.name;
    if (f.kind == ArgKind::mat_out) out_name = f.name;
    if (f.name == "v2p") v2p_optional = !f.required;
  }
  constexpr bool has_start = has_field<S>("kv_start_idx"), has_max_pages = has_field<S>("max_pages");
  constexpr bool has_delta = has_field<S>("seq_len_delta"), has_zero_tail = has_field<S>("zero_tail");
  // An int64 input of the batch: int32 too where the field widens (field property widening()).
  const auto batch_want = [&](std::string_view name) {
    for (const FieldInfo& f : fields)
      if (f.name == name) return f.widens_int32 ? Want::widen : Want::i64;
    return Want::i64;
  };
  Arr r2t = c.input("req_to_token", Want::i32, 2, 2);
  Arr rows = c.input("req_pool_indices", batch_want("req_pool_indices"), 1, 1);
  Arr lens = c.input(lens_name, batch_want(lens_name), 1, 1);
  same_length(rows, lens);
  Arr start;
  if (has_start) {
    start = c.input("kv_start_idx", batch_want("kv_start_idx"), 1, 1, true);
    same_length(rows, start);
  }
  Arr v2p = c.input("v2p", Want::i64, 1, 1, v2p_optional);
  Output out = c.output(out_name, Want::i32, 2, 2, true);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  std::int64_t max_pages = 0, delta = 0;
  bool zero_tail = false;
  if (has_max_pages) max_pages = c.integer("max_pages");
  if (has_delta) delta = c.integer("seq_len_delta", 0);
  if (has_zero_tail) {
    zero_tail = c.flag("zero_tail", claim.zero_tail.value_or(false));
    if (claim.zero_tail && *claim.zero_tail != zero_tail) bad("flags.tail_policy disagrees with scalar zero_tail");
  }
  if (max_pages > out.shape[1]) {
    bad(fmt::format("scalar max_pages = {} but {} has {} columns", max_pages, out.name, out.shape[1]));
  }
  if (out.shape[0] < rows.size()) {
    bad(fmt::format("{} has {} rows but the batch has {}", out.name, out.shape[0], rows.size()));
  }
  Prepared p;
  p.outputs.push_back(out);
  // The route on batch rows [b0, b1), writing the table from row `row0` on (a view of the rows
  // [row0, R) of the buffer `o`): the whole call is (0, 0, B). With a row stride, canonical_page_table
  // and read_table see rows of row_stride columns (their columns are bounded by max_pages, never by
  // the table's width), so a spill reaches the guard columns of the last row as on the device.
  constexpr bool bounded = std::is_base_of_v<spec_rules::BoundedTableColumns, S>;
  const bool wide_rows = out.row_stride > 0 && bounded;
  const std::int64_t stride = out.stride();
  auto part = [r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, lens = lens.v, start = start.v,
               given_start = start.present, v2p = v2p, table_rows = out.shape[0],
               table_cols = wide_rows ? stride : out.shape[1], stride, ps, mult, max_pages, delta, lens_name,
               out_name](Variant v, I32& o, std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill_tail) {
    // E10 reads row b of req_to_token for batch lane b: a part starting at lane b0 sees it from row b0.
    const std::int64_t r2t_row0 = has(v, Behaviour::e10_batch_index_rows) && b1 > b0 ? b0 : 0;
    const std::int64_t r2t_cols = r2t_shape.size() < 2 ? 1 : r2t_shape[1];
    if (r2t_row0 > r2t_shape[0]) throw OutOfRange("req_to_token", std::to_string(r2t_row0), "row past the table");
    const Mat<const std::int32_t> R{r2t.data() + r2t_row0 * r2t_cols, r2t_shape[0] - r2t_row0, r2t_cols, r2t_cols, 1};
    // The rows of `o` (more than the table's when run_grown grew it; a 0-width table has its recorded rows).
    const std::int64_t o_rows = stride > 0 ? static_cast<std::int64_t>(o.size()) / stride : table_rows;
    const Mat<std::int32_t> O{o.data() + row0 * stride, o_rows - row0, table_cols, stride, 1};
    const auto lanes = [b0, b1](const I64& x, bool present = true) -> Vec<const std::int64_t> {
      if (!present) return {};
      return {x.data() + b0, b1 - b0};
    };
    ViewSource src;
    src.set("req_to_token", R);
    src.set("req_pool_indices", lanes(rows));
    src.set(lens_name, lanes(lens));
    if (given_start) src.set("kv_start_idx", lanes(start));
    if (v2p.present) src.set("v2p", sview(v2p));
    src.set("page_size", ps);
    src.set("multiplier", mult);
    if (has_max_pages) src.set("max_pages", max_pages);
    if (has_delta) src.set("seq_len_delta", delta);
    if (has_zero_tail) src.set("zero_tail", fill_tail);
    src.set(out_name, O);
    fields_detail::run_filled<S>(src, v);
  };
  const std::int64_t batch = rows.size();
  p.run = [part, before = out.before, batch, zero_tail](Variant v) {
    I32 o = narrow_copy(before);
    part(v, o, 0, 0, batch, zero_tail);
    return std::vector<I64>{widen(o)};
  };
  if (!zero_tail) {  // with zero_tail the grown rows would be filled as padded rows
    p.run_grown = [part, before = out.before, after_view = lanes_after_view(out), batch, stride](Variant v,
                                                                                                std::int64_t extra) {
      I32 o = narrow_copy(grown_buffer(before, after_view, extra * stride));
      part(v, o, 0, 0, batch, false);
      return std::vector<I64>{widen(o)};
    };
  }
  if constexpr (bounded) {
    // Each batch row is one program of the grid (its column blocks never store to the same lane);
    // read_table's zero_tail fill of the padded rows [B, R) is another.
    p.writes = [part, before = out.before, batch, zero_tail, stride, table_rows = out.shape[0], lens = lens.v, delta,
                ps](Variant v) -> std::optional<std::vector<detail::LaneWrites>> {
      // Without a row that leaves its own no two programs share a lane, and the split is not needed.
      if (!rows_leave_their_own(lens, delta, ps, stride)) return std::nullopt;
      const PartRun run_part = [&](std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill, const I64& prefill) {
        I32 o = narrow_copy(prefill);
        part(v, o, row0, b0, b1, fill);
        return widen(o);
      };
      std::optional<LaneWrites> w;
      try {
        w = split_writes(before, {batch, table_rows, stride, zero_tail}, run_part, run_part(0, 0, batch, zero_tail, before));
      } catch (const kvaddr::Error&) {
        return std::nullopt;
      }
      if (!w) return std::nullopt;
      return std::vector<detail::LaneWrites>{std::move(*w)};
    };
  }
  if constexpr (bounded) {
    p.preconditions = [r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, lens = lens.v, v2p = v2p.v, ps, mult,
                       max_pages, delta, lens_name, out_name] {
      ViewSource src;
      src.set("req_to_token", cview(r2t, r2t_shape));
      src.set("req_pool_indices", view(rows));
      src.set(lens_name, view(lens));
      src.set("v2p", view(v2p));
      src.set("page_size", ps);
      src.set("multiplier", mult);
      src.set("max_pages", max_pages);
      if (has_delta) src.set("seq_len_delta", delta);
      src.set(out_name, Mat<std::int32_t>{});
      return broken_preconditions(fill_args<S>(src));
    };
  }
  return p;
}

Prepared prep_eager_funnel(Call& c) {
  Arr table = c.input("page_table", Want::i64, 2, 2);
  Arr v2p = c.input("v2p", Want::i64, 1, 1);
  // At least page_table's shape (the route's contract): a pitched out is written in its first columns.
  Output out = c.output("out", Want::i64, 2, 2);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  Prepared p;
  p.outputs.push_back(out);
  p.run = [table = table.v, shape = table.shape, out_shape = out.shape, v2p = v2p, before = out.before, ps, mult](Variant v) {
    I64 o = before;
    translate::eager_funnel({cview(table, shape), sview(v2p), ps, mult, mview(o, out_shape), v});
    return std::vector<I64>{o};
  };
  return p;
}

// The inputs of a decode_metadata call that its run and its preconditions share.
DecodeMetadataArgs decode_inputs(const I64& seq, const I32& r2t, const I64& r2t_shape, const I64& rows, bool has_rows,
                                 std::int64_t max_seq_pages, std::int64_t delta, std::int64_t ps) {
  DecodeMetadataArgs a;
  a.seq_lens = view(seq);
  if (!r2t_shape.empty()) a.req_to_token = cview(r2t, r2t_shape);
  a.req_pool_indices = view(rows, has_rows);
  a.max_seq_pages = max_seq_pages;
  a.seq_len_delta = delta;
  a.page_size = ps;
  return a;
}

Prepared prep_decode(Call& c) {
  const bool skip = c.flag("skip_page_table");
  Arr seq = c.input("seq_lens", Want::widen, 1, 1);
  Arr v2p = c.input("v2p", Want::i64, 1, 1, true);
  Arr kpt = c.input("kernel_page_table", Want::i32, 2, 2, true);
  Arr swa = c.input("swa_v2p", Want::i64, 1, 1, true);
  // The static SWA pool's token-level full -> SWA slot map (the other SWA form), and the canonical-source
  // mode (req_to_token holds canonical kernel page-table rows, copied).
  Arr swa_map = c.input("full_to_swa_index_mapping", Want::i64, 1, 1, true);
  const bool src_rows = c.flag("src_is_kernel_page_table");
  const bool any_swa = swa.present || swa_map.present;
  const bool needs_r2t = !skip && (!kpt.present || any_swa);
  Arr r2t = c.input("req_to_token", Want::i32, 2, 2, !needs_r2t);
  Arr rows = c.input("req_pool_indices", Want::widen, 1, 1, !needs_r2t);
  same_length(seq, rows);
  const std::int64_t max_seq_pages = c.integer("max_seq_pages");
  const std::int64_t delta = c.integer("seq_len_delta", 0);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  const std::int64_t swa_mult = c.integer("swa_multiplier", 1);
  Prepared p;
  p.outputs.push_back(c.output("cache_seqlens", Want::i32, 1, 1));
  p.outputs.push_back(c.output("cu_seqlens_k", Want::i32, 1, 1));
  const bool has_pt = !skip || c.has_output("page_table");
  const std::size_t pt_idx = p.outputs.size();
  if (has_pt) p.outputs.push_back(c.output("page_table", Want::i32, 2, 2));
  const bool has_swa_pt = any_swa || c.has_output("swa_page_table");
  const std::size_t swa_idx = p.outputs.size();
  if (has_swa_pt) {
    if (!any_swa) bad("output swa_page_table needs input swa_v2p or full_to_swa_index_mapping");
    p.outputs.push_back(c.output("swa_page_table", Want::i32, 2, 2));
  }
  for (std::size_t k : {pt_idx, swa_idx}) {
    if (k < p.outputs.size() && p.outputs[k].shape[1] < max_seq_pages) {
      bad(fmt::format("scalar max_seq_pages = {} but {} has {} columns", max_seq_pages, p.outputs[k].name,
                      p.outputs[k].shape[1]));
    }
  }
  std::vector<I64> shapes, befores, after_views;
  for (const auto& o : p.outputs) {
    shapes.push_back(o.shape);
    befores.push_back(o.before);
    after_views.push_back(lanes_after_view(o));
  }
  // The run with `extra` rows of memory after each page table (run_grown; 0: the recorded buffers).
  auto run = [seq = seq.v, r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, has_rows = rows.present, v2p = v2p,
              kpt = kpt.i32(), kpt_shape = kpt.shape, has_kpt = kpt.present, swa = swa, swa_map = swa_map,
              src_rows, shapes, befores, after_views, has_pt, has_swa_pt, pt_idx, swa_idx, skip, max_seq_pages,
              delta, ps, mult, swa_mult](Variant v, std::int64_t extra) {
    std::vector<I32> bufs;
    for (std::size_t k = 0; k < befores.size(); ++k) {
      const bool table = shapes[k].size() == 2;
      bufs.push_back(narrow_copy(table && extra > 0 ? grown_buffer(befores[k], after_views[k], extra * shapes[k][1])
                                                    : befores[k]));
    }
    const auto grown = [&](std::size_t k) { return I64{shapes[k][0] + extra, shapes[k][1]}; };
    DecodeMetadataArgs a = decode_inputs(seq, r2t, r2t_shape, rows, has_rows, max_seq_pages, delta, ps);
    a.v2p = sview(v2p);
    a.multiplier = mult;
    if (has_kpt) a.kernel_page_table = cview(kpt, kpt_shape);
    a.skip_page_table = skip;
    a.cache_seqlens = mvec_of(bufs[0]);
    a.cu_seqlens_k = mvec_of(bufs[1]);
    if (has_pt) a.page_table = mview(bufs[pt_idx], grown(pt_idx));
    a.swa_v2p = sview(swa);
    a.swa_multiplier = swa_mult;
    a.full_to_swa_index_mapping = sview(swa_map);
    a.src_is_kernel_page_table = src_rows;
    if (has_swa_pt) a.swa_page_table = mview(bufs[swa_idx], grown(swa_idx));
    a.variant = v;
    translate::decode_metadata(a);
    std::vector<I64> outs;
    for (const auto& b : bufs) outs.push_back(widen(b));
    return outs;
  };
  p.run = [run](Variant v) { return run(v, 0); };
  p.run_grown = run;
  // Called after the claimed variant's run, so the shapes are valid.
  p.preconditions = [seq = seq.v, r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, has_rows = rows.present,
                     v2p = v2p.v, has_v2p = v2p.present, has_kpt = kpt.present, max_seq_pages, delta, ps] {
    static const std::int32_t kpt_marker = 0;  // a present kernel_page_table only switches the padding check off
    DecodeMetadataArgs a = decode_inputs(seq, r2t, r2t_shape, rows, has_rows, max_seq_pages, delta, ps);
    a.v2p = view(v2p, has_v2p);
    if (has_kpt) a.kernel_page_table = {&kpt_marker, 1, 1, 1, 1};
    return broken_preconditions(a);
  };
  return p;
}

// ---- dispatch ------------------------------------------------------------------------------------
namespace {
// Routes with loading rules of their own (an out_width tail, an in-place buffer, a table of
// page starts, dependent inputs).
Prepared prepare_own(RouteSpec<Route::write_loc>, Call& c) { return prep_write_loc(c); }
Prepared prepare_own(RouteSpec<Route::kv_indices_inplace>, Call& c) { return prep_kv_indices(c); }
Prepared prepare_own(RouteSpec<Route::eager_funnel>, Call& c) { return prep_eager_funnel(c); }
Prepared prepare_own(RouteSpec<Route::decode_metadata>, Call& c) { return prep_decode(c); }

// A route of a known shape needs no code here; any other route must have a prepare_own overload
// (it does not compile without one).
template <class S>
Prepared prepare_spec(Call& c, const Claim& claim) {
  if constexpr (is_per_id_route<S>) return prep_ids<S>(c);
  else if constexpr (is_table_route<S>) return prep_table<S>(c, claim);
  else return prepare_own(S{}, c);
}
}  // namespace

Prepared prepare(Route route, Call& c, const Claim& claim) {
  return visit_route(route, [&](auto spec) { return prepare_spec<decltype(spec)>(c, claim); });
}

}  // namespace kvaddr::replay::load
