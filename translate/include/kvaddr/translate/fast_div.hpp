#pragma once
// FastDivisor: truncating int64 division and remainder by a divisor known only at run time (a
// page size, a DCP size) without the ~70-instruction 64-bit division subroutine of the GPU.
//
// Made once on the host (FastDivisor::of(d), 1 <= d <= INT64_MAX), used on the device or the host:
//   * a power of two d = 2^k divides by an arithmetic shift of a biased toward zero;
//   * any other d divides |a| by a multiply-high with a precomputed 64-bit magic number and a
//     shift (the round-up method of Granlund and Montgomery, with the "add" fix-up when the magic
//     needs 65 bits), which is exact for every unsigned 64-bit dividend;
//   * there the sign is applied afterwards; on both paths the quotient truncates toward zero and the remainder
//     takes the dividend's sign, exactly as C++ / CUDA / Triton `/` and `%` on int64 do, for every
//     int64 dividend including INT64_MIN.
// kv_div(a, FastDivisor) / kv_rem(a, FastDivisor) are the lane customisation points of
// kvaddr/translate/lanes.hpp (found by argument-dependent lookup), so the lane functions that take
// a divisor type run unchanged over it; `std::int64_t(d)` is the divisor's value.
#include <cstdint>
#include <string>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/lanes.hpp"  // divisor_at
#include "kvaddr/translate/variant.hpp"  // KVADDR_HD

namespace kvaddr {

__extension__ typedef unsigned __int128 fast_div_u128;  // GCC / Clang / nvcc 128-bit integer

struct FastDivisor {
  std::int64_t d = 1;
  std::uint64_t magic = 0;  // 0 for a power of two
  int shift = 0;            // k for d = 2^k; the post-multiply shift otherwise
  bool add = false;         // the 65-bit magic case: ((n - q) >> 1) + q, then shift

  // Host only (128-bit arithmetic); d >= 1 (the callers validate it; d < 1 yields d = 1).
  static FastDivisor of(std::int64_t divisor) {
    FastDivisor f;
    if (divisor < 1) divisor = 1;
    f.d = divisor;
    const std::uint64_t ud = static_cast<std::uint64_t>(divisor);
    int l = 63;
    while (((ud >> l) & 1u) == 0) --l;  // floor(log2 d)
    if ((ud & (ud - 1)) == 0) {
      f.shift = l;
      return f;
    }
    // m = floor(2^(64 + l) / d); 2^l < d < 2^(l + 1), l <= 62.
    const fast_div_u128 num = static_cast<fast_div_u128>(1) << (64 + l);
    std::uint64_t m = static_cast<std::uint64_t>(num / ud);
    const std::uint64_t rem = static_cast<std::uint64_t>(num % ud);
    const std::uint64_t e = ud - rem;
    if (e < (std::uint64_t(1) << l)) {
      f.shift = l;  // m + 1 fits 64 bits and is exact with a shift of l
    } else {
      m += m;  // 2^(65 + l) / d: the 65-bit magic, its top bit handled by the add step
      const std::uint64_t twice = rem + rem;
      if (twice >= ud || twice < rem) m += 1;
      f.shift = l;
      f.add = true;
    }
    f.magic = m + 1;
    return f;
  }

  KVADDR_HD static constexpr std::uint64_t mulhi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return static_cast<std::uint64_t>((static_cast<fast_div_u128>(a) * b) >> 64);
#endif
  }

  // floor(n / d) for every unsigned 64-bit n.
  KVADDR_HD constexpr std::uint64_t udiv(std::uint64_t n) const {
    if (magic == 0) return n >> shift;
    const std::uint64_t q = mulhi(magic, n);
    if (!add) return q >> shift;
    return (((n - q) >> 1) + q) >> shift;
  }

  // a / d, truncating toward zero.
  KVADDR_HD constexpr std::int64_t div(std::int64_t a) const {
    if (magic == 0) {
      // 2^k: an arithmetic shift floors, so a negative dividend is first biased by d - 1
      // (a + d - 1 <= d - 2 for a < 0: no overflow).
      const std::int64_t bias = (a >> 63) & (d - 1);
      return (a + bias) >> shift;
    }
    const bool neg = a < 0;
    const std::uint64_t ua = neg ? std::uint64_t(0) - static_cast<std::uint64_t>(a) : static_cast<std::uint64_t>(a);
    const std::uint64_t uq = udiv(ua);
    return static_cast<std::int64_t>(neg ? std::uint64_t(0) - uq : uq);
  }

  // a % d, the sign of a (a - (a / d) * d, formed without overflow).
  KVADDR_HD constexpr std::int64_t rem(std::int64_t a) const {
    const std::uint64_t q = static_cast<std::uint64_t>(div(a));
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - q * static_cast<std::uint64_t>(d));
  }

  KVADDR_HD constexpr explicit operator std::int64_t() const { return d; }
};

KVADDR_HD constexpr std::int64_t kv_div(std::int64_t a, const FastDivisor& f) { return f.div(a); }
KVADDR_HD constexpr std::int64_t kv_rem(std::int64_t a, const FastDivisor& f) { return f.rem(a); }

// Pow2Divisor: a divisor that is a power of two, d = 2^k (1 <= d <= 2^62), with no branch. With
// b = a + (d - 1 if a < 0 else 0) (a + d - 1 <= d - 2 for a < 0: no overflow), the quotient is the
// arithmetic shift b >> k and the remainder a - (b & ~(d - 1)) (b with its low k bits cleared is
// quotient * d; formed in unsigned arithmetic), so a lane that takes both shares b. The same truncating
// `/` and `%` as FastDivisor and int64 for every int64 dividend. Every common page size and DCP size is
// a power of two; the CUDA launcher of the per-id routes takes it when all of a call's divisors are
// (FastDivisor otherwise).
namespace pow2 {
// Truncating a / 2^k and a % 2^k for every int64 a, with mask = 2^k - 1 (Pow2Divisor at run time,
// ConstPow2 with k a constant).
KVADDR_HD constexpr std::int64_t biased(std::int64_t a, std::int64_t mask) { return a + ((a >> 63) & mask); }
KVADDR_HD constexpr std::int64_t div(std::int64_t a, std::int64_t mask, int k) { return biased(a, mask) >> k; }
KVADDR_HD constexpr std::int64_t rem(std::int64_t a, std::int64_t mask) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) -
                                   (static_cast<std::uint64_t>(biased(a, mask)) & ~static_cast<std::uint64_t>(mask)));
}
}  // namespace pow2

struct Pow2Divisor {
  std::int64_t mask = 0;  // d - 1
  int shift = 0;          // k

  // Whether v can be a Pow2Divisor.
  KVADDR_HD static constexpr bool fits(std::int64_t v) { return v >= 1 && (v & (v - 1)) == 0; }
  // The divisor v; fits(v) is the caller's precondition (otherwise: the divisor 1).
  KVADDR_HD static constexpr Pow2Divisor of(std::int64_t v) {
    Pow2Divisor p;
    if (!fits(v)) return p;
    p.mask = v - 1;
    while ((std::int64_t(1) << p.shift) != v) ++p.shift;
    return p;
  }
  KVADDR_HD constexpr std::int64_t div(std::int64_t a) const { return pow2::div(a, mask, shift); }
  KVADDR_HD constexpr std::int64_t rem(std::int64_t a) const { return pow2::rem(a, mask); }
  KVADDR_HD constexpr std::int64_t value() const { return mask + 1; }
  KVADDR_HD constexpr explicit operator std::int64_t() const { return mask + 1; }
};

KVADDR_HD constexpr std::int64_t kv_div(std::int64_t a, const Pow2Divisor& p) { return p.div(a); }
KVADDR_HD constexpr std::int64_t kv_rem(std::int64_t a, const Pow2Divisor& p) { return p.rem(a); }

// ConstPow2<K>: the divisor 2^K as a compile-time constant (the division of Pow2Divisor with K and
// 2^K - 1 known to the compiler, as int64 `/` and `%` by a constant). Pow2Pack<K0, K1, ...> is a
// divisor family (lanes.hpp's divisor_at) whose k-th divisor is ConstPow2<Kk>, and Pow2Divisor past
// the pack. A lane built over a Pow2Pack takes each divisor as a Pow2Value (the value the launcher
// read from the call), which becomes a ConstPow2<K> only if it is 2^K: the pack was chosen from the
// call's divisors in the same order, and a mismatch is an InvalidArgument on the host, not a wrong
// division.
template <int K>
struct ConstPow2 {
  static_assert(K >= 0 && K <= 62, "ConstPow2: 2^K must fit int64");
  static constexpr std::int64_t kMask = (std::int64_t(1) << K) - 1;
  KVADDR_HD static constexpr std::int64_t div(std::int64_t a) { return pow2::div(a, kMask, K); }
  KVADDR_HD static constexpr std::int64_t rem(std::int64_t a) { return pow2::rem(a, kMask); }
  KVADDR_HD constexpr explicit operator std::int64_t() const { return kMask + 1; }
};
template <int K>
KVADDR_HD constexpr std::int64_t kv_div(std::int64_t a, ConstPow2<K>) { return ConstPow2<K>::div(a); }
template <int K>
KVADDR_HD constexpr std::int64_t kv_rem(std::int64_t a, ConstPow2<K>) { return ConstPow2<K>::rem(a); }

template <int... K>
struct Pow2Pack {};

// A divisor value handed to a lane built over a Pow2Pack (host only: the lane is made on the host).
struct Pow2Value {
  std::int64_t v = 1;
  template <int K>
  operator ConstPow2<K>() const {
    if (v != (std::int64_t(1) << K)) throw InvalidArgument("divisor", std::to_string(v), "not the 2^" + std::to_string(K) + " of the lane's Pow2Pack");
    return {};
  }
  operator Pow2Divisor() const {
    if (!Pow2Divisor::fits(v)) throw InvalidArgument("divisor", std::to_string(v), "past the lane's Pow2Pack: not a power of two");
    return Pow2Divisor::of(v);
  }
};

namespace lanes {
namespace pow2_detail {
template <int I, int... K>
struct At {
  using type = Pow2Divisor;
};
template <int K0, int... K>
struct At<0, K0, K...> {
  using type = ConstPow2<K0>;
};
template <int I, int K0, int... K>
struct At<I, K0, K...> {
  using type = typename At<I - 1, K...>::type;
};
}  // namespace pow2_detail
template <int... K, int I>
struct divisor_at<Pow2Pack<K...>, I> {
  using type = typename pow2_detail::At<I, K...>::type;
};
}  // namespace lanes

}  // namespace kvaddr
