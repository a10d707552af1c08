#pragma once
// Private: RapidCheck generators of kvaddr inputs, built on the shared builders of kvaddr/gen
// (tables.hpp) through RcDraw. Every generator shrinks toward the smallest readable case: page
// size 1, multiplier 1, one or two pages, empty or single-request batches, identity row
// assignment, no padding, zero stale value.
#include <rapidcheck.h>

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "kvaddr/gen/tables.hpp"

namespace kvaddr::props::gen {

using i64 = std::int64_t;
using i32 = std::int32_t;

// ---- size-independent choice points ---------------------------------------------------------
// RapidCheck scales inRange / element / arbitrary with the case size; these pick from the whole
// range at every size (so tombstones, padding and page multiples appear from the first cases)
// and still shrink toward `lo` / the first element. Call them inside a property or gen::exec.
inline constexpr int kFullSize = 100;
template <class T>
T any(T lo, T hi) {
  return *rc::gen::resize(kFullSize, rc::gen::inRange<T>(lo, hi));
}
inline bool coin() { return any<int>(0, 2) == 1; }
template <class T>
T elem(std::initializer_list<T> xs) {
  const std::vector<T> v(xs);
  return v[static_cast<std::size_t>(any<std::int64_t>(0, static_cast<std::int64_t>(v.size())))];
}
template <class T>
T pick_of(const std::vector<T>& v) {
  return v[static_cast<std::size_t>(any<std::int64_t>(0, static_cast<std::int64_t>(v.size())))];
}

// ---- the shared builders (kvaddr/gen/tables.hpp) as RapidCheck generators ---------------------
// RcDraw is a draw source (kvaddr/gen/rng.hpp) whose every choice is a RapidCheck pick over the
// whole range (any / elem above): RapidCheck shrinks each one toward its lowest value, which the
// builders order to be the smallest readable case. Use it inside a property or rc::gen::exec.
// It stays beside gen::SplitMix64 (issue 34 item 2) because a shrinkable choice must be RapidCheck's
// own; its randomness is RapidCheck's, seeded per property from props::derive_seed (gen::mix_step).
struct RcDraw {
  i64 uniform(i64 lo, i64 hi) { return hi <= lo ? lo : any<i64>(lo, hi + 1); }
  // True with probability p; shrinks toward false.
  bool chance(double p) {
    constexpr i64 kSteps = i64{1} << 20;
    return any<i64>(0, kSteps) >= kSteps - static_cast<i64>(p * static_cast<double>(kSteps));
  }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return elem<T>(xs);
  }
};

// ---- scalars ---------------------------------------------------------------------------------
// Page size: 1 first (the Hopper default), then small powers of two and non-powers of two.
rc::Gen<i64> page_size(bool pow2_only);
// Multiplier: 1 (single full-attention layer, M = 1 pools) up to 64+ (24 = Kimi K3 L, 2L MHA).
rc::Gen<i64> multiplier();
// A value pre-filled into output buffers (stale tail of a capture-stable buffer).
rc::Gen<i64> stale_value();

// ---- page tables -----------------------------------------------------------------------------
using Tables = ::kvaddr::gen::Tables;
// Random permutation with tombstones; sink pinned (v2p[0] = 0, p2v[0] = 0), trailing sentinel -1.
// `max_pages` bounds the physical page count; `non_owner` lets the virtual id space exceed it.
rc::Gen<Tables> tables(i64 max_pages = 40, bool non_owner = true);
// Tables whose bound entries are huge physical page ids (for int32 narrowing checks): the
// vector stays small, the values do not (entries up to ~2^33).
rc::Gen<Tables> wide_tables();

// ---- token ids -------------------------------------------------------------------------------
// One virtual token id against `t`: live (bound page), tombstoned page, sink page, -1 padding,
// sentinel row; rarely (allow_oob) past the table.
rc::Gen<i64> token(const Tables& t, i64 ps, bool allow_oob);
rc::Gen<std::vector<i64>> tokens(const Tables& t, i64 ps, bool allow_oob, i64 max_len = 24);

// ---- batches ---------------------------------------------------------------------------------
using Batch = ::kvaddr::gen::TableBatch;
using BatchShape = ::kvaddr::gen::BatchShape;
rc::Gen<Batch> batch(const Tables& t, i64 ps, BatchShape shape);

// ---- buffer layouts (invalid and aliased inputs) ----------------------------------------------
// A slice [off, off + size) of one allocation of `pool` elements.
using Slice = ::kvaddr::gen::Slice;
using ::kvaddr::gen::overlaps;
// A slice of `size` elements placed against `anchor` in a pool of `pool` elements: the same slice,
// the same start, touching it on either side, overlapping it by one element on either side, or
// anywhere (clipped to the pool). Shrinks toward "the same slice".
Slice slice_near(i64 pool, Slice anchor, i64 size);

// Counterexamples print through kvaddr::gen's operator<< (tables.hpp).

}  // namespace kvaddr::props::gen
