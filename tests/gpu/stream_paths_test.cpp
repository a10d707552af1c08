// GPU tests (label gpu): every code path of the streaming token kernels against the host routes —
// the 16-byte vector path and the scalar path (aligned and one-element-offset pointers), odd lengths
// and block-slice tails, out aliasing the input, write_loc's tail, and every divisor form under every
// launch shape: compile-time constants (Pow2Pack: ps 1, 16, 64, 128 with dcp 1, 2), Pow2Divisor (ps 8,
// dcp 4), FastDivisor (ps 3, 100, dcp 3) and int64 division.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/translate/host_routes.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/routes.hpp"

namespace {

using namespace kvaddr;
using i64 = std::int64_t;
using i32 = std::int32_t;

bool have_gpu(std::string* why) { return gpu::gpu_available(why); }

// A device buffer of n + 1 elements; view(offset) starts `offset` elements in (offset 1 breaks the
// 16-byte alignment of an int64 buffer).
template <class T>
struct Buf {
  T* p = nullptr;
  std::size_t cap = 0;
  explicit Buf(std::size_t n) : cap(n + 1) { EXPECT_EQ(cudaMalloc(&p, cap * sizeof(T)), cudaSuccess); }
  ~Buf() { (void)cudaFree(p); }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  void put(const std::vector<T>& h, std::size_t off) {
    ASSERT_LE(h.size() + off, cap);
    ASSERT_EQ(cudaMemcpy(p + off, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<T> get(std::size_t n, std::size_t off) const {
    std::vector<T> h(n);
    if (n) {
      EXPECT_EQ(cudaMemcpy(h.data(), p + off, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return h;
  }
};

struct Shape {
  const char* name;
  gpu::LaunchShape s;
};
// Positional LaunchShape fields: lanes_per_thread, resident_grid, decode lanes, decode resident grid,
// division, vector_io, stream_min_blocks, device_slice, staged, table_narrow_rows, stream_tiles,
// stream_evict_first.
const Shape kShapes[] = {
    {"default", gpu::LaunchShape{}},  // the tile kernel, default cache policy
    {"tiles-evict-first", gpu::LaunchShape{4, false, 4, false, 0, true, 0, false, true, true, true, true}},
    {"scalar-io", gpu::LaunchShape{4, false, 4, false, 0, false, 0}},
    {"fastdiv", gpu::LaunchShape{4, false, 4, false, 1, true, 0}},
    {"hwdiv", gpu::LaunchShape{4, false, 4, false, 2, true, 0}},
    {"slices", gpu::LaunchShape{4, false, 4, false, 0, true, 0, false, true, true, false}},
    {"slices-fastdiv", gpu::LaunchShape{4, false, 4, false, 1, true, 0, false, true, true, false}},
    {"slices-ilp8-resident", gpu::LaunchShape{8, true, 8, true, 0, true, 0, false, true, true, false}},
    {"slices-minblocks8", gpu::LaunchShape{4, false, 4, false, 0, true, 8, false, true, true, false}},
    {"slices-device-slice", gpu::LaunchShape{4, false, 4, false, 0, true, 0, true, true, true, false}},
    {"slices-ilp4-resident-device-slice", gpu::LaunchShape{4, true, 4, true, 0, true, 0, true, true, true, false}},
    {"slices-ilp4-resident", gpu::LaunchShape{4, true, 4, true, 0, true, 0, false, true, true, false}},
    {"unstaged", gpu::LaunchShape{4, false, 4, false, 0, true, 0, false, false}},
    {"ilp8-unstaged", gpu::LaunchShape{8, false, 8, false, 0, true, 0, false, false}},
};

struct ShapeGuard {
  gpu::LaunchShape keep = gpu::launch_shape();
  ~ShapeGuard() { gpu::set_launch_shape(keep); }
};

// Lengths around the pair, warp and block-slice boundaries (4 and 8 lanes per thread, 256 threads).
const i64 kLengths[] = {0, 1, 2, 3, 31, 33, 1023, 1024, 1025, 2047, 2049, 4097, 8191, 100003};

// ids: padding (negative), page starts and ends, random tokens below pages * ps * widen.
std::vector<i64> make_ids(i64 n, i64 pages, i64 ps, i64 widen, std::mt19937_64& rng) {
  std::vector<i64> v(static_cast<std::size_t>(n));
  const i64 limit = pages * ps * widen;
  for (i64 i = 0; i < n; ++i) {
    const auto r = rng();
    i64 x = static_cast<i64>(r % static_cast<std::uint64_t>(limit));
    if (r % 17 == 0) x = -1 - static_cast<i64>(r % 5);
    if (r % 23 == 0) x = 0;
    if (r % 29 == 0) x = limit - 1;
    v[static_cast<std::size_t>(i)] = x;
  }
  return v;
}

std::vector<i64> make_v2p(i64 pages, std::mt19937_64& rng) {
  std::vector<i64> v(static_cast<std::size_t>(pages + 1));
  for (i64 p = 0; p <= pages; ++p) v[static_cast<std::size_t>(p)] = static_cast<i64>(rng() % 1000) - (p % 7 == 3 ? 1001 : 0);
  v[0] = 0;
  return v;
}

template <class T>
Vec<const T> cv(const std::vector<T>& v) { return {v.data(), static_cast<i64>(v.size())}; }
template <class T>
Vec<T> mv(std::vector<T>& v) { return {v.data(), static_cast<i64>(v.size())}; }

// One route over one (n, offset, alias) configuration under the current shape: host vs GPU.
// launch(ids, out) runs the route with device (or host) views; Out is the output element type.
template <class Out, class Host, class Dev>
void compare_route(const std::string& what, const std::vector<i64>& ids, i64 width, std::size_t off, bool alias,
                   Host&& host, Dev&& dev) {
  const i64 n = static_cast<i64>(ids.size());
  std::vector<Out> want(static_cast<std::size_t>(width), Out(55));
  host(cv(ids), mv(want));
  Buf<i64> din(ids.size() + 1);
  din.put(ids, off);
  if (alias) {
    // out is ids itself (int64 out, width == n): the result replaces the ids in place
    dev(Vec<const i64>{din.p + off, n}, Vec<Out>{reinterpret_cast<Out*>(din.p + off), n});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto got = din.get(ids.size(), off);
    ASSERT_EQ(std::vector<Out>(got.begin(), got.end()), want) << what;
    return;
  }
  Buf<Out> dout(static_cast<std::size_t>(width) + 1);
  dout.put(std::vector<Out>(static_cast<std::size_t>(width), Out(55)), off);
  dev(Vec<const i64>{din.p + off, n}, Vec<Out>{dout.p + off, width});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(dout.get(static_cast<std::size_t>(width), off), want) << what;
}

// host(a) / launch(a): an Args struct through its host route, or its launcher on the default stream.
#define KVADDR_TEST_HOST_AND_LAUNCH(fn, A)                        \
  [[maybe_unused]] void host(const A& a) { translate::fn(a); }   \
  [[maybe_unused]] void launch(const A& a) { gpu::launch_##fn(a, nullptr); }
KVADDR_HOST_ROUTES(KVADDR_TEST_HOST_AND_LAUNCH)
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_TEST_HOST_AND_LAUNCH)
#undef KVADDR_TEST_HOST_AND_LAUNCH
// A per-id route (KVADDR_PER_ID_ROUTE_SPEC): its spec's host route, the per-id launcher.
template <class A, Route R = PerIdRouteOf<A>::value>
void host(const A& a) { RouteSpec<R>::run(a); }
template <class A, Route R = PerIdRouteOf<A>::value>
void launch(const A& a) { gpu::launch(a, nullptr); }

// The host and the device copy of a table (v2p).
struct Tables {
  Vec<const i64> host, dev;
};

// compare_route of one route: make(in, table, out) builds its Args struct, with the host copy of the table for the
// host route and the device copy for the launcher.
template <class Out, class Make>
void compare_args(const std::string& what, const std::vector<i64>& ids, i64 width, std::size_t off, bool alias,
                  const Tables& t, Make make) {
  compare_route<Out>(
      what, ids, width, off, alias, [&](Vec<const i64> in, Vec<Out> out) { host(make(in, t.host, out)); },
      [&](Vec<const i64> in, Vec<Out> out) { launch(make(in, t.dev, out)); });
}

TEST(GpuStreamPaths, TokenRoutesEveryShapeLengthAlignmentAndAlias) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA GPU: " << why;
  const ShapeGuard guard;
  std::mt19937_64 rng(2026);
  const i64 pages = 300, M = 3;
  const std::vector<i64> v2p = make_v2p(pages, rng);
  Buf<i64> dv2p(v2p.size());
  dv2p.put(v2p, 0);
  const Tables t{cv(v2p), {dv2p.p, static_cast<i64>(v2p.size())}};
  for (const Shape& sh : kShapes) {
    gpu::set_launch_shape(sh.s);
    for (i64 ps : {i64(1), i64(3), i64(8), i64(16), i64(64), i64(100), i64(128)}) {
      for (i64 n : kLengths) {
        for (std::size_t off : {std::size_t(0), std::size_t(1)}) {
          for (bool alias : {false, true}) {
            const std::string what = std::string(sh.name) + " ps " + std::to_string(ps) + " n " + std::to_string(n) +
                                     " off " + std::to_string(off) + (alias ? " alias" : "");
            const std::vector<i64> ids = make_ids(n, pages, ps, 1, rng);
            compare_args<i64>("token " + what, ids, n, off, alias, t, [&](Vec<const i64> in, auto tab, Vec<i64> out) {
              return TokenTranslateArgs<i64>{in, tab, ps, M, out, Variant::production};
            });
            compare_args<i64>("swa b11 " + what, ids, n, off, alias, t, [&](Vec<const i64> in, auto tab, Vec<i64> out) {
              return SwaTranslateArgs<i64>{in, tab, ps, M, out, Variant::b11_swa_no_clamp};
            });
            compare_args<i64>("transfer " + what, ids, n, off, alias, t,
                              [&](Vec<const i64> in, auto tab, Vec<i64> out) {
                                return TransferIdsArgs{in, tab, ps, out, Variant::production};
                              });
            if (!alias) {  // int32 out (8-byte pair stores)
              compare_args<i32>("token int32 " + what, ids, n, off, false, t,
                                [&](Vec<const i64> in, auto tab, Vec<i32> out) {
                                  return TokenTranslateArgs<i32>{in, tab, ps, M, out, Variant::production};
                                });
            }
            for (i64 dcp : {i64(1), i64(2), i64(3), i64(4)}) {
              const std::vector<i64> w = make_ids(n, pages, ps, dcp, rng);
              const std::string wd = what + " dcp " + std::to_string(dcp);
              compare_args<i64>("dcp_read " + wd, w, n, off, alias, t, [&](Vec<const i64> in, auto tab, Vec<i64> out) {
                return DcpReadTranslateArgs{in, tab, ps, M, dcp, out, Variant::production};
              });
              for (Variant v : {Variant::production, Variant::b06_stale_tail, Variant::e02_minus_one_sentinel}) {
                const i64 rank = dcp - 1, width = alias ? n : n + 37;
                compare_args<i64>("write_loc " + wd, w, width, off, alias, t,
                                  [&](Vec<const i64> in, auto tab, Vec<i64> out) {
                                    return WriteLocArgs{in, tab, ps, M, dcp, rank, out, v};
                                  });
              }
            }
          }
        }
      }
    }
  }
}

TEST(GpuStreamPaths, MambaEveryShapeLengthAndAlignment) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA GPU: " << why;
  const ShapeGuard guard;
  std::mt19937_64 rng(99);
  const i64 slots = 500;
  std::vector<i64> v2p = make_v2p(slots, rng);
  Buf<i64> dv2p(v2p.size());
  dv2p.put(v2p, 0);
  const Tables t{cv(v2p), {dv2p.p, static_cast<i64>(v2p.size())}};
  for (const Shape& sh : kShapes) {
    gpu::set_launch_shape(sh.s);
    for (i64 n : kLengths) {
      for (std::size_t off : {std::size_t(0), std::size_t(1)}) {
        std::vector<i64> ids(static_cast<std::size_t>(n));
        for (auto& x : ids) x = static_cast<i64>(rng() % static_cast<std::uint64_t>(slots));
        compare_args<i32>(
            std::string("mamba clamp ") + sh.name + " n " + std::to_string(n) + " off " + std::to_string(off), ids, n,
            off, false, t,
            [](Vec<const i64> in, auto tab, Vec<i32> out) { return MambaTranslateArgs{in, tab, true, out}; });
      }
    }
  }
}

}  // namespace
