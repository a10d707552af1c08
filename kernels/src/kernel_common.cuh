#pragma once
// Device helpers shared by the kernel translation units (kernels_per_id.cu, kernels_rows.cu): launch
// constants and grids, the masked gather and staged gathers, block slices, streaming loads / stores and
// the divisor dispatch. Internal to kvaddr_kernels (nvcc only).
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/translate/fast_div.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::gpu::detail {

using i64 = std::int64_t;
using i32 = std::int32_t;
namespace L = kvaddr::lanes;

constexpr int kThreads = 256;
constexpr int kIlpWide = 8;        // independent lanes per thread (loads in flight): decode default
constexpr int kIlpNarrow = 4;      // elementwise and table kernels default
constexpr i64 kMaxGridY = 65535;
constexpr i64 kMaxGridX = 1 << 20;

inline void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw CudaError(call, static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
}
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// Masked load with fill 0, no bounds check (Triton's tl.load(ptr + i, mask, other=0)).
struct Gather {
  const i64* table;
  KVADDR_HD i64 operator()(i64 i, bool mask) const { return mask ? table[i] : i64(0); }
};

// ---- staged evaluation of one-gather lanes ----
// Every lane function calls its table gather at most once (lanes.hpp). Evaluated one lane after
// another, each lane uses its gathered value before the next lane's gather is issued, so a thread
// waits one table round trip per lane. staged_lanes evaluates K lanes in three passes: each lane
// with a gather that only records (index, mask) and returns 0 (the result is dropped), then the K
// masked table loads back to back, then each lane again with a gather that returns its loaded value;
// the K round trips overlap. The values and the loads are those of K direct calls with Gather.
struct GatherRecord {
  i64 index = 0;
  bool mask = false;
};
struct RecordingGather {
  GatherRecord* rec;
  __device__ i64 operator()(i64 i, bool mask) const {
    rec->index = i;
    rec->mask = mask;
    return 0;
  }
};
struct LoadedGather {
  i64 value;
  __device__ i64 operator()(i64, bool) const { return value; }
};

// lane(k, gather) evaluates lane k with `gather` (a lane that is off returns 0 without calling it).
template <int K, class Lane>
__device__ __forceinline__ void staged_lanes(const i64* table, const Lane& lane, i64 (&out)[K]) {
  GatherRecord rec[K];
#pragma unroll
  for (int k = 0; k < K; ++k) (void)lane(k, RecordingGather{&rec[k]});
  i64 loaded[K];
#pragma unroll
  for (int k = 0; k < K; ++k) loaded[k] = rec[k].mask ? table[rec[k].index] : i64(0);
#pragma unroll
  for (int k = 0; k < K; ++k) out[k] = lane(k, LoadedGather{loaded[k]});
}

inline i64 ceil_div_host(i64 n, i64 d) { return (n + d - 1) / d; }
inline unsigned grid_1d(i64 lanes, i64 per_block) {
  i64 g = ceil_div_host(lanes, per_block);
  if (g < 1) g = 1;
  if (g > kMaxGridX) g = kMaxGridX;
  return static_cast<unsigned>(g);
}
extern LaunchShape g_shape;  // process-wide (set_launch_shape; defined in kernels.cu)

// Blocks of `kernel` (kThreads each) resident on the whole device at once, cached per kernel.
inline i64 resident_blocks(const void* kernel) {
  static std::mutex mu;
  static std::unordered_map<const void*, i64> cache;
  const std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(kernel);
  if (it != cache.end()) return it->second;
  int dev = 0, sms = 1, per_sm = 1;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    per_sm = 2048 / kThreads;  // full occupancy (the query only fails where launching would)
  }
  const i64 r = i64(sms) * (per_sm < 1 ? 1 : per_sm);
  cache.emplace(kernel, r);
  return r;
}

// Row-kernel grid: columns on x, rows on y. Wide shape: at most one resident wave (gx * gy <=
// resident blocks, gx >= 1), every block then owns an equal slice of its rows' columns, so no
// partial last wave; narrow (previous) shape: one block per kThreads * ILP columns.
inline dim3 grid_rows(i64 cols, i64 rows, int ilp, bool resident, const void* kernel) {
  i64 gx = ceil_div_host(cols, i64(kThreads) * ilp);
  if (gx < 1) gx = 1;
  if (gx > 4096) gx = 4096;
  i64 gy = rows < 1 ? 1 : (rows > kMaxGridY ? kMaxGridY : rows);
  if (resident) {
    const i64 res = resident_blocks(kernel);
    const i64 fit = res / gy;
    if (fit >= 1 && fit < gx) gx = fit;
    if (fit < 1) gx = 1;
  }
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy), 1);
}
inline unsigned grid_elems(i64 n, int ilp, const void* kernel) {
  i64 g = ceil_div_host(n, i64(kThreads) * ilp);
  if (g < 1) g = 1;
  if (g_shape.resident_grid) {
    const i64 res = resident_blocks(kernel);
    if (g > res) g = res;
  }
  if (g > kMaxGridX) g = kMaxGridX;
  return static_cast<unsigned>(g);
}

// The slice [lo, hi) of [0, n) owned by block `part` of `parts`: equal slices, rounded up to whole
// warps (32 lanes) so that every warp's loads stay aligned.
// One block owns everything without a division; slices that fit 31 bits divide in 32 bits (the
// same quotient as the 64-bit division, a fraction of its instructions).
__device__ __forceinline__ void block_slice(i64 n, i64 part, i64 parts, i64& lo, i64& hi) {
  if (parts == 1) {
    lo = 0;
    hi = n;
    return;
  }
  i64 per = 0;
  if (n >= 0 && n < (i64(1) << 31) && parts < (i64(1) << 31))
    per = static_cast<i64>((static_cast<std::uint32_t>(n) + static_cast<std::uint32_t>(parts) - 1u) /
                           static_cast<std::uint32_t>(parts));
  else
    per = (n + parts - 1) / parts;
  per = (per + 31) & ~i64(31);
  lo = part * per;
  hi = lo + per < n ? lo + per : n;
}

// block_slice's slice length of `parts` blocks over n lanes, computed on the host (the streaming kernels
// take it as an argument instead of dividing in every thread).
inline i64 slice_length(i64 n, i64 parts) {
  const i64 per = ceil_div_host(n, parts);
  return (per + 31) & ~i64(31);
}

// Streaming (evict-first) loads and stores for data touched once (ids, req_to_token, outputs), so
// the L2 keeps the gathered tables; EvictFirst = false: the same accesses under the default cache
// policy (the tile streaming kernel's default, LaunchShape::stream_evict_first). Cache hints only:
// values are unchanged.
template <bool EvictFirst = true>
__device__ __forceinline__ i64 ld_stream(const i64* p) {
  const auto* q = reinterpret_cast<const long long*>(p);
  if constexpr (EvictFirst) return __ldcs(q);
  else return *q;
}
template <bool EvictFirst = true>
__device__ __forceinline__ i32 ld_stream(const i32* p) {
  if constexpr (EvictFirst) return __ldcs(p);
  else return *p;
}
template <bool EvictFirst = true>
__device__ __forceinline__ void st_stream(i64* p, i64 v) {
  auto* q = reinterpret_cast<long long*>(p);
  if constexpr (EvictFirst) __stcs(q, static_cast<long long>(v));
  else *q = static_cast<long long>(v);
}
template <bool EvictFirst = true>
__device__ __forceinline__ void st_stream(i32* p, i32 v) {
  if constexpr (EvictFirst) __stcs(p, v);
  else *p = v;
}

// 16-byte accesses of two consecutive lanes (int64 in; int64 or int32 out).
template <bool EvictFirst = true>
__device__ __forceinline__ void ld_stream2(const i64* p, i64& a, i64& b) {
  const auto* q = reinterpret_cast<const longlong2*>(p);
  longlong2 v;
  if constexpr (EvictFirst) v = __ldcs(q);
  else v = *q;
  a = v.x;
  b = v.y;
}
template <bool EvictFirst = true>
__device__ __forceinline__ void st_stream2(i64* p, i64 a, i64 b) {
  const longlong2 v = make_longlong2(static_cast<long long>(a), static_cast<long long>(b));
  auto* q = reinterpret_cast<longlong2*>(p);
  if constexpr (EvictFirst) __stcs(q, v);
  else *q = v;
}
template <bool EvictFirst = true>
__device__ __forceinline__ void st_stream2(i32* p, i64 a, i64 b) {
  const int2 v = make_int2(static_cast<i32>(a), static_cast<i32>(b));
  auto* q = reinterpret_cast<int2*>(p);
  if constexpr (EvictFirst) __stcs(q, v);
  else *q = v;
}

// Page sizes that get a compile-time specialisation (division by a constant); 0 = run time.
template <i64 PS>
__device__ __forceinline__ i64 page_size(i64 runtime) { return PS != 0 ? PS : runtime; }

template <class F>
void dispatch_ps(i64 ps, F&& f) {
  if (ps == 1) f(std::integral_constant<i64, 1>{});
  else if (ps == 64) f(std::integral_constant<i64, 64>{});
  else f(std::integral_constant<i64, 0>{});
}

// The divisor values with a compile-time specialisation, as powers of two 2^K: the common page
// sizes 1, 16, 32, 64, 128 and DCP sizes 1, 2: the per-id launcher's ConstPow2 positions of a Pow2Pack.
template <int... K>
struct Shifts {};
using PageShifts = Shifts<0, 4, 5, 6, 7>;
using DcpShifts = Shifts<0, 1>;

}  // namespace kvaddr::gpu::detail
