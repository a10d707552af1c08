// Invalid and aliased inputs for the routes without a layout property in invalid_props.cpp:
// swa_translate, dcp_read_translate, transfer_ids, mamba_translate, eager_funnel, envelope_moves,
// flashmla_block_table, canonical_page_table, full_prefill_table and decode_metadata (the last four
// in invalid_tables_props.cpp; the allocation, the call check and the view breakers both files use
// are in invalid_carve.hpp).
//
// Every buffer of a call is carved from ONE allocation, each placed right after the previous one
// (touching but disjoint slices, which the contract admits). A case then draws at most one change
// at a validation rule's boundary: a scalar one past its domain, a buffer one element short, one
// row / column short, a view with a negative size / before / after or a parent slice without
// data, a matrix with a negative extent or stride, an output's strides making its elements or rows
// overlap, an output moved one element into an input (partial overlap), or moved onto it exactly
// (admitted where the contract allows exact aliasing), an id one page past the table. The admitted
// side of each boundary (page size 1, a buffer of exactly the needed length, rows touching, exact
// alias, the last page of the table) is drawn as well. A rejected call must raise the error kind
// naming the argument the rule is about and leave the whole allocation bit-identical; an accepted
// call must write what the model (model/formulas) says, and nothing else in the allocation.
//
// Cases that would make a mutated validation (rule not enforced) dereference a null pointer or
// run past the allocation are not drawn: a null data pointer with a non-zero size, a size whose
// byte count overflows.
#include <string>
#include <vector>

#include "invalid_carve.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::props::detail {

// The page-table routes' cases (invalid_tables_props.cpp).
void invalid_flashmla(Variant);
void invalid_canonical(Variant);
void invalid_full_prefill(Variant);
void invalid_decode(Variant);

namespace {

using namespace carve;
namespace tr = kvaddr::translate;
namespace m = kvaddr::model;

// ---- token-like routes (§4.9, §4.12, §4.13) -------------------------------------------------------
enum class TokenRoute { swa, dcp_read, transfer };

template <class Out>
void token_like(TokenRoute route, std::string_view name, std::string_view v2p_name, std::string_view m_name) {
  Pool pool;
  const i64 ps = g::elem<i64>({1, 2, 3});
  const i64 mult = route == TokenRoute::transfer ? 1 : g::elem<i64>({1, 2, 4});
  const i64 dcp = route == TokenRoute::dcp_read ? g::elem<i64>({1, 2, 3}) : 1;
  const auto v2p_values = draw_v2p();
  const i64 rows = static_cast<i64>(v2p_values.size());
  const i64 n = g::any<i64>(0, 6);
  auto id_values = draw_ids(rows * dcp, ps, n);
  const bool ids_first = g::coin();
  Vec<const i64> ids, v2p;
  if (ids_first) {
    ids = pool.vec<const i64>(id_values);
    v2p = pool.vec<const i64>(v2p_values);
  } else {
    v2p = pool.vec<const i64>(v2p_values);
    ids = pool.vec<const i64>(id_values);
  }
  Vec<Out> out = pool.fill<Out>(n + g::any<i64>(0, 2), static_cast<Out>(-7));
  maybe_parent(pool, ids);
  maybe_parent(pool, v2p);
  i64 s_ps = ps, s_m = mult, s_dcp = dcp;
  const bool same_type = std::is_same_v<Out, i64>;
  Verdict want = accept("touching buffers");
  const Draw d = draw_fault(15, 3);
  const Views views{rules<Rules::vec>(ids, "ids"), rules<Rules::required>(v2p, std::string(v2p_name)), rules<Rules::vec>(out, "out")};
  views.apply(d, want);
  switch (d.c) {
    case 0: s_ps = g::elem<i64>({0, -1}); want = reject(kIA, "page_size", "page_size < 1"); break;
    case 1:
      if (route == TokenRoute::transfer) break;
      s_m = 0;
      want = reject(kIA, std::string(m_name), "multiplier 0");
      break;
    case 2:
      if (route != TokenRoute::dcp_read) break;
      s_dcp = g::elem<i64>({0, -1});
      want = reject(kIA, "dcp_size", "dcp_size < 1");
      break;
    case 3:
    case 4:
    case 5: want = views.any_rule(d.c - 3); break;
    case 6: v2p = {}; want = reject(kIA, std::string(v2p_name), "table absent"); break;
    case 7: out_one_short(out, n, want); break;
    case 8: out_exact(out, n, want, "ids"); break;
    case 9:
      if (n == 0) break;
      if (same_type && (n == 1 || g::coin())) {  // one element in: the same slice
        out.data = reinterpret_cast<Out*>(const_cast<i64*>(ids.data));
        out.size = n;
        want = accept("out aliases ids exactly");
      } else {
        out_on_tail(out, ids, n, want, "out overlaps the last element of ids");
      }
      break;
    case 10: out_on_tail(out, v2p, n, want, "out overlaps the last row of the table"); break;
    case 12:  // ids and the table overlap (inputs may), out aliases ids exactly and so overlaps the table
      if (n == 0 || !same_type) break;
      out.data = reinterpret_cast<Out*>(const_cast<i64*>(ids.data));
      out.size = n;
      v2p = {ids.data + n - 1, 1};
      want = reject(kIA, "out", "out (exactly ids) overlaps a table that overlaps ids");
      break;
    case 11: {  // content: the first id past the table, or the last id inside it
      if (n == 0) break;
      const i64 k = g::any<i64>(0, n);
      const bool past = g::coin();
      const i64 t = (rows * ps) * dcp - (past ? 0 : 1);
      const_cast<i64*>(ids.data)[k] = t;
      want = past ? reject(kOor, std::string(v2p_name), "an id one page past the table")
                  : accept("an id on the table's last row");
      break;
    }
    default: break;
  }
  Expected exp(pool);
  if (want.ok) {
    for (i64 i = 0; i < ids.size; ++i) {
      const i64 t = ids.data[i];
      i64 kid = 0;
      if (route == TokenRoute::swa) {
        kid = m::swa_id(span_of(v2p), s_ps, s_m, m::VirtualToken(t)).value;
      } else if (route == TokenRoute::dcp_read) {
        kid = t < 0 ? 0 : m::kernel_id(span_of(v2p), s_ps, s_m, m::VirtualToken(t / s_dcp)).value;
      } else {
        kid = m::phys(span_of(v2p), s_ps, m::VirtualToken(t)).value;
      }
      exp.set(out.data + i, kid);
    }
  }
  if (route == TokenRoute::swa) {
    SwaTranslateArgs<Out> a{ids, v2p, s_ps, s_m, out};
    check_call(name, want, exp, [&] { tr::swa_translate(a); });
  } else if constexpr (std::is_same_v<Out, i64>) {
    if (route == TokenRoute::dcp_read) {
      DcpReadTranslateArgs a{ids, v2p, s_ps, s_m, s_dcp, out};
      check_call(name, want, exp, [&] { tr::dcp_read_translate(a); });
    } else {
      TransferIdsArgs a{ids, v2p, s_ps, out};
      check_call(name, want, exp, [&] { tr::transfer_ids(a); });
    }
  }
}

void prop_swa(Variant) {
  if (g::coin()) {
    token_like<i64>(TokenRoute::swa, "swa_translate", "swa_v2p", "swa_multiplier");
  } else {
    token_like<i32>(TokenRoute::swa, "swa_translate", "swa_v2p", "swa_multiplier");
  }
}
void prop_dcp_read(Variant) { token_like<i64>(TokenRoute::dcp_read, "dcp_read_translate", "v2p", "multiplier"); }
void prop_transfer(Variant) { token_like<i64>(TokenRoute::transfer, "transfer_ids", "v2p", "multiplier"); }

// ---- mamba_translate (§4.10): out (int32) disjoint from slots and v2p ------------------------------
void prop_mamba(Variant) {
  Pool pool;
  const auto v2p_values = draw_v2p();
  const i64 rows = static_cast<i64>(v2p_values.size());
  const i64 n = g::any<i64>(0, 6);
  std::vector<i64> slot_values(uz(n));
  for (auto& s : slot_values) s = g::any<i64>(0, rows);
  Vec<const i64> slots = pool.vec<const i64>(slot_values);
  Vec<const i64> v2p = pool.vec<const i64>(v2p_values);
  Vec<i32> out = pool.fill<i32>(n + g::any<i64>(0, 2), -7);
  maybe_parent(pool, slots);
  const bool clamp = g::coin();
  Verdict want = accept("touching buffers");
  const Draw d = draw_fault(10, 3);
  const Views views{rules<Rules::vec>(slots, "slots"), rules<Rules::required>(v2p, "v2p"), rules<Rules::vec>(out, "out")};
  views.apply(d, want);
  switch (d.c) {
    case 0:
    case 1:
    case 2: want = views.any_rule(d.c); break;
    case 3: v2p = {}; want = reject(kIA, "v2p", "table absent"); break;
    case 4: out_one_short(out, n, want); break;
    case 5: out_exact(out, n, want, "slots"); break;
    case 6:
      if (n == 0) break;
      out_on_tail(out, slots, n, want, "out overlaps the last slot");
      break;
    case 7: out_on_tail(out, v2p, n, want, "out overlaps the table"); break;
    case 8: {
      if (n == 0) break;
      const bool past = g::coin();
      const_cast<i64*>(slots.data)[g::any<i64>(0, n)] = rows - (past ? 0 : 1);
      want = past ? reject(kOor, "v2p", "a slot one past the table") : accept("a slot on the table's last row");
      break;
    }
    default: break;
  }
  Expected exp(pool);
  if (want.ok)
    for (i64 i = 0; i < slots.size; ++i) exp.set(out.data + i, m::mamba_slot(span_of(v2p), slots.data[i], clamp));
  MambaTranslateArgs a{slots, v2p, clamp, out};
  check_call("mamba_translate", want, exp, [&] { tr::mamba_translate(a); });
}

// ---- eager_funnel (§4.6): out exactly aliases page_table (same origin and strides) or is disjoint --
void prop_eager(Variant) {
  Pool pool;
  const auto [ps, mult, v2p_values, nrows] = draw_table_pool({1, 2, 3});
  const i64 rows = g::any<i64>(1, 4), cols = g::any<i64>(1, 4);
  Vec<const i64> v2p = pool.vec<const i64>(v2p_values);
  Mat<i64> pt_m = pool.mat<i64>(rows, cols, cols, 1, 0);
  for (i64 r = 0; r < rows; ++r)
    for (i64 c = 0; c < cols; ++c) pt_m.data[r * cols + c] = g::any<i64>(-1, nrows * ps);
  Mat<const i64> pt{pt_m.data, rows, cols, cols, 1};
  const i64 out_cols = cols + g::any<i64>(0, 2);
  Mat<i64> out = pool.mat<i64>(rows, out_cols, out_cols, 1, -7);
  i64 s_ps = ps, s_m = mult;
  Verdict want = accept("touching buffers");
  const Draw d = draw_fault(12, 3);
  const Views views{rules<Rules::mat>(pt, "page_table"), rules<Rules::required>(v2p, "v2p"), rules<Rules::out_extent>(out, "out")};
  views.apply(d, want);
  switch (d.c) {
    case 0: s_ps = g::elem<i64>({0, -1}); want = reject(kIA, "page_size", "page_size < 1"); break;
    case 1: s_m = 0; want = reject(kIA, "multiplier", "multiplier 0"); break;
    case 2:
    case 3:
    case 4: want = views.any_rule(d.c - 2); break;
    case 5:
      if (rows < 2 || out_cols < 2) break;
      want = break_out_mat(out, "out");
      break;
    case 6:
      if (g::coin()) {
        want = one_short(out.rows, rows, "out", "out one row short");
      } else {
        out.cols = cols - 1;
        out.row_stride = out_cols;
        want = reject(kSmall, "out", "out one column short");
      }
      break;
    case 7:
      out = {pt_m.data, rows, cols, cols, 1};
      want = accept("out aliases page_table exactly");
      break;
    case 8:
      if (rows * cols < 2) break;  // one element: pt + 1 only touches page_table
      out = {pt_m.data + 1, rows, cols, cols, 1};
      want = reject(kIA, "out", "out one element into page_table");
      break;
    case 9:
      if (rows < 2) break;
      out = {pt_m.data, rows, cols, cols + 1, 1};
      want = reject(kIA, "out", "out on page_table's origin with another row stride");
      break;
    case 10: v2p = {}; want = reject(kIA, "v2p", "table absent"); break;
    default: break;
  }
  Expected exp(pool);
  if (want.ok)
    for (i64 r = 0; r < rows; ++r)
      for (i64 c = 0; c < cols; ++c) {
        const i64 tok = pt.data[r * cols + c];
        exp.set(out.data + r * out.row_stride + c * out.col_stride,
                m::kernel_id(span_of(v2p), s_ps, s_m, m::VirtualToken(tok)).value / s_ps);
      }
  EagerFunnelArgs a{pt, v2p, s_ps, s_m, out};
  check_call("eager_funnel", want, exp, [&] { tr::eager_funnel(a); });
}

// ---- envelope_moves (§4.13): whole page runs; outputs disjoint from each other and the inputs ----
void prop_envelope(Variant) {
  Pool pool;
  const i64 ps = g::elem<i64>({1, 2, 4});
  const i64 runs = g::any<i64>(0, 4);
  std::vector<i64> dst_v, src_v;
  for (i64 r = 0; r < runs; ++r) {
    const i64 dp = g::any<i64>(0, 9), sp = g::any<i64>(0, 9);
    for (i64 k = 0; k < ps; ++k) {
      dst_v.push_back(dp * ps + k);
      src_v.push_back(sp * ps + k);
    }
  }
  Vec<const i64> dst = pool.vec<const i64>(dst_v);
  Vec<const i64> src = pool.vec<const i64>(src_v);
  Vec<i64> dpages = pool.fill<i64>(runs + g::any<i64>(0, 2), -7);
  Vec<i64> spages = pool.fill<i64>(runs + g::any<i64>(0, 2), -7);
  i64 s_ps = ps;
  Verdict want = accept("touching buffers");
  const Draw d = draw_fault(13, 4);
  // src_tokens: a negative size is rejected again as "not as many tokens as dst_tokens", so its
  // rules are the other three.
  const Breaker src_breaker = [&src](int sub) {
    return break_vec(src, "src_tokens", sub < 0 ? 1 + g::any<int>(0, 3) : (sub == 0 ? 1 : sub));
  };
  const Views views{rules<Rules::vec>(dst, "dst_tokens"), src_breaker, rules<Rules::vec>(dpages, "dst_pages"),
                    rules<Rules::vec>(spages, "src_pages")};
  views.apply(d, want);
  switch (d.c) {
    case 0: s_ps = -1; want = reject(kIA, "page_size", "page_size -1"); break;
    case 1:
    case 2:
    case 3:
    case 4: want = views.any_rule(d.c - 1); break;
    case 5:
      if (runs == 0) break;
      src.size -= 1;
      want = reject(kIA, "src_tokens", "one token fewer than dst_tokens");
      break;
    case 6:
      if (runs == 0 || ps == 1) break;
      dst.size -= 1;
      src.size -= 1;
      want = reject(kIA, "dst_tokens", "a partial page run");
      break;
    case 7:
      if (runs == 0) break;
      want = g::coin() ? one_short(dpages.size, runs, "dst_pages", "dst_pages one short")
                          : one_short(spages.size, runs, "src_pages", "src_pages one short");
      break;
    case 8:
      dpages.size = runs;
      spages.size = runs;
      want = accept("page outputs exactly runs long");
      break;
    case 9:
      if (runs == 0) break;
      spages.data = dpages.data + dpages.size - 1;
      spages.size = runs;
      want = reject(kIA, "dst_pages", "src_pages overlaps the last dst page");
      break;
    case 10:
      if (runs == 0) break;
      if (g::coin()) {
        overlap_tail(dpages, src);
        dpages.size = runs;
        want = reject(kIA, "dst_pages", "dst_pages overlaps src_tokens");
      } else {
        overlap_tail(spages, dst);  // from dst_tokens' last element into src_tokens
        spages.size = runs;
        want = reject(kIA, "src_pages", "src_pages overlaps dst_tokens");
      }
      break;
    case 11: {  // content: a run that does not start at a page boundary (only ps > 1)
      if (runs == 0 || ps == 1) break;
      const i64 r = g::any<i64>(0, runs);
      for (i64 k = 0; k < ps; ++k) const_cast<i64*>(dst.data)[r * ps + k] += 1;
      want = reject(kIA, "dst_tokens", "a run one token off its page boundary");
      break;
    }
    default: break;
  }
  Expected exp(pool);
  if (want.ok)
    for (i64 r = 0; r < runs; ++r) {
      exp.set(dpages.data + r, dst.data[r * ps] / ps);
      exp.set(spages.data + r, src.data[r * ps] / ps);
    }
  EnvelopeMoveArgs a{dst, src, s_ps, dpages, spages};
  check_call("envelope_moves", want, exp, [&] { tr::envelope_moves(a); });
}

}  // namespace

void register_invalid_route_properties(std::vector<PropertyDef>& out) {
  // envelope_moves (no route of the list) is named by its own stem.
  using enum Route;
  add_rejects_invalid(
      out,
      {{swa_translate, prop_swa,
        "§4.9 page_size / swa_multiplier boundaries, malformed views, out one short / exact length, out aliasing ids "
        "exactly (int64) or by one element, out on swa_v2p, an id one page past the table: typed error, nothing "
        "written; touching slices of one allocation translate like the model"},
       {dcp_read_translate, prop_dcp_read,
        "§4.12 page_size / multiplier / dcp_size boundaries, malformed views, out length and aliasing, an id past the "
        "table: typed error, nothing written; admitted layouts match the model"},
       {transfer_ids, prop_transfer,
        "§4.13 page_size boundary, malformed views, out length and aliasing, an id past the table: typed error, "
        "nothing written; admitted layouts match the model"},
       {mamba_translate, prop_mamba,
        "§4.10 malformed views, out length, out overlapping slots or v2p, a slot one past the table: typed error, "
        "nothing written; admitted layouts match the model"},
       {eager_funnel, prop_eager,
        "§4.6 scalar boundaries, malformed matrices, out strides / shape, out exactly aliasing page_table admitted, "
        "shifted or re-strided overlap rejected: typed error, nothing written"},
       {std::nullopt, prop_envelope,
        "§4.13 move_kv_cache: page_size, token counts, partial runs, page outputs one short or overlapping, a run off "
        "its page boundary: typed error, nothing written; whole runs give their pages",
        "envelope_moves"},
       {flashmla_block_table, invalid_flashmla,
        "§4.2 scalar boundaries, malformed views and matrices, kv_indices strides / rows, kv_start_idx short, static "
        "kernel multiplier, kv_indices overlapping req_to_token: typed error, nothing written"},
       {canonical_page_table, invalid_canonical,
        "§4.3 scalar boundaries, req_to_token width at max_pages * ps, out packed / strides / shape, out overlapping "
        "req_to_token: typed error, nothing written; admitted layouts match the model"},
       {full_prefill_table, invalid_full_prefill,
        "§4.11 scalar boundaries, malformed views, capacity guard (rows >= B), out strides, out overlapping "
        "req_to_token: typed error, nothing written; admitted layouts match the model"},
       {decode_metadata, invalid_decode,
        "§4.5 page_size power of two, multiplier, max_seq_pages, output lengths, cache_seqlens / cu_seqlens_k / "
        "page_table overlap, page_table strides and shape: typed error, nothing written"}});
}

}  // namespace kvaddr::props::detail
