#pragma once
// Private: the checked int64 used to instantiate lanes.hpp on the host, and the bounds-checked
// table gather. Arithmetic that would wrap throws kvaddr::Overflow; division by zero throws
// kvaddr::InvalidArgument; a live load outside the table throws kvaddr::OutOfRange naming the
// table. Nothing here has undefined behaviour for any input.
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/variant.hpp"

namespace kvaddr::translate::detail {

// Overflow raised inside lane arithmetic carries this argument name; routes rename it to the
// output the lane was computing (see `rename_lane_overflow`).
inline constexpr std::string_view kLaneArg = "lane";

// ---- mutation hooks (bug zoo, issue 6) ------------------------------------------------------
// The mutation campaign of zoo/ perturbs the host routes' arithmetic without a rebuild: every CI
// operation, table gather, matrix offset and a few route-loop values are "sites". A site belongs
// to the route call in progress (RouteScope) and to a segment of it (lane(seg): 0 = per row /
// per id, 1 = per column); its index k counts the occurrences of that site kind since the segment
// began. A mutant {unit, seg, site, k, op} changes exactly that occurrence in every lane.
// Segment 2 is a route's epilogue (after its lane loops, e.g. read_table's padded-row fill), so
// epilogue sites have one fixed name whatever the data; `resume(seg)` returns to a segment
// after a nested loop without restarting its count (read_table's per-row tail after the columns).
// Nothing changes unless a mutant (or the counting pass) is armed for the running route: the
// only cost is one thread-local flag test per operation.
namespace mutation {

enum class Site : int { addsub, mul, div, rem, shr, pick, cmp, eq, gather, mat, row, stride, bound, rule, kCount };
enum class Op : int {
  none,
  arith_plus1,      // addsub: result + 1 (off-by-one, e.g. in ceil division's n + d - 1)
  arith_minus1,     // addsub: result - 1
  mul_narrow32,     // mul: product wrapped to int32 (narrowing before the multiply is used)
  mul_drop_rhs,     // mul: a * b -> a (stride / multiplier dropped)
  div_floor,        // div: truncating -> floor division
  div_plus1,        // div: quotient + 1 (off-by-one page count)
  rem_zero,         // rem: offset dropped
  shr_trunc,        // shr: floor (arithmetic shift) -> truncating division by 2^s
  pick_then,        // pick: condition forced true (clamp / guard misplaced)
  pick_else,        // pick: condition forced false (clamp / guard missing)
  pick_negate,      // pick: branches swapped
  cmp_boundary,     // cmp: < <-> <=, > <-> >= (mask on the wrong bound)
  eq_negate,        // eq: == <-> !=
  gather_index,     // gather: the index is used where the table value is needed (dropped v2p gather)
  gather_unmasked,  // gather: the load ignores its mask
  gather_next,      // gather: reads the next table entry (row off by one)
  mat_stride_swap,  // mat: row and column strides swapped in an element offset
  row_batch,        // row: batch position b used as the req_to_token row (row swap)
  stride_drop_mult, // stride: S = ps instead of ps * M
  bound_plus1,      // bound: a loop bound / tail start one too high
  bound_minus1,     // bound: one too low
  rule_skip,        // rule: a validation rule (validate.cpp, a route's content precondition) not enforced
  kCount
};
inline constexpr int kSegments = 3;
inline constexpr int kSites = static_cast<int>(Site::kCount);
inline constexpr int kMaxK = 64;

// Mutation units: one per route of the route list, then the two host entry points without a Route.
inline constexpr int kUnitReadStream = kRouteCount;
inline constexpr int kUnitEnvelopeMoves = kRouteCount + 1;
inline constexpr int kUnits = kRouteCount + 2;
inline constexpr int unit_of(Route r) { return static_cast<int>(r); }
// The validation of unit u (validate.cpp) is a unit of its own: kUnits + u.
inline constexpr int validation_unit(int u) { return kUnits + u; }

struct Mutant {
  int unit = -1;
  int seg = 0;
  Site site = Site::addsub;
  int k = 0;
  Op op = Op::none;
};

struct State {
  int unit = -1;        // unit of the route call in progress (-1: none)
  bool armed = false;   // counting or a mutant is active for `unit`
  int seg = 0;
  std::uint16_t count[kSegments][kSites] = {};
  int counting_unit = -1;                  // counting pass: record the sites of this unit
  std::uint64_t seen[kSegments][kSites] = {};  // bit k: occurrence k of (seg, site) was reached
  Mutant active;                           // active.unit == -1: no mutant
  bool infected = false;                   // the active mutant changed a value at least once
};
inline thread_local State tl_state;

inline bool armed() noexcept { return tl_state.armed; }

// Marks the start of a lane of segment `seg` (resets that segment's occurrence counters).
inline void lane(int seg) noexcept {
  State& s = tl_state;
  if (!s.armed) return;
  s.seg = seg;
  for (auto& c : s.count[seg]) c = 0;
}

// Returns to segment `seg` after a nested loop of another segment, keeping its occurrence count.
inline void resume(int seg) noexcept {
  State& s = tl_state;
  if (!s.armed) return;
  s.seg = seg;
}

// One occurrence of `site`: records it in the counting pass; returns the active mutant's op when
// this is its occurrence, else Op::none.
inline Op hit(Site site) noexcept {
  State& s = tl_state;
  const int si = static_cast<int>(site);
  const int k = s.count[s.seg][si]++;
  if (s.counting_unit == s.unit) {
    if (k < kMaxK) s.seen[s.seg][si] |= std::uint64_t{1} << k;
    return Op::none;
  }
  const Mutant& m = s.active;
  return (m.unit == s.unit && m.seg == s.seg && m.site == site && m.k == k) ? m.op : Op::none;
}

// RAII: the route call of unit `u` is in progress.
class RouteScope {
 public:
  explicit RouteScope(int u) noexcept : prev_unit_(tl_state.unit), prev_armed_(tl_state.armed), prev_seg_(tl_state.seg) {
    State& s = tl_state;
    s.unit = u;
    s.armed = (s.counting_unit == u) || (s.active.unit == u);
    s.seg = 0;
    if (s.armed)
      for (auto& row : s.count)
        for (auto& c : row) c = 0;
  }
  ~RouteScope() {
    tl_state.unit = prev_unit_;
    tl_state.armed = prev_armed_;
    tl_state.seg = prev_seg_;
  }
  RouteScope(const RouteScope&) = delete;
  RouteScope& operator=(const RouteScope&) = delete;

 private:
  int prev_unit_;
  bool prev_armed_;
  int prev_seg_;
};

// Route-loop values: `value` normally; the alternative under the active mutant of that site.
// Records that the active mutant changed a value (mutants that never do are equivalent on the
// inputs the checks generated).
inline void infect(bool changed) noexcept { tl_state.infected = tl_state.infected || changed; }

inline std::int64_t alt(Site site, std::int64_t value, std::int64_t alternative) noexcept {
  if (!armed()) return value;
  if (hit(site) == Op::none) return value;
  infect(value != alternative);
  return alternative;
}
// A validation rule: `ok` normally; under the active rule_skip mutant of this occurrence the rule is
// not enforced (it infects when it would have rejected).
inline bool rule(bool ok) noexcept {
  if (!armed()) return ok;
  if (hit(Site::rule) != Op::rule_skip) return ok;
  infect(!ok);
  return true;
}

inline std::int64_t bound(std::int64_t value) noexcept {
  if (!armed()) return value;
  switch (hit(Site::bound)) {
    case Op::bound_plus1: infect(true); return value + 1;
    case Op::bound_minus1: infect(true); return value - 1;
    default: return value;
  }
}

}  // namespace mutation

class CI {
 public:
  // Implicit on purpose: lanes.hpp writes I(0), I(-1) and compares with them.
  constexpr CI(std::int64_t v) noexcept : v_(v) {}  // NOLINT(google-explicit-constructor)
  constexpr std::int64_t get() const noexcept { return v_; }

  friend CI operator+(CI a, CI b) { return addsub(CI(checked_add(a.v_, b.v_, kLaneArg))); }
  friend CI operator-(CI a, CI b) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a.v_, b.v_, &r)) {
      throw Overflow(std::string(kLaneArg), std::to_string(a.v_) + " - " + std::to_string(b.v_),
                     "difference does not fit int64");
    }
    return addsub(CI(r));
  }
  friend CI operator*(CI a, CI b) {
    if (mutation::armed()) [[unlikely]] {
      switch (mutation::hit(mutation::Site::mul)) {
        case mutation::Op::mul_narrow32: {
          const auto wrapped = static_cast<std::int32_t>(
              static_cast<std::uint32_t>(static_cast<std::uint64_t>(a.v_) * static_cast<std::uint64_t>(b.v_)));
          std::int64_t exact = 0;
          mutation::infect(__builtin_mul_overflow(a.v_, b.v_, &exact) || exact != wrapped);
          return CI(wrapped);
        }
        case mutation::Op::mul_drop_rhs: mutation::infect(b.v_ != 1 && a.v_ != 0); return a;
        default: break;
      }
    }
    return CI(checked_mul(a.v_, b.v_, kLaneArg));
  }

  friend bool operator==(CI a, CI b) noexcept { return eq(a.v_ == b.v_); }
  friend bool operator!=(CI a, CI b) noexcept { return eq(a.v_ != b.v_); }
  friend bool operator<(CI a, CI b) noexcept { return cmp(a.v_ < b.v_, a.v_ <= b.v_); }
  friend bool operator<=(CI a, CI b) noexcept { return cmp(a.v_ <= b.v_, a.v_ < b.v_); }
  friend bool operator>(CI a, CI b) noexcept { return cmp(a.v_ > b.v_, a.v_ >= b.v_); }
  friend bool operator>=(CI a, CI b) noexcept { return cmp(a.v_ >= b.v_, a.v_ > b.v_); }

  // ---- lanes.hpp customisation points, found by argument-dependent lookup ----------------
  // Truncating division and remainder (C/CUDA/Triton semantics).
  friend CI kv_div(CI a, CI b) {
    check_divisor(a, b, "/");
    if (mutation::armed()) [[unlikely]] {
      switch (mutation::hit(mutation::Site::div)) {
        case mutation::Op::div_floor: {
          std::int64_t q = a.v_ / b.v_;
          if ((a.v_ % b.v_ != 0) && ((a.v_ < 0) != (b.v_ < 0))) --q;
          mutation::infect(q != a.v_ / b.v_);
          return CI(q);
        }
        case mutation::Op::div_plus1: mutation::infect(true); return CI(checked_add(a.v_ / b.v_, 1, kLaneArg));
        default: break;
      }
    }
    return CI(a.v_ / b.v_);
  }
  friend CI kv_rem(CI a, CI b) {
    check_divisor(a, b, "%");
    if (mutation::armed() && mutation::hit(mutation::Site::rem) == mutation::Op::rem_zero) [[unlikely]] {
      mutation::infect(a.v_ % b.v_ != 0);
      return CI(0);
    }
    return CI(a.v_ % b.v_);
  }
  // Arithmetic shift right (floor division by 2^s), as Triton's >> on a signed value.
  friend CI kv_shr(CI a, int s) {
    if (s < 0 || s > 63) throw InvalidArgument("shift", std::to_string(s), "shift count outside [0, 63]");
    if (mutation::armed() && mutation::hit(mutation::Site::shr) == mutation::Op::shr_trunc) [[unlikely]] {
      const std::int64_t t = s == 63 ? 0 : a.v_ / (std::int64_t{1} << s);
      mutation::infect(t != (a.v_ >> s));
      return CI(t);
    }
    return CI(a.v_ >> s);  // C++20: arithmetic shift of a negative value is defined
  }
  friend CI kv_pick(bool c, CI a, CI b) noexcept {
    if (mutation::armed()) [[unlikely]] {
      switch (mutation::hit(mutation::Site::pick)) {
        case mutation::Op::pick_then: mutation::infect(!c && a.v_ != b.v_); return a;
        case mutation::Op::pick_else: mutation::infect(c && a.v_ != b.v_); return b;
        case mutation::Op::pick_negate: mutation::infect(a.v_ != b.v_); return c ? b : a;
        default: break;
      }
    }
    return c ? a : b;
  }
  // The host never wraps silently: a value that does not fit 32 bits is an Overflow.
  friend CI kv_narrow32(CI a) { return CI(checked_narrow32(a.v_, kLaneArg)); }
  // int32_wrap: the kernel's silent int32 store, reproduced exactly (two's complement).
  friend CI kv_wrap32(CI a) noexcept {
    return CI(static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(a.v_))));
  }

 private:
  static CI addsub(CI r) {
    if (mutation::armed()) [[unlikely]] {
      switch (mutation::hit(mutation::Site::addsub)) {
        case mutation::Op::arith_plus1: return CI(checked_add(r.v_, 1, kLaneArg));
        case mutation::Op::arith_minus1: return CI(checked_add(r.v_, -1, kLaneArg));
        default: break;
      }
    }
    return r;
  }
  static bool cmp(bool normal, bool boundary) noexcept {
    if (mutation::armed() && mutation::hit(mutation::Site::cmp) == mutation::Op::cmp_boundary) [[unlikely]] {
      mutation::infect(boundary != normal);
      return boundary;
    }
    return normal;
  }
  static bool eq(bool normal) noexcept {
    if (mutation::armed() && mutation::hit(mutation::Site::eq) == mutation::Op::eq_negate) [[unlikely]] {
      mutation::infect(true);
      return !normal;
    }
    return normal;
  }
  static void check_divisor(CI a, CI b, const char* op) {
    if (b.v_ == 0) throw InvalidArgument("divisor", "0", "integer division by zero in lane arithmetic");
    if (a.v_ == std::numeric_limits<std::int64_t>::min() && b.v_ == -1) {
      throw Overflow(std::string(kLaneArg), std::to_string(a.v_) + " " + op + " -1", "quotient does not fit int64");
    }
  }
  std::int64_t v_;
};

// Bounds-checked masked load over an int64 table (Triton `tl.load(ptr + i, mask, other=0)`):
// a masked-off lane returns 0 without reading; a live lane outside [0, size) throws OutOfRange
// naming the table. This is how the host reproduces the device's out-of-bounds reads (B09).
struct TableGather {
  Vec<const std::int64_t> table;
  std::string_view name;

  CI operator()(CI index, bool mask) const {
    if (mutation::armed()) [[unlikely]] {
      switch (mutation::hit(mutation::Site::gather)) {
        case mutation::Op::gather_index:
          if (!mask) return CI(0);
          mutation::infect(!in_table(index.get()) || table.data[index.get()] != index.get());
          return index;
        case mutation::Op::gather_unmasked:
          mutation::infect(!mask && (!in_table(index.get()) || table.data[index.get()] != 0));
          return load(index.get());
        case mutation::Op::gather_next:
          if (!mask) return CI(0);
          mutation::infect(!in_table(index.get()) || !in_table(index.get() + 1) ||
                           table.data[index.get()] != table.data[index.get() + 1]);
          return load(index.get() + 1);
        default: break;
      }
    }
    if (!mask) return CI(0);
    return load(index.get());
  }
  bool in_table(std::int64_t i) const { return i >= 0 && i < table.size; }
  // A load may land in the parent allocation around the view (table.before elements before
  // data[0], table.after after data[size - 1]): that is what the kernel reads there. Outside the
  // parent it is an OutOfRange naming the table.
  CI load(std::int64_t i) const {
    if (i < -table.before || i >= table.size + table.after) {
      throw OutOfRange(std::string(name), std::to_string(i),
                       "read outside the table of length " + std::to_string(table.size) +
                           (table.before != 0 || table.after != 0
                                ? " (its parent allocation spans [" + std::to_string(-table.before) + ", " +
                                      std::to_string(table.size + table.after) + "))"
                                : std::string()));
    }
    return CI(table.data[i]);
  }
};

// Run `f`; an Overflow raised by lane arithmetic is re-raised naming `output`, the buffer whose
// lane value did not fit.
template <class F>
void rename_lane_overflow(std::string_view output, F&& f) {
  try {
    f();
  } catch (const Overflow& e) {
    if (e.argument() == kLaneArg) throw Overflow(std::string(output), e.value(), e.reason());
    throw;
  }
}

// Store a lane value into an output element of type Out. int32 outputs narrow with a check
// (Overflow naming the output), unless the variant carries int32_wrap: then the store wraps
// silently like the kernel's (lanes::store32_lane).
template <class Out>
Out narrow_out(CI v, std::string_view output, Variant variant = Variant{}) {
  static_assert(std::is_same_v<Out, std::int32_t> || std::is_same_v<Out, std::int64_t>);
  if constexpr (std::is_same_v<Out, std::int32_t>) {
    return checked_narrow32(lanes::store32_lane(v, variant).get(), output);
  } else {
    return v.get();
  }
}

// Element offset of (r, c) in a Mat whose extent validate() has already checked to fit int64.
// (Mutation mat_stride_swap: the strides swapped; an offset outside the buffer is an OutOfRange.)
template <class T>
std::int64_t mat_offset(const Mat<T>& m, std::int64_t r, std::int64_t c) {
  if (mutation::armed() && mutation::hit(mutation::Site::mat) == mutation::Op::mat_stride_swap) [[unlikely]] {
    const std::int64_t off = r * m.col_stride + c * m.row_stride;
    mutation::infect(off != r * m.row_stride + c * m.col_stride);
    const std::int64_t extent =
        (m.rows == 0 || m.cols == 0) ? 0 : (m.rows - 1) * m.row_stride + (m.cols - 1) * m.col_stride + 1;
    if (off < 0 || off >= extent) throw OutOfRange("matrix", std::to_string(off), "element offset outside the buffer");
    return off;
  }
  return r * m.row_stride + c * m.col_stride;
}

// A store to element i of a buffer of `size` elements. Every host route store goes through a
// checked store: an index outside the buffer (a wrong loop bound, a mis-sized view) is an
// OutOfRange naming the buffer, never a write outside it.
template <class T>
T& put(T* data, std::int64_t size, std::int64_t i, std::string_view name) {
  if (i < 0 || i >= size) [[unlikely]] {
    throw OutOfRange(std::string(name), std::to_string(i),
                     "store outside the buffer of " + std::to_string(size) + " elements");
  }
  return data[i];
}
template <class T>
T& put(const Vec<T>& v, std::int64_t i, std::string_view name) {
  return put(v.data, v.size, i, name);
}

// Element (r, c) of an output matrix, bounds-checked against its rows and columns.
template <class T>
T& put(const Mat<T>& m, std::int64_t r, std::int64_t c, std::string_view name) {
  if (r < 0 || r >= m.rows || c < 0 || c >= m.cols) [[unlikely]] {
    throw OutOfRange(std::string(name), "row " + std::to_string(r) + " column " + std::to_string(c),
                     "store outside the " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " table");
  }
  return m.data[mat_offset(m, r, c)];
}

// All-or-nothing writes: a Rollback built after validation (before the first store) snapshots
// every caller output buffer it is given; if the route leaves by an exception, the destructor
// copies the snapshots back, so a failing call leaves every caller buffer bit-identical (also
// when outputs alias inputs or each other: every snapshot predates every store). A Mat is saved
// over its whole element extent.
class Rollback {
 public:
  template <class... Bufs>
  explicit Rollback(const Bufs&... bufs) : uncaught_(std::uncaught_exceptions()) {
    (save(bufs), ...);
  }
  ~Rollback() {
    if (std::uncaught_exceptions() <= uncaught_) return;
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (!it->bytes.empty()) std::memcpy(it->dst, it->bytes.data(), it->bytes.size());
    }
  }
  Rollback(const Rollback&) = delete;
  Rollback& operator=(const Rollback&) = delete;

 private:
  struct Saved {
    void* dst;
    std::vector<unsigned char> bytes;
  };
  template <class T>
  void save(const Vec<T>& v) {
    if (v.data != nullptr && v.size > 0) save_bytes(v.data, v.size * static_cast<std::int64_t>(sizeof(T)));
  }
  template <class T>
  void save(const Mat<T>& m) {
    if (m.data == nullptr || m.rows == 0 || m.cols == 0) return;
    const std::int64_t extent = (m.rows - 1) * m.row_stride + (m.cols - 1) * m.col_stride + 1;
    if (extent > 0) save_bytes(m.data, extent * static_cast<std::int64_t>(sizeof(T)));
  }
  void save_bytes(void* p, std::int64_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    saved_.push_back({p, std::vector<unsigned char>(b, b + n)});
  }
  int uncaught_;
  std::vector<Saved> saved_;
};

// Bounds-checked element read of an input matrix; a column (or row) outside the matrix is an
// OutOfRange naming it.
template <class T>
std::int64_t read_mat(const Mat<const T>& m, std::int64_t r, std::int64_t c, std::string_view name) {
  if (r < 0 || r >= m.rows) {
    throw OutOfRange(std::string(name), "row " + std::to_string(r),
                     "row outside the matrix of " + std::to_string(m.rows) + " rows");
  }
  if (c < 0 || c >= m.cols) {
    throw OutOfRange(std::string(name), "column " + std::to_string(c),
                     "column outside the row of width " + std::to_string(m.cols));
  }
  return static_cast<std::int64_t>(m.data[mat_offset(m, r, c)]);
}

// Bounds-checked element read of an input vector.
template <class T>
std::int64_t read_vec(const Vec<const T>& v, std::int64_t i, std::string_view name) {
  if (i < 0 || i >= v.size) {
    throw OutOfRange(std::string(name), std::to_string(i),
                     "read outside the vector of length " + std::to_string(v.size));
  }
  return static_cast<std::int64_t>(v.data[i]);
}

}  // namespace kvaddr::translate::detail
