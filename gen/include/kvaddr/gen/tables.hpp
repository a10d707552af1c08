#pragma once
// Builders of the property campaign's inputs (props/), templated over a draw source R (rng.hpp):
// pool tables with their inverse (v2p and p2v), token ids against them, page-consistent request
// batches and buffer slices placed against an anchor. props/ passes a RapidCheck adapter, whose
// every choice shrinks toward its lowest value, so each builder orders its choices so that the
// lowest one is the smallest readable case: page size 1, one or two pages, identity permutations,
// no padding, "the same slice".
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <ostream>
#include <vector>

#include "kvaddr/gen/rng.hpp"

namespace kvaddr::gen {

// ---- scalars ------------------------------------------------------------------------------------
// Page size: 1 first, then small powers of two and non-powers of two (3, 5, 6, 7).
template <class R>
i64 small_page_size(R& r, bool pow2_only) {
  if (pow2_only) return r.template pick<i64>({1, 2, 4, 8, 16, 64});
  return r.template pick<i64>({1, 2, 3, 4, 5, 8, 7, 16, 6, 64});
}
// Multiplier: 1..9 mostly, then the large ones of real pools (24 = Kimi K3 L, 61, 65, 96).
template <class R>
i64 small_multiplier(R& r) {
  if (r.uniform(0, 9) < 7) return r.uniform(1, 8);
  return r.template pick<i64>({24, 48, 61, 64, 65, 96});
}
// A value pre-filled into output buffers (stale tail of a capture-stable buffer).
template <class R>
i64 stale_value(R& r) {
  switch (r.uniform(0, 4)) {
    case 0: return 0;
    case 1: return -1;
    case 2: return 0x5a5a5a5a;
    case 3: return -0x12345678;
    default: return r.uniform(-1000, 999);
  }
}

// ---- pool tables --------------------------------------------------------------------------------
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

// A permutation of [0, n) from one sort key per element: all-zero keys (the lowest draws) give the
// identity.
template <class R>
std::vector<i64> permutation(R& r, i64 n) {
  std::vector<i64> idx(static_cast<std::size_t>(std::max<i64>(n, 0)));
  std::iota(idx.begin(), idx.end(), i64{0});
  if (n <= 1) return idx;
  std::vector<i64> keys(idx.size());
  for (auto& k : keys) k = r.uniform(0, n - 1);
  std::stable_sort(idx.begin(), idx.end(), [&](i64 a, i64 b) { return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)]; });
  return idx;
}

// A random injection of virtual pages into physical pages with tombstones; sink pinned (v2p[0] = 0,
// p2v[0] = 0), trailing sentinel -1. `max_pages` bounds the physical page count; `non_owner` lets
// the virtual id space exceed it. Compacted tables bind one band at the low (or, grow_down, high)
// watermark.
template <class R>
Tables tables(R& r, i64 max_pages, bool non_owner) {
  const auto uz = [](i64 v) { return static_cast<std::size_t>(v); };
  Tables t;
  t.num_pages = r.uniform(1, max_pages);
  const i64 extra = non_owner ? r.template pick<i64>({0, 0, 1, 3, 7}) : 0;
  t.num_virtual_ids = t.num_pages + extra;
  t.min_page_index = std::min(r.template pick<i64>({1, 0, 2}), t.num_pages);
  t.compacted = r.uniform(0, 1) == 1;
  t.grow_down = r.uniform(0, 1) == 1;
  t.v2p.assign(uz(t.num_virtual_ids + 1), -1);
  t.p2v.assign(uz(t.num_pages + 1), -1);
  t.v2p[0] = 0;
  t.p2v[0] = 0;
  const i64 lo = std::max<i64>(t.min_page_index, 1);
  const i64 nv = std::max<i64>(t.num_virtual_ids - lo, 0);
  const i64 cap = std::max<i64>(t.num_pages - lo, 0);
  std::vector<i64> chosen;
  for (i64 i = 0; i < nv; ++i) {
    const bool want = r.uniform(0, 1) == 1;
    if (want && static_cast<i64>(chosen.size()) < cap) chosen.push_back(lo + i);
  }
  const i64 k = static_cast<i64>(chosen.size());
  std::vector<i64> phys;
  if (t.compacted) {
    const i64 base = t.grow_down ? t.num_pages - k : lo;
    const auto perm = permutation(r, k);
    for (i64 i = 0; i < k; ++i) phys.push_back(base + perm[uz(i)]);
  } else {
    const auto perm = permutation(r, cap);
    for (i64 i = 0; i < k; ++i) phys.push_back(lo + perm[uz(i)]);
  }
  for (i64 i = 0; i < k; ++i) {
    t.v2p[uz(chosen[uz(i)])] = phys[uz(i)];
    t.p2v[uz(phys[uz(i)])] = chosen[uz(i)];
  }
  for (i64 v = lo; v < t.num_virtual_ids; ++v) (t.v2p[uz(v)] >= 0 ? t.bound : t.tombs).push_back(v);
  return t;
}

// Tables whose bound entries are huge physical page ids (int32 narrowing checks): the vector stays
// small (at most 12 pages), the values do not (up to ~2^33). p2v is left unbound.
template <class R>
Tables wide_tables(R& r) {
  Tables t = tables(r, 12, true);
  const i64 base = r.template pick<i64>({i64{1} << 20, i64{1} << 24, (i64{1} << 28) - 3, i64{1} << 30,
                                         (i64{1} << 31) - 8, i64{1} << 31, i64{1} << 32, i64{1} << 33});
  std::fill(t.p2v.begin() + 1, t.p2v.end(), -1);
  for (i64 v : t.bound) t.v2p[static_cast<std::size_t>(v)] = base + r.uniform(0, 15);
  return t;
}

// One virtual token id against `t`: live (bound page), tombstoned page, sink page, -1 padding,
// sentinel row; with allow_oob sometimes past the table.
template <class R>
i64 token(R& r, const Tables& t, i64 ps, bool allow_oob) {
  const auto pick_of = [&](const std::vector<i64>& v) { return v[static_cast<std::size_t>(r.uniform(0, static_cast<i64>(v.size()) - 1))]; };
  const i64 o = r.uniform(0, ps - 1);
  switch (r.uniform(0, 9)) {
    case 0: case 1: case 2: case 3: case 4:
      return t.bound.empty() ? o : pick_of(t.bound) * ps + o;
    case 5: return t.tombs.empty() ? o : pick_of(t.tombs) * ps + o;
    case 6: return o;                           // sink page 0
    case 7: return -1;                          // padding
    case 8: return t.num_virtual_ids * ps + o;  // trailing sentinel row (-1 -> sink)
    default:
      if (allow_oob) return (t.num_virtual_ids + 1 + r.uniform(0, 2)) * ps + o;
      return r.uniform(0, (t.num_virtual_ids + 1) * ps - 1);
  }
}

// ---- request batches ----------------------------------------------------------------------------
struct TableBatch {
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
  bool allow_padding = true;           // -1 page-start tokens
  bool lens_within_max_pages = false;  // seq_lens[b] + delta <= max_pages * ps
  bool allow_delta = true;
  bool pad_inside_pages = true;        // -1 also at non-page-start positions
  i64 max_batch = 6;
};
template <class R>
TableBatch table_batch(R& r, const Tables& t, i64 ps, const BatchShape& shape) {
  const auto uz = [](i64 v) { return static_cast<std::size_t>(v); };
  const auto pick_of = [&](const std::vector<i64>& v) { return v[uz(r.uniform(0, static_cast<i64>(v.size()) - 1))]; };
  TableBatch b;
  b.ps = ps;
  const i64 B = r.uniform(0, shape.max_batch);
  b.rows = r.uniform(1, 4);
  const i64 pcols = r.uniform(1, 6);
  b.cols = pcols * ps;
  b.req_to_token.assign(uz(b.rows * b.cols), -1);
  for (i64 row = 0; row < b.rows; ++row) {
    for (i64 c = 0; c < pcols; ++c) {
      i64 v = -1;
      switch (r.uniform(0, 9)) {
        case 0: case 1: case 2: case 3: case 4: case 5:
          v = t.bound.empty() ? 0 : pick_of(t.bound);
          break;
        case 6: v = t.tombs.empty() ? 0 : pick_of(t.tombs); break;
        case 7: v = 0; break;
        case 8: v = shape.allow_padding ? -1 : 0; break;
        default: v = t.num_virtual_ids; break;  // sentinel row
      }
      for (i64 o = 0; o < ps; ++o) b.req_to_token[uz(row * b.cols + c * ps + o)] = static_cast<i32>(v < 0 ? -1 : v * ps + o);
      if (shape.pad_inside_pages && shape.allow_padding && ps > 1 && v >= 0 && r.uniform(0, 7) == 0)
        b.req_to_token[uz(row * b.cols + c * ps + r.uniform(1, ps - 1))] = -1;
    }
  }
  b.max_pages = r.uniform(1, pcols);
  b.delta = shape.allow_delta ? r.template pick<i64>({0, 1, ps, ps + 1, 2 * ps}) : 0;
  const i64 limit = shape.lens_within_max_pages ? b.max_pages * ps : b.cols;
  if (b.delta > limit) b.delta = 0;
  const i64 hi = limit - b.delta;
  for (i64 i = 0; i < B; ++i) {
    b.req_pool_indices.push_back(r.uniform(0, b.rows - 1));
    i64 len = 0;
    switch (r.uniform(0, 5)) {
      case 0: len = 0; break;
      case 1: len = 1; break;
      case 2: len = ps; break;
      case 3: len = ps * r.uniform(0, pcols); break;
      case 4: len = ps + 1; break;
      default: len = r.uniform(0, hi); break;
    }
    b.seq_lens.push_back(std::clamp<i64>(len, 0, hi));
  }
  return b;
}

// ---- buffer slices ------------------------------------------------------------------------------
// A slice [off, off + size) of one allocation.
struct Slice {
  i64 off = 0;
  i64 size = 0;
  i64 end() const { return off + size; }
};
inline bool overlaps(Slice a, Slice b) { return a.size > 0 && b.size > 0 && a.off < b.end() && b.off < a.end(); }
// A slice of `size` elements placed against `anchor` in an allocation of `pool` elements: the same
// slice / start, touching it on either side, overlapping it by one element on either side, inside
// it, or anywhere (clipped to the allocation).
template <class R>
Slice slice_near(R& r, i64 pool, Slice anchor, i64 size) {
  i64 off = 0;
  switch (r.uniform(0, 6)) {
    case 0: off = anchor.off; break;             // same slice / same start
    case 1: off = anchor.end(); break;           // touching after
    case 2: off = anchor.off - size; break;      // touching before
    case 3: off = anchor.end() - 1; break;       // one element of overlap after
    case 4: off = anchor.off - size + 1; break;  // one element of overlap before
    case 5: off = anchor.off + r.uniform(0, std::max<i64>(anchor.size, 1) - 1); break;  // inside
    default: off = r.uniform(0, pool - 1); break;
  }
  off = std::clamp<i64>(off, 0, std::max<i64>(pool - size, 0));
  return {off, std::min(size, pool - off)};
}

// ---- printing (counterexamples) -----------------------------------------------------------------
namespace detail {
template <class T>
void print_vec(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ']';
}
}  // namespace detail
inline std::ostream& operator<<(std::ostream& os, const Tables& t) {
  os << "Tables{num_pages=" << t.num_pages << ", num_virtual_ids=" << t.num_virtual_ids
     << ", min_page_index=" << t.min_page_index << ", v2p=";
  detail::print_vec(os, t.v2p);
  os << ", p2v=";
  detail::print_vec(os, t.p2v);
  return os << '}';
}
inline std::ostream& operator<<(std::ostream& os, const TableBatch& b) {
  os << "Batch{ps=" << b.ps << ", req_to_token[" << b.rows << "x" << b.cols << "]=[";
  for (i64 r = 0; r < b.rows; ++r) {
    os << (r ? "; " : "");
    for (i64 c = 0; c < b.cols; ++c) os << (c ? " " : "") << b.tok(r, c);
  }
  os << "], req_pool_indices=";
  detail::print_vec(os, b.req_pool_indices);
  os << ", seq_lens=";
  detail::print_vec(os, b.seq_lens);
  return os << ", max_pages=" << b.max_pages << ", delta=" << b.delta << '}';
}

}  // namespace kvaddr::gen
