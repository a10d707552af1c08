#pragma once
// Floor kernels of the bench (BenchFloor rows, kernels/src/bench_api.cu): the bare access patterns of
// the workloads without their lane functions, validation or variants. Internal to bench_api.cu (nvcc only).
#include <cuda_runtime.h>

#include <cstdint>

namespace kvaddr::gpu::bench_floors {

using i64 = std::int64_t;
using i32 = std::int32_t;

// Floors (BenchFloor): a bare random gather out[i] = table[ids[i]] (4 lanes per thread, streaming
// hints as the workloads), and a chain of `depth` dependent loads per lane:
// x = l0[i]; y = l1[x]; z = l2[y]; out[i] = z (depth 1 stores x).
// Load flavours of the bare gather (which cache path and DRAM fetch size a random 8-byte load uses).
enum class Ld { plain, cg, nc, l1_no_allocate, l2_128, l2_256 };
template <Ld F>
__device__ __forceinline__ i64 ld_flavour(const i64* p) {
  long long v;
  if constexpr (F == Ld::plain) {
    v = *reinterpret_cast<const long long*>(p);
  } else if constexpr (F == Ld::cg) {
    v = __ldcg(reinterpret_cast<const long long*>(p));
  } else if constexpr (F == Ld::nc) {
    v = __ldg(reinterpret_cast<const long long*>(p));
  } else if constexpr (F == Ld::l1_no_allocate) {
    asm volatile("ld.global.L1::no_allocate.s64 %0, [%1];" : "=l"(v) : "l"(p));
  } else if constexpr (F == Ld::l2_128) {
    asm volatile("ld.global.L2::128B.s64 %0, [%1];" : "=l"(v) : "l"(p));
  } else {
    asm volatile("ld.global.L2::256B.s64 %0, [%1];" : "=l"(v) : "l"(p));
  }
  return v;
}
__device__ __forceinline__ i64 ld_id(const i64* p) { return __ldcs(reinterpret_cast<const long long*>(p)); }
__device__ __forceinline__ i64 ld_id(const i32* p) { return __ldcs(p); }
__device__ __forceinline__ void st_out(i64* p, i64 v) { __stcs(reinterpret_cast<long long*>(p), static_cast<long long>(v)); }
__device__ __forceinline__ void st_out(i32* p, i64 v) { __stcs(p, static_cast<i32>(v)); }

template <Ld F, class Id, class Out>
__global__ void __launch_bounds__(256) k_gather(const Id* __restrict__ ids, const i64* __restrict__ table, i64 n,
                                                Out* __restrict__ out) {
  const i64 base = static_cast<i64>(blockIdx.x) * 1024 + threadIdx.x;
  i64 v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 i = base + k * 256;
    v[k] = i < n ? ld_id(ids + i) : 0;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 i = base + k * 256;
    if (i < n) st_out(out + i, ld_flavour<F>(table + v[k]));
  }
}

__global__ void __launch_bounds__(256) k_chain(const i32* __restrict__ l0, const i32* __restrict__ l1,
                                               const i64* __restrict__ l2, i64 n, int depth, i64* __restrict__ out) {
  const i64 i = static_cast<i64>(blockIdx.x) * 256 + threadIdx.x;
  if (i >= n) return;
  const i64 x = l0[i];
  if (depth == 1) {
    out[i] = x;
    return;
  }
  const i64 y = l1[x];
  out[i] = l2[y];
}

// Floor for the ps = 64 page tables: the bare chain of the same data, no validation, no lane
// function: out[b, c] = int32(v2p[req_to_token[rows[b], c * 64] >> 6] * 24), LANES columns a thread.
template <int LANES>
__global__ void __launch_bounds__(256) k_table_chain(const i32* __restrict__ r2t, i64 row_stride, const i64* __restrict__ rows,
                                                     const i64* __restrict__ v2p, i64 cols, i32* __restrict__ out) {
  const i64 b = blockIdx.y;
  const i64 row = rows[b];
#pragma unroll
  for (int k = 0; k < LANES; ++k) {
    const i64 c = (static_cast<i64>(blockIdx.x) * LANES + k) * 256 + threadIdx.x;
    if (c < cols) {
      const i64 tok = __ldcs(r2t + row * row_stride + c * 64);
      out[b * cols + c] = static_cast<i32>(v2p[tok >> 6] * 24);
    }
  }
}

// 16-byte load and store, evict-first (EF, as the table kernels and the slice streaming kernel) or under
// the default cache policy (as the tile streaming kernel's default).
template <bool EF>
__device__ __forceinline__ longlong2 ld_pair(const longlong2* p) {
  if constexpr (EF) return __ldcs(p);
  else return *p;
}
template <bool EF>
__device__ __forceinline__ void st_pair(longlong2* p, longlong2 v) {
  if constexpr (EF) __stcs(p, v);
  else *p = v;
}

// Floor of the streaming workloads: out[i] = in[i] over N int64, 16-byte loads and stores, 4 pairs a
// thread: the launch-sized copy that the streaming kernels are read against.
template <bool EF>
__global__ void __launch_bounds__(256) k_stream_copy(const longlong2* __restrict__ in, i64 pairs, longlong2* __restrict__ out) {
  const i64 base = static_cast<i64>(blockIdx.x) * 1024 + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 i = base + k * 256;
    if (i < pairs) st_pair<EF>(out + i, ld_pair<EF>(in + i));
  }
}

// Floor of the ps = 64 streaming token routes' access pattern: out[i] = v2p[in[i] >> 6] over N int64
// (in[i] >= 0), 16-byte loads and stores of in and out and one plain 8-byte gather per lane, 4 pairs a
// thread as the copy: what the token_translate/ps64 data costs without the lane arithmetic.
template <bool EF>
__global__ void __launch_bounds__(256) k_stream_gather(const longlong2* __restrict__ in, i64 pairs,
                                                       const i64* __restrict__ v2p, longlong2* __restrict__ out) {
  const i64 base = static_cast<i64>(blockIdx.x) * 1024 + threadIdx.x;
  longlong2 v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 i = base + k * 256;
    if (i < pairs) v[k] = ld_pair<EF>(in + i);
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const i64 i = base + k * 256;
    if (i < pairs) st_pair<EF>(out + i, make_longlong2(v2p[v[k].x >> 6], v2p[v[k].y >> 6]));
  }
}

}  // namespace kvaddr::gpu::bench_floors
