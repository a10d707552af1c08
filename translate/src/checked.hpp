#pragma once
// Private: the checked int64 used to instantiate lanes.hpp on the host, and the bounds-checked
// table gather. Both take a hooks policy H: NoHooks in the production library (no hook code at
// all), MutationHooks in kvaddr_translate_mutation (kvaddr/translate/mutation.hpp). Arithmetic that would wrap throws kvaddr::Overflow; division by zero throws
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
#include "kvaddr/translate/mutation.hpp"
#include "kvaddr/translate/variant.hpp"

namespace kvaddr::translate::detail {

// Overflow raised inside lane arithmetic carries this argument name; routes rename it to the
// output the lane was computing (see `rename_lane_overflow`).
inline constexpr std::string_view kLaneArg = "lane";

namespace mutation = translate::mutation;

// The production hooks policy: every hook is the identity; the operations test the constant
// H::kEnabled first, so no hook code is emitted for it.
struct NoHooks {
  static constexpr bool kEnabled = false;
  struct Scope {
    constexpr explicit Scope(int) noexcept {}
  };
  static constexpr void lane(int) noexcept {}
  static constexpr void resume(int) noexcept {}
  static constexpr std::int64_t alt(mutation::Site, std::int64_t value, std::int64_t) noexcept { return value; }
  static constexpr bool rule(bool ok) noexcept { return ok; }
  static constexpr std::int64_t bound(std::int64_t value) noexcept { return value; }
};

// The mutation campaign's hooks policy (only kvaddr_translate_mutation instantiates it).
struct MutationHooks {
  static constexpr bool kEnabled = true;
  using Scope = mutation::RouteScope;
  static void lane(int seg) noexcept { mutation::lane(seg); }
  static void resume(int seg) noexcept { mutation::resume(seg); }
  static std::int64_t alt(mutation::Site site, std::int64_t value, std::int64_t alternative) noexcept {
    return mutation::alt(site, value, alternative);
  }
  static bool rule(bool ok) noexcept { return mutation::rule(ok); }
  static std::int64_t bound(std::int64_t value) noexcept { return mutation::bound(value); }
};

template <class H>
class BasicCI {
 public:
  // Implicit on purpose: lanes.hpp writes I(0), I(-1) and compares with them.
  constexpr BasicCI(std::int64_t v) noexcept : v_(v) {}  // NOLINT(google-explicit-constructor)
  constexpr std::int64_t get() const noexcept { return v_; }

  friend BasicCI operator+(BasicCI a, BasicCI b) { return addsub(BasicCI(checked_add(a.v_, b.v_, kLaneArg))); }
  friend BasicCI operator-(BasicCI a, BasicCI b) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a.v_, b.v_, &r)) {
      throw Overflow(std::string(kLaneArg), std::to_string(a.v_) + " - " + std::to_string(b.v_),
                     "difference does not fit int64");
    }
    return addsub(BasicCI(r));
  }
  friend BasicCI operator*(BasicCI a, BasicCI b) {
    if ((H::kEnabled && mutation::armed())) [[unlikely]] {
      switch (mutation::hit(mutation::Site::mul)) {
        case mutation::Op::mul_narrow32: {
          const auto wrapped = static_cast<std::int32_t>(
              static_cast<std::uint32_t>(static_cast<std::uint64_t>(a.v_) * static_cast<std::uint64_t>(b.v_)));
          std::int64_t exact = 0;
          mutation::infect(__builtin_mul_overflow(a.v_, b.v_, &exact) || exact != wrapped);
          return BasicCI(wrapped);
        }
        case mutation::Op::mul_drop_rhs: mutation::infect(b.v_ != 1 && a.v_ != 0); return a;
        default: break;
      }
    }
    return BasicCI(checked_mul(a.v_, b.v_, kLaneArg));
  }

  friend bool operator==(BasicCI a, BasicCI b) noexcept { return eq(a.v_ == b.v_); }
  friend bool operator!=(BasicCI a, BasicCI b) noexcept { return eq(a.v_ != b.v_); }
  friend bool operator<(BasicCI a, BasicCI b) noexcept { return cmp(a.v_ < b.v_, a.v_ <= b.v_); }
  friend bool operator<=(BasicCI a, BasicCI b) noexcept { return cmp(a.v_ <= b.v_, a.v_ < b.v_); }
  friend bool operator>(BasicCI a, BasicCI b) noexcept { return cmp(a.v_ > b.v_, a.v_ >= b.v_); }
  friend bool operator>=(BasicCI a, BasicCI b) noexcept { return cmp(a.v_ >= b.v_, a.v_ > b.v_); }

  // ---- lanes.hpp customisation points, found by argument-dependent lookup ----------------
  // Truncating division and remainder (C/CUDA/Triton semantics).
  friend BasicCI kv_div(BasicCI a, BasicCI b) {
    check_divisor(a, b, "/");
    if ((H::kEnabled && mutation::armed())) [[unlikely]] {
      switch (mutation::hit(mutation::Site::div)) {
        case mutation::Op::div_floor: {
          std::int64_t q = a.v_ / b.v_;
          if ((a.v_ % b.v_ != 0) && ((a.v_ < 0) != (b.v_ < 0))) --q;
          mutation::infect(q != a.v_ / b.v_);
          return BasicCI(q);
        }
        case mutation::Op::div_plus1: mutation::infect(true); return BasicCI(checked_add(a.v_ / b.v_, 1, kLaneArg));
        default: break;
      }
    }
    return BasicCI(a.v_ / b.v_);
  }
  friend BasicCI kv_rem(BasicCI a, BasicCI b) {
    check_divisor(a, b, "%");
    if ((H::kEnabled && mutation::armed()) && mutation::hit(mutation::Site::rem) == mutation::Op::rem_zero) [[unlikely]] {
      mutation::infect(a.v_ % b.v_ != 0);
      return BasicCI(0);
    }
    return BasicCI(a.v_ % b.v_);
  }
  // Arithmetic shift right (floor division by 2^s), as Triton's >> on a signed value.
  friend BasicCI kv_shr(BasicCI a, int s) {
    if (s < 0 || s > 63) throw InvalidArgument("shift", std::to_string(s), "shift count outside [0, 63]");
    if ((H::kEnabled && mutation::armed()) && mutation::hit(mutation::Site::shr) == mutation::Op::shr_trunc) [[unlikely]] {
      const std::int64_t t = s == 63 ? 0 : a.v_ / (std::int64_t{1} << s);
      mutation::infect(t != (a.v_ >> s));
      return BasicCI(t);
    }
    return BasicCI(a.v_ >> s);  // C++20: arithmetic shift of a negative value is defined
  }
  friend BasicCI kv_pick(bool c, BasicCI a, BasicCI b) noexcept {
    if ((H::kEnabled && mutation::armed())) [[unlikely]] {
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
  friend BasicCI kv_narrow32(BasicCI a) { return BasicCI(checked_narrow32(a.v_, kLaneArg)); }
  // int32_wrap: the kernel's silent int32 store, reproduced exactly (two's complement).
  friend BasicCI kv_wrap32(BasicCI a) noexcept {
    return BasicCI(static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(a.v_))));
  }

 private:
  static BasicCI addsub(BasicCI r) {
    if ((H::kEnabled && mutation::armed())) [[unlikely]] {
      switch (mutation::hit(mutation::Site::addsub)) {
        case mutation::Op::arith_plus1: return BasicCI(checked_add(r.v_, 1, kLaneArg));
        case mutation::Op::arith_minus1: return BasicCI(checked_add(r.v_, -1, kLaneArg));
        default: break;
      }
    }
    return r;
  }
  static bool cmp(bool normal, bool boundary) noexcept {
    if ((H::kEnabled && mutation::armed()) && mutation::hit(mutation::Site::cmp) == mutation::Op::cmp_boundary) [[unlikely]] {
      mutation::infect(boundary != normal);
      return boundary;
    }
    return normal;
  }
  static bool eq(bool normal) noexcept {
    if ((H::kEnabled && mutation::armed()) && mutation::hit(mutation::Site::eq) == mutation::Op::eq_negate) [[unlikely]] {
      mutation::infect(true);
      return !normal;
    }
    return normal;
  }
  static void check_divisor(BasicCI a, BasicCI b, const char* op) {
    if (b.v_ == 0) throw InvalidArgument("divisor", "0", "integer division by zero in lane arithmetic");
    if (a.v_ == std::numeric_limits<std::int64_t>::min() && b.v_ == -1) {
      throw Overflow(std::string(kLaneArg), std::to_string(a.v_) + " " + op + " -1", "quotient does not fit int64");
    }
  }
  std::int64_t v_;
};

using CI = BasicCI<NoHooks>;

// Bounds-checked masked load over an int64 table (Triton `tl.load(ptr + i, mask, other=0)`):
// a masked-off lane returns 0 without reading; a live lane outside [0, size) throws OutOfRange
// naming the table. This is how the host reproduces the device's out-of-bounds reads (B09).
template <class H>
struct BasicTableGather {
  using CI = BasicCI<H>;
  Vec<const std::int64_t> table;
  std::string_view name;

  CI operator()(CI index, bool mask) const {
    if ((H::kEnabled && mutation::armed())) [[unlikely]] {
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

using TableGather = BasicTableGather<NoHooks>;

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
template <class Out, class H>
Out narrow_out(BasicCI<H> v, std::string_view output, Variant variant = Variant{}) {
  static_assert(std::is_same_v<Out, std::int32_t> || std::is_same_v<Out, std::int64_t>);
  if constexpr (std::is_same_v<Out, std::int32_t>) {
    return checked_narrow32(lanes::store32_lane(v, variant).get(), output);
  } else {
    return v.get();
  }
}

// Element offset of (r, c) in a Mat whose extent validate() has already checked to fit int64.
// (Mutation mat_stride_swap: the strides swapped; an offset outside the buffer is an OutOfRange.)
template <class H = NoHooks, class T>
std::int64_t mat_offset(const Mat<T>& m, std::int64_t r, std::int64_t c) {
  if ((H::kEnabled && mutation::armed()) && mutation::hit(mutation::Site::mat) == mutation::Op::mat_stride_swap) [[unlikely]] {
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
// (H, the hooks policy, is accepted for uniform calls from the route bodies; these stores have no site.)
template <class H = NoHooks, class T>
T& put(T* data, std::int64_t size, std::int64_t i, std::string_view name) {
  if (i < 0 || i >= size) [[unlikely]] {
    throw OutOfRange(std::string(name), std::to_string(i),
                     "store outside the buffer of " + std::to_string(size) + " elements");
  }
  return data[i];
}
template <class H = NoHooks, class T>
T& put(const Vec<T>& v, std::int64_t i, std::string_view name) {
  return put<H>(v.data, v.size, i, name);
}

// Element (r, c) of an output matrix, bounds-checked against its rows and columns.
template <class H = NoHooks, class T>
T& put(const Mat<T>& m, std::int64_t r, std::int64_t c, std::string_view name) {
  if (r < 0 || r >= m.rows || c < 0 || c >= m.cols) [[unlikely]] {
    throw OutOfRange(std::string(name), "row " + std::to_string(r) + " column " + std::to_string(c),
                     "store outside the " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " table");
  }
  return m.data[mat_offset<H>(m, r, c)];
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
template <class H = NoHooks, class T>
std::int64_t read_mat(const Mat<const T>& m, std::int64_t r, std::int64_t c, std::string_view name) {
  if (r < 0 || r >= m.rows) {
    throw OutOfRange(std::string(name), "row " + std::to_string(r),
                     "row outside the matrix of " + std::to_string(m.rows) + " rows");
  }
  if (c < 0 || c >= m.cols) {
    throw OutOfRange(std::string(name), "column " + std::to_string(c),
                     "column outside the row of width " + std::to_string(m.cols));
  }
  return static_cast<std::int64_t>(m.data[mat_offset<H>(m, r, c)]);
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
