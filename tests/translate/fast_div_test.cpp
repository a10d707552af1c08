// kvaddr::FastDivisor and kvaddr::Pow2Divisor (fast_div.hpp) against the builtin int64 `/` and `%`:
// every divisor class the kernels use (powers of two, the 64-bit-magic path, the 65-bit "add" path, the
// largest divisors), over edge dividends and random ones; and the lane functions instantiated with them.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kvaddr/translate/fast_div.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace {

using kvaddr::FastDivisor;
using kvaddr::Pow2Divisor;
using i64 = std::int64_t;
constexpr i64 kMax = std::numeric_limits<i64>::max();
constexpr i64 kMin = std::numeric_limits<i64>::min();

// Edge dividends for divisor d: 0, +-1, d - 1, d, d + 1, multiples of d and their neighbours,
// 2^31 +- 1, 2^32, 2^62, INT64_MAX, INT64_MIN (+1), and the negations of all of them.
std::vector<i64> edge_dividends(i64 d) {
  std::vector<i64> v = {0, 1, 2, 3, 63, 64, 65, (i64(1) << 31) - 1, i64(1) << 31, (i64(1) << 31) + 1, i64(1) << 32,
                        (i64(1) << 62) - 1, i64(1) << 62, (i64(1) << 62) + 1, kMax, kMax - 1};
  for (i64 k : {i64(1), i64(2), i64(3), i64(1000), i64(1) << 20}) {
    if (d <= kMax / k) {
      const i64 m = d * k;
      v.push_back(m);
      v.push_back(m - 1);
      if (m < kMax) v.push_back(m + 1);
    }
  }
  v.push_back(kMax / d * d);      // the largest multiple of d
  v.push_back(kMax / d * d - 1);
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  v.push_back(kMin);
  v.push_back(kMin + 1);
  return v;
}

i64 value_of(const FastDivisor& f) { return f.d; }
i64 value_of(const Pow2Divisor& p) { return p.value(); }
template <int K>
i64 value_of(kvaddr::ConstPow2<K> c) { return static_cast<i64>(c); }

template <class Div>
void expect_exact(const Div& f, i64 a) {
  const i64 d = value_of(f);
  // INT64_MIN / -1 is the only overflowing case of `/`, and d >= 1 excludes it.
  ASSERT_EQ(f.div(a), a / d) << "a = " << a << ", d = " << d;
  ASSERT_EQ(f.rem(a), a % d) << "a = " << a << ", d = " << d;
  ASSERT_EQ(kvaddr::kv_div(a, f), a / d);
  ASSERT_EQ(kvaddr::kv_rem(a, f), a % d);
}

std::vector<i64> divisor_classes() {
  std::vector<i64> d = {1, 2, 4, 16, 32, 64, 128, 256, 1024, i64(1) << 20, i64(1) << 31, i64(1) << 32, i64(1) << 62,
                        3, 5, 6, 7, 9, 10, 12, 24, 48, 96, 100, 125, 641, 1000, 4095, 4097,
                        (i64(1) << 31) - 1, (i64(1) << 31) + 1, (i64(1) << 32) + 1, (i64(1) << 62) - 1,
                        (i64(1) << 62) + 1, kMax - 1, kMax};
  std::mt19937_64 rng(0x5EEDF00D);
  for (int i = 0; i < 200; ++i) d.push_back(1 + static_cast<i64>(rng() % 100000));
  for (int i = 0; i < 200; ++i) d.push_back(1 + static_cast<i64>(rng() >> 1) % kMax);
  for (int i = 0; i < 100; ++i) d.push_back(1 + static_cast<i64>(rng() >> (1 + rng() % 62)));
  return d;
}

TEST(FastDivisor, HandComputedSmallCases) {
  const FastDivisor two = FastDivisor::of(2), seven = FastDivisor::of(7), sixty_four = FastDivisor::of(64);
  EXPECT_EQ(two.div(7), 3);
  EXPECT_EQ(two.rem(7), 1);
  EXPECT_EQ(two.div(-7), -3);  // truncates toward zero, not floor
  EXPECT_EQ(two.rem(-7), -1);  // the dividend's sign
  EXPECT_EQ(seven.div(-50), -7);
  EXPECT_EQ(seven.rem(-50), -1);
  EXPECT_EQ(seven.div(49), 7);
  EXPECT_EQ(seven.rem(48), 6);
  EXPECT_EQ(sixty_four.div(-1), 0);
  EXPECT_EQ(sixty_four.rem(-1), -1);
  EXPECT_EQ(sixty_four.div(130), 2);
  EXPECT_EQ(sixty_four.rem(130), 2);
  EXPECT_EQ(FastDivisor::of(1).div(kMin), kMin);
  EXPECT_EQ(FastDivisor::of(1).rem(kMin), 0);
  EXPECT_EQ(FastDivisor::of(kMax).div(kMin), -1);
  EXPECT_EQ(FastDivisor::of(kMax).rem(kMin), -1);
  EXPECT_EQ(static_cast<i64>(seven), 7);
}

TEST(FastDivisor, EveryPathIsTaken) {
  // Powers of two take the shift; 3 (magic 0xAAAA...AB) the 64-bit magic; 7 needs 65 bits (add).
  EXPECT_EQ(FastDivisor::of(64).magic, 0u);
  EXPECT_EQ(FastDivisor::of(64).shift, 6);
  EXPECT_NE(FastDivisor::of(3).magic, 0u);
  EXPECT_FALSE(FastDivisor::of(3).add);
  EXPECT_EQ(FastDivisor::of(3).magic, 0xAAAAAAAAAAAAAAABull);
  EXPECT_TRUE(FastDivisor::of(7).add);
  int adds = 0, plain = 0, pow2 = 0;
  for (i64 d : divisor_classes()) {
    const FastDivisor f = FastDivisor::of(d);
    if (f.magic == 0) ++pow2;
    else if (f.add) ++adds;
    else ++plain;
  }
  EXPECT_GT(adds, 10);
  EXPECT_GT(plain, 10);
  EXPECT_GT(pow2, 10);
}

TEST(FastDivisor, NonPositiveDivisorBecomesOne) {
  EXPECT_EQ(FastDivisor::of(0).d, 1);
  EXPECT_EQ(FastDivisor::of(-5).d, 1);
  EXPECT_EQ(FastDivisor::of(0).div(-9), -9);
}

TEST(FastDivisor, EdgeDividendsEveryDivisorClass) {
  for (i64 d : divisor_classes()) {
    const FastDivisor f = FastDivisor::of(d);
    for (i64 a : edge_dividends(d)) expect_exact(f, a);
  }
}

TEST(FastDivisor, RandomDividendsEveryDivisorClass) {
  std::mt19937_64 rng(42);
  for (i64 d : divisor_classes()) {
    const FastDivisor f = FastDivisor::of(d);
    for (int i = 0; i < 2000; ++i) {
      const i64 full = static_cast<i64>(rng());                     // any int64
      const i64 near = static_cast<i64>(rng() % 4096) - 2048;       // around 0
      const i64 scaled = static_cast<i64>(rng() >> (rng() % 64));   // every magnitude
      expect_exact(f, full);
      expect_exact(f, near);
      expect_exact(f, scaled);
      expect_exact(f, -scaled);
    }
  }
}

TEST(FastDivisor, SmallDivisorsExhaustiveSmallDividends) {
  for (i64 d = 1; d <= 300; ++d) {
    const FastDivisor f = FastDivisor::of(d);
    for (i64 a = -5000; a <= 5000; ++a) expect_exact(f, a);
  }
}

// The lane functions over a FastDivisor give the same values as over int64 divisors.
TEST(FastDivisor, LanesAgreeWithBuiltinDivisors) {
  std::vector<i64> v2p(1 << 12);
  std::mt19937_64 rng(7);
  for (auto& x : v2p) x = static_cast<i64>(rng() % 4096) - 1;  // includes tombstones -1
  const auto g = [&](i64 i, bool m) { return m ? v2p[static_cast<std::size_t>(i)] : i64(0); };
  namespace L = kvaddr::lanes;
  using kvaddr::Variant;
  for (i64 ps : {i64(1), i64(3), i64(16), i64(24), i64(64), i64(100)}) {
    for (i64 dcp : {i64(1), i64(2), i64(3), i64(8)}) {
      const FastDivisor fps = FastDivisor::of(ps), fdcp = FastDivisor::of(dcp);
      const i64 stride = ps * 5, limit = i64(v2p.size()) * ps;  // every page index stays in the table
      for (int i = 0; i < 3000; ++i) {
        const i64 t = static_cast<i64>(rng() % static_cast<std::uint64_t>(limit)) - (i % 7 == 0 ? limit : 0);
        EXPECT_EQ((L::token_translate_lane<i64, FastDivisor>(t, g, fps, stride, Variant::production)),
                  L::token_translate_lane<i64>(t, g, ps, stride, Variant::production));
        EXPECT_EQ((L::swa_translate_lane<i64, FastDivisor>(t, g, fps, stride, Variant::b11_swa_no_clamp)),
                  L::swa_translate_lane<i64>(t, g, ps, stride, Variant::b11_swa_no_clamp));
        EXPECT_EQ((L::transfer_lane<i64, FastDivisor>(t, g, fps, Variant::production)),
                  L::transfer_lane<i64>(t, g, ps, Variant::production));
        const i64 w = t < 0 ? t : t * dcp + static_cast<i64>(rng() % static_cast<std::uint64_t>(dcp));
        EXPECT_EQ((L::dcp_read_lane<i64, FastDivisor, FastDivisor>(w, g, fps, stride, fdcp, Variant::production)),
                  L::dcp_read_lane<i64>(w, g, ps, stride, dcp, Variant::production));
        if (Pow2Divisor::fits(ps) && Pow2Divisor::fits(dcp)) {
          const Pow2Divisor pps = Pow2Divisor::of(ps), pdcp = Pow2Divisor::of(dcp);
          EXPECT_EQ((L::token_translate_lane<i64, Pow2Divisor>(t, g, pps, stride, Variant::e03_int32_offset)),
                    L::token_translate_lane<i64>(t, g, ps, stride, Variant::e03_int32_offset));
          EXPECT_EQ((L::transfer_lane<i64, Pow2Divisor>(t, g, pps, Variant::production)),
                    L::transfer_lane<i64>(t, g, ps, Variant::production));
          EXPECT_EQ((L::dcp_read_lane<i64, Pow2Divisor, Pow2Divisor>(w, g, pps, stride, pdcp, Variant::production)),
                    L::dcp_read_lane<i64>(w, g, ps, stride, dcp, Variant::production));
          for (i64 rank = 0; rank < dcp; ++rank)
            EXPECT_EQ((L::write_loc_lane<i64, Pow2Divisor, Pow2Divisor>(w, g, pps, stride, pdcp, rank, Variant::production)),
                      L::write_loc_lane<i64>(w, g, ps, stride, dcp, rank, Variant::production));
        }
        for (i64 rank = 0; rank < dcp; ++rank) {
          EXPECT_EQ((L::write_loc_lane<i64, FastDivisor, FastDivisor>(w, g, fps, stride, fdcp, rank, Variant::production)),
                    L::write_loc_lane<i64>(w, g, ps, stride, dcp, rank, Variant::production));
          EXPECT_EQ((L::write_loc_lane<i64, i64, FastDivisor>(w, g, ps, stride, fdcp, rank, Variant::e03_int32_offset)),
                    L::write_loc_lane<i64>(w, g, ps, stride, dcp, rank, Variant::e03_int32_offset));
        }
      }
    }
  }
}

// ---- Pow2Divisor ----

TEST(Pow2Divisor, HandComputedSmallCases) {
  const Pow2Divisor one = Pow2Divisor::of(1), two = Pow2Divisor::of(2), sixty_four = Pow2Divisor::of(64);
  EXPECT_EQ(sixty_four.shift, 6);
  EXPECT_EQ(one.shift, 0);
  EXPECT_EQ(two.div(7), 3);
  EXPECT_EQ(two.rem(7), 1);
  EXPECT_EQ(two.div(-7), -3);  // truncates toward zero, not floor (-4)
  EXPECT_EQ(two.rem(-7), -1);  // the dividend's sign
  EXPECT_EQ(sixty_four.div(-1), 0);
  EXPECT_EQ(sixty_four.rem(-1), -1);
  EXPECT_EQ(sixty_four.div(-64), -1);
  EXPECT_EQ(sixty_four.rem(-64), 0);
  EXPECT_EQ(sixty_four.div(-65), -1);
  EXPECT_EQ(sixty_four.rem(-65), -1);
  EXPECT_EQ(sixty_four.div(130), 2);
  EXPECT_EQ(sixty_four.rem(130), 2);
  EXPECT_EQ(one.div(kMin), kMin);
  EXPECT_EQ(one.rem(kMin), 0);
  EXPECT_EQ(Pow2Divisor::of(i64(1) << 62).div(kMin), -2);
  EXPECT_EQ(Pow2Divisor::of(i64(1) << 62).rem(kMin), 0);
  EXPECT_EQ(Pow2Divisor::of(i64(1) << 62).div(kMax), 1);
  EXPECT_EQ(Pow2Divisor::of(i64(1) << 62).rem(kMax), (i64(1) << 62) - 1);
  EXPECT_EQ(static_cast<i64>(sixty_four), 64);
}

// fits() on both sides of every boundary: 0 and negatives, 1, non-powers next to powers, 2^62, INT64_MAX.
TEST(Pow2Divisor, FitsExactlyThePowersOfTwo) {
  EXPECT_FALSE(Pow2Divisor::fits(0));
  EXPECT_FALSE(Pow2Divisor::fits(-1));
  EXPECT_FALSE(Pow2Divisor::fits(-64));
  EXPECT_FALSE(Pow2Divisor::fits(kMin));
  EXPECT_TRUE(Pow2Divisor::fits(1));
  for (int k = 1; k <= 62; ++k) {
    const i64 p = i64(1) << k;
    EXPECT_TRUE(Pow2Divisor::fits(p)) << p;
    EXPECT_FALSE(Pow2Divisor::fits(p + 1)) << p + 1;
    if (k >= 2) {
      EXPECT_FALSE(Pow2Divisor::fits(p - 1)) << p - 1;
    }
    EXPECT_EQ(Pow2Divisor::of(p).shift, k);
    EXPECT_EQ(Pow2Divisor::of(p).value(), p);
    EXPECT_EQ(Pow2Divisor::of(p).mask, p - 1);
  }
  EXPECT_FALSE(Pow2Divisor::fits(kMax));
  EXPECT_FALSE(Pow2Divisor::fits(3));
  EXPECT_FALSE(Pow2Divisor::fits(14));
  EXPECT_EQ(Pow2Divisor::of(14).value(), 1);  // outside the precondition: the divisor 1
}

TEST(Pow2Divisor, EveryPowerEdgeAndRandomDividends) {
  std::mt19937_64 rng(99);
  for (int k = 0; k <= 62; ++k) {
    const i64 d = i64(1) << k;
    const Pow2Divisor p = Pow2Divisor::of(d);
    for (i64 a : edge_dividends(d)) expect_exact(p, a);
    for (int i = 0; i < 2000; ++i) {
      const i64 scaled = static_cast<i64>(rng() >> (rng() % 64));
      expect_exact(p, static_cast<i64>(rng()));
      expect_exact(p, static_cast<i64>(rng() % 4096) - 2048);
      expect_exact(p, scaled);
      expect_exact(p, -scaled);
    }
  }
}

// ---- ConstPow2, Pow2Pack, divisor positions ----

template <int K>
void const_pow2_exact(std::mt19937_64& rng) {
  const kvaddr::ConstPow2<K> c;
  for (i64 a : edge_dividends(i64(1) << K)) expect_exact(c, a);
  for (int i = 0; i < 500; ++i) {
    const i64 scaled = static_cast<i64>(rng() >> (rng() % 64));
    expect_exact(c, static_cast<i64>(rng()));
    expect_exact(c, scaled);
    expect_exact(c, -scaled);
  }
}

TEST(ConstPow2, ExactForEveryShiftTheLauncherUsesAndTheExtremes) {
  std::mt19937_64 rng(5);
  const_pow2_exact<0>(rng);
  const_pow2_exact<1>(rng);
  const_pow2_exact<4>(rng);
  const_pow2_exact<5>(rng);
  const_pow2_exact<6>(rng);
  const_pow2_exact<7>(rng);
  const_pow2_exact<31>(rng);
  const_pow2_exact<62>(rng);
  EXPECT_EQ(kvaddr::ConstPow2<6>::div(-65), -1);
  EXPECT_EQ(kvaddr::ConstPow2<6>::rem(-65), -1);
  EXPECT_EQ(static_cast<i64>(kvaddr::ConstPow2<6>{}), 64);
}

TEST(Pow2Pack, PositionsAndTheRuntimeFallbackPastThePack) {
  namespace L = kvaddr::lanes;
  using Pack = kvaddr::Pow2Pack<6, 1>;
  static_assert(std::is_same_v<L::divisor_at_t<Pack, 0>, kvaddr::ConstPow2<6>>);
  static_assert(std::is_same_v<L::divisor_at_t<Pack, 1>, kvaddr::ConstPow2<1>>);
  static_assert(std::is_same_v<L::divisor_at_t<Pack, 2>, Pow2Divisor>);
  static_assert(std::is_same_v<L::divisor_at_t<kvaddr::Pow2Pack<>, 0>, Pow2Divisor>);
  static_assert(std::is_same_v<L::divisor_at_t<FastDivisor, 1>, FastDivisor>);
  static_assert(std::is_same_v<L::divisor_at_t<i64, 0>, i64>);
  // A Pow2Value becomes the pack's constant only when it is that power of two.
  const kvaddr::ConstPow2<6> ok = kvaddr::Pow2Value{64};
  EXPECT_EQ(static_cast<i64>(ok), 64);
  EXPECT_THROW((void)static_cast<kvaddr::ConstPow2<6>>(kvaddr::Pow2Value{32}), kvaddr::InvalidArgument);
  EXPECT_THROW((void)static_cast<kvaddr::ConstPow2<0>>(kvaddr::Pow2Value{2}), kvaddr::InvalidArgument);
  const Pow2Divisor past = kvaddr::Pow2Value{16};
  EXPECT_EQ(past.value(), 16);
  EXPECT_THROW((void)static_cast<Pow2Divisor>(kvaddr::Pow2Value{12}), kvaddr::InvalidArgument);
}

// The divisor count of each spec's lane (constexpr): the launcher's pack has one position per divisor.
TEST(Pow2Pack, SpecDivisorCounts) {
  using kvaddr::Route;
  using kvaddr::RouteSpec;
  static_assert(kvaddr::spec_divisor_count<RouteSpec<Route::token_translate>>() == 1);
  static_assert(kvaddr::spec_divisor_count<RouteSpec<Route::swa_translate>>() == 1);
  static_assert(kvaddr::spec_divisor_count<RouteSpec<Route::transfer_ids>>() == 1);
  static_assert(kvaddr::spec_divisor_count<RouteSpec<Route::dcp_read_translate>>() == 2);
  static_assert(kvaddr::spec_divisor_count<RouteSpec<Route::mamba_translate>>() == 0);
  SUCCEED();
}

// A spec's lane over a Pow2Pack computes what it computes over int64 divisors (dcp_read: two positions).
TEST(Pow2Pack, SpecLaneOverAPackEqualsTheInt64Lane) {
  using kvaddr::Route;
  using Spec = kvaddr::RouteSpec<Route::dcp_read_translate>;
  std::vector<i64> v2p(1 << 10);
  std::mt19937_64 rng(11);
  for (auto& x : v2p) x = static_cast<i64>(rng() % 1024) - 1;
  const auto g = [&](i64 i, bool m) { return m ? v2p[static_cast<std::size_t>(i)] : i64(0); };
  Spec::Args a{};
  a.page_size = 64;
  a.multiplier = 3;
  a.dcp_size = 2;
  struct Plain {
    i64 div(i64 d) const { return d; }
    i64 stride(i64 ps, i64 m) const { return ps * m; }
  };
  struct Packed {
    kvaddr::Pow2Value div(i64 d) const { return {d}; }
    i64 stride(i64 ps, i64 m) const { return ps * m; }
  };
  const auto plain = Spec::lane<i64, i64>(a, Plain{});
  const auto packed = Spec::lane<i64, kvaddr::Pow2Pack<6, 1>>(a, Packed{});
  for (int i = 0; i < 20000; ++i) {
    const i64 w = static_cast<i64>(rng() % (v2p.size() * 64 * 2)) - (i % 9 == 0 ? 5 : 0);
    ASSERT_EQ(packed(w, g), plain(w, g)) << w;
  }
  a.dcp_size = 4;  // not the pack's 2^1: refused when the lane is made
  EXPECT_THROW((void)(Spec::lane<i64, kvaddr::Pow2Pack<6, 1>>(a, Packed{})), kvaddr::InvalidArgument);
}

}  // namespace
