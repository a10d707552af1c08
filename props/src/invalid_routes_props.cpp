// Invalid and aliased inputs for the routes without a layout property in invalid_props.cpp:
// swa_translate, dcp_read_translate, transfer_ids, mamba_translate, eager_funnel, envelope_moves,
// flashmla_block_table, canonical_page_table, full_prefill_table and decode_metadata.
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
#include <algorithm>
#include <cstring>
#include <functional>
#include <span>
#include <sstream>
#include <string>

#include "check.hpp"
#include "gen.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::props::detail {
namespace {

namespace g = kvaddr::props::gen;
namespace tr = kvaddr::translate;
namespace m = kvaddr::model;

struct Verdict {
  bool ok = true;
  ErrorKind kind = ErrorKind::invalid_argument;
  std::string arg;
  std::string what;  // the boundary drawn (for the failure message)
};
Verdict reject(ErrorKind k, std::string arg, std::string what) { return {false, k, std::move(arg), std::move(what)}; }
Verdict accept(std::string what) { return {true, ErrorKind::invalid_argument, "", std::move(what)}; }
constexpr ErrorKind kIA = ErrorKind::invalid_argument;
constexpr ErrorKind kSmall = ErrorKind::buffer_too_small;
constexpr ErrorKind kOor = ErrorKind::out_of_range;

// ---- one allocation, carved in order ------------------------------------------------------------
// Bytes [0, kMargin) stay unused so that a mutated route reading before a view (a negative stride
// or size let through) still reads inside the allocation.
constexpr i64 kMargin = 512;
constexpr i64 kBytes = 8192;

class Pool {
 public:
  Pool() : words_(uz(kBytes / 8), 0) {}
  unsigned char* base() { return reinterpret_cast<unsigned char*>(words_.data()); }
  std::vector<unsigned char> bytes() const {
    std::vector<unsigned char> b(uz(kBytes));
    std::memcpy(b.data(), words_.data(), uz(kBytes));
    return b;
  }
  i64 offset(const void* p) { return static_cast<const unsigned char*>(p) - base(); }
  // The next `n` elements of T, right after the previous buffer (aligned to T).
  template <class T>
  T* take(i64 n) {
    cursor_ = (cursor_ + i64{sizeof(T)} - 1) / i64{sizeof(T)} * i64{sizeof(T)};
    T* p = reinterpret_cast<T*>(base() + cursor_);
    cursor_ += std::max<i64>(n, 0) * i64{sizeof(T)};
    RC_PRE(cursor_ <= kBytes);
    return p;
  }
  template <class T>
  Vec<T> vec(const std::vector<std::remove_const_t<T>>& values) {
    auto* p = take<std::remove_const_t<T>>(static_cast<i64>(values.size()));
    std::copy(values.begin(), values.end(), p);
    return {p, static_cast<i64>(values.size())};
  }
  template <class T>
  Vec<T> fill(i64 n, std::remove_const_t<T> v) {
    return vec<T>(std::vector<std::remove_const_t<T>>(uz(n), v));
  }
  // A rows x cols matrix with the given strides; elements not in the view hold `pad`.
  template <class T>
  Mat<T> mat(i64 rows, i64 cols, i64 row_stride, i64 col_stride, std::remove_const_t<T> pad) {
    const i64 ext = (rows == 0 || cols == 0) ? 0 : (rows - 1) * row_stride + (cols - 1) * col_stride + 1;
    auto* p = take<std::remove_const_t<T>>(ext);
    std::fill(p, p + ext, pad);
    return {p, rows, cols, row_stride, col_stride};
  }

 private:
  std::vector<std::int64_t> words_;
  i64 cursor_ = kMargin;
};

// Where an accepted call must write, computed before the call from the inputs as they are.
class Expected {
 public:
  explicit Expected(Pool& p) : pool_(p), bytes_(p.bytes()) {}
  template <class T>
  void set(T* at, i64 value) {
    const T v = static_cast<T>(value);
    std::memcpy(bytes_.data() + pool_.offset(at), &v, sizeof(T));
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  Pool& pool_;
  std::vector<unsigned char> bytes_;
};

template <class T>
std::span<const i64> span_of(const Vec<T>& v) {
  return {v.data, uz(v.size)};
}

// Runs the route and checks it against the verdict; compares the whole allocation afterwards.
template <class F>
void check_call(std::string_view route, const Verdict& want, Pool& pool, const std::vector<unsigned char>& before,
                const Expected* expect, F&& f) {
  std::ostringstream os;
  os << route << " [" << want.what << "] ";
  try {
    f();
  } catch (const Error& e) {
    os << "threw " << to_string(e.kind()) << " naming '" << e.argument() << "' (" << e.what() << "); ";
    if (want.ok) RC_FAIL(os.str() + "the contract admits this call");
    if (e.kind() != want.kind || e.argument() != want.arg)
      RC_FAIL(os.str() + "expected " + std::string(to_string(want.kind)) + " naming '" + want.arg + "'");
    if (pool.bytes() != before) RC_FAIL(os.str() + "and a caller buffer changed");
    return;
  } catch (const std::exception& e) {
    RC_FAIL(os.str() + "threw an untyped exception: " + e.what());
  }
  if (!want.ok)
    RC_FAIL(os.str() + "returned normally; expected " + std::string(to_string(want.kind)) + " naming '" + want.arg +
            "'");
  if (expect != nullptr && pool.bytes() != expect->bytes()) {
    // Name the first differing byte's buffer-relative position for the counterexample.
    const auto now = pool.bytes();
    i64 at = 0;
    while (at < kBytes && now[uz(at)] == expect->bytes()[uz(at)]) ++at;
    RC_FAIL(os.str() + "wrote a different allocation: first difference at byte " + std::to_string(at));
  }
}

// ---- view faults (the rules every Vec / Mat argument obeys) ------------------------------------
// Breaks one rule of a Vec: a negative size, before or after, or a parent slice (before > 0)
// without data. Returns the verdict (InvalidArgument naming the view).
template <class T>
Verdict break_vec(Vec<T>& v, const std::string& name, int sub = -1) {
  // An absent view (null data): a negative size is rejected again by the null-data rule and a
  // negative before / after by the parent-slice rule, with the same error; only "absent with
  // before = 1" breaks one rule alone.
  if (v.data == nullptr) sub = 3;
  switch (sub >= 0 ? sub : g::any<int>(0, 4)) {
    case 0: v.size = -1; return reject(kIA, name, name + ".size = -1");
    case 1: v.before = -1; return reject(kIA, name, name + ".before = -1");
    case 2: v.after = -1; return reject(kIA, name, name + ".after = -1");
    default: v = Vec<T>{nullptr, 0, 1, 0}; return reject(kIA, name, name + " absent with before = 1");
  }
}
// A required table (absent or empty is rejected by its own rule, with the same error as a negative
// size or a parent slice without data): only before / after are broken, the faults whose
// rejection no later rule repeats.
template <class T>
Verdict break_required(Vec<T>& v, const std::string& name, int sub = -1) {
  return break_vec(v, name, 1 + (sub >= 0 ? sub : g::any<int>(0, 2)) % 2);
}
// An output matrix: col_stride -1 is rejected again by "output col_stride must be >= 1" and a
// negative row_stride of a multi-row output again by the row-overlap rule (same error), so those
// draw rows / cols -1 instead; row_stride -1 only on a one-row output.
template <class T>
Verdict break_out_extent(Mat<T>& mt, const std::string& name, int sub = -1) {
  const int k = sub >= 0 ? sub : g::any<int>(0, 4);
  if (k == 2 && mt.rows == 1) {
    mt.row_stride = -1;
    return reject(kIA, name, name + ".row_stride = -1 (one row)");
  }
  if (k % 2 == 0) {
    mt.rows = -1;
    return reject(kIA, name, name + ".rows = -1");
  }
  mt.cols = -1;
  return reject(kIA, name, name + ".cols = -1");
}
// A view that is a slice of the allocation may say so (before / after inside the allocation).
template <class T>
void maybe_parent(Pool& p, Vec<T>& v) {
  if (v.data == nullptr || !g::coin()) return;
  v.before = p.offset(v.data) / i64{sizeof(T)} - kMargin / i64{sizeof(T)};
  v.after = 0;
}
template <class T>
Verdict break_mat(Mat<T>& mt, const std::string& name, int sub = -1) {
  switch (sub >= 0 ? sub : g::any<int>(0, 4)) {
    case 0: mt.rows = -1; return reject(kIA, name, name + ".rows = -1");
    case 1: mt.cols = -1; return reject(kIA, name, name + ".cols = -1");
    case 2: mt.row_stride = -1; return reject(kIA, name, name + ".row_stride = -1");
    default: mt.col_stride = -1; return reject(kIA, name, name + ".col_stride = -1");
  }
}
// One draw over a flat list of faults, so that each is drawn about as often as any other: the
// first `cases` values pick a route-specific case (`c`), the next 4 per view break one view rule
// of view `view` (`sub`: which rule).
struct Draw {
  int c = -1;
  int view = -1;
  int sub = 0;
};
Draw draw_fault(int cases, int views) {
  const int f = g::any<int>(0, cases + 4 * views);
  if (f < cases) return {f, -1, 0};
  return {-1, (f - cases) / 4, (f - cases) % 4};
}

// An output matrix's element rules: col_stride 0 (elements overlap) or rows overlapping by one
// element (row_stride one below the row span). Needs rows >= 2 and cols >= 2 to apply.
template <class T>
Verdict break_out_mat(Mat<T>& mt, const std::string& name) {
  if (g::coin()) {
    mt.col_stride = 0;
    return reject(kIA, name, name + ".col_stride = 0");
  }
  mt.row_stride = (mt.cols - 1) * mt.col_stride;
  return reject(kIA, name, name + ".row_stride = row span - 1");
}

// Moves `out` to start one element before the end of `in` (partial overlap by one element).
template <class O, class I>
void overlap_tail(Vec<O>& out, const Vec<I>& in) {
  auto* end = reinterpret_cast<const unsigned char*>(in.data + in.size);
  out.data = reinterpret_cast<O*>(const_cast<unsigned char*>(end) - sizeof(O));
}

// ---- tables and ids -----------------------------------------------------------------------------
// v2p: [nv + 1] rows, sink pinned (v2p[0] = 0), tombstones -1, trailing sentinel -1.
std::vector<i64> draw_v2p() {
  const i64 nv = g::any<i64>(1, 5);
  std::vector<i64> v(uz(nv + 1), -1);
  v[0] = 0;
  for (i64 i = 1; i < nv; ++i) v[uz(i)] = g::elem<i64>({1, 2, 3, 4, 5, -1});
  return v;
}
// Ids inside the table (t < size(v2p) * ps) or padding -1.
std::vector<i64> draw_ids(i64 table_rows, i64 ps, i64 n) {
  std::vector<i64> ids(uz(n));
  for (auto& t : ids) t = g::any<i64>(-1, table_rows * ps);
  return ids;
}

// ---- token-like routes (§4.9, §4.12, §4.13) -------------------------------------------------------
// Shared layout: ids, v2p, out. `exact_ok`: out may alias ids exactly.
struct TokenCase {
  Vec<const i64> ids;
  Vec<const i64> v2p;
  i64 ps = 1;
  i64 mult = 1;
  i64 dcp = 1;
};

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
  if (d.view == 0) want = break_vec(ids, "ids", d.sub);
  if (d.view == 1) want = break_required(v2p, std::string(v2p_name), d.sub);
  if (d.view == 2) want = break_vec(out, "out", d.sub);
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
    case 3: want = break_vec(ids, "ids"); break;
    case 4: want = break_required(v2p, std::string(v2p_name)); break;
    case 5: want = break_vec(out, "out"); break;
    case 6: v2p = {}; want = reject(kIA, std::string(v2p_name), "table absent"); break;
    case 7:
      if (n == 0) break;
      out.size = n - 1;
      want = reject(kSmall, "out", "out one element short");
      break;
    case 8:
      out.size = n;
      want = accept("out exactly as long as ids");
      break;
    case 9:
      if (n == 0) break;
      if (same_type && (n == 1 || g::coin())) {  // one element in: the same slice
        out.data = reinterpret_cast<Out*>(const_cast<i64*>(ids.data));
        out.size = n;
        want = accept("out aliases ids exactly");
      } else {
        overlap_tail(out, ids);
        out.size = n;
        want = reject(kIA, "out", "out overlaps the last element of ids");
      }
      break;
    case 10:
      overlap_tail(out, v2p);
      out.size = n;
      if (n > 0) want = reject(kIA, "out", "out overlaps the last row of the table");
      break;
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
  const auto before = pool.bytes();
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
    check_call(name, want, pool, before, &exp, [&] { tr::swa_translate(a); });
  } else if constexpr (std::is_same_v<Out, i64>) {
    if (route == TokenRoute::dcp_read) {
      DcpReadTranslateArgs a{ids, v2p, s_ps, s_m, s_dcp, out};
      check_call(name, want, pool, before, &exp, [&] { tr::dcp_read_translate(a); });
    } else {
      TransferIdsArgs a{ids, v2p, s_ps, out};
      check_call(name, want, pool, before, &exp, [&] { tr::transfer_ids(a); });
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
  if (d.view == 0) want = break_vec(slots, "slots", d.sub);
  if (d.view == 1) want = break_required(v2p, "v2p", d.sub);
  if (d.view == 2) want = break_vec(out, "out", d.sub);
  switch (d.c) {
    case 0: want = break_vec(slots, "slots"); break;
    case 1: want = break_required(v2p, "v2p"); break;
    case 2: want = break_vec(out, "out"); break;
    case 3: v2p = {}; want = reject(kIA, "v2p", "table absent"); break;
    case 4:
      if (n == 0) break;
      out.size = n - 1;
      want = reject(kSmall, "out", "out one element short");
      break;
    case 5:
      out.size = n;
      want = accept("out exactly as long as slots");
      break;
    case 6:
      if (n == 0) break;
      overlap_tail(out, slots);
      out.size = n;
      want = reject(kIA, "out", "out overlaps the last slot");
      break;
    case 7:
      overlap_tail(out, v2p);
      out.size = n;
      if (n > 0) want = reject(kIA, "out", "out overlaps the table");
      break;
    case 8: {
      if (n == 0) break;
      const bool past = g::coin();
      const_cast<i64*>(slots.data)[g::any<i64>(0, n)] = rows - (past ? 0 : 1);
      want = past ? reject(kOor, "v2p", "a slot one past the table") : accept("a slot on the table's last row");
      break;
    }
    default: break;
  }
  const auto before = pool.bytes();
  Expected exp(pool);
  if (want.ok)
    for (i64 i = 0; i < slots.size; ++i) exp.set(out.data + i, m::mamba_slot(span_of(v2p), slots.data[i], clamp));
  MambaTranslateArgs a{slots, v2p, clamp, out};
  check_call("mamba_translate", want, pool, before, &exp, [&] { tr::mamba_translate(a); });
}

// ---- eager_funnel (§4.6): out exactly aliases page_table (same origin and strides) or is disjoint --
void prop_eager(Variant) {
  Pool pool;
  const i64 ps = g::elem<i64>({1, 2, 3});
  const i64 mult = g::elem<i64>({1, 2});
  const auto v2p_values = draw_v2p();
  const i64 nrows = static_cast<i64>(v2p_values.size());
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
  if (d.view == 0) want = break_mat(pt, "page_table", d.sub);
  if (d.view == 1) want = break_required(v2p, "v2p", d.sub);
  if (d.view == 2) want = break_out_extent(out, "out", d.sub);
  switch (d.c) {
    case 0: s_ps = g::elem<i64>({0, -1}); want = reject(kIA, "page_size", "page_size < 1"); break;
    case 1: s_m = 0; want = reject(kIA, "multiplier", "multiplier 0"); break;
    case 2: want = break_mat(pt, "page_table"); break;
    case 3: want = break_required(v2p, "v2p"); break;
    case 4: want = break_out_extent(out, "out"); break;
    case 5:
      if (rows < 2 || out_cols < 2) break;
      want = break_out_mat(out, "out");
      break;
    case 6:
      if (g::coin()) {
        out.rows = rows - 1;
        want = reject(kSmall, "out", "out one row short");
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
  const auto before = pool.bytes();
  Expected exp(pool);
  if (want.ok)
    for (i64 r = 0; r < rows; ++r)
      for (i64 c = 0; c < cols; ++c) {
        const i64 tok = pt.data[r * cols + c];
        exp.set(out.data + r * out.row_stride + c * out.col_stride,
                m::kernel_id(span_of(v2p), s_ps, s_m, m::VirtualToken(tok)).value / s_ps);
      }
  EagerFunnelArgs a{pt, v2p, s_ps, s_m, out};
  check_call("eager_funnel", want, pool, before, &exp, [&] { tr::eager_funnel(a); });
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
  if (d.view == 0) want = break_vec(dst, "dst_tokens", d.sub);
  // src_tokens: a negative size is rejected again as "not as many tokens as dst_tokens".
  if (d.view == 1) want = break_vec(src, "src_tokens", d.sub == 0 ? 1 : d.sub);
  if (d.view == 2) want = break_vec(dpages, "dst_pages", d.sub);
  if (d.view == 3) want = break_vec(spages, "src_pages", d.sub);
  switch (d.c) {
    case 0: s_ps = -1; want = reject(kIA, "page_size", "page_size -1"); break;
    case 1: want = break_vec(dst, "dst_tokens"); break;
    case 2: want = break_vec(src, "src_tokens", 1 + g::any<int>(0, 3)); break;  // not size -1 (see above)
    case 3: want = break_vec(dpages, "dst_pages"); break;
    case 4: want = break_vec(spages, "src_pages"); break;
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
      if (g::coin()) {
        dpages.size = runs - 1;
        want = reject(kSmall, "dst_pages", "dst_pages one short");
      } else {
        spages.size = runs - 1;
        want = reject(kSmall, "src_pages", "src_pages one short");
      }
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
  const auto before = pool.bytes();
  Expected exp(pool);
  if (want.ok)
    for (i64 r = 0; r < runs; ++r) {
      exp.set(dpages.data + r, dst.data[r * ps] / ps);
      exp.set(spages.data + r, src.data[r * ps] / ps);
    }
  EnvelopeMoveArgs a{dst, src, s_ps, dpages, spages};
  check_call("envelope_moves", want, pool, before, &exp, [&] { tr::envelope_moves(a); });
}

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
  const i64 ps = g::elem<i64>({1, 2, 3});
  const i64 mult = g::elem<i64>({1, 2});
  const auto v2p_values = draw_v2p();
  const i64 nrows = static_cast<i64>(v2p_values.size());
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
  switch (d.view) {
    case 0: want = break_mat(s_r2t, "req_to_token", d.sub); break;
    case 1: want = break_vec(v_rpi, "req_pool_indices", d.sub); break;
    case 2: want = break_vec(v_lens, lens_name, d.sub); break;
    case 3:
      want = route == TableRoute::flashmla ? break_vec(v2p, "v2p", d.sub) : break_required(v2p, "v2p", d.sub);
      break;
    case 4: want = break_out_extent(out, out_name, d.sub); break;
    case 5:
      if (route == TableRoute::flashmla) want = break_vec(v_start, "kv_start_idx", d.sub);
      break;
    default: break;
  }
  switch (d.c) {
    case 0: s_ps = g::elem<i64>({0, -1}); want = reject(kIA, "page_size", "page_size < 1"); break;
    case 1: s_m = 0; want = reject(kIA, "multiplier", "multiplier 0"); break;
    case 2:
      if (route == TableRoute::flashmla) break;
      s_max = -1;
      want = reject(kIA, "max_pages", "max_pages -1");
      break;
    case 3: want = break_mat(s_r2t, "req_to_token"); break;
    case 4: want = break_vec(v_rpi, "req_pool_indices"); break;
    case 5: want = break_vec(v_lens, lens_name); break;
    case 6: want = route == TableRoute::flashmla ? break_vec(v2p, "v2p") : break_required(v2p, "v2p"); break;
    case 7: want = break_out_extent(out, out_name); break;
    case 8:
      if (out_rows < 2 || out_cols < 2) break;
      want = break_out_mat(out, out_name);
      break;
    case 9:
      if (B == 0) break;
      if (g::coin()) {
        v_lens.size = B - 1;
        want = reject(kSmall, lens_name, lens_name + " one short");
      } else {
        out.rows = B - 1;
        want = reject(kSmall, out_name, "out one row short");
      }
      break;
    case 10:
      out.rows = B;
      if (route != TableRoute::flashmla) out.cols = max_pages;
      want = accept("out exactly B x max_pages");
      break;
    case 11:
      if (route == TableRoute::flashmla) {
        if (!with_start || B == 0) break;
        v_start.size = B - 1;
        want = reject(kSmall, "kv_start_idx", "kv_start_idx one short");
      } else {
        out.cols = max_pages - 1;
        want = reject(kSmall, "out", "out one column short");
      }
      break;
    case 12:
      if (route == TableRoute::flashmla) {
        v2p = {};
        if (g::coin()) {
          want = accept("static kernel: v2p absent, multiplier 1");
          s_m = 1;
        } else {
          s_m = 2;
          want = reject(kIA, "multiplier", "static kernel with multiplier 2");
        }
      } else {
        v2p = {};
        want = reject(kIA, "v2p", "table absent");
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
        s_r2t.cols = max_pages * ps - 1;
        want = reject(kSmall, "req_to_token", "req_to_token one column narrower than max_pages * ps");
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
  const auto before = pool.bytes();
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
    check_call(name, want, pool, before, &exp, [&] { tr::flashmla_block_table(a); });
  } else if (route == TableRoute::canonical) {
    CanonicalPageTableArgs a{s_r2t, v_rpi, v_lens, v2p, s_ps, s_m, s_max, out};
    check_call(name, want, pool, before, &exp, [&] { tr::canonical_page_table(a); });
  } else {
    FullPrefillTableArgs a{s_r2t, v_rpi, v_lens, v2p, s_ps, s_m, s_max, out};
    check_call(name, want, pool, before, &exp, [&] { tr::full_prefill_table(a); });
  }
}
void prop_flashmla(Variant) { page_table_route(TableRoute::flashmla); }
void prop_canonical(Variant) { page_table_route(TableRoute::canonical); }
void prop_full_prefill(Variant) { page_table_route(TableRoute::full_prefill); }

// ---- decode_metadata (§4.5): Era B remap (v2p), static, Era D (skip_page_table) ------------------
void prop_decode(Variant) {
  Pool pool;
  const i64 ps = g::elem<i64>({1, 2, 4});
  const i64 mult = g::elem<i64>({1, 2});
  const auto v2p_values = draw_v2p();
  const i64 nrows = static_cast<i64>(v2p_values.size());
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
  switch (d.view) {
    case 0: want = break_vec(v_lens, "seq_lens", d.sub); break;
    case 1: want = break_vec(cache, "cache_seqlens", d.sub); break;
    case 2: want = break_vec(cu, "cu_seqlens_k", d.sub); break;
    case 3: want = break_vec(v2p, "v2p", d.sub); break;
    case 4: want = break_mat(kpt, "kernel_page_table", d.sub); break;
    case 5: want = break_vec(swa_v2p, "swa_v2p", d.sub); break;
    case 6: want = break_mat(s_r2t, "req_to_token", d.sub); break;
    case 7: want = break_vec(v_rpi, "req_pool_indices", d.sub); break;
    case 8:
      if (!skip) want = break_out_extent(pt, "page_table", d.sub);
      break;
    default: break;
  }
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
    case 5: want = break_vec(v_lens, "seq_lens"); break;
    case 6: want = break_vec(cache, "cache_seqlens"); break;
    case 7: want = break_vec(cu, "cu_seqlens_k"); break;
    case 8:
      if (g::coin()) {
        if (B == 0) break;
        cache.size = B - 1;
        want = reject(kSmall, "cache_seqlens", "cache_seqlens one short");
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
      if (g::coin()) {
        pt.rows = B - 1;
        want = reject(kSmall, "page_table", "page_table one row short");
      } else {
        pt.cols = msp - 1;
        want = reject(kSmall, "page_table", "page_table one column short");
      }
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
      v_rpi.size = B - 1;
      want = reject(kSmall, "req_pool_indices", "req_pool_indices one short");
      break;
    case 14:
      if (skip || pt.rows < 2 || pt.cols < 2) break;
      want = break_out_mat(pt, "page_table");
      break;
    default: break;
  }
  const auto before = pool.bytes();
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
  check_call("decode_metadata", want, pool, before, &exp, [&] { tr::decode_metadata(a); });
}

}  // namespace

void register_invalid_route_properties(std::vector<PropertyDef>& out) {
  const auto add = [&](std::string name, std::string what, std::vector<Route> routes, void (*body)(Variant)) {
    out.push_back({{std::move(name), std::move(what), {}, std::move(routes)}, body});
  };
  add("swa_translate_rejects_invalid",
      "§4.9 page_size / swa_multiplier boundaries, malformed views, out one short / exact length, out aliasing ids "
      "exactly (int64) or by one element, out on swa_v2p, an id one page past the table: typed error, nothing "
      "written; touching slices of one allocation translate like the model",
      {Route::swa_translate}, prop_swa);
  add("dcp_read_translate_rejects_invalid",
      "§4.12 page_size / multiplier / dcp_size boundaries, malformed views, out length and aliasing, an id past the "
      "table: typed error, nothing written; admitted layouts match the model",
      {Route::dcp_read_translate}, prop_dcp_read);
  add("transfer_ids_rejects_invalid",
      "§4.13 page_size boundary, malformed views, out length and aliasing, an id past the table: typed error, "
      "nothing written; admitted layouts match the model",
      {Route::transfer_ids}, prop_transfer);
  add("mamba_translate_rejects_invalid",
      "§4.10 malformed views, out length, out overlapping slots or v2p, a slot one past the table: typed error, "
      "nothing written; admitted layouts match the model",
      {Route::mamba_translate}, prop_mamba);
  add("eager_funnel_rejects_invalid",
      "§4.6 scalar boundaries, malformed matrices, out strides / shape, out exactly aliasing page_table admitted, "
      "shifted or re-strided overlap rejected: typed error, nothing written",
      {Route::eager_funnel}, prop_eager);
  add("envelope_moves_rejects_invalid",
      "§4.13 move_kv_cache: page_size, token counts, partial runs, page outputs one short or overlapping, a run off "
      "its page boundary: typed error, nothing written; whole runs give their pages",
      {}, prop_envelope);
  add("flashmla_block_table_rejects_invalid",
      "§4.2 scalar boundaries, malformed views and matrices, kv_indices strides / rows, kv_start_idx short, static "
      "kernel multiplier, kv_indices overlapping req_to_token: typed error, nothing written",
      {Route::flashmla_block_table}, prop_flashmla);
  add("canonical_page_table_rejects_invalid",
      "§4.3 scalar boundaries, req_to_token width at max_pages * ps, out packed / strides / shape, out overlapping "
      "req_to_token: typed error, nothing written; admitted layouts match the model",
      {Route::canonical_page_table}, prop_canonical);
  add("full_prefill_table_rejects_invalid",
      "§4.11 scalar boundaries, malformed views, capacity guard (rows >= B), out strides, out overlapping "
      "req_to_token: typed error, nothing written; admitted layouts match the model",
      {Route::full_prefill_table}, prop_full_prefill);
  add("decode_metadata_rejects_invalid",
      "§4.5 page_size power of two, multiplier, max_seq_pages, output lengths, cache_seqlens / cu_seqlens_k / "
      "page_table overlap, page_table strides and shape: typed error, nothing written",
      {Route::decode_metadata}, prop_decode);
}

}  // namespace kvaddr::props::detail
