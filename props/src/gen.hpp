#pragma once
// Private: RapidCheck generators of kvaddr inputs. Every generator shrinks toward the smallest
// readable case: page size 1, multiplier 1, one or two pages, empty or single-request batches,
// identity row assignment, no padding, zero stale value.
#include <rapidcheck.h>

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

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

// ---- scalars ---------------------------------------------------------------------------------
// Page size: 1 first (the Hopper default), then small powers of two and non-powers of two.
rc::Gen<i64> page_size(bool pow2_only);
// Multiplier: 1 (single full-attention layer, M = 1 pools) up to 64+ (24 = Kimi K3 L, 2L MHA).
rc::Gen<i64> multiplier();
// A value pre-filled into output buffers (stale tail of a capture-stable buffer).
rc::Gen<i64> stale_value();

// ---- page tables -----------------------------------------------------------------------------
struct Tables {
  i64 num_pages = 1;        // physical pages (incl. reserved [0, min_page_index))
  i64 num_virtual_ids = 1;  // v2p has num_virtual_ids + 1 rows (trailing sentinel)
  i64 min_page_index = 1;
  bool compacted = false;   // bound physical pages form one band at the watermark
  bool grow_down = false;
  std::vector<i64> v2p;     // [num_virtual_ids + 1]
  std::vector<i64> p2v;     // [num_pages + 1]
  std::vector<i64> bound;   // bound virtual pages (>= min_page_index), ascending
  std::vector<i64> tombs;   // unbound virtual pages in [min_page_index, num_virtual_ids)
};
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
struct Batch {
  i64 ps = 1;
  i64 rows = 1;                      // req_to_token rows R
  i64 cols = 1;                      // req_to_token columns C (a multiple of ps)
  std::vector<i32> req_to_token;     // [R, C], page-consistent rows: token = v*ps + o or -1 padding
  std::vector<i64> req_pool_indices; // [B], non-identity, repeated
  std::vector<i64> seq_lens;         // [B], 0, 1, exact page multiples, ragged
  i64 max_pages = 1;                 // table width a consumer asks for (may be < live prefix)
  i64 delta = 0;                     // seq_len_delta
  i64 batch() const { return static_cast<i64>(req_pool_indices.size()); }
  i32 tok(i64 row, i64 col) const { return req_to_token[static_cast<std::size_t>(row * cols + col)]; }
};
struct BatchShape {
  bool allow_padding = true;       // -1 page-start tokens
  bool lens_within_max_pages = false;  // seq_lens[b] + delta <= max_pages * ps
  bool allow_delta = true;
  bool pad_inside_pages = true;    // -1 also at non-page-start positions
  i64 max_batch = 6;
};
rc::Gen<Batch> batch(const Tables& t, i64 ps, BatchShape shape);

// ---- buffer layouts (invalid and aliased inputs) ----------------------------------------------
// A slice [off, off + size) of one allocation of `pool` elements.
struct Slice {
  i64 off = 0;
  i64 size = 0;
  i64 end() const { return off + size; }
};
// A slice of `size` elements placed against `anchor` in a pool of `pool` elements: the same slice,
// the same start, touching it on either side, overlapping it by one element on either side, or
// anywhere (clipped to the pool). Shrinks toward "the same slice".
Slice slice_near(i64 pool, Slice anchor, i64 size);
inline bool overlaps(Slice a, Slice b) { return a.size > 0 && b.size > 0 && a.off < b.end() && b.off < a.end(); }

// ---- printing (RapidCheck counterexamples) ---------------------------------------------------
std::ostream& operator<<(std::ostream& os, const Tables& t);
std::ostream& operator<<(std::ostream& os, const Batch& b);

}  // namespace kvaddr::props::gen
