#include "kvaddr/zoo/grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <sstream>

#include "kvaddr/gen/rng.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/model/pool.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"
#include "grid_cases.hpp"

namespace kvaddr::zoo::grid_detail {

Grid make_grid(const GridOptions& o) {
  Grid g;
  g.ps = o.page_size;
  g.M = o.multiplier;
  g.seq_lens = {g.ps, g.ps + 1, 3 * g.ps, 7 * g.ps - 3, 1};
  g.req_pool_indices = o.upstream_exact ? std::vector<std::int64_t>{0, 1, 2, 3, 4}
                                        : std::vector<std::int64_t>{5, 0, 7, 2, 3};
  gen::SplitMix64 rng(o.seed);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(g.num_pages - 1));
  std::iota(perm.begin(), perm.end(), 1);
  gen::shuffle(rng, perm.begin(), g.num_pages - 1);
  g.v2p.assign(static_cast<std::size_t>(g.num_pages + 1), -1);
  g.v2p[0] = 0;
  const std::int64_t offset = o.large_ids ? (std::int64_t{1} << 21) : 0;
  for (std::int64_t p = 1; p < g.num_pages; ++p)
    g.v2p[static_cast<std::size_t>(p)] = perm[static_cast<std::size_t>(p - 1)] + offset;
  g.req_to_token.assign(static_cast<std::size_t>(g.rows * g.max_ctx), 0);
  std::int64_t next_vp = 1;
  for (std::int64_t b = 0; b < g.bs; ++b) {
    const std::int64_t row = g.req_pool_indices[static_cast<std::size_t>(b)];
    const std::int64_t n_pages = (g.seq(b) + g.ps - 1) / g.ps;
    for (std::int64_t c = 0; c < n_pages; ++c, ++next_vp) {
      for (std::int64_t o2 = 0; o2 < g.ps && c * g.ps + o2 < g.seq(b); ++o2) {
        g.req_to_token[static_cast<std::size_t>(row * g.max_ctx + c * g.ps + o2)] =
            static_cast<std::int32_t>(next_vp * g.ps + o2);
      }
      if (!o.upstream_exact && b == 3 && c == 2) g.v2p[static_cast<std::size_t>(next_vp)] = -1;  // tombstone
    }
  }
  if (!o.upstream_exact) g.req_to_token[static_cast<std::size_t>(g.req_pool_indices[4] * g.max_ctx)] = -1;
  return g;
}

std::vector<std::int64_t> live_tokens(const Grid& g) {
  std::vector<std::int64_t> ids;
  for (std::int64_t b = 0; b < g.bs; ++b)
    for (std::int64_t pos = 0; pos < g.seq(b); ++pos) ids.push_back(g.tok(b, pos));
  return ids;
}

}  // namespace kvaddr::zoo::grid_detail

namespace kvaddr::zoo {

namespace {

using namespace grid_detail;
using model::KernelId;
using model::VirtualToken;

// The grid case of each route that is not a per-id route (grid_cases.hpp runs those from the
// field list): one overload per RouteSpec, so a route of another shape without one does not compile.
void grid_case(RouteSpec<Route::flashmla_block_table>, Variant variant, const Grid& g, Diff& diff) {
  const auto v2p = cvec(g.v2p);
  const std::int64_t W = g.width();
  std::vector<std::int32_t> out(static_cast<std::size_t>(g.bs * W), -1);
  translate::flashmla_block_table(
      {g.rtt(), cvec(g.req_pool_indices), cvec(g.seq_lens), {}, v2p, g.ps, g.M, mmat(out, g.bs, W), variant});
  for (std::int64_t b = 0; b < g.bs; ++b)
    for (std::int64_t c = 0; c < W; ++c) {
      const bool live = c < (g.seq(b) + g.ps - 1) / g.ps;
      diff.eq(fmt::format("kv_indices[{},{}]", b, c), out[static_cast<std::size_t>(b * W + c)],
              live ? g.entry(g.tok(b, c * g.ps)) : -1);
    }
}

// canonical_page_table and full_prefill_table share the contract shape and the grid case.
template <Route R>
void page_table_case(Variant variant, const Grid& g, Diff& diff) {
  const auto v2p = cvec(g.v2p);
  // Full width, then a narrow table (max_pages 3) with a guard column: columns stop at max_pages.
  for (const std::int64_t max_pages : {g.width(), std::int64_t{3}}) {
    const std::int64_t cols = max_pages == g.width() ? max_pages : max_pages + 1;
    std::vector<std::int32_t> out(static_cast<std::size_t>(g.bs * cols), kStale);
    if constexpr (R == Route::canonical_page_table) {
      translate::canonical_page_table({g.rtt(), cvec(g.req_pool_indices), cvec(g.seq_lens), v2p, g.ps, g.M,
                                       max_pages, mmat(out, g.bs, cols), variant});
    } else {
      translate::full_prefill_table({g.rtt(), cvec(g.req_pool_indices), cvec(g.seq_lens), v2p, g.ps, g.M,
                                     max_pages, mmat(out, g.bs, cols), variant});
    }
    for (std::int64_t b = 0; b < g.bs; ++b)
      for (std::int64_t c = 0; c < cols; ++c) {
        const bool live = c < std::min((g.seq(b) + g.ps - 1) / g.ps, max_pages);
        diff.eq(fmt::format("out[{},{}] max_pages={}", b, c, max_pages), out[static_cast<std::size_t>(b * cols + c)],
                live ? g.entry(g.tok(b, c * g.ps)) : kStale);
      }
  }
}

void grid_case(RouteSpec<Route::canonical_page_table>, Variant variant, const Grid& g, Diff& diff) { page_table_case<Route::canonical_page_table>(variant, g, diff); }

void grid_case(RouteSpec<Route::full_prefill_table>, Variant variant, const Grid& g, Diff& diff) { page_table_case<Route::full_prefill_table>(variant, g, diff); }

// read_table over the grid's batch and v2p, max_pages columns into `out`.
ReadTableArgs grid_read_table(const Grid& g, std::int64_t max_pages, Mat<std::int32_t> out, Variant variant) {
  ReadTableArgs a;
  a.req_to_token = g.rtt();
  a.row_ids = cvec(g.req_pool_indices);
  a.seq_lens = cvec(g.seq_lens);
  a.max_pages = max_pages;
  a.v2p = cvec(g.v2p);
  a.page_size = g.ps;
  a.multiplier = g.M;
  a.out = out;
  a.variant = variant;
  return a;
}

void grid_case(RouteSpec<Route::read_table>, Variant variant, const Grid& g, Diff& diff) {
  // Verify widening near the table width (B10): delta = 1, max_pages = 3, one guard column
  // and one guard row; then the same with zero_tail.
  const std::int64_t delta = 1, max_pages = 3, cols = max_pages + 1, rows = g.bs + 1;
  for (bool zero_tail : {false, true}) {
    std::vector<std::int32_t> out(static_cast<std::size_t>(rows * cols), kStale);
    ReadTableArgs a = grid_read_table(g, max_pages, mmat(out, rows, cols), variant);
    a.seq_len_delta = delta;
    a.zero_tail = zero_tail;
    translate::read_table(a);
    for (std::int64_t b = 0; b < rows; ++b)
      for (std::int64_t c = 0; c < cols; ++c) {
        std::int64_t want = kStale;
        if (b < g.bs && c < std::min((g.seq(b) + delta + g.ps - 1) / g.ps, max_pages)) {
          want = g.entry(g.tok(b, c * g.ps));
        } else if (zero_tail && c < max_pages) {
          want = 0;
        }
        diff.eq(fmt::format("out[{},{}] zero_tail={}", b, c, zero_tail), out[static_cast<std::size_t>(b * cols + c)],
                want);
      }
  }
  // The packed CSR stream over a full-width table.
  const std::int64_t W = g.width();
  std::vector<std::int32_t> table(static_cast<std::size_t>(g.bs * W), kStale);
  translate::read_table(grid_read_table(g, W, mmat(table, g.bs, W), variant));
  std::vector<std::int32_t> indptr(1, 0);
  for (std::int64_t b = 0; b < g.bs; ++b) indptr.push_back(indptr.back() + static_cast<std::int32_t>(g.seq(b)));
  std::vector<std::int32_t> stream(static_cast<std::size_t>(indptr.back()) + 4, kStale);
  translate::read_stream({cmat(table, g.bs, W), cvec(indptr), {}, g.ps, mvec(stream)});
  for (std::int64_t b = 0; b < g.bs; ++b)
    for (std::int64_t pos = 0; pos < g.seq(b); ++pos) {
      const auto lane = static_cast<std::size_t>(indptr[static_cast<std::size_t>(b)] + pos);
      diff.eq(fmt::format("stream[{}]", lane), stream[lane],
              model::token_from_entry(g.entry(g.tok(b, (pos / g.ps) * g.ps)), pos % g.ps, g.ps));
    }
  for (std::size_t lane = static_cast<std::size_t>(indptr.back()); lane < stream.size(); ++lane)
    diff.eq(fmt::format("stream tail[{}]", lane), stream[lane], kStale);
}

void grid_case(RouteSpec<Route::decode_metadata>, Variant variant, const Grid& g, Diff& diff) {
  const auto v2p = cvec(g.v2p);
  const std::int64_t W = g.width();
  std::vector<std::int32_t> cache(static_cast<std::size_t>(g.bs), kStale);
  std::vector<std::int32_t> cu(static_cast<std::size_t>(g.bs + 1), kStale);
  std::vector<std::int32_t> table(static_cast<std::size_t>(g.bs * W), kStale);
  DecodeMetadataArgs a = decode_batch(cvec(g.seq_lens), g.rtt(), cvec(g.req_pool_indices), W, g.ps);
  a.v2p = v2p;
  a.multiplier = g.M;
  set_decode_outputs(a, mvec(cache), mvec(cu), mmat(table, g.bs, W));
  a.variant = variant;
  translate::decode_metadata(a);
  std::int64_t sum = 0;
  diff.eq("cu_seqlens_k[0]", cu[0], 0);
  for (std::int64_t b = 0; b < g.bs; ++b) {
    diff.eq(fmt::format("cache_seqlens[{}]", b), cache[static_cast<std::size_t>(b)], g.seq(b));
    sum += g.seq(b);
    diff.eq(fmt::format("cu_seqlens_k[{}]", b + 1), cu[static_cast<std::size_t>(b + 1)], sum);
    for (std::int64_t c = 0; c < W; ++c) {
      const bool live = c < (g.seq(b) + g.ps - 1) / g.ps;
      diff.eq(fmt::format("page_table[{},{}]", b, c), table[static_cast<std::size_t>(b * W + c)],
              live ? g.entry(g.tok(b, c * g.ps)) : kStale);
    }
  }
}

void grid_case(RouteSpec<Route::eager_funnel>, Variant variant, const Grid& g, Diff& diff) {
  const auto v2p = cvec(g.v2p);
  const std::int64_t W = g.width();
  std::vector<std::int64_t> starts(static_cast<std::size_t>(g.bs * W));
  for (std::int64_t b = 0; b < g.bs; ++b)
    for (std::int64_t c = 0; c < W; ++c) starts[static_cast<std::size_t>(b * W + c)] = g.tok(b, c * g.ps);
  std::vector<std::int64_t> out(starts.size(), kStale);
  translate::eager_funnel({cmat(starts, g.bs, W), v2p, g.ps, g.M, mmat(out, g.bs, W), variant});
  for (std::size_t i = 0; i < out.size(); ++i) diff.eq(fmt::format("out[{}]", i), out[i], g.entry(starts[i]));
}

void grid_case(RouteSpec<Route::kv_indices_inplace>, Variant variant, const Grid& g, Diff& diff) {
  const auto v2p = cvec(g.v2p);
  const auto ids = live_tokens(g);
  const auto n = static_cast<std::int64_t>(ids.size());
  std::vector<std::int32_t> buffer(static_cast<std::size_t>(3 * n), std::int32_t{1} << 30);
  for (std::size_t i = 0; i < ids.size(); ++i) buffer[i] = static_cast<std::int32_t>(ids[i]);
  std::vector<std::int32_t> indptr(1, 0);
  for (std::int64_t b = 0; b < g.bs; ++b) indptr.push_back(indptr.back() + static_cast<std::int32_t>(g.seq(b)));
  KvIndicesInplaceArgs a;
  a.kv_indices = mvec(buffer);
  a.kv_indptr = cvec(indptr);
  a.batch_size = g.bs;
  a.v2p = v2p;
  a.page_size = g.ps;
  a.multiplier = g.M;
  a.variant = variant;
  translate::kv_indices_inplace(a);
  for (std::size_t i = 0; i < buffer.size(); ++i)
    diff.eq(fmt::format("kv_indices[{}]", i), buffer[i], i < ids.size() ? g.d(ids[i]) : (std::int64_t{1} << 30));
}

void grid_case(RouteSpec<Route::write_loc>, Variant variant, const Grid& g, Diff& diff) {
  const auto v2p = cvec(g.v2p);
  const std::int64_t dcp = 2;
  for (std::int64_t rank = 0; rank < dcp; ++rank) {
    std::vector<model::WidenedWriteLoc> locs;
    std::vector<std::int64_t> raw;
    for (auto t : live_tokens(g)) raw.push_back(t < 0 ? t : t * dcp + (t % dcp));
    raw.push_back(0);
    raw.push_back(-1);
    for (auto w : raw) locs.emplace_back(w);
    const auto width = static_cast<std::int64_t>(raw.size()) + 3;
    std::vector<std::int64_t> out(static_cast<std::size_t>(width), kStale);
    translate::write_loc({cvec(raw), v2p, g.ps, g.M, dcp, rank, mvec(out), variant});
    const auto want = model::write_loc_lanes(g.v2p, g.ps, g.M, dcp, rank, locs, width);
    for (std::size_t i = 0; i < out.size(); ++i) diff.eq(fmt::format("out[{}] rank={}", i, rank), out[i], want[i]);
  }
}

// The overload set of grid_case, as one callable.
struct GridCases {
  template <class S>
  void operator()(S spec, Variant variant, const Grid& g, Diff& diff) const {
    grid_case(spec, variant, g, diff);
  }
};

}  // namespace

std::vector<std::int64_t> grid_page_sizes(Route) { return {1, 32, 64}; }

bool has_int64_output(Route route) {
  return visit_route(route, [](auto spec) {
    using S = decltype(spec);
    return S::id == Route::token_translate || S::id == Route::write_loc || S::id == Route::dcp_read_translate ||
           S::id == Route::transfer_ids;
  });
}

GridRun run_route_on_grid(Route route, Variant variant, const GridOptions& options) {
  return visit_route(route, [&](auto spec) { return run_spec_on_grid<decltype(spec)>(variant, options, GridCases{}); });
}

std::string check_route_on_grid(Route route, Variant variant, const GridOptions& options) {
  return run_route_on_grid(route, variant, options).mismatch;
}

std::string check_simulator_readback(std::uint64_t seed) {
  try {
    using model::VirtualPage;
    const std::int64_t ps = 4, L = 3;
    model::SubPool pool(model::Geometry(ps, L, 32, L, 8, 2));
    gen::SplitMix64 rng(seed);
    std::vector<std::vector<model::VirtualToken>> reqs;
    for (int r = 0; r < 5; ++r) reqs.push_back(pool.alloc(2 + r % 3));
    auto tag_of = [](std::int64_t layer, std::int64_t t) { return static_cast<std::uint64_t>(t * 1000 + layer + 1); };
    for (const auto& req : reqs)
      for (auto t : req)
        for (std::int64_t l = 0; l < L; ++l) pool.write(l, t, tag_of(l, t.value));
    auto pages_of = [&](const std::vector<model::VirtualToken>& req) {
      std::vector<VirtualPage> pages;
      for (auto t : req)
        if (t.value % ps == 0) pages.emplace_back(t.value / ps);
      return pages;
    };
    pool.free_eager(pages_of(reqs[1]));
    if (pool.moves().empty()) return "eager free of the middle request moved no page (compaction did not run)";
    pool.free_lazy(pages_of(reqs[3]));
    pool.flush();
    std::vector<model::VirtualToken> live;
    for (int r : {0, 2, 4}) live.insert(live.end(), reqs[static_cast<std::size_t>(r)].begin(), reqs[static_cast<std::size_t>(r)].end());
    gen::shuffle(rng, live.begin(), static_cast<std::int64_t>(live.size()));
    std::vector<std::int64_t> ids;
    for (auto t : live) ids.push_back(t.value);
    const auto v2p = pool.v2p();
    const Vec<const std::int64_t> table{v2p.data(), static_cast<std::int64_t>(v2p.size())};
    // token_translate
    std::vector<std::int64_t> d(ids.size(), -7);
    translate::token_translate<std::int64_t>({cvec(ids), table, ps, L, mvec(d), Variant::production});
    // canonical page table over one row holding every live token at page starts
    std::vector<std::int32_t> rtt(ids.size() * static_cast<std::size_t>(ps), 0);
    std::vector<std::int64_t> starts;
    for (auto t : ids)
      if (t % ps == 0) starts.push_back(t);
    for (std::size_t c = 0; c < starts.size(); ++c)
      for (std::int64_t o = 0; o < ps; ++o) rtt[c * static_cast<std::size_t>(ps) + static_cast<std::size_t>(o)] = static_cast<std::int32_t>(starts[c] + o);
    const auto n_tokens = static_cast<std::int64_t>(starts.size()) * ps;
    const auto width = static_cast<std::int64_t>(rtt.size());
    std::vector<std::int64_t> rows{0}, lens{n_tokens};
    const auto n_pages = static_cast<std::int64_t>(starts.size());
    std::vector<std::int32_t> canon(static_cast<std::size_t>(n_pages), -7), rt(static_cast<std::size_t>(n_pages), -7);
    translate::canonical_page_table({{rtt.data(), 1, width, width, 1}, cvec(rows), cvec(lens), table, ps, L, n_pages,
                                     mmat(canon, 1, n_pages), Variant::production});
    ReadTableArgs ra;
    ra.req_to_token = {rtt.data(), 1, width, width, 1};
    ra.row_ids = cvec(rows);
    ra.seq_lens = cvec(lens);
    ra.max_pages = n_pages;
    ra.v2p = table;
    ra.page_size = ps;
    ra.multiplier = L;
    ra.out = mmat(rt, 1, n_pages);
    translate::read_table(ra);
    for (std::size_t i = 0; i < ids.size(); ++i)
      for (std::int64_t l = 0; l < L; ++l) {
        const auto want = tag_of(l, ids[i]);
        const auto got = pool.read_kernel(l, model::KernelId(d[i]));
        if (got != want) return fmt::format("token_translate: t={} layer {} reads tag {} via d={}, wrote {}", ids[i], l, got, d[i], want);
      }
    for (std::size_t c = 0; c < starts.size(); ++c)
      for (std::int64_t o = 0; o < ps; ++o)
        for (std::int64_t l = 0; l < L; ++l) {
          const auto want = tag_of(l, starts[c] + o);
          const auto via_canon = pool.read_kernel(l, model::KernelId(canon[c] * ps + o));
          const auto via_read = pool.read_kernel(l, model::KernelId(rt[c] * ps + o));
          if (via_canon != want || via_read != want)
            return fmt::format("page entry of t={} layer {}: canonical reads {}, read_table reads {}, wrote {}",
                               starts[c] + o, l, via_canon, via_read, want);
        }
    const auto violations = pool.check_invariants();
    if (!violations.empty()) return "invariant (" + std::string(1, violations.front().invariant) + "): " + violations.front().detail;
    return "";
  } catch (const std::exception& e) {
    return std::string("raised: ") + e.what();
  }
}

}  // namespace kvaddr::zoo
