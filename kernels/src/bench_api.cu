// Speed harness: see kvaddr/kernels/bench.hpp and docs/performance.md (traffic models).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <vector>

#include "bench_floors.cuh"
#include "bench_shapes.hpp"
#include "device_compare.hpp"
#include "kvaddr/gen/rng.hpp"
#include "kvaddr/kernels/bench.hpp"
#include "kvaddr/kernels/device_gen.hpp"
#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/translate/decode_args.hpp"

namespace kvaddr::gpu {
namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

void ck(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw CudaError(call, static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
}

// Draws in [0, n) by reduction modulo n of the shared SplitMix64 stream (gen/rng.hpp).
struct Rng {
  gen::SplitMix64 stream;
  i64 below(i64 n) { return static_cast<i64>(stream.next() % static_cast<std::uint64_t>(n)); }
};

// v2p of `pages` virtual pages: v2p[0] = 0, a random permutation of [1, pages) elsewhere, sentinel -1.
std::vector<i64> random_v2p(i64 pages, Rng& r) {
  std::vector<i64> v(static_cast<std::size_t>(pages + 1));
  std::iota(v.begin(), v.end() - 1, i64(0));
  for (i64 i = pages - 1; i > 1; --i) std::swap(v[static_cast<std::size_t>(i)], v[static_cast<std::size_t>(1 + r.below(i))]);
  v.back() = -1;
  return v;
}

// Traffic model of a page table of `entries` entries: req_to_token (ps = 1: every token, 4 bytes;
// ps > 1: one 32-byte sector per page start), the int32 table written, one 32-byte sector per v2p gather.
double table_bytes_of(i64 ps, double entries) {
  const double r2t_bytes = ps == 1 ? 4.0 * entries : 32.0 * entries;
  return r2t_bytes + 4.0 * entries + 32.0 * entries;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

__global__ void k_empty() {}

// L2 flush that leaves the cache clean: read a buffer larger than the L2 (a memset would leave
// dirty lines whose write-back would land inside the next timed window).
__global__ void k_flush_read(const int4* __restrict__ p, i64 n, int* sink) {
  int acc = 0;
  for (i64 i = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<i64>(gridDim.x) * blockDim.x) {
    const int4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) *sink = acc;  // never true for the zero-filled buffer: keeps the loads alive
}

using namespace bench_floors;

template <class Id, class Out>
void launch_gather(Ld f, const Id* ids, const i64* table, i64 n, Out* out, cudaStream_t s) {
  const unsigned g = static_cast<unsigned>((n + 1023) / 1024);
  switch (f) {
    case Ld::plain: k_gather<Ld::plain><<<g, 256, 0, s>>>(ids, table, n, out); break;
    case Ld::cg: k_gather<Ld::cg><<<g, 256, 0, s>>>(ids, table, n, out); break;
    case Ld::nc: k_gather<Ld::nc><<<g, 256, 0, s>>>(ids, table, n, out); break;
    case Ld::l1_no_allocate: k_gather<Ld::l1_no_allocate><<<g, 256, 0, s>>>(ids, table, n, out); break;
    case Ld::l2_128: k_gather<Ld::l2_128><<<g, 256, 0, s>>>(ids, table, n, out); break;
    case Ld::l2_256: k_gather<Ld::l2_256><<<g, 256, 0, s>>>(ids, table, n, out); break;
  }
  ck(cudaGetLastError(), "k_gather");
}
constexpr std::pair<Ld, const char*> kFlavours[] = {{Ld::plain, ""},          {Ld::cg, "+cg"},
                                                    {Ld::nc, "+nc"},          {Ld::l1_no_allocate, "+l1noalloc"},
                                                    {Ld::l2_128, "+l2pf128"}, {Ld::l2_256, "+l2pf256"}};

struct Workload {
  std::string name, shape, target;
  double bytes = 0;
  bool ratio_target = false;  // true: ratio >= min_ratio of copy; false: time <= 1.8 x minimum
  std::function<void(cudaStream_t)> launch;
  double min_ratio = 0.95;
  std::vector<std::string> floor{};  // the BenchFloor rows it is read against (BenchResult::time_vs_floors)
};
// The ps-64 streams' floors: copy and bare gather, evict-first and under the default cache policy.
const std::vector<std::string> kStreamFloors = {"floor/stream_copy_n24", "floor/stream_gather_ps64", "floor/stream_copy_n24_plain",
                                                "floor/stream_gather_ps64_plain"};

// A harness-throughput workload: one check of n lanes (ids made on the device, the reference
// launch, the on-device comparison with a second output buffer); returns the differing lanes.
struct HarnessWorkload {
  std::string name, shape;
  i64 lanes = 0;
  std::function<i64(cudaStream_t)> check;
};

}  // namespace

struct BenchSession::Impl {
  BenchOptions opt;
  cudaStream_t stream = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  std::vector<void*> bufs;
  void* scratch = nullptr;
  i64 scratch_bytes = i64(256) << 20;
  std::vector<Workload> work;
  std::vector<Workload> floors;  // BenchFloor rows (bytes 0: no traffic model)
  std::vector<HarnessWorkload> harness;
  double copy = 0, copy_us = 0, copy_bytes = 0;

  template <class T>
  T* up(const std::vector<T>& h) {
    T* p = alloc<T>(static_cast<i64>(h.size()));
    if (!h.empty()) ck(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
    return p;
  }
  // Uninitialised device buffer (at least one element), for data a device_gen.hpp fill writes
  // entirely (on `stream`; a zeros() memset runs on the legacy stream, which does not order with the
  // non-blocking `stream`).
  template <class T>
  T* alloc(i64 n) {
    void* p = nullptr;
    ck(cudaMalloc(&p, static_cast<std::size_t>(std::max<i64>(1, n)) * sizeof(T)), "cudaMalloc");
    bufs.push_back(p);
    return static_cast<T*>(p);
  }
  template <class T>
  T* zeros(i64 n) {
    T* p = alloc<T>(n);
    ck(cudaMemset(p, 0, static_cast<std::size_t>(n) * sizeof(T)), "cudaMemset");
    return p;
  }

  // The other streaming token routes on the token_translate/ps64 data (ids in page-major runs of
  // random pages, the same 2^18-page v2p as their table), the stream-copy floor, and the
  // harness-throughput checks of every token route.
  void add_token_routes(const i64* ids, const i64* v2p, i64 N, i64 pages, i64 ps, i64 M) {
    const Vec<const i64> dids{ids, N}, dv2p{v2p, pages + 1};
    const double table = 8.0 * double(pages);
    const std::string data = "N=2^24 int64 in/out, ps=64, M=24, v2p 2^18 pages (L2-resident)";
    const std::string target = ">= 95% of copy bandwidth";
    const i64 tail = 4097;  // write_loc: out_width = N + tail
    i64* wout = zeros<i64>(N + tail);
    for (i64 dcp : {i64(1), i64(2)}) {
      WriteLocArgs w{dids, dv2p, ps, M, dcp, 0, {wout, N + tail}, Variant::production};
      work.push_back({"write_loc/ps64_dcp" + std::to_string(dcp),
                      data + ", dcp_size=" + std::to_string(dcp) + " rank 0, out_width = N + 4097 (tail zeroed)", target,
                      8.0 * double(N) + 8.0 * double(N + tail) + table, true,
                      [w](cudaStream_t s) { launch_write_loc(w, s); }});
      work.back().floor = kStreamFloors;
    }
    SwaTranslateArgs<i64> sw{dids, dv2p, ps, M, {zeros<i64>(N), N}, Variant::production};
    work.push_back({"swa_translate/ps64", data + " (the SWA table)", target, 16.0 * double(N) + table, true,
                    [sw](cudaStream_t s) { launch_swa_translate(sw, s); }});
    work.back().floor = kStreamFloors;
    DcpReadTranslateArgs dr{dids, dv2p, ps, M, 2, {zeros<i64>(N), N}, Variant::production};
    work.push_back({"dcp_read_translate/ps64_dcp2", data + ", dcp_size=2", target, 16.0 * double(N) + table, true,
                    [dr](cudaStream_t s) { launch_dcp_read_translate(dr, s); }});
    work.back().floor = kStreamFloors;
    TransferIdsArgs tr{dids, dv2p, ps, {zeros<i64>(N), N}, Variant::production};
    work.push_back({"transfer_ids/ps64", data, target, 16.0 * double(N) + table, true,
                    [tr](cudaStream_t s) { launch_transfer_ids(tr, s); }});
    work.back().floor = kStreamFloors;
    {
      const auto* in = reinterpret_cast<const longlong2*>(ids);
      auto* out = reinterpret_cast<longlong2*>(zeros<i64>(N));
      auto* gout = reinterpret_cast<longlong2*>(zeros<i64>(N));
      const i64 pairs = N / 2;
      const auto blocks = static_cast<unsigned>((pairs + 1023) / 1024);
      const i64* tab = v2p;
      for (const bool ef : {true, false}) {
        const std::string how = ef ? "16-byte loads/stores, evict-first" : "16-byte loads/stores, default cache policy";
        floors.push_back({kStreamFloors[ef ? 0 : 2], "out[i] = in[i], N=2^24 int64, one launch, " + how, "",
                          16.0 * double(N), false, [=](cudaStream_t s) {
                            if (ef) k_stream_copy<true><<<blocks, 256, 0, s>>>(in, pairs, out);
                            else k_stream_copy<false><<<blocks, 256, 0, s>>>(in, pairs, out);
                            ck(cudaGetLastError(), "k_stream_copy");
                          }});
        floors.push_back({kStreamFloors[ef ? 1 : 3], "out[i] = v2p[in[i] >> 6], the token_translate/ps64 data, " + how, "",
                          16.0 * double(N) + table, false, [=](cudaStream_t s) {
                            if (ef) k_stream_gather<true><<<blocks, 256, 0, s>>>(in, pairs, tab, gout);
                            else k_stream_gather<false><<<blocks, 256, 0, s>>>(in, pairs, tab, gout);
                            ck(cudaGetLastError(), "k_stream_gather");
                          }});
      }
    }
    // Harness throughput: ids drawn on the device in [0, pages * ps) (write_loc / dcp_read: widened by
    // dcp 2), the reference launch into `ref`, then count_differences(ref, user) on the device; `user`
    // holds the reference's output of the same ids (a passing check), made once here.
    i64* hids = alloc<i64>(N);
    i64* ref = alloc<i64>(N + tail);
    const auto add_check = [&](const std::string& route, i64 below, i64 out_n, const std::string& shape,
                               std::function<void(i64*, cudaStream_t)> launch) {
      const std::uint64_t seed = 0x5EED0300 + harness.size();
      i64* user = alloc<i64>(out_n);  // this route's "user" output
      fill_random_ids(hids, N, below, seed, stream);
      launch(user, stream);
      ck(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      harness.push_back({"harness/" + route, shape, N, [=](cudaStream_t s) {
                           fill_random_ids(hids, N, below, seed, s);
                           launch(ref, s);
                           return detail::count_differences(ref, user, out_n, s).count;
                         }});
    };
    const std::string hshape = "N=2^24 ids made on the device (fill_random_ids), reference launch, count_differences";
    add_check("token_translate", pages * ps, N, hshape + "; ps=64, M=24", [=](i64* out, cudaStream_t s) {
      launch_token_translate(TokenTranslateArgs<i64>{{hids, N}, dv2p, ps, M, {out, N}, Variant::production}, s);
    });
    add_check("write_loc", 2 * pages * ps, N + tail, hshape + "; ps=64, M=24, dcp 2 rank 0, out_width N + 4097",
              [=](i64* out, cudaStream_t s) {
                launch_write_loc(WriteLocArgs{{hids, N}, dv2p, ps, M, 2, 0, {out, N + tail}, Variant::production}, s);
              });
    add_check("swa_translate", pages * ps, N, hshape + "; ps=64, M=24", [=](i64* out, cudaStream_t s) {
      launch_swa_translate(SwaTranslateArgs<i64>{{hids, N}, dv2p, ps, M, {out, N}, Variant::production}, s);
    });
    add_check("dcp_read_translate", 2 * pages * ps, N, hshape + "; ps=64, M=24, dcp 2", [=](i64* out, cudaStream_t s) {
      launch_dcp_read_translate(DcpReadTranslateArgs{{hids, N}, dv2p, ps, M, 2, {out, N}, Variant::production}, s);
    });
    add_check("transfer_ids", pages * ps, N, hshape + "; ps=64", [=](i64* out, cudaStream_t s) {
      launch_transfer_ids(TransferIdsArgs{{hids, N}, dv2p, ps, {out, N}, Variant::production}, s);
    });
  }

  explicit Impl(const BenchOptions& o) : opt(o) {
    ck(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    ck(cudaEventCreate(&e0), "cudaEventCreate");
    ck(cudaEventCreate(&e1), "cudaEventCreate");
    ck(cudaMalloc(&scratch, static_cast<std::size_t>(scratch_bytes) + 64), "cudaMalloc");
    ck(cudaMemset(scratch, 0, static_cast<std::size_t>(scratch_bytes) + 64), "cudaMemset");
    Rng r{gen::SplitMix64(12345)};
    const i64 N = i64(1) << 24, M = 24;

    // token_translate ps = 64: 2^18-page table (L2-resident), ids in page-major runs of random pages.
    {
      const i64 ps = 64, pages = i64(1) << 18;
      auto v2p = random_v2p(pages, r);
      std::vector<i64> ids(static_cast<std::size_t>(N));
      for (i64 i = 0; i < N; i += ps) {
        const i64 p = 1 + r.below(pages - 1);
        for (i64 k = 0; k < ps; ++k) ids[static_cast<std::size_t>(i + k)] = p * ps + k;
      }
      TokenTranslateArgs<i64> a{{up(ids), N}, {up(v2p), pages + 1}, ps, M, {zeros<i64>(N), N}, Variant::production};
      work.push_back({"token_translate/ps64", "N=2^24 int64 in/out, M=24, v2p 2^18 pages (L2-resident)",
                      ">= 95% of copy bandwidth", 16.0 * double(N) + 8.0 * double(pages), true,
                      [a](cudaStream_t s) { launch_token_translate(a, s); }});
      work.back().floor = kStreamFloors;
      // launch latency workload (N = 1024) on the same table
      TokenTranslateArgs<i64> l = a;
      l.ids.size = 1024;
      l.out.size = 1024;
      work.push_back({"token_translate/latency_n1024", "N=1024, ps=64, M=24", "launch to completion < 5 us",
                      16.0 * 1024, true, [l](cudaStream_t s) { launch_token_translate(l, s); }});
      add_token_routes(a.ids.data, a.v2p.data, N, pages, ps, M);
    }
    // token_translate ps = 1: 2^24-page table, random ids (random gathers from HBM); made on the
    // device (device_gen.hpp, Thrust).
    {
      const i64 pages = N;
      i64* v2p = alloc<i64>(pages + 1);
      i64* ids = alloc<i64>(N);
      fill_random_v2p(v2p, pages, 0x5EED0001, stream);
      fill_random_ids(ids, N, pages, 0x5EED0002, stream);
      TokenTranslateArgs<i64> a{{ids, N}, {v2p, pages + 1}, 1, M, {zeros<i64>(N), N}, Variant::production};
      work.push_back({"token_translate/ps1", "N=2^24 int64 in/out, M=24, v2p 2^24 pages, random ids",
                      "<= 1.8x minimum-traffic time", 16.0 * double(N) + 32.0 * double(N), false,
                      [a](cudaStream_t s) { launch_token_translate(a, s); }});
      work.back().floor = {"floor/gather_ps1"};
      // Floor: the bare gather out[i] = v2p[ids[i]] on the same ids and table.
      const i64* ids_d = a.ids.data;
      const i64* tab_d = a.v2p.data;
      i64* out_d = zeros<i64>(N);
      for (const auto& [f, tag] : kFlavours)
        floors.push_back({std::string("floor/gather_ps1") + tag,
                          "out[i] = v2p[ids[i]], the token_translate/ps1 data, no translation", "",
                          16.0 * double(N) + 32.0 * double(N), false,
                          [=, f = f](cudaStream_t s) { launch_gather(f, ids_d, tab_d, N, out_d, s); }});
    }
    // Floors for the ps = 64 page tables (E = 2^17 entries): an empty kernel, one DRAM access per
    // lane, and a chain of three dependent DRAM accesses per lane (the tables' chain: the row's
    // length and req_to_token row, the page-start token, the v2p entry).
    {
      const i64 E = i64(1) << 17;
      std::vector<i32> l0(static_cast<std::size_t>(E)), l1(static_cast<std::size_t>(8 * E));
      std::vector<i64> l2(static_cast<std::size_t>(E));
      for (i64 i = 0; i < E; ++i) l0[static_cast<std::size_t>(i)] = static_cast<i32>(8 * r.below(E));  // one sector each
      for (auto& y : l1) y = static_cast<i32>(r.below(E));
      for (auto& z : l2) z = static_cast<i64>(r.below(E));
      const i32* d0 = up(l0);
      const i32* d1 = up(l1);
      const i64* d2 = up(l2);
      i64* dout = zeros<i64>(E);
      floors.push_back({"floor/empty_kernel", "an empty kernel <<<1, 32>>>", "", 0, false, [](cudaStream_t s) {
                          k_empty<<<1, 32, 0, s>>>();
                          ck(cudaGetLastError(), "k_empty");
                        }});
      for (int depth : {1, 3}) {
        floors.push_back({"floor/chain" + std::to_string(depth) + "_e17",
                          "2^17 lanes, " + std::to_string(depth) + " dependent DRAM load(s) per lane, int64 store", "", 0,
                          false, [=](cudaStream_t s) {
                            k_chain<<<static_cast<unsigned>(E / 256), 256, 0, s>>>(d0, d1, d2, E, depth, dout);
                            ck(cudaGetLastError(), "k_chain");
                          }});
      }
    }
    // Page tables: bs 256 x 32768 tokens, ps 1 and 64.
    const i64 bs = 256, T = 32768;
    for (i64 ps : {i64(1), i64(64)}) {
      const i64 pages_per_row = T / ps, pages = bs * pages_per_row + 1;
      // v2p and req_to_token made on the device (device_gen.hpp, Thrust): each request owns a random
      // set of virtual pages (a permutation of [1, pages) split over the rows), page-major.
      i64* v2p = alloc<i64>(pages + 1);
      fill_random_v2p(v2p, pages, 0x5EED0100 + static_cast<std::uint64_t>(ps), stream);
      i64* vp = alloc<i64>(pages - 1);
      fill_random_permutation(vp, pages - 1, 1, 0x5EED0200 + static_cast<std::uint64_t>(ps), stream);
      i32* r2t = alloc<i32>(bs * T);
      fill_page_major_tokens(r2t, vp, bs, T, ps, pages, stream);
      std::vector<i64> rows(static_cast<std::size_t>(bs)), lens(static_cast<std::size_t>(bs), T);
      std::iota(rows.begin(), rows.end(), i64(0));
      std::reverse(rows.begin(), rows.end());
      const Mat<const i32> dr2t{r2t, bs, T, T, 1};
      const Vec<const i64> drows{up(rows), bs}, dlens{up(lens), bs}, dv2p{v2p, pages + 1};
      i32* out = zeros<i32>(bs * pages_per_row);
      const double entries = double(bs * pages_per_row);
      const double table_bytes = table_bytes_of(ps, entries);  // the floors below share the tables' model
      if (ps == 64) {  // floor: the bare three-level chain over the same data (rows -> token -> v2p)
        const i32* r2t_d = dr2t.data;
        const i64* rows_d = drows.data;
        const i64* v2p_d = dv2p.data;
        i32* cout = zeros<i32>(bs * pages_per_row);
        const i64 cols = pages_per_row;
        for (int lanes : {1, 2}) {
          floors.push_back({"floor/table_chain_ps64_" + std::to_string(lanes) + "lane",
                            "out[b, c] = v2p[req_to_token[rows[b], 64 c] / 64] * 24, the page-table ps=64 data, " +
                                std::to_string(lanes) + " column(s) a thread",
                            "", table_bytes, false, [=](cudaStream_t s) {
                              const dim3 grid(static_cast<unsigned>((cols + 256 * lanes - 1) / (256 * lanes)),
                                              static_cast<unsigned>(bs));
                              if (lanes == 1) k_table_chain<1><<<grid, 256, 0, s>>>(r2t_d, T, rows_d, v2p_d, cols, cout);
                              else k_table_chain<2><<<grid, 256, 0, s>>>(r2t_d, T, rows_d, v2p_d, cols, cout);
                              ck(cudaGetLastError(), "k_table_chain");
                            }});
        }
      }
      if (ps == 1) {  // floor: the bare gather out[e] = v2p[req_to_token[e]] over the whole table
        const i32* r2t_d = dr2t.data;
        const i64* v2p_d = dv2p.data;
        i32* gout = zeros<i32>(bs * T);
        const i64 E = bs * T;
        for (const auto& [f, tag] : kFlavours)
          floors.push_back({std::string("floor/table_gather_ps1") + tag,
                            "out[e] = v2p[req_to_token[e]] (int32 in/out), the page-table ps=1 data, no translation", "",
                            table_bytes, false,
                            [=, f = f](cudaStream_t s) { launch_gather(f, r2t_d, v2p_d, E, gout, s); }});
      }
      const std::string suffix = "/ps" + std::to_string(ps);
      const std::string shape = "bs 256 x 32768 tokens, ps=" + std::to_string(ps) + ", M=24, random v2p";
      CanonicalPageTableArgs c{dr2t, drows, dlens, dv2p, ps, M, pages_per_row, {out, bs, pages_per_row, pages_per_row, 1}, Variant::production};
      work.push_back({"canonical_page_table" + suffix, shape, "<= 1.8x minimum-traffic time", table_bytes, false,
                      [c](cudaStream_t s) { launch_canonical_page_table(c, s); }});
      const std::vector<std::string> table_floor =
          ps == 1 ? std::vector<std::string>{"floor/table_gather_ps1"}
                  : std::vector<std::string>{"floor/table_chain_ps64_1lane", "floor/table_chain_ps64_2lane"};
      work.back().floor = table_floor;
      ReadTableArgs rt{dr2t, drows, dlens, 0, pages_per_row, dv2p, ps, M, {out, bs, pages_per_row, pages_per_row, 1}, false, Variant::production};
      work.push_back({"read_table" + suffix, shape, "<= 1.8x minimum-traffic time", table_bytes, false,
                      [rt](cudaStream_t s) { launch_read_table(rt, s); }});
      work.back().floor = table_floor;
      DecodeMetadataArgs d = decode_batch(dlens, dr2t, drows, pages_per_row, ps);
      d.v2p = dv2p;
      d.multiplier = M;
      set_decode_outputs(d, {zeros<i32>(bs), bs}, {zeros<i32>(bs + 1), bs + 1}, {out, bs, pages_per_row, pages_per_row, 1});
      work.push_back({"decode_metadata" + suffix, shape + " (Era B remap)", "<= 1.8x minimum-traffic time",
                      table_bytes + 8.0 * 2 * double(bs), false, [d](cudaStream_t s) { launch_decode_metadata(d, s); }});
      work.back().floor = table_floor;
    }
    ck(cudaDeviceSynchronize(), "cudaDeviceSynchronize");  // every setup copy, memset and fill is done
  }

  ~Impl() {
    for (void* p : bufs) (void)cudaFree(p);
    if (scratch) (void)cudaFree(scratch);
    if (e0) (void)cudaEventDestroy(e0);
    if (e1) (void)cudaEventDestroy(e1);
    if (stream) (void)cudaStreamDestroy(stream);
  }

  Workload& find(const std::string& name) {
    for (auto& w : work)
      if (w.name == name) return w;
    throw InvalidArgument("workload", name, "unknown benchmark workload");
  }

  double timed(const std::function<void(cudaStream_t)>& f) {
    if (opt.flush_l2) {
      k_flush_read<<<1056, 512, 0, stream>>>(static_cast<const int4*>(scratch), scratch_bytes / 16,
                                              reinterpret_cast<int*>(static_cast<char*>(scratch) + scratch_bytes));
      ck(cudaGetLastError(), "k_flush_read");
    }
    ck(cudaEventRecord(e0, stream), "cudaEventRecord");
    f(stream);
    ck(cudaEventRecord(e1, stream), "cudaEventRecord");
    ck(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    return double(ms) * 1000.0;
  }

  // Warm-up runs, then max(runs, 20) timed runs of `f` (µs each).
  std::vector<double> samples(const std::function<void(cudaStream_t)>& f) {
    for (int i = 0; i < opt.warmup; ++i) timed(f);
    std::vector<double> t;
    for (int i = 0; i < std::max(opt.runs, 20); ++i) t.push_back(timed(f));
    return t;
  }

  double measure_copy() {
    if (copy > 0) return copy;
    const std::size_t bytes = std::size_t(512) << 20;
    void *a = nullptr, *b = nullptr;
    ck(cudaMalloc(&a, bytes), "cudaMalloc");
    ck(cudaMalloc(&b, bytes), "cudaMalloc");
    ck(cudaMemset(a, 1, bytes), "cudaMemset");
    auto f = [&](cudaStream_t s) { ck(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync"); };
    const std::vector<double> t = samples(f);
    (void)cudaFree(a);
    (void)cudaFree(b);
    copy_us = median(t);
    copy_bytes = 2.0 * double(bytes);
    copy = copy_bytes / (copy_us * 1e-6) / 1e9;
    return copy;
  }
};

namespace {
// One workload's row: median and min of its samples, its traffic model against the copy bandwidth.
BenchResult result_of(const Workload& w, const std::vector<double>& t, double copy_gbps, std::string name,
                      std::string workload) {
  BenchResult br;
  br.name = std::move(name);
  br.workload = std::move(workload);
  br.median_us = median(t);
  br.min_us = *std::min_element(t.begin(), t.end());
  br.bytes = w.bytes;
  br.achieved_gbps = w.bytes / (br.median_us * 1e-6) / 1e9;
  br.ratio_to_copy = br.achieved_gbps / copy_gbps;
  br.time_vs_min = br.median_us / (w.bytes / (copy_gbps * 1e9) * 1e6);
  br.target = w.target;
  br.target_met = w.ratio_target ? br.ratio_to_copy >= w.min_ratio : br.time_vs_min <= 1.8;
  return br;
}
}  // namespace

BenchSession::BenchSession(const BenchOptions& o) : impl_(std::make_unique<Impl>(o)) {}
BenchSession::~BenchSession() = default;
std::vector<std::string> BenchSession::workloads() const {
  std::vector<std::string> n;
  for (const auto& w : impl_->work) n.push_back(w.name);
  return n;
}
double BenchSession::time_once_us(const std::string& name) { return impl_->timed(impl_->find(name).launch); }
double BenchSession::bytes(const std::string& name) const { return impl_->find(name).bytes; }
double BenchSession::copy_gbps() { return impl_->measure_copy(); }

BenchReport run_bench(const BenchOptions& o) {
  BenchReport rep;
  std::string why;
  if (!gpu_available(&why)) {
    rep.skipped = true;
    rep.skip_reason = "no CUDA GPU: " + why;
    return rep;
  }
  cudaDeviceProp prop{};
  ck(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  rep.device = prop.name;
  BenchSession session(o);
  auto& s = *session.impl_;
  rep.copy_gbps = s.measure_copy();
  rep.copy_median_us = s.copy_us;
  rep.copy_bytes = s.copy_bytes;
  for (auto& w : s.work) {
    if (w.name == "token_translate/latency_n1024") continue;
    rep.results.push_back(result_of(w, s.samples(w.launch), rep.copy_gbps, w.name, w.shape));
  }
  for (auto& w : s.floors) {
    const std::vector<double> t = s.samples(w.launch);
    BenchFloor f;
    f.name = w.name;
    f.workload = w.shape;
    f.median_us = median(t);
    f.min_us = *std::min_element(t.begin(), t.end());
    f.bytes = w.bytes;
    f.time_vs_min = w.bytes > 0 ? f.median_us / (w.bytes / (rep.copy_gbps * 1e9) * 1e6) : 0.0;
    rep.floors.push_back(f);
  }
  // Harness throughput: host clock around each whole check (its Thrust calls wait for the device);
  // warm-up runs, then the median of max(runs, 20); no L2 flush (a campaign runs checks back to back).
  for (auto& h : s.harness) {
    std::vector<double> t;
    i64 diffs = 0;
    for (int i = 0; i < s.opt.warmup; ++i) diffs += h.check(s.stream);
    for (int i = 0; i < std::max(o.runs, 20); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      diffs += h.check(s.stream);
      const auto t1 = std::chrono::steady_clock::now();
      t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    BenchHarness b;
    b.name = h.name;
    b.workload = h.shape;
    b.lanes = h.lanes;
    b.median_us = median(t);
    b.min_us = *std::min_element(t.begin(), t.end());
    b.lanes_per_second = double(h.lanes) / (b.median_us * 1e-6);
    b.differences = diffs;
    b.target_met = b.lanes_per_second >= 1e10 && diffs == 0;
    rep.harness.push_back(b);
  }
  // Launch latency: host clock from before the launcher call until the stream is seen idle, by
  // busy-polling cudaStreamQuery (the target) and by cudaStreamSynchronize.
  {
    Workload& w = s.find("token_translate/latency_n1024");
    const auto poll = [&] {
      cudaError_t e;
      while ((e = cudaStreamQuery(s.stream)) == cudaErrorNotReady) {
      }
      ck(e, "cudaStreamQuery");
    };
    const auto sync = [&] { ck(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize"); };
    // Host-clock samples of f() (after 50 unrecorded calls), sorted.
    auto host_times = [&](const std::function<void()>& f) {
      std::vector<double> t;
      for (int i = 0; i < 50; ++i) f();
      for (int i = 0; i < std::max(o.latency_runs, 20); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        const auto t1 = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      std::sort(t.begin(), t.end());
      return t;
    };
    auto host_median = [&](const std::function<void()>& f) { return median(host_times(f)); };
    const std::vector<double> host = host_times([&] {
      w.launch(s.stream);
      poll();
    });
    rep.latency_host_median_us = host[host.size() / 2];
    rep.latency_host_p90_us = host[host.size() * 9 / 10];
    rep.latency_sync_median_us = host_median([&] {
      w.launch(s.stream);
      sync();
    });
    std::vector<double> gpu;
    const bool flush = s.opt.flush_l2;
    s.opt.flush_l2 = false;
    for (int i = 0; i < std::max(o.runs, 20); ++i) gpu.push_back(s.timed(w.launch));
    s.opt.flush_l2 = flush;
    rep.latency_gpu_median_us = median(gpu);
    rep.latency_target_met = rep.latency_host_median_us < 5.0;
    // Baselines on the same stream: an empty kernel (raw launch + completion cost of this machine)
    // and the N = 1024 launch replayed from a captured CUDA graph.
    rep.latency_empty_poll_us = host_median([&] {
      k_empty<<<1, 32, 0, s.stream>>>();
      poll();
    });
    rep.latency_empty_kernel_us = host_median([&] {
      k_empty<<<1, 32, 0, s.stream>>>();
      sync();
    });
    cudaGraph_t g = nullptr;
    cudaGraphExec_t ge = nullptr;
    ck(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    w.launch(s.stream);
    ck(cudaStreamEndCapture(s.stream, &g), "cudaStreamEndCapture");
    ck(cudaGraphInstantiate(&ge, g, 0), "cudaGraphInstantiate");
    rep.latency_graph_us = host_median([&] {
      ck(cudaGraphLaunch(ge, s.stream), "cudaGraphLaunch");
      poll();
    });
    (void)cudaGraphExecDestroy(ge);
    (void)cudaGraphDestroy(g);
  }
  // The same workloads under other launch shapes (kvaddr::gpu::LaunchShape), same process, data and
  // copy bandwidth; rows named "<workload>@<shape>".
  {
    const LaunchShape keep = launch_shape();
    for (const auto& [tag, shape] : bench_shapes()) {
      set_launch_shape(shape);
      for (auto& w : s.work) {
        if (w.name == "token_translate/latency_n1024") continue;
        const auto grid = [](bool resident) { return resident ? "resident grid" : "one block per kThreads x lanes"; };
        rep.results.push_back(result_of(
            w, s.samples(w.launch), rep.copy_gbps, w.name + tag,
            w.shape + ", launch shape: " + std::to_string(shape.lanes_per_thread) + " lanes/thread, " +
                grid(shape.resident_grid) + "; decode " + std::to_string(shape.decode_lanes_per_thread) +
                " lanes/thread, " + grid(shape.decode_resident_grid)));
      }
    }
    set_launch_shape(keep);
  }
  for (auto& b : rep.results)  // each row against its floors of this run (shape rows too)
    for (const auto& name : s.find(b.name.substr(0, b.name.find('@'))).floor)
      for (const auto& f : rep.floors)
        if (f.name == name) b.time_vs_floors.emplace_back(f.name, b.median_us / f.median_us);
  return rep;
}

}  // namespace kvaddr::gpu
