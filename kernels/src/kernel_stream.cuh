#pragma once
// Private to kernels/: the streaming kernels (one output lane per input lane, 16-byte vector accesses
// where the pointers allow, a tail of constant lanes) and their launcher, run by the per-id routes'
// generic launcher (kernels_per_id.cu).
#include "kernel_common.cuh"

namespace kvaddr::gpu::detail {

// ---- the slice kernel (LaunchShape::stream_tiles false, unaligned pointers, grids past kMaxGridX
// tiles): lane i < n reads in[i] and writes out[i]; lanes [n, w) get op.tail() ----
// (aliasing-safe: each lane's input is read by the thread that writes its output, before it writes).
// Op::operator()(i64 value) -> i64 runs the lane function. Block blockIdx.x owns the slice [lo, hi)
// of [0, w) (block_slice, warp-aligned so lo is even). With `vec` (in 16-byte aligned, out aligned to
// two elements), the whole pairs of input lanes of the slice move as 16-byte loads and 16- or 8-byte
// stores, ILP pairs per thread per pass; the rest of the slice (an odd last input lane, tail lanes)
// and every lane without `vec` take the scalar path, ILP lanes per thread per pass.
// MINB: the minimum resident blocks per SM asked of the register allocator (__launch_bounds__).
template <class Out, class Op, int ILP, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) k_stream(const i64* __restrict__ in, i64 n, Out* out, i64 w, Op op,
                                                           bool vec, i64 per) {
  i64 lo = 0, hi = 0;
  if (per > 0) {  // the slice length from the host (slice_length): block b owns [b * per, (b + 1) * per)
    lo = i64(blockIdx.x) * per;
    hi = lo + per < w ? lo + per : w;
  } else {
    block_slice(w, blockIdx.x, gridDim.x, lo, hi);
  }
  i64 first_scalar = lo;
  if (vec) {
    const i64 mid = hi < n ? hi : n;
    const i64 pend = mid > lo ? lo + ((mid - lo) & ~i64(1)) : lo;  // end of the whole input pairs
    for (i64 p = lo + 2 * i64(threadIdx.x); p < pend; p += 2 * i64(kThreads) * ILP) {
      i64 a[ILP], b[ILP];
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const i64 i = p + 2 * i64(k) * kThreads;
        a[k] = 0;
        b[k] = 0;
        if (i < pend) ld_stream2(in + i, a[k], b[k]);
      }
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const i64 i = p + 2 * i64(k) * kThreads;
        if (i < pend) {
          a[k] = op(a[k]);
          b[k] = op(b[k]);
        }
      }
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const i64 i = p + 2 * i64(k) * kThreads;
        if (i < pend) st_stream2(out + i, a[k], b[k]);
      }
    }
    first_scalar = pend;
  }
  for (i64 base = first_scalar + threadIdx.x; base < hi; base += kThreads * ILP) {
    i64 v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 i = base + k * kThreads;
      v[k] = i < hi && i < n ? ld_stream(in + i) : 0;
    }
    i64 r[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 i = base + k * kThreads;
      r[k] = i < hi ? (i < n ? op(v[k]) : op.tail()) : 0;
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 i = base + k * kThreads;
      if (i < hi) st_stream(out + i, static_cast<Out>(r[k]));
    }
  }
}

// ---- the default streaming kernel: one tile of kTileLanes lanes a block, no loop ----
// Thread t of block b owns the pairs (lanes 2j, 2j + 1) j = b * kTilePairs * kThreads + k * kThreads + t,
// k < kTilePairs.
// A pair whose lanes are both input lanes (2j + 1 < n) moves as one 16-byte load and one 16- or 8-byte
// store (in 16-byte aligned, out aligned to two elements: vector_ok); the last odd input lane and the
// tail lanes [n, w) take 8-byte accesses. A thread issues both its loads before its first lane function,
// and the kernel keeps 25-32 registers a thread for the lanes at the common page and DCP sizes
// (compile-time divisors: 8 blocks a SM), where the slice kernel above takes up to 59. Same reads and writes per lane as
// k_stream; aliasing-safe for the same reason (out[i] is written by the thread that read in[i], after
// reading it). EvictFirst: the cache policy of the id loads and output stores
// (LaunchShape::stream_evict_first); the table gathers are plain loads either way.
constexpr int kTilePairs = 2;                       // pairs a thread
constexpr i64 kTileLanes = 2 * kTilePairs * kThreads;  // lanes a block
template <class Out, class Op, bool EvictFirst>
__global__ void __launch_bounds__(kThreads) k_stream_tiles(const i64* __restrict__ in, i64 n, Out* out, i64 w, Op op) {
  const i64 first = i64(blockIdx.x) * (kTilePairs * kThreads) + threadIdx.x;  // this thread's first pair
  i64 a[kTilePairs], b[kTilePairs];
#pragma unroll
  for (int k = 0; k < kTilePairs; ++k) {
    const i64 i = 2 * (first + k * kThreads);
    if (i + 1 < n) ld_stream2<EvictFirst>(in + i, a[k], b[k]);
  }
#pragma unroll
  for (int k = 0; k < kTilePairs; ++k) {
    const i64 i = 2 * (first + k * kThreads);
    if (i + 1 < n) {
      st_stream2<EvictFirst>(out + i, op(a[k]), op(b[k]));
    } else if (i < w) {  // the odd last input lane, tail lanes
      for (i64 j = i; j < i + 2 && j < w; ++j)
        st_stream<EvictFirst>(out + j, static_cast<Out>(j < n ? op(ld_stream<EvictFirst>(in + j)) : op.tail()));
    }
  }
}

template <class Out>
bool vector_ok(const i64* in, const Out* out) {
  return g_shape.vector_io && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % (2 * sizeof(Out)) == 0;
}

template <int ILP, int MINB, class Out, class Op>
void launch_stream_ilp(const i64* in, i64 n, Out* out, i64 w, Op op, cudaStream_t s) {
  const bool vec = vector_ok(in, out);
  const void* k = reinterpret_cast<const void*>(&k_stream<Out, Op, ILP, MINB>);
  const unsigned grid = grid_elems(w, vec ? 2 * ILP : ILP, k);
  const i64 per = g_shape.device_slice ? 0 : slice_length(w, grid);
  k_stream<Out, Op, ILP, MINB><<<grid, kThreads, 0, s>>>(in, n, out, w, op, vec, per);
}

// Lanes [0, n) from `in`, [n, w) the tail value (w >= n; w == n for the elementwise routes).
// LaunchShape::stream_tiles with 16-byte access (vector_ok) and at most kMaxGridX tiles: k_stream_tiles;
// otherwise the slice kernel k_stream.
template <class Out, class Op>
void launch_stream(const i64* in, i64 n, Out* out, i64 w, Op op, cudaStream_t s, const char* name) {
  if (w <= 0) return;
  const i64 tiles = ceil_div_host(w, kTileLanes);
  if (g_shape.stream_tiles && tiles <= kMaxGridX && vector_ok(in, out)) {
    const auto grid = static_cast<unsigned>(tiles);
    if (g_shape.stream_evict_first) k_stream_tiles<Out, Op, true><<<grid, kThreads, 0, s>>>(in, n, out, w, op);
    else k_stream_tiles<Out, Op, false><<<grid, kThreads, 0, s>>>(in, n, out, w, op);
    check_launch(name);
    return;
  }
  if (g_shape.lanes_per_thread >= kIlpWide) launch_stream_ilp<kIlpWide, 1>(in, n, out, w, op, s);
  else if (g_shape.stream_min_blocks >= 8) launch_stream_ilp<kIlpNarrow, 8>(in, n, out, w, op, s);
  else launch_stream_ilp<kIlpNarrow, 1>(in, n, out, w, op, s);
  check_launch(name);
}

}  // namespace kvaddr::gpu::detail
