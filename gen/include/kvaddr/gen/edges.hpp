#pragma once
// Edge-class generators: the input shapes that sit at the edges of the route contracts, drawn
// regularly (docs/generators.md lists each class, the routes whose contract admits it and the
// test that counts it). Like builders.hpp, every function is a template over a draw source R.
//
//   strided layouts   an output table or input matrix that is a slice of a wider parent buffer
//                     (row stride > width, an offset into the parent, guard elements after it)
//   parent-sliced v2p a v2p with elements of its parent allocation before and after it, and
//                     padding tokens that a guard-less kernel turns into reads of v2p[-k]
//   wide entries      a pool whose bound pages give entries P * M >= 2^31 (int32 stores wrap)
//   grid spills       row lengths whose page count passes max_pages, up to and past the launch
//                     grid's column extent G * ceil(max_pages / G)
//   overflowing lens  decode lengths whose int32 prefix sum (cu_seqlens_k) overflows
//   large batches     decode batches of more than one 128-row block
//   aliasing shapes   placements of an output against an input in one allocation, each labelled
//                     with whether the route's aliasing rule admits it
//   huge offsets      a request table whose rows sit past element 2^31 of their parent (the GPU
//                     leg allocates it; the host keeps the packed rows)
#include <algorithm>
#include <cstdint>
#include <vector>

#include "kvaddr/gen/builders.hpp"

namespace kvaddr::gen {

inline constexpr i64 kTwo31 = i64(1) << 31;

// ---- strided layouts --------------------------------------------------------------------------
// A rows x cols matrix placed in a parent buffer: element (r, c) at offset + r * row_stride + c.
struct Layout {
  i64 rows = 0, cols = 0;
  i64 row_stride = 0;  // >= cols
  i64 offset = 0;      // parent elements before element (0, 0)
  i64 after = 0;       // parent elements after the last row's span
  i64 parent_size() const { return rows == 0 || cols == 0 ? offset + after : offset + (rows - 1) * row_stride + cols + after; }
  i64 at(i64 r, i64 c) const { return offset + r * row_stride + c; }
  bool strided() const { return row_stride > cols; }
  bool inside(i64 i) const {  // parent index i is an element of the matrix
    if (rows == 0 || cols == 0 || i < offset) return false;
    const i64 rel = i - offset;
    return rel / row_stride < rows && rel % row_stride < cols;
  }
};
// Packed (row_stride == cols, nothing around it) or, at rate `rate`, a slice of a wider capture
// buffer: row_stride = cols + 1..64 (or 2 * cols), an offset of 0..40 and 0..16 elements after.
template <class R>
Layout layout(R& r, i64 rows, i64 cols, double rate) {
  Layout l{rows, cols, cols, 0, 0};
  if (!r.chance(rate)) return l;
  l.row_stride = r.chance(0.25) ? std::max<i64>(2 * cols, cols + 1) : cols + r.uniform(1, 64);
  l.offset = r.uniform(0, 40);
  l.after = r.uniform(0, 16);
  return l;
}
// The parent buffer of `l` holding `packed` (rows x cols, row-major) and `fill` elsewhere.
template <class T>
std::vector<T> place(const Layout& l, const std::vector<T>& packed, T fill) {
  std::vector<T> parent(detail::uz(l.parent_size()), fill);
  for (i64 r = 0; r < l.rows; ++r)
    for (i64 c = 0; c < l.cols; ++c) parent[detail::uz(l.at(r, c))] = packed[detail::uz(r * l.cols + c)];
  return parent;
}

// ---- parent-sliced v2p and padding before the table --------------------------------------------
struct ParentV2p {
  i64 before = 0, after = 0;
  std::vector<i64> parent;  // before + v2p.size() + after elements; v2p starts at parent[before]
};
// The pool's v2p with 1..4 parent elements before it (physical pages of the pool or -1) and 0..3
// after it. Values before the table are pages the pool owns, so every read of them stays small.
template <class R>
ParentV2p parent_v2p(R& r, const Pool& p) {
  ParentV2p out;
  out.before = r.uniform(1, 4);
  out.after = r.uniform(0, 3);
  out.parent.reserve(detail::uz(out.before + detail::sz(p.v2p.size()) + out.after));
  const auto around = [&] { return r.chance(0.25) ? i64(-1) : r.uniform(0, std::max<i64>(1, p.num_pages - 1)); };
  for (i64 i = 0; i < out.before; ++i) out.parent.push_back(around());
  out.parent.insert(out.parent.end(), p.v2p.begin(), p.v2p.end());
  for (i64 i = 0; i < out.after; ++i) out.parent.push_back(around());
  return out;
}
// A padding page-start token for a page size: -1, or one whose truncating page index -k has
// 1 <= k <= before (tok in [-(k + 1) * ps + 1, -k * ps]), i.e. <= -ps at ps > 1 and -k at ps = 1:
// the reads v2p[-k] of a kernel without the padding guard stay inside the parent.
template <class R>
i64 padding_token(R& r, i64 ps, i64 before) {
  if (before < 1 || r.chance(0.3)) return -1;
  const i64 k = r.uniform(1, before);
  return -k * ps - r.uniform(0, ps - 1);
}
// The page index a truncating division gives a padding token (what b09 reads).
constexpr i64 trunc_page(i64 tok, i64 ps) { return tok / ps; }

// ---- wide entries ------------------------------------------------------------------------------
// Offsets every bound physical page of `p` so that P * stride >= 2^31 for most of them (a few stay
// below): stride M for page-table entries (P * M), ps * M for token ids (P * ps * M + o). Such
// values do not fit an int32 output (production raises Overflow, int32_wrap wraps). Returns the
// offset.
template <class R>
i64 widen_entries(R& r, Pool& p, i64 stride) {
  const i64 pivot = (kTwo31 + stride - 1) / stride;  // first page with P * stride >= 2^31
  const i64 off = std::max<i64>(0, pivot - r.uniform(0, 2));
  for (std::size_t v = 1; v < p.v2p.size(); ++v)
    if (p.v2p[v] > 0) p.v2p[v] += off;
  p.page_offset += off;
  return off;
}

// ---- grid spills -------------------------------------------------------------------------------
// The launch grid's column extent of a table kernel with column block G: G * ceil(max_pages / G).
constexpr i64 grid_extent(i64 max_pages, i64 g) { return (max_pages + g - 1) / g * g; }
// A column block for grid_spill cases: small blocks (so that a spill reaches the boundary in small
// tables) and the upstream 256.
template <class R>
i64 column_block(R& r) {
  return r.template pick<i64>({3, 4, 8, 16, 256});
}
// A length whose page count (after + delta) is in (max_pages, extent + 2]: past max_pages, up to
// the grid extent and just past it (where the spill must stop).
template <class R>
i64 spill_len(R& r, i64 max_pages, i64 extent, i64 ps, i64 delta) {
  const i64 pages = r.uniform(max_pages + 1, std::max<i64>(max_pages + 1, extent + 2));
  return std::max<i64>(0, pages * ps - r.uniform(0, ps - 1) - delta);
}

// ---- decode lengths ----------------------------------------------------------------------------
// B >= 2 lengths, each <= 2^31 - 1 - delta (cache_seqlens fits int32), whose running sum of
// length + delta passes 2^31 - 1 by the last row: cu_seqlens_k overflows int32 there.
template <class R>
std::vector<i64> overflowing_lens(R& r, i64 B, i64 delta) {
  std::vector<i64> lens(detail::uz(B));
  const i64 cap = kTwo31 - 1 - delta;
  const i64 lo = std::min(cap, (kTwo31 - 1) / std::max<i64>(1, B) + 1);  // B * lo > 2^31 - 1
  for (auto& l : lens) l = r.uniform(lo, cap);
  return lens;
}
// A decode batch of more than one 128-row block: 129..300 rows.
template <class R>
i64 large_batch(R& r) {
  return r.uniform(129, 300);
}

// ---- aliasing shapes ---------------------------------------------------------------------------
// Where an output of `out_size` elements sits against an input of `in_size` elements in one
// allocation. The rules are those of the contracts (contracts.hpp): `exact` routes admit the output
// equal to the input (same start, same size) or disjoint; `prefix` routes (write_loc) also admit
// an output that starts at the input and is longer.
enum class AliasRule { exact, prefix };
enum class AliasShape {
  disjoint,       // separate ranges of one allocation
  adjacent,       // output right after or right before the input (touching, disjoint)
  same,           // output == input
  same_start_wider,  // output starts at the input and is longer
  overlap_one,    // the ranges share one element
  inside,         // the output starts inside the input
  kCount
};
struct AliasCase {
  AliasShape shape = AliasShape::disjoint;
  i64 in_off = 0, out_off = 0, in_size = 0, out_size = 0, parent = 0;
  bool admitted = true;
};
// Whether `rule` admits out [out_off, out_off + out_size) against in [in_off, in_off + in_size).
constexpr bool alias_admitted(AliasRule rule, i64 in_off, i64 in_size, i64 out_off, i64 out_size) {
  const bool overlap = in_size > 0 && out_size > 0 && in_off < out_off + out_size && out_off < in_off + in_size;
  if (!overlap) return true;
  if (out_off != in_off) return false;
  return rule == AliasRule::prefix ? out_size >= in_size : out_size == in_size;
}
// A placement of the given shape; out_min is the least output size the route needs (>= in_size).
// Shapes that cannot exist at these sizes (an empty input overlaps nothing) fall back to disjoint.
inline AliasCase alias_case(AliasShape shape, AliasRule rule, i64 in_size, i64 out_min, i64 extra) {
  AliasCase a;
  a.shape = shape;
  a.in_size = in_size;
  a.out_size = out_min + extra;
  const i64 gap = 3;
  switch (shape) {
    case AliasShape::disjoint: a.in_off = 0; a.out_off = in_size + gap; break;
    case AliasShape::adjacent:
      if (extra % 2 == 0) { a.in_off = 0; a.out_off = in_size; }
      else { a.out_off = 0; a.in_off = a.out_size; }
      break;
    case AliasShape::same: a.out_size = in_size; a.in_off = a.out_off = 1; break;
    case AliasShape::same_start_wider: a.out_size = std::max(out_min, in_size) + 1 + extra; a.in_off = a.out_off = 1; break;
    case AliasShape::overlap_one: a.in_off = 0; a.out_off = std::max<i64>(0, in_size - 1); break;
    case AliasShape::inside: a.in_off = 0; a.out_off = std::min<i64>(1, std::max<i64>(0, in_size - 1)); break;
    case AliasShape::kCount: break;
  }
  if (in_size == 0 && shape != AliasShape::disjoint && shape != AliasShape::adjacent) return alias_case(AliasShape::disjoint, rule, in_size, out_min, extra);
  a.parent = std::max(a.in_off + a.in_size, a.out_off + a.out_size) + gap;
  a.admitted = alias_admitted(rule, a.in_off, a.in_size, a.out_off, a.out_size);
  return a;
}
template <class R>
AliasCase alias_case(R& r, AliasRule rule, i64 in_size, i64 out_min) {
  const auto shape = static_cast<AliasShape>(r.uniform(0, static_cast<i64>(AliasShape::kCount) - 1));
  return alias_case(shape, rule, in_size, out_min, r.uniform(0, 5));
}

// ---- huge offsets ------------------------------------------------------------------------------
// A request table of `rows` rows of `cols` int32 tokens whose last row starts past element 2^31 of
// its parent: row_stride = ceil((2^31 + 1) / (rows - 1)) (rows >= 2). The host keeps the packed
// rows; the GPU leg allocates parent_elements() and places the rows at r * row_stride.
struct HugeRows {
  i64 rows = 0, cols = 0, row_stride = 0;
  i64 parent_elements() const { return rows == 0 ? 0 : (rows - 1) * row_stride + cols; }
  i64 last_row_offset() const { return (rows - 1) * row_stride; }
};
inline HugeRows huge_rows(i64 rows, i64 cols) {
  HugeRows h{std::max<i64>(rows, 2), cols, 0};
  h.row_stride = std::max<i64>(cols, (kTwo31 + 1 + h.rows - 2) / (h.rows - 1));
  return h;
}

}  // namespace kvaddr::gen
