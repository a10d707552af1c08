#pragma once
// Private to the invalid-input properties of invalid_routes_props.cpp and invalid_tables_props.cpp:
// the one allocation every buffer of a call is carved from, the expected allocation after the call,
// the call check, the view-rule breakers and the fault draw (see invalid_routes_props.cpp's header
// for what a case draws).
#include <algorithm>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "check.hpp"
#include "gen.hpp"

namespace kvaddr::props::detail::carve {

namespace g = kvaddr::props::gen;

struct Verdict {
  bool ok = true;
  ErrorKind kind = ErrorKind::invalid_argument;
  std::string arg;
  std::string what;  // the boundary drawn (for the failure message)
};
inline Verdict reject(ErrorKind k, std::string arg, std::string what) { return {false, k, std::move(arg), std::move(what)}; }
inline Verdict accept(std::string what) { return {true, ErrorKind::invalid_argument, "", std::move(what)}; }
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
  const unsigned char* base() const { return reinterpret_cast<const unsigned char*>(words_.data()); }
  std::vector<unsigned char> bytes() const {
    std::vector<unsigned char> b(uz(kBytes));
    std::memcpy(b.data(), words_.data(), uz(kBytes));
    return b;
  }
  i64 offset(const void* p) const { return static_cast<const unsigned char*>(p) - base(); }
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

// The allocation as it is before the call, and where an accepted call must write (set(), from the
// inputs as they are).
class Expected {
 public:
  explicit Expected(Pool& p) : pool_(p), before_(p.bytes()), bytes_(before_) {}
  template <class T>
  void set(T* at, i64 value) {
    const T v = static_cast<T>(value);
    std::memcpy(bytes_.data() + pool_.offset(at), &v, sizeof(T));
  }
  Pool& pool() const { return pool_; }
  const std::vector<unsigned char>& before() const { return before_; }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  Pool& pool_;
  std::vector<unsigned char> before_;
  std::vector<unsigned char> bytes_;
};

template <class T>
std::span<const i64> span_of(const Vec<T>& v) {
  return {v.data, uz(v.size)};
}

// Runs the route and checks it against the verdict; compares the whole allocation afterwards (a
// rejected call: with the allocation before the call; an accepted one: with `expect`).
template <class F>
void check_call(std::string_view route, const Verdict& want, const Expected& expect, F&& f) {
  const Pool& pool = expect.pool();
  std::ostringstream os;
  os << route << " [" << want.what << "] ";
  try {
    f();
  } catch (const Error& e) {
    os << "threw " << to_string(e.kind()) << " naming '" << e.argument() << "' (" << e.what() << "); ";
    if (want.ok) RC_FAIL(os.str() + "the contract admits this call");
    if (e.kind() != want.kind || e.argument() != want.arg)
      RC_FAIL(os.str() + "expected " + std::string(to_string(want.kind)) + " naming '" + want.arg + "'");
    if (pool.bytes() != expect.before()) RC_FAIL(os.str() + "and a caller buffer changed");
    return;
  } catch (const std::exception& e) {
    RC_FAIL(os.str() + "threw an untyped exception: " + e.what());
  }
  if (!want.ok)
    RC_FAIL(os.str() + "returned normally; expected " + std::string(to_string(want.kind)) + " naming '" + want.arg +
            "'");
  if (pool.bytes() != expect.bytes()) {
    // Name the first differing byte's buffer-relative position for the counterexample.
    const auto now = pool.bytes();
    i64 at = 0;
    while (at < kBytes && now[uz(at)] == expect.bytes()[uz(at)]) ++at;
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
inline Draw draw_fault(int cases, int views) {
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
inline std::vector<i64> draw_v2p() {
  const i64 nv = g::any<i64>(1, 5);
  std::vector<i64> v(uz(nv + 1), -1);
  v[0] = 0;
  for (i64 i = 1; i < nv; ++i) v[uz(i)] = g::elem<i64>({1, 2, 3, 4, 5, -1});
  return v;
}
// A pool of a page-table route, drawn in this order: the page size (one of `page_sizes`), the
// multiplier (1 or 2) and v2p (draw_v2p), whose row count is `rows`.
struct TablePool {
  i64 ps, mult;
  std::vector<i64> v2p;
  i64 rows;
};
inline TablePool draw_table_pool(std::initializer_list<i64> page_sizes) {
  const i64 ps = g::elem<i64>(page_sizes);
  const i64 mult = g::elem<i64>({1, 2});
  auto v2p = draw_v2p();
  const i64 rows = static_cast<i64>(v2p.size());
  return {ps, mult, std::move(v2p), rows};
}
// Ids inside the table (t < size(v2p) * ps) or padding -1.
inline std::vector<i64> draw_ids(i64 table_rows, i64 ps, i64 n) {
  std::vector<i64> ids(uz(n));
  for (auto& t : ids) t = g::any<i64>(-1, table_rows * ps);
  return ids;
}

// ---- the views of a call -------------------------------------------------------------------------
// Breaks one rule of one view (sub: which rule; sub < 0: a rule drawn here) and returns the verdict.
using Breaker = std::function<Verdict(int sub)>;
enum class Rules { vec, required, mat, out_extent };  // break_vec, break_required, break_mat, break_out_extent
template <Rules R, class View>
Breaker rules(View& v, std::string name) {
  return [&v, name](int sub) {
    if constexpr (R == Rules::vec) return break_vec(v, name, sub);
    else if constexpr (R == Rules::required) return break_required(v, name, sub);
    else if constexpr (R == Rules::mat) return break_mat(v, name, sub);
    else return break_out_extent(v, name, sub);
  };
}

// The views of a call in draw order (Draw::view indexes them); an empty entry is a view this call
// does not break.
class Views {
 public:
  Views(std::initializer_list<Breaker> views) : views_(views) {}
  // The draw's view fault (its view and rule), if it is one.
  void apply(const Draw& d, Verdict& want) const {
    if (d.view >= 0 && d.view < static_cast<int>(views_.size()) && views_[uz(d.view)]) want = views_[uz(d.view)](d.sub);
  }
  // View k broken at a rule drawn here.
  Verdict any_rule(int k) const { return views_[uz(k)](-1); }

 private:
  std::vector<Breaker> views_;
};

// An extent (a size, a row or column count) one below the `needed` the call asks for: BufferTooSmall
// naming `name`.
inline Verdict one_short(i64& extent, i64 needed, std::string name, std::string what) {
  extent = needed - 1;
  return reject(kSmall, std::move(name), std::move(what));
}

// ---- output-length and aliasing boundaries of a 1-D output of n lanes ------------------------------
// out one element short (BufferTooSmall; nothing drawn at n = 0).
template <class T>
void out_one_short(Vec<T>& out, i64 n, Verdict& want) {
  if (n != 0) want = one_short(out.size, n, "out", "out one element short");
}
// out exactly n long (admitted).
template <class T>
void out_exact(Vec<T>& out, i64 n, Verdict& want, const std::string& input) {
  out.size = n;
  want = accept("out exactly as long as " + input);
}
// out, n long, moved onto the last element of `in` (InvalidArgument naming out when n > 0).
template <class T, class I>
void out_on_tail(Vec<T>& out, const Vec<I>& in, i64 n, Verdict& want, const std::string& what) {
  overlap_tail(out, in);
  out.size = n;
  if (n > 0) want = reject(kIA, "out", what);
}

}  // namespace kvaddr::props::detail::carve
