#pragma once
// Plain builders of route inputs, templated over a draw source R (rng.hpp): pools (a sub-pool's
// v2p), token ids, request tables, pool-row assignments, ragged lengths, stale output contents
// and batches. Each builder draws in a fixed order, so the same R state gives the same input.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <vector>

#include "kvaddr/gen/rng.hpp"

namespace kvaddr::gen {

namespace detail {
inline std::size_t uz(i64 n) { return static_cast<std::size_t>(n); }
inline i64 sz(std::size_t n) { return static_cast<i64>(n); }
}  // namespace detail

// Page size: powers of two (the fa3 metadata kernels need them) or any page size a route allows,
// non-powers of two and odd sizes included (3, 5, 7, 24, 100).
template <class R>
i64 page_size(R& r, bool pow2_only) {
  if (pow2_only) return r.template pick<i64>({1, 1, 2, 4, 8, 16, 32, 64, 64, 128, 256});
  return r.template pick<i64>({1, 1, 2, 3, 4, 5, 7, 8, 16, 24, 32, 64, 64, 100, 128, 256});
}
// Multiplier M (KV-cache slots per physical page and token), 24 = Kimi K3 L.
template <class R>
i64 multiplier(R& r) {
  return r.template pick<i64>({1, 1, 2, 3, 5, 8, 16, 24, 24, 48, 64, r.uniform(1, 64)});
}

// ---- pools ------------------------------------------------------------------------------------
struct Pool {
  i64 ps = 1, M = 1, num_pages = 2, num_virtual = 2;
  double tombstone_rate = 0;
  i64 page_offset = 0;   // added to every bound physical page (0: none)
  std::vector<i64> v2p;  // num_virtual + 1
};
struct PoolSpec {
  i64 ps = 1, M = 1;
  i64 want_pages = 2;
  bool int32_outputs = false;  // bounds num_pages * ps * M < 2^31 and num_virtual * ps < 2^31
  // When set, the probability of offsetting every bound physical page so that P * ps * M straddles
  // 2^31 (int64 outputs only); unset draws nothing.
  std::optional<double> offset_rate;
};
// A v2p of a sub-pool: v2p[0] = 0 (sink), trailing sentinel -1, bound pages a random injection into
// physical pages [1, num_pages), tombstones at rate q. Non-owner tables (30%) have more virtual
// ids than physical pages. With an offset, P * S + o straddles 2^31 (values near 2^31 / (ps * M)):
// the table stays small, only its values are large.
template <class R>
Pool pool(R& r, const PoolSpec& s) {
  using detail::uz;
  Pool p;
  p.ps = s.ps;
  p.M = s.M;
  i64 np = std::max<i64>(2, s.want_pages);
  if (s.int32_outputs) np = std::min<i64>(np, std::max<i64>(2, ((i64(1) << 31) - 1) / (s.ps * s.M) - 1));
  p.num_pages = np;
  p.num_virtual = r.chance(0.3) ? np + r.uniform(0, np) : np;
  if (s.int32_outputs) p.num_virtual = std::min<i64>(p.num_virtual, ((i64(1) << 31) - 1) / s.ps - 2);
  const double q = r.template pick<double>({0.0, 0.02, 0.1, 0.4});
  p.tombstone_rate = q;
  std::vector<i64> phys(uz(np - 1));
  std::iota(phys.begin(), phys.end(), i64(1));
  shuffle(r, phys.begin(), detail::sz(phys.size()));
  p.v2p.assign(uz(p.num_virtual + 1), -1);
  p.v2p[0] = 0;
  std::size_t next = 0;
  for (i64 v = 1; v < p.num_virtual; ++v)
    if (next < phys.size() && !r.chance(q)) p.v2p[uz(v)] = phys[next++];
  if (!s.int32_outputs && s.offset_rate && r.chance(*s.offset_rate)) {
    const i64 pivot = ((i64(1) << 31) + s.ps * s.M - 1) / (s.ps * s.M);  // first page with P * S >= 2^31
    p.page_offset = std::max<i64>(0, pivot - r.uniform(0, np));         // some pages below 2^31, most above
    for (i64 v = 1; v < p.num_virtual; ++v)
      if (p.v2p[uz(v)] > 0) p.v2p[uz(v)] += p.page_offset;
  }
  return p;
}

// A virtual token id: padding -1 at rate pad, else any token of the table's pages (sentinel row
// included, so the trailing -1 is exercised too).
template <class R>
i64 token(R& r, const Pool& p, double pad) {
  if (r.chance(pad)) return -1;
  return r.uniform(0, (p.num_virtual + 1) * p.ps - 1);
}

// Lane count of a 1-D case at size scale `scale`: tiny (0..3), small (1..1024) or scale / 2^k.
template <class R>
i64 lanes(R& r, i64 scale) {
  switch (r.uniform(0, 5)) {
    case 0: return r.uniform(0, 3);
    case 1: return r.uniform(1, 1024);
    default: return std::max<i64>(1, scale >> r.uniform(0, 3));
  }
}

// Stale contents of an output buffer (what a capture-stable buffer held before the call).
template <class T, class R>
std::vector<T> stale(R& r, i64 n) {
  std::vector<T> v(detail::uz(n));
  const T base = static_cast<T>(r.template pick<i64>({-7, 0x5A5A5A5, 1 << 30}));
  for (auto& x : v) x = r.chance(0.5) ? base : static_cast<T>(r.uniform(-3, 1 << 20));
  return v;
}

// A request table: R rows of C int32 virtual tokens, pages of the pool laid out page-major,
// padding -1 at rate pad (at any position, page starts included), and at rate `tomb` a page that
// is a tombstone of the pool (v2p = -1: unbound pages and the trailing sentinel), so tombstones
// land inside live prefixes.
template <class R>
std::vector<i32> req_to_token(R& r, const Pool& p, i64 rows, i64 cols, double pad, double tomb) {
  using detail::uz;
  std::vector<i64> tombs;
  for (i64 v = 1; v < detail::sz(p.v2p.size()); ++v)
    if (p.v2p[uz(v)] < 0) tombs.push_back(v);
  std::vector<i32> r2t(uz(rows * cols));
  for (i64 row = 0; row < rows; ++row) {
    i64 vpage = 0;
    for (i64 j = 0; j < cols; ++j) {
      if (j % p.ps == 0)
        vpage = (!tombs.empty() && r.chance(tomb)) ? tombs[uz(r.uniform(0, detail::sz(tombs.size()) - 1))]
                                                   : r.uniform(0, p.num_virtual);
      const i64 t = r.chance(pad) ? -1 : vpage * p.ps + j % p.ps;
      r2t[uz(row * cols + j)] = static_cast<i32>(t);
    }
  }
  return r2t;
}

// Pool rows of a batch (req_pool_indices / row_ids) of B rows out of `rows`:
//   kind 0 arange(B) (rare), 1 distinct rows in random order, 2 rows drawn with repetition,
//   3 a reversed or shifted window. avoid_identity (E10 cases, rows > B) replaces an identity
//   assignment's row 0 by row B, so that the batch position names another row.
enum class RowsKind : int { identity = 0, permuted = 1, repeated = 2, window = 3 };
template <class R>
std::vector<i64> pool_rows(R& r, i64 B, i64 rows, bool avoid_identity, RowsKind& kind) {
  using detail::uz;
  kind = static_cast<RowsKind>(r.template pick<i64>({0, 1, 1, 2, 2, 3}));
  std::vector<i64> out(uz(rows));
  std::iota(out.begin(), out.end(), i64(0));
  if (kind == RowsKind::permuted) {
    shuffle(r, out.begin(), rows);
  } else if (kind == RowsKind::repeated) {
    for (auto& x : out) x = r.uniform(0, rows - 1);
  } else if (kind == RowsKind::window) {
    const i64 shift = r.uniform(0, rows - B);
    for (i64 b = 0; b < rows; ++b) out[uz(b)] = b < B ? (r.chance(0.5) ? shift + B - 1 - b : shift + b) : b;
  }
  out.resize(uz(B));
  if (avoid_identity && B > 0) {
    bool identity = true;
    for (i64 b = 0; b < B; ++b) identity = identity && out[uz(b)] == b;
    if (identity) out[0] = B;
  }
  return out;
}

// Ragged lengths: 0, 1, exact page multiples, multiples +- 1, random up to `cap`.
template <class R>
i64 ragged_len(R& r, i64 ps, i64 cap) {
  const i64 k = r.uniform(0, std::max<i64>(0, cap / ps));
  i64 len = 0;
  switch (r.uniform(0, 5)) {
    case 0: len = r.template pick<i64>({0, 1}); break;
    case 1: len = k * ps; break;
    case 2: len = k * ps + 1; break;
    case 3: len = std::max<i64>(0, k * ps - 1); break;
    default: len = r.uniform(0, cap);
  }
  return std::min(len, cap);
}

// ---- batches ----------------------------------------------------------------------------------
struct Batch {
  i64 B = 0, R = 0, C = 0;  // batch rows, req_to_token rows and columns
  std::vector<i32> r2t;     // [max(R, 1), C], packed
  std::vector<i64> rows, lens;
  double pad = 0, tomb = 0;
  RowsKind rows_kind = RowsKind::identity;
};
struct BatchSpec {
  i64 scale = 1;           // B * cols stays near it
  i64 cols = 0;            // page columns whose page-start tokens stay inside req_to_token
  i64 len_cap = 0;         // lengths are ragged_len(ps, len_cap)
  double pad = 0;
  std::optional<double> tomb;  // tombstone-page rate; unset: drawn from {0, 0, 0.05, 0.2}
  bool avoid_identity_rows = false;  // rows > B and never arange(B) (E10)
  i64 max_batch = 256;     // B <= max_batch (before the scale bound)
  std::optional<i64> rows;  // a fixed batch size B (no draws for it)
};
template <class R>
Batch batch(R& r, const Pool& p, const BatchSpec& s) {
  Batch b;
  const i64 budget = std::max<i64>(1, s.scale);
  if (s.rows) {
    b.B = *s.rows;
  } else {
    b.B = r.uniform(1, std::max<i64>(1, std::min<i64>(s.max_batch, budget / std::max<i64>(1, s.cols))));
    if (r.chance(0.1)) b.B = r.uniform(0, 2);
  }
  b.R = b.B + r.uniform(s.avoid_identity_rows ? 1 : 0, 8);
  b.C = s.cols * p.ps + r.uniform(0, p.ps);
  b.pad = s.pad;
  b.tomb = s.tomb ? *s.tomb : r.template pick<double>({0.0, 0.0, 0.05, 0.2});
  b.r2t = req_to_token(r, p, std::max<i64>(b.R, 1), b.C, s.pad, b.tomb);
  b.rows = pool_rows(r, b.B, b.R, s.avoid_identity_rows, b.rows_kind);
  b.lens.resize(detail::uz(b.B));
  for (auto& l : b.lens) l = ragged_len(r, p.ps, s.len_cap);
  return b;
}

// Page columns of a table case: B x cols stays near the scale and req_to_token small.
template <class R>
i64 table_cols(R& r, i64 scale, i64 ps) {
  const i64 by_elems = std::max<i64>(1, (i64(1) << 22) / ps);
  return r.uniform(0, std::max<i64>(1, std::min<i64>(scale, std::min<i64>(by_elems, 4096))));
}

}  // namespace kvaddr::gen
