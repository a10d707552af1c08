#pragma once
// Private: the checked int64 used to instantiate lanes.hpp on the host, and the bounds-checked
// table gather. Arithmetic that would wrap throws kvaddr::Overflow; division by zero throws
// kvaddr::InvalidArgument; a live load outside the table throws kvaddr::OutOfRange naming the
// table. Nothing here has undefined behaviour for any input.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/contracts.hpp"

namespace kvaddr::translate::detail {

// Overflow raised inside lane arithmetic carries this argument name; routes rename it to the
// output the lane was computing (see `rename_lane_overflow`).
inline constexpr std::string_view kLaneArg = "lane";

class CI {
 public:
  // Implicit on purpose: lanes.hpp writes I(0), I(-1) and compares with them.
  constexpr CI(std::int64_t v) noexcept : v_(v) {}  // NOLINT(google-explicit-constructor)
  constexpr std::int64_t get() const noexcept { return v_; }

  friend CI operator+(CI a, CI b) { return CI(checked_add(a.v_, b.v_, kLaneArg)); }
  friend CI operator-(CI a, CI b) {
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a.v_, b.v_, &r)) {
      throw Overflow(std::string(kLaneArg), std::to_string(a.v_) + " - " + std::to_string(b.v_),
                     "difference does not fit int64");
    }
    return CI(r);
  }
  friend CI operator*(CI a, CI b) { return CI(checked_mul(a.v_, b.v_, kLaneArg)); }

  friend constexpr bool operator==(CI a, CI b) noexcept { return a.v_ == b.v_; }
  friend constexpr bool operator!=(CI a, CI b) noexcept { return a.v_ != b.v_; }
  friend constexpr bool operator<(CI a, CI b) noexcept { return a.v_ < b.v_; }
  friend constexpr bool operator<=(CI a, CI b) noexcept { return a.v_ <= b.v_; }
  friend constexpr bool operator>(CI a, CI b) noexcept { return a.v_ > b.v_; }
  friend constexpr bool operator>=(CI a, CI b) noexcept { return a.v_ >= b.v_; }

  // ---- lanes.hpp customisation points, found by argument-dependent lookup ----------------
  // Truncating division and remainder (C/CUDA/Triton semantics).
  friend CI kv_div(CI a, CI b) {
    check_divisor(a, b, "/");
    return CI(a.v_ / b.v_);
  }
  friend CI kv_rem(CI a, CI b) {
    check_divisor(a, b, "%");
    return CI(a.v_ % b.v_);
  }
  // Arithmetic shift right (floor division by 2^s), as Triton's >> on a signed value.
  friend CI kv_shr(CI a, int s) {
    if (s < 0 || s > 63) throw InvalidArgument("shift", std::to_string(s), "shift count outside [0, 63]");
    return CI(a.v_ >> s);  // C++20: arithmetic shift of a negative value is defined
  }
  friend constexpr CI kv_pick(bool c, CI a, CI b) noexcept { return c ? a : b; }
  // The host never wraps silently: a value that does not fit 32 bits is an Overflow.
  friend CI kv_narrow32(CI a) { return CI(checked_narrow32(a.v_, kLaneArg)); }

 private:
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
    if (!mask) return CI(0);
    const std::int64_t i = index.get();
    if (i < 0 || i >= table.size) {
      throw OutOfRange(std::string(name), std::to_string(i),
                       "read outside the table of length " + std::to_string(table.size));
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

// Store a lane value into an output element of type Out (int32 outputs narrow with a check).
template <class Out>
Out narrow_out(CI v, std::string_view output) {
  static_assert(std::is_same_v<Out, std::int32_t> || std::is_same_v<Out, std::int64_t>);
  if constexpr (std::is_same_v<Out, std::int32_t>) {
    return checked_narrow32(v.get(), output);
  } else {
    return v.get();
  }
}

// Element offset of (r, c) in a Mat whose extent validate() has already checked to fit int64.
template <class T>
std::int64_t mat_offset(const Mat<T>& m, std::int64_t r, std::int64_t c) {
  return r * m.row_stride + c * m.col_stride;
}

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
