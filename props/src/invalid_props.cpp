// Invalid and aliased inputs: every buffer of a call is a slice of ONE allocation, placed against
// another buffer (same slice, same start, touching, one element of overlap, inside, anywhere), and
// scalars and index arrays are sometimes out of contract. An independent oracle, written from the
// contract rules of spec §4 (not from validate.cpp), says which typed error (kind and argument) the
// call must raise, or what it must write. The property checks the route agrees, and that a
// rejected call leaves the whole allocation bit-identical.
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string>

#include "check.hpp"
#include "gen.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::props::detail {
namespace {

namespace g = kvaddr::props::gen;
namespace tr = kvaddr::translate;
using g::Slice;

// The outcome the oracle expects: success, or an error of `kind` naming `arg`.
struct Verdict {
  bool ok = true;
  ErrorKind kind = ErrorKind::invalid_argument;
  std::string arg;
};
Verdict reject(ErrorKind k, std::string arg) { return {false, k, std::move(arg)}; }

// Runs `f` and checks it against `want`; a rejected call must leave `pool` as `before`. Returns
// true when the call succeeded (the caller compares the written values next).
template <class T, class F>
bool agrees(std::string_view route, const Verdict& want, const std::vector<T>& pool, const std::vector<T>& before,
            F&& f) {
  try {
    f();
  } catch (const Error& e) {
    std::ostringstream os;
    os << route << " threw " << to_string(e.kind()) << " naming '" << e.argument() << "' (" << e.what() << "); ";
    if (want.ok) RC_FAIL(os.str() + "the oracle admits this call");
    if (e.kind() != want.kind || e.argument() != want.arg)
      RC_FAIL(os.str() + "the oracle expects " + std::string(to_string(want.kind)) + " naming '" + want.arg + "'");
    if (pool != before) RC_FAIL(os.str() + "and a caller buffer changed");
    return false;
  } catch (const std::exception& e) {
    RC_FAIL(std::string(route) + " threw an untyped exception: " + e.what());
  }
  if (!want.ok) {
    RC_FAIL(std::string(route) + " returned normally; the oracle expects " + std::string(to_string(want.kind)) +
            " naming '" + want.arg + "'");
  }
  return true;
}

// Runs `call` against `want` (agrees) on the allocation `pool`; when it succeeds, the whole
// allocation must equal its state before the call with `writes(expect, before)` applied to a copy.
template <class T, class Call, class Writes>
void check_pool(std::string_view route, const Verdict& want, std::vector<T>& pool, Call&& call, Writes&& writes) {
  const std::vector<T> before = pool;
  if (!agrees(route, want, pool, before, call)) return;
  std::vector<T> expect = before;
  writes(expect, before);
  same(std::string(route) + " pool", pool, expect);
}

Slice any_slice(i64 pool, i64 max_size) {
  const i64 size = g::any<i64>(0, max_size + 1);
  const i64 off = g::any<i64>(0, pool - size + 1);
  return {off, size};
}
template <class T>
Vec<T> view(std::vector<std::remove_const_t<T>>& pool, Slice s) {
  return {pool.data() + s.off, s.size};
}

// ---- view rules ------------------------------------------------------------------------------
// Every Vec argument has size >= 0, before >= 0, after >= 0 and no parent slice without data. The
// contract checks the scalars first, then each view in argument order (its view rules before the
// sizes and aliasing that involve it), then contents. In a quarter of the cases `which_view`
// picks one view and `break_view` breaks one of its rules; the verdict becomes that view's
// InvalidArgument when the view comes no later than the rule the unbroken call fails (its rank in
// the same order; views are ranked 0, 1, 2, ...) and that rule names another argument (a later
// rule of the same view would otherwise reject the call with the same error whether or not the
// view rule holds). A null pointer with a non-zero size is not drawn: a mutant that lets it
// through would dereference it.
template <class T>
Verdict break_view(Vec<T>& v, const std::string& name) {
  // An absent view: a negative size / before / after is rejected again by the null-data or
  // parent-slice rule (same error); only "absent with before = 1" breaks one rule alone.
  switch (v.data == nullptr ? 3 : g::any<int>(0, 4)) {
    case 0: v.size = -1; break;
    case 1: v.before = -1; break;
    case 2: v.after = -1; break;
    default: v = Vec<T>{nullptr, 0, 1, 0}; break;
  }
  return reject(ErrorKind::invalid_argument, name);
}
// A matrix's extent rules: rows or cols negative (strides are left alone here: a mutant letting a
// negative stride through would address memory before this allocation).
template <class T>
Verdict break_extent(Mat<T>& m, const std::string& name) {
  (g::coin() ? m.rows : m.cols) = -1;
  return reject(ErrorKind::invalid_argument, name);
}
// A required table: a negative size or a parent slice without data is rejected again by the
// "absent or empty" rule with the same error, so only before / after are broken.
template <class T>
Verdict break_required(Vec<T>& v, const std::string& name) {
  (g::coin() ? v.before : v.after) = -1;
  return reject(ErrorKind::invalid_argument, name);
}
// Draws which view to break (-1: none) among `n` views.
int which_view(int n) { return g::any<int>(0, 4) == 0 ? g::any<int>(0, n) : -1; }

// One view of a call and how it is broken (break_view, break_required or break_extent).
struct ViewBreak {
  std::string name;
  std::function<Verdict()> run;
};
template <class T>
ViewBreak any_rule(Vec<T>& v, std::string name) {
  return {name, [&v, name] { return break_view(v, name); }};
}
template <class T>
ViewBreak required_rule(Vec<T>& v, std::string name) {
  return {name, [&v, name] { return break_required(v, name); }};
}
template <class T>
ViewBreak extent_rule(Mat<T>& m, std::string name) {
  return {name, [&m, name] { return break_extent(m, name); }};
}
// Breaks view k of `views` (k < 0: none) when `allowed` and the verdict names another argument.
void break_listed(Verdict& want, int k, bool allowed, std::initializer_list<ViewBreak> views) {
  if (k < 0 || !allowed) return;
  const ViewBreak& v = views.begin()[k];
  if (want.arg != v.name) want = v.run();
}

// The oracle's rules after the two scalars of a route whose views are (input, v2p, out), in
// contract order: v2p present, out at least as long as the input, out overlapping the input only
// where `alias_ok` (the route's admitted aliasing), out disjoint from v2p. Sets `want` at the
// first rule broken; returns whether all hold (the lane contents decide next).
bool input_v2p_out_ok(Verdict& want, const Slice& input, const Slice& v2p, const Slice& out, bool alias_ok) {
  if (v2p.size == 0) {
    want = reject(ErrorKind::invalid_argument, "v2p");
  } else if (out.size < input.size) {
    want = reject(ErrorKind::buffer_too_small, "out");
  } else if ((g::overlaps(out, input) && !alias_ok) || g::overlaps(out, v2p)) {
    want = reject(ErrorKind::invalid_argument, "out");
  } else {
    return true;
  }
  return false;
}

// Routes whose views are (input, v2p, out) and whose two scalars come first: the rank of the rule
// the unbroken call fails (-1: a scalar; 9: none or a lane's contents; 1: v2p; 2: out too small;
// 3: an aliasing rule), then at most one of the three views broken (which_view) when it comes no
// later than that rule and the rule names another argument.
template <class In>
void break_input_v2p_out(Verdict& want, std::string_view scalar_a, std::string_view scalar_b, Vec<In>& input,
                         const char* input_name, Vec<const i64>& v2p, Vec<i64>& out) {
  const int rank = (want.arg == scalar_a || want.arg == scalar_b) ? -1
                   : (want.ok || want.kind == ErrorKind::out_of_range) ? 9
                   : want.arg == "v2p" ? 1
                   : want.kind == ErrorKind::buffer_too_small ? 2 : 3;
  const int k = which_view(3);
  break_listed(want, k, k <= rank, {any_rule(input, input_name), required_rule(v2p, "v2p"), any_rule(out, "out")});
}

// ---- token_translate (§4.1): out aliases ids exactly or is disjoint; out disjoint from v2p -------
void prop_token_layout(Variant) {
  constexpr i64 kPool = 40;
  std::vector<i64> pool(uz(kPool));
  for (auto& x : pool) x = g::any<i64>(-1, 7);
  const i64 ps = g::elem<i64>({1, 2, 0, -1});
  const i64 M = g::elem<i64>({1, 3, 0});
  const Slice ids = any_slice(kPool, 8);
  const Slice v2p = g::coin() ? g::slice_near(kPool, ids, g::any<i64>(0, 8)) : any_slice(kPool, 8);
  const i64 out_size = ids.size + g::any<i64>(-1, 2);
  const Slice out = g::slice_near(kPool, g::coin() ? ids : v2p, std::max<i64>(out_size, 0));

  // Oracle (contract order: scalars, v2p present, out long enough, aliasing, then lane contents).
  Verdict want;
  if (ps < 1) {
    want = reject(ErrorKind::invalid_argument, "page_size");
  } else if (M < 1) {
    want = reject(ErrorKind::invalid_argument, "multiplier");
  } else if (input_v2p_out_ok(want, ids, v2p, out, out.off == ids.off && out.size == ids.size)) {
    for (i64 i = 0; i < ids.size; ++i) {
      const i64 t = pool[uz(ids.off + i)];
      if (t >= 0 && t / ps >= v2p.size) want = reject(ErrorKind::out_of_range, "v2p");
    }
  }
  TokenTranslateArgs<i64> a{view<const i64>(pool, ids), view<const i64>(pool, v2p), ps, M, view<i64>(pool, out)};
  break_input_v2p_out(want, "page_size", "multiplier", a.ids, "ids", a.v2p, a.out);
  check_pool("token_translate", want, pool, [&] { tr::token_translate(a); }, [&](auto& expect, const auto& before) {
    for (i64 i = 0; i < ids.size; ++i) {
      const i64 t = before[uz(ids.off + i)];
      expect[uz(out.off + i)] = t < 0 ? 0 : std::max<i64>(before[uz(v2p.off + t / ps)] * ps * M + t % ps, 0);
    }
  });
}

// ---- write_loc (§4.8): out may start at loc and be longer; dcp_rank in [0, dcp_size) -------------
void prop_write_loc_layout(Variant) {
  constexpr i64 kPool = 40;
  std::vector<i64> pool(uz(kPool));
  for (auto& x : pool) x = g::any<i64>(-1, 7);
  const i64 dcp = g::elem<i64>({1, 2, 0});
  const i64 rank = g::elem<i64>({0, 1, -1, 2});
  const Slice loc = any_slice(kPool, 8);
  const Slice v2p = any_slice(kPool, 8);
  const Slice out = g::slice_near(kPool, g::coin() ? loc : v2p, std::max<i64>(loc.size + g::any<i64>(-1, 3), 0));
  Verdict want;
  if (dcp < 1) {
    want = reject(ErrorKind::invalid_argument, "dcp_size");
  } else if (rank < 0 || rank >= dcp) {
    want = reject(ErrorKind::invalid_argument, "dcp_rank");
  } else if (input_v2p_out_ok(want, loc, v2p, out, out.off == loc.off)) {
    for (i64 i = 0; i < loc.size; ++i) {
      const i64 l = pool[uz(loc.off + i)];
      if (l > 0 && l % dcp == rank && l / dcp >= v2p.size) want = reject(ErrorKind::out_of_range, "v2p");
    }
  }
  WriteLocArgs a{view<const i64>(pool, loc), view<const i64>(pool, v2p), 1, 2, dcp, rank, view<i64>(pool, out)};
  break_input_v2p_out(want, "dcp_size", "dcp_rank", a.loc, "loc", a.v2p, a.out);
  check_pool("write_loc", want, pool, [&] { tr::write_loc(a); }, [&](auto& expect, const auto& before) {
    for (i64 i = 0; i < out.size; ++i) {
      const i64 l = i < loc.size ? before[uz(loc.off + i)] : 0;
      const bool keep = i < loc.size && l > 0 && l % dcp == rank;
      expect[uz(out.off + i)] = keep ? std::max<i64>(before[uz(v2p.off + l / dcp)] * 2, 0) : 0;
    }
  });
}

// ---- read_stream (§4.4): indptr starts >= 0, non-decreasing, indptr[B] <= stream size; stream
// disjoint from the table and from indptr; the table has >= B rows and every position a column ---
void prop_read_stream_layout(Variant) {
  constexpr i64 kPool = 48;
  std::vector<i32> pool(uz(kPool));
  for (auto& x : pool) x = static_cast<i32>(g::any<i64>(0, 5));
  const i64 batch = g::any<i64>(0, 4);
  const i64 width = g::any<i64>(1, 4);
  const i64 ps = g::elem<i64>({1, 2});
  const i64 rows = std::max<i64>(batch - (g::any<int>(0, 8) == 0 ? 1 : 0), 0);
  const Slice table{g::any<i64>(0, kPool - rows * width + 1), rows * width};
  const Slice indptr = g::slice_near(kPool, table, batch + 1);
  // indptr values: a valid CSR most of the time, sometimes a negative start or a decrease.
  std::vector<i32> ip(uz(batch + 1), 0);
  for (i64 b = 1; b <= batch; ++b) ip[uz(b)] = ip[uz(b - 1)] + static_cast<i32>(g::any<i64>(0, width * ps + 2));
  switch (g::any<int>(0, 6)) {
    case 0: ip[0] = -1; break;
    case 1:
      if (batch > 0) ip[uz(batch)] = ip[uz(batch - 1)] - 1;
      break;
    default: break;
  }
  for (i64 b = 0; b <= batch; ++b) pool[uz(indptr.off + b)] = ip[uz(b)];
  const Slice stream = g::slice_near(kPool, g::coin() ? indptr : table, std::max<i64>(ip.back() + g::any<i64>(-1, 2), 0));

  Verdict want;
  if (rows < batch) {
    want = reject(ErrorKind::buffer_too_small, "table");
  } else if (g::overlaps(stream, table) || g::overlaps(stream, indptr)) {
    want = reject(ErrorKind::invalid_argument, "stream");
  } else {
    i64 prev = 0;
    for (i64 b = 0; b <= batch && want.ok; ++b) {
      if (ip[uz(b)] < prev) want = reject(ErrorKind::out_of_range, "indptr");
      prev = ip[uz(b)];
    }
    if (want.ok && prev > stream.size) want = reject(ErrorKind::buffer_too_small, "stream");
    for (i64 b = 0; b < batch && want.ok; ++b)
      if ((ip[uz(b + 1)] - ip[uz(b)] - 1) / ps >= width) want = reject(ErrorKind::out_of_range, "table");
  }
  ReadStreamArgs a{{pool.data() + table.off, rows, width, width, 1}, view<const i32>(pool, indptr), {}, ps,
                   view<i32>(pool, stream)};
  {  // views: indptr 0, (table rows), kv_start_idx 1, stream 2
    const int r = (want.arg == "table" && want.kind == ErrorKind::buffer_too_small) ? 0 : 9;
    const int k = which_view(3);
    break_listed(want, k, k <= r,
                 {required_rule(a.indptr, "indptr"), any_rule(a.kv_start_idx, "kv_start_idx"), any_rule(a.stream, "stream")});
  }
  check_pool("read_stream", want, pool, [&] { tr::read_stream(a); }, [&](auto& expect, const auto& before) {
    for (i64 b = 0; b < batch; ++b)
      for (i64 j = ip[uz(b)]; j < ip[uz(b + 1)]; ++j) {
        const i64 pos = j - ip[uz(b)];
        expect[uz(stream.off + j)] = static_cast<i32>(before[uz(table.off + b * width + pos / ps)] * ps + pos % ps);
      }
  });
}


// ---- kv_indices_inplace (§4.7): batch_size >= 0, kv_indptr >= B + 1 entries with a non-negative
// end n <= len(kv_indices) (and <= len(src)); kv_indices disjoint from kv_indptr; src exact or disjoint
void prop_kv_indices_layout(Variant) {
  constexpr i64 kPool = 40;
  std::vector<i32> pool(uz(kPool));
  for (auto& x : pool) x = static_cast<i32>(g::any<i64>(-1, 6));
  const std::vector<i64> v2p = [] {
    std::vector<i64> v(uz(g::any<i64>(0, 7)));
    for (auto& x : v) x = g::any<i64>(-1, 9);
    if (!v.empty()) v[0] = 0;  // the pinned sink of an admitted table
    return v;
  }();
  const i64 batch = g::any<i64>(-1, 4);
  const Slice kv = any_slice(kPool, 8);
  const Slice indptr = g::slice_near(kPool, kv, std::max<i64>(batch + 1 - (g::any<int>(0, 8) == 0 ? 1 : 0), 0));
  const i64 n = g::any<i64>(-1, kv.size + 2);
  if (batch >= 0 && indptr.size >= batch + 1) pool[uz(indptr.off + batch)] = static_cast<i32>(n);
  const bool with_src = g::coin();
  const Slice src = with_src ? g::slice_near(kPool, kv, std::max<i64>(n + g::any<i64>(-1, 2), 0)) : Slice{};

  Verdict want;
  if (batch < 0) {
    want = reject(ErrorKind::invalid_argument, "batch_size");
  } else if (indptr.size < batch + 1) {
    want = reject(ErrorKind::buffer_too_small, "kv_indptr");
  } else if (v2p.empty()) {
    want = reject(ErrorKind::invalid_argument, "v2p");
  } else if (g::overlaps(kv, indptr)) {
    want = reject(ErrorKind::invalid_argument, "kv_indices");
  } else if (with_src && g::overlaps(kv, src) && !(kv.off == src.off && kv.size == src.size)) {
    want = reject(ErrorKind::invalid_argument, "src");
  } else if (n < 0) {
    want = reject(ErrorKind::out_of_range, "kv_indptr");
  } else if (n > kv.size) {
    want = reject(ErrorKind::buffer_too_small, "kv_indices");
  } else if (with_src && n > src.size) {
    want = reject(ErrorKind::buffer_too_small, "src");
  } else {
    const Slice from = with_src ? src : kv;
    for (i64 i = 0; i < n; ++i)
      if (pool[uz(from.off + i)] >= static_cast<i64>(v2p.size())) want = reject(ErrorKind::out_of_range, "v2p");
  }
  KvIndicesInplaceArgs a{view<i32>(pool, kv), view<const i32>(pool, indptr), batch,
                         with_src ? view<const i32>(pool, src) : Vec<const i32>{}, cvec(v2p), 1, 2};
  {  // views: kv_indices 0, kv_indptr 1, src 2, v2p 3
    const int r = want.arg == "batch_size" ? -1
                  : want.arg == "kv_indptr" && want.kind == ErrorKind::buffer_too_small ? 1
                  : want.arg == "v2p" && want.kind == ErrorKind::invalid_argument ? 3 : 9;
    const int k = which_view(4);
    break_listed(want, k, k <= r,
                 {any_rule(a.kv_indices, "kv_indices"), any_rule(a.kv_indptr, "kv_indptr"), any_rule(a.src, "src"),
                  required_rule(a.v2p, "v2p")});
  }
  const Slice from = with_src ? src : kv;
  check_pool("kv_indices_inplace", want, pool, [&] { tr::kv_indices_inplace(a); }, [&](auto& expect, const auto& before) {
    for (i64 i = 0; i < n; ++i) {
      const i64 t = before[uz(from.off + i)];
      expect[uz(kv.off + i)] = static_cast<i32>(t < 0 ? 0 : std::max<i64>(v2p[uz(t)] * 2, 0));
    }
  });
}

// ---- read_table (§4.4): out a packed, non-overlapping matrix of >= B rows and >= max_pages
// columns, disjoint from req_to_token (by extent); req_to_token reaches column (max_pages-1)*ps -----
void prop_read_table_layout(Variant) {
  constexpr i64 kPool = 64;
  std::vector<i32> pool(uz(kPool));
  for (auto& x : pool) x = static_cast<i32>(g::any<i64>(-1, 8));
  const std::vector<i64> v2p = {0, 3, 1, -1, 2};
  const i64 ps = g::elem<i64>({1, 2});
  const i64 max_pages = g::any<i64>(-1, 4);
  const i64 r_rows = g::any<i64>(1, 3), r_cols = g::any<i64>(1, 6);
  const Slice r2t{g::any<i64>(0, kPool - r_rows * r_cols + 1), r_rows * r_cols};
  std::vector<i64> rows(uz(g::any<i64>(0, 3))), lens(rows.size());
  for (auto& r : rows) r = g::any<i64>(-1, r_rows + 1);
  for (auto& l : lens) l = g::any<i64>(-1, 8);
  const i64 batch = static_cast<i64>(rows.size());
  Mat<i32> out;
  out.rows = std::max<i64>(batch + g::any<i64>(-1, 2), 0);
  out.cols = std::max<i64>(max_pages + g::any<i64>(-1, 2), 0);
  out.col_stride = g::elem<i64>({1, 2, 0});
  const i64 span = out.cols == 0 ? 0 : (out.cols - 1) * out.col_stride + 1;
  out.row_stride = std::max<i64>(span + g::any<i64>(-1, 2), 0);
  const i64 extent = (out.rows == 0 || out.cols == 0) ? 0 : (out.rows - 1) * out.row_stride + span;
  const Slice out_s = g::slice_near(kPool, r2t, extent);
  RC_PRE(out_s.size == extent);  // a matrix clipped at the pool's end is no case
  out.data = pool.data() + out_s.off;

  Verdict want;
  const bool nonempty = out.rows > 0 && out.cols > 0;
  if (max_pages < 0) {
    want = reject(ErrorKind::invalid_argument, "max_pages");
  } else if (max_pages > 0 && (max_pages - 1) * ps >= r_cols) {
    want = reject(ErrorKind::buffer_too_small, "req_to_token");
  } else if (nonempty && out.col_stride < 1) {
    want = reject(ErrorKind::invalid_argument, "out");
  } else if (nonempty && out.rows > 1 && out.row_stride < span) {
    want = reject(ErrorKind::invalid_argument, "out");
  } else if (nonempty && out.cols > 1 && out.col_stride != 1) {
    want = reject(ErrorKind::invalid_argument, "out");
  } else if (out.rows < batch) {
    want = reject(ErrorKind::buffer_too_small, "out");
  } else if (out.cols < max_pages) {
    want = reject(ErrorKind::buffer_too_small, "out");
  } else if (g::overlaps(out_s, r2t)) {
    want = reject(ErrorKind::invalid_argument, "out");
  } else {
    // Lane order: per row, its row id, its length, then its columns' v2p loads.
    for (i64 b = 0; b < batch && want.ok; ++b) {
      if (rows[uz(b)] < 0 || rows[uz(b)] >= r_rows) {
        want = reject(ErrorKind::out_of_range, "row_ids");
      } else if (lens[uz(b)] < 0) {
        want = reject(ErrorKind::out_of_range, "seq_lens");
      } else {
        const i64 n = std::min((lens[uz(b)] + ps - 1) / ps, max_pages);
        for (i64 c = 0; c < n && want.ok; ++c) {
          const i64 tok = pool[uz(r2t.off + rows[uz(b)] * r_cols + c * ps)];
          if ((tok < 0 ? 0 : tok / ps) >= static_cast<i64>(v2p.size())) want = reject(ErrorKind::out_of_range, "v2p");
        }
      }
    }
  }
  // views: req_to_token 3, row_ids 0, seq_lens 1, v2p 2 (all after max_pages), out 4 (after the width rule)
  const int broken_view = which_view(5);
  ReadTableArgs a{{pool.data() + r2t.off, r_rows, r_cols, r_cols, 1}, cvec(rows), cvec(lens), 0, max_pages,
                  cvec(v2p), ps, 3, out};
  const bool width_fails = want.arg == "req_to_token" && want.kind == ErrorKind::buffer_too_small;
  break_listed(want, broken_view, want.arg != "max_pages" && !(broken_view == 4 && width_fails),
               {any_rule(a.row_ids, "row_ids"), any_rule(a.seq_lens, "seq_lens"), required_rule(a.v2p, "v2p"),
                extent_rule(a.req_to_token, "req_to_token"), extent_rule(a.out, "out")});
  check_pool("read_table", want, pool, [&] { tr::read_table(a); }, [&](auto& expect, const auto& before) {
    for (i64 b = 0; b < batch; ++b) {
      const i64 n = std::min((lens[uz(b)] + ps - 1) / ps, max_pages);
      for (i64 c = 0; c < n; ++c) {
        const i64 tok = before[uz(r2t.off + rows[uz(b)] * r_cols + c * ps)];
        const i64 page = tok < 0 ? 0 : tok / ps;
        expect[uz(out_s.off + b * out.row_stride + c * out.col_stride)] =
            static_cast<i32>(std::max<i64>(v2p[uz(page)] * 3, 0));
      }
    }
  });
}

}  // namespace

void register_invalid_route_properties(std::vector<PropertyDef>& out);  // invalid_routes_props.cpp

void register_invalid_properties(std::vector<PropertyDef>& out) {
  register_invalid_route_properties(out);
  using enum Route;
  add_rejects_invalid(
      out,
      {{token_translate, prop_token_layout,
        "§4.1 invalid scalars and aliased slices of one allocation: typed error naming the argument, nothing "
        "written; valid layouts (exact alias, touching) translate"},
       {write_loc, prop_write_loc_layout,
        "§4.8 dcp_size / dcp_rank out of range, prefix alias admitted, partial overlap rejected, nothing written"},
       {kv_indices_inplace, prop_kv_indices_layout,
        "§4.7 batch_size, kv_indptr length and end, src exact alias or disjoint, kv_indices overlapping "
        "kv_indptr: typed error, nothing written; in place and via src translate"},
       {read_table, prop_read_table_layout,
        "§4.4 out strides (col_stride 0 / 2, overlapping rows), short shape, out overlapping req_to_token, "
        "req_to_token too narrow, bad row ids / lengths: typed error, nothing written"},
       {std::nullopt, prop_read_stream_layout,
        "§4.4 negative or decreasing indptr, short stream or table, stream overlapping its inputs: typed "
        "error, nothing written",
        "read_stream"}});
}

}  // namespace kvaddr::props::detail
