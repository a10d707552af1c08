#pragma once
// The one random-number family of kvaddr's generators: SplitMix64 (Steele, Lea, Flood 2014).
//
// State: one 64-bit word s. next(): s += 0x9E3779B97F4A7C15, then the output is s passed through
// the mixer z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) * 0x94D049BB133111EB; z ^ z>>31.
// Every stream is a SplitMix64 seeded with a key derived from (seed, index, ...) by the same mixer
// (`mix`), so case i of seed s is rebuilt from (s, i) alone, in any order and on any shard.
// docs/generators.md gives the derivation of each consumer's key.
//
// Besides the draw-source members, SplitMix64 has the draws of the C++ harness and the bug zoo:
//   between(lo, hi) (inclusive, always one draw), unit() (53-bit fraction in [0, 1)),
//   pick(array) (one draw), log_size(max) (log-uniform in [1, max]).
//
// A "draw source" is any type with the members of SplitMix64 below that the builders use:
//   i64 uniform(i64 lo, i64 hi)  (inclusive; hi <= lo gives lo)
//   bool chance(double p)
//   T pick(std::initializer_list<T>)
// The builders (builders.hpp, tables.hpp, edges.hpp) are templates over it; props/ passes a
// RapidCheck adapter so that RapidCheck shrinks every choice.
//
// `mix`, `mix_step` and `nth` are also device functions under nvcc (KVADDR_GEN_HD): the device's
// draws (kernels/: graph mode's lane hash, the on-device id generator) use these, not a copy.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#if defined(__CUDACC__)
#define KVADDR_GEN_HD __host__ __device__
#else
#define KVADDR_GEN_HD
#endif

namespace kvaddr::gen {

using u64 = std::uint64_t;
using i64 = std::int64_t;
using i32 = std::int32_t;

inline constexpr u64 kGolden = 0x9E3779B97F4A7C15ull;

// The SplitMix64 output mixer (a bijection of 64-bit words).
KVADDR_GEN_HD constexpr u64 mix(u64 z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One SplitMix64 step from state z: the output of SplitMix64(z).next().
KVADDR_GEN_HD constexpr u64 mix_step(u64 z) { return mix(z + kGolden); }

// Draw i (0-based) of the stream SplitMix64(seed), without the i draws before it: the (i + 1)-th
// next() of SplitMix64(seed), so that lane i of a parallel fill draws what a serial stream would.
KVADDR_GEN_HD constexpr u64 nth(u64 seed, u64 i) { return mix(seed + kGolden * (i + 1)); }

class SplitMix64 {
 public:
  constexpr explicit SplitMix64(u64 seed) : s_(seed) {}
  constexpr u64 next() { return mix(s_ += kGolden); }
  // Uniform in [lo, hi] (inclusive) by reduction modulo the range; hi <= lo gives lo.
  constexpr i64 uniform(i64 lo, i64 hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<i64>(next() % (static_cast<u64>(hi) - static_cast<u64>(lo) + 1));
  }
  // Uniform in [lo, hi] (inclusive) like uniform(), but always one draw, also for hi <= lo (which
  // gives lo): a stream's later draws do not depend on whether a range was empty.
  constexpr i64 between(i64 lo, i64 hi) {
    const u64 z = next();
    if (hi <= lo) return lo;
    return lo + static_cast<i64>(z % (static_cast<u64>(hi) - static_cast<u64>(lo) + 1));
  }
  // A uniform fraction in [0, 1) from the top 53 bits of one draw.
  constexpr double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  // True with probability p (unit() < p).
  constexpr bool chance(double p) { return unit() < p; }
  template <class T>
  constexpr T pick(std::initializer_list<T> xs) {
    return *(xs.begin() + uniform(0, static_cast<i64>(xs.size()) - 1));
  }
  // An element of a non-empty array, one draw (also for one element).
  template <class T, std::size_t N>
  constexpr T pick(const T (&xs)[N]) {
    return xs[next() % N];
  }
  // Log-uniform in [1, max] (max < 1 gives 1): exp(unit() * ln max), truncated; one draw.
  i64 log_size(i64 max) {
    const double u = unit();
    return std::max<i64>(1, static_cast<i64>(std::exp(u * std::log(static_cast<double>(std::max<i64>(max, 1))))));
  }
  constexpr u64 state() const { return s_; }

 private:
  u64 s_;
};

// The differential check's key of case `index` of `seed` at size scale `scale` (DiffOptions::
// max_case_lanes): the case's SplitMix64 is seeded with it, and key % kernel count picks the kernel.
constexpr u64 case_key(u64 seed, i64 index, i64 scale) {
  SplitMix64 r(seed ^ 0x6A09E667F3BCC909ull);
  u64 k = r.next() ^ (static_cast<u64>(index) * 0xD1B54A32D192ED03ull);
  k ^= static_cast<u64>(scale) * kGolden;
  return SplitMix64(k).next();
}

// The stream of harness case `index` of `seed` (recipe.hpp's draw_recipe; the C++ harness and kvaddr.check).
constexpr u64 recipe_key(u64 seed, u64 index) { return seed * kGolden ^ (index + 0x632BE59BD9B4E019ULL); }
constexpr SplitMix64 recipe_rng(u64 seed, u64 index) { return SplitMix64(recipe_key(seed, index)); }

// A sub-stream of a case key for an independent choice (e.g. the edge class of a case), so that
// adding a choice there does not shift the draws of the case's main stream.
constexpr u64 substream(u64 key, u64 tag) { return mix(key ^ mix(tag * kGolden + 0x243F6A8885A308D3ull)); }

// Shuffles [first, first + n) in place (Fisher-Yates, from the back), one uniform per step.
template <class R, class It>
void shuffle(R& r, It first, i64 n) {
  for (i64 i = n; i > 1; --i) {
    using std::swap;
    swap(first[i - 1], first[r.uniform(0, i - 1)]);
  }
}

}  // namespace kvaddr::gen
