// Host route throughput (translate/, checked integer arithmetic): the production entry points on
// fixed inputs, one benchmark per route family. Used to compare builds of the host routes
// (docs/performance.md, "Host routes").
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "kvaddr/translate/routes.hpp"

namespace {

using namespace kvaddr;
using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

constexpr std::int64_t kPages = 1 << 14;
constexpr std::int64_t kPs = 16;
constexpr std::int64_t kMult = 4;

// v2p: a fixed permutation of the physical pages with the sink v2p[0] = 0 and the sentinel -1.
I64 make_v2p() {
  I64 v(static_cast<std::size_t>(kPages + 1), -1);
  v[0] = 0;
  for (std::int64_t p = 1; p < kPages; ++p) v[static_cast<std::size_t>(p)] = (p * 7919) % (kPages - 1) + 1;
  return v;
}

I64 make_ids(std::int64_t n) {
  I64 ids(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = (i * 104729) % (kPages * kPs);
  return ids;
}

void BM_token_translate(benchmark::State& st) {
  const I64 v2p = make_v2p();
  const I64 ids = make_ids(st.range(0));
  I64 out(ids.size());
  for (auto _ : st) {
    translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), kPs, kMult, mvec(out), Variant::production});
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_token_translate)->Arg(1 << 16);

void BM_write_loc(benchmark::State& st) {
  const I64 v2p = make_v2p();
  const I64 loc = make_ids(st.range(0));
  I64 out(loc.size() + 64);
  for (auto _ : st) {
    translate::write_loc({cvec(loc), cvec(v2p), kPs, kMult, 1, 0, mvec(out), Variant::production});
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * st.range(0));
}
BENCHMARK(BM_write_loc)->Arg(1 << 16);

// A batch of 64 requests of 4096 tokens over a req_to_token of 128 rows.
struct TableInputs {
  std::int64_t batch = 64, rows = 128, width = 4096, max_pages = 4096 / kPs;
  I32 r2t;
  I64 pool_rows, lens, v2p = make_v2p();
  TableInputs() {
    r2t.resize(static_cast<std::size_t>(rows * width));
    for (std::int64_t i = 0; i < rows * width; ++i) r2t[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((i * 31) % (kPages * kPs));
    for (std::int64_t b = 0; b < batch; ++b) {
      pool_rows.push_back((b * 5) % rows);
      lens.push_back(width - (b % 7));
    }
  }
  Mat<const std::int32_t> req_to_token() const { return {r2t.data(), rows, width, width, 1}; }
};

void BM_canonical_page_table(benchmark::State& st) {
  const TableInputs in;
  I32 out(static_cast<std::size_t>(in.batch * in.max_pages));
  for (auto _ : st) {
    translate::canonical_page_table({in.req_to_token(), cvec(in.pool_rows), cvec(in.lens), cvec(in.v2p), kPs, kMult,
                                     in.max_pages, mmat(out, in.batch, in.max_pages), Variant::production});
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * in.batch * in.max_pages);
}
BENCHMARK(BM_canonical_page_table);

void BM_read_table(benchmark::State& st) {
  const TableInputs in;
  I32 out(static_cast<std::size_t>((in.batch + 8) * in.max_pages));
  ReadTableArgs a;
  a.req_to_token = in.req_to_token();
  a.row_ids = cvec(in.pool_rows);
  a.seq_lens = cvec(in.lens);
  a.max_pages = in.max_pages;
  a.v2p = cvec(in.v2p);
  a.page_size = kPs;
  a.multiplier = kMult;
  a.out = mmat(out, in.batch + 8, in.max_pages);
  a.zero_tail = true;
  for (auto _ : st) {
    translate::read_table(a);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations() * (in.batch + 8) * in.max_pages);
}
BENCHMARK(BM_read_table);

void BM_decode_metadata(benchmark::State& st) {
  const TableInputs in;
  I32 cache(static_cast<std::size_t>(in.batch)), cu(static_cast<std::size_t>(in.batch + 1));
  I32 table(static_cast<std::size_t>(in.batch * in.max_pages));
  DecodeMetadataArgs a;
  a.seq_lens = cvec(in.lens);
  a.req_to_token = in.req_to_token();
  a.req_pool_indices = cvec(in.pool_rows);
  a.max_seq_pages = in.max_pages;
  a.page_size = kPs;
  a.v2p = cvec(in.v2p);
  a.multiplier = kMult;
  a.cache_seqlens = mvec(cache);
  a.cu_seqlens_k = mvec(cu);
  a.page_table = mmat(table, in.batch, in.max_pages);
  for (auto _ : st) {
    translate::decode_metadata(a);
    benchmark::DoNotOptimize(table.data());
  }
  st.SetItemsProcessed(st.iterations() * in.batch * in.max_pages);
}
BENCHMARK(BM_decode_metadata);

}  // namespace

BENCHMARK_MAIN();
