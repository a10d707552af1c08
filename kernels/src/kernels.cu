// CUDA kernels of every GPU route (spec §4.1-4.13). Each kernel instantiates the lane functions of
// kvaddr/translate/lanes.hpp with plain int64_t and a device gather that is a masked load with
// fill 0 and NO bounds check (so a planted bug such as B09 really reads outside the table and
// compute-sanitizer memcheck can report it). No arithmetic of a route is re-derived here: the
// kernels only decide which lanes run (grids, row/column loops) and where results are stored.
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

namespace kvaddr::gpu {
namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;
namespace L = kvaddr::lanes;

constexpr int kThreads = 256;
constexpr int kIlpWide = 8;        // independent lanes per thread (loads in flight): decode default
constexpr int kIlpNarrow = 4;      // elementwise and table kernels default
constexpr i64 kMaxGridY = 65535;
constexpr i64 kMaxGridX = 1 << 20;

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw CudaError(call, static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
}
void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

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

i64 ceil_div_host(i64 n, i64 d) { return (n + d - 1) / d; }
unsigned grid_1d(i64 lanes, i64 per_block) {
  i64 g = ceil_div_host(lanes, per_block);
  if (g < 1) g = 1;
  if (g > kMaxGridX) g = kMaxGridX;
  return static_cast<unsigned>(g);
}
LaunchShape g_shape{};  // process-wide (set_launch_shape)

// Blocks of `kernel` (kThreads each) resident on the whole device at once, cached per kernel.
i64 resident_blocks(const void* kernel) {
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
dim3 grid_rows(i64 cols, i64 rows, int ilp, bool resident, const void* kernel) {
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
unsigned grid_elems(i64 n, int ilp, const void* kernel) {
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
i64 slice_length(i64 n, i64 parts) {
  const i64 per = ceil_div_host(n, parts);
  return (per + 31) & ~i64(31);
}

// Streaming (evict-first) loads and stores for data touched once (ids, req_to_token, outputs), so
// the L2 keeps the gathered tables. Cache hints only: values are unchanged.
__device__ __forceinline__ i64 ld_stream(const i64* p) { return __ldcs(reinterpret_cast<const long long*>(p)); }
__device__ __forceinline__ i64 ld_stream(const i32* p) { return __ldcs(p); }
__device__ __forceinline__ void st_stream(i64* p, i64 v) { __stcs(reinterpret_cast<long long*>(p), static_cast<long long>(v)); }
__device__ __forceinline__ void st_stream(i32* p, i32 v) { __stcs(p, v); }

// 16-byte accesses of two consecutive lanes (int64 in; int64 or int32 out), evict-first.
__device__ __forceinline__ void ld_stream2(const i64* p, i64& a, i64& b) {
  const longlong2 v = __ldcs(reinterpret_cast<const longlong2*>(p));
  a = v.x;
  b = v.y;
}
__device__ __forceinline__ void st_stream2(i64* p, i64 a, i64 b) {
  __stcs(reinterpret_cast<longlong2*>(p), make_longlong2(static_cast<long long>(a), static_cast<long long>(b)));
}
__device__ __forceinline__ void st_stream2(i32* p, i64 a, i64 b) {
  __stcs(reinterpret_cast<int2*>(p), make_int2(static_cast<i32>(a), static_cast<i32>(b)));
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

// Divisor arguments of the token lanes (lanes.hpp, divisor_arg): a compile-time constant, a run-time
// int64 (the hardware-less 64-bit division subroutine), or a FastDivisor (shift for powers of two,
// multiply-high otherwise). `type` is the lane's divisor type D, get() its argument.
template <i64 N>
struct FixedDiv {
  using type = i64;
  __device__ static constexpr i64 get() { return N; }
};
struct HwDiv {
  using type = i64;
  i64 d;
  __device__ i64 get() const { return d; }
};
struct FastDiv {
  using type = FastDivisor;
  FastDivisor d;
  __device__ const FastDivisor& get() const { return d; }
};

// The divisor values with a compile-time specialisation (FixedDiv); pick(v, f) calls f with the
// FixedDiv of v when v is in the set, else with a FastDiv of v.
template <i64... Ns>
struct DivSet {
  template <class F>
  static void pick(i64 v, F&& f) {
    bool done = false;
    ((!done && v == Ns ? (f(FixedDiv<Ns>{}), done = true) : false), ...);
    if (!done) f(FastDiv{FastDivisor::of(v)});
  }
};
using PageSizes = DivSet<1, 16, 32, 64, 128>;  // the common page sizes
using DcpSizes = DivSet<1, 2>;                 // the common DCP sizes

// LaunchShape::division: 0 = FixedDiv for the values of PageSizes / DcpSizes, FastDiv otherwise;
// 1 = FastDiv always; 2 = run-time int64 division always.
template <class F>
void dispatch_div(i64 ps, F&& f) {
  if (g_shape.division == 2) return f(HwDiv{ps});
  if (g_shape.division == 1) return f(FastDiv{FastDivisor::of(ps)});
  PageSizes::pick(ps, f);
}
// Two divisors (ps, dcp_size) under the same mode.
template <class F>
void dispatch_div2(i64 ps, i64 dcp, F&& f) {
  if (g_shape.division == 2) return f(HwDiv{ps}, HwDiv{dcp});
  if (g_shape.division == 1) return f(FastDiv{FastDivisor::of(ps)}, FastDiv{FastDivisor::of(dcp)});
  PageSizes::pick(ps, [&](auto p) { DcpSizes::pick(dcp, [&](auto d) { f(p, d); }); });
}

// ---- streaming routes: lane i < n reads in[i] and writes out[i]; lanes [n, w) get op.tail() ----
// (aliasing-safe: each lane's input is read by the thread that writes its output, before it writes).
// Op::operator()(i64 value) -> i64 runs the lane function. Block blockIdx.x owns the slice [lo, hi)
// of [0, w) (block_slice, warp-aligned so lo is even). With `vec` (in 16-byte aligned, out aligned to
// two elements), the whole pairs of input lanes of the slice move as 16-byte loads and 16- or 8-byte
// stores, ILP pairs per thread per pass; the rest of the slice (an odd last input lane, tail lanes)
// and every lane without `vec` take the scalar path, ILP lanes per thread per pass.
// MINB: the minimum resident blocks per SM asked of the register allocator (__launch_bounds__).
template <class Out, class Op, int ILP, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) k_stream(const i64* __restrict__ in, i64 n, Out* out, i64 w, Op op,
                                                           bool vec, i64 per, bool staged) {
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
      if (staged) {
        i64 y[2 * ILP];
        staged_lanes<2 * ILP>(
            op.g.table,
            [&](int j, const auto& g) {
              const i64 i = p + 2 * i64(j / 2) * kThreads;
              return i < pend ? op.eval(j % 2 ? b[j / 2] : a[j / 2], g) : i64(0);
            },
            y);
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
          a[k] = y[2 * k];
          b[k] = y[2 * k + 1];
        }
      } else {
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
          const i64 i = p + 2 * i64(k) * kThreads;
          if (i < pend) {
            a[k] = op(a[k]);
            b[k] = op(b[k]);
          }
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
    if (staged) {
      staged_lanes<ILP>(
          op.g.table,
          [&](int k, const auto& g) {
            const i64 i = base + k * kThreads;
            return i < hi && i < n ? op.eval(v[k], g) : i64(0);
          },
          r);
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const i64 i = base + k * kThreads;
        if (!(i < hi)) r[k] = 0;
        else if (!(i < n)) r[k] = op.tail();
      }
    } else {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const i64 i = base + k * kThreads;
        r[k] = i < hi ? (i < n ? op(v[k]) : op.tail()) : 0;
      }
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 i = base + k * kThreads;
      if (i < hi) st_stream(out + i, static_cast<Out>(r[k]));
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
  k_stream<Out, Op, ILP, MINB><<<grid, kThreads, 0, s>>>(in, n, out, w, op, vec, per, g_shape.staged);
}

// Lanes [0, n) from `in`, [n, w) the tail value (w >= n; w == n for the elementwise routes).
template <class Out, class Op>
void launch_stream(const i64* in, i64 n, Out* out, i64 w, Op op, cudaStream_t s, const char* name) {
  if (w <= 0) return;
  if (g_shape.lanes_per_thread >= kIlpWide) launch_stream_ilp<kIlpWide, 1>(in, n, out, w, op, s);
  else if (g_shape.stream_min_blocks >= 8) launch_stream_ilp<kIlpNarrow, 8>(in, n, out, w, op, s);
  else launch_stream_ilp<kIlpNarrow, 1>(in, n, out, w, op, s);
  check_launch(name);
}

template <class Out, class Op>
void launch_elementwise(const i64* in, i64 n, Out* out, Op op, cudaStream_t s, const char* name) {
  launch_stream<Out>(in, n, out, n, op, s, name);
}

// One token id through a v2p: the token_translate lane, or the swa_translate lane when Swa.
template <class DP, bool Swa>
struct TokenOp {
  Gather g; DP ps; i64 stride; Variant v;
  template <class G>
  __device__ i64 eval(i64 t, const G& gather) const {
    if constexpr (Swa) return L::swa_translate_lane<i64, typename DP::type>(t, gather, ps.get(), stride, v);
    else return L::token_translate_lane<i64, typename DP::type>(t, gather, ps.get(), stride, v);
  }
  __device__ i64 operator()(i64 t) const { return eval(t, g); }
  __device__ i64 tail() const { return 0; }
};
struct MambaOp {
  Gather g; bool clamp;
  template <class G>
  __device__ i64 eval(i64 slot, const G& gather) const { return L::mamba_lane<i64>(slot, gather, clamp); }
  __device__ i64 operator()(i64 slot) const { return eval(slot, g); }
  __device__ i64 tail() const { return 0; }
};
template <class DP, class DD>
struct DcpOp {
  Gather g; DP ps; i64 stride; DD dcp; Variant v;
  template <class G>
  __device__ i64 eval(i64 w, const G& gather) const {
    return L::dcp_read_lane<i64, typename DP::type, typename DD::type>(w, gather, ps.get(), stride, dcp.get(), v);
  }
  __device__ i64 operator()(i64 w) const { return eval(w, g); }
  __device__ i64 tail() const { return 0; }
};
template <class DP>
struct TransferOp {
  Gather g; DP ps; Variant v;
  template <class G>
  __device__ i64 eval(i64 t, const G& gather) const {
    return L::transfer_lane<i64, typename DP::type>(t, gather, ps.get(), v);
  }
  __device__ i64 operator()(i64 t) const { return eval(t, g); }
  __device__ i64 tail() const { return 0; }
};
// write_loc: lanes [0, N) translated; the tail [N, out_width) gets `fill` (the sink 0; E02: -1).
template <class DP, class DD>
struct WriteLocOp {
  Gather g; DP ps; i64 stride; DD dcp; i64 rank; Variant v; i64 fill;
  template <class G>
  __device__ i64 eval(i64 loc, const G& gather) const {
    return L::write_loc_lane<i64, typename DP::type, typename DD::type>(loc, gather, ps.get(), stride, dcp.get(), rank,
                                                                         v);
  }
  __device__ i64 operator()(i64 loc) const { return eval(loc, g); }
  __device__ i64 tail() const { return fill; }
};

// ---- table routes: rows on grid.y (strided); block x owns an equal slice of the row's columns,
// written in passes of ILP columns per thread ----
// Body::row(b) -> RowCtx (the row's per-batch loads, issued together so that they are not a chain
// of dependent DRAM accesses: .n = number of columns of row b to write, plus whatever the lanes
// need, e.g. the req_to_token row); Body::lane(ctx, b, c) -> value; Body::store(b, c, value).
struct RowCtx {
  i64 n = 0;    // columns to write
  i64 row = 0;  // req_to_token row (or any per-row value the body needs)
};

// A body with `static constexpr bool kStaged = true` splits its lane into token(ctx, b, c) (the
// req_to_token / page-table load) and entry(ctx, b, c, token, gather) (the one-gather lane), with
// lane(ctx, b, c) == entry(ctx, b, c, token(ctx, b, c), Gather{table()}); row_slice then issues
// the ILP token loads together and the ILP gathers together (staged_lanes) when `staged`.
template <class B, class = void>
struct StagedBody : std::false_type {};
template <class B>
struct StagedBody<B, std::void_t<decltype(B::kStaged)>> : std::bool_constant<B::kStaged> {};

template <int ILP, class Body>
__device__ __forceinline__ void row_slice(const Body& body, i64 b, bool staged) {
  const auto ctx = body.row(b);
  const i64 n = ctx.n;
  i64 lo = 0, hi = 0;
  block_slice(n, blockIdx.x, gridDim.x, lo, hi);
  for (i64 c0 = lo + threadIdx.x; c0 < hi; c0 += kThreads * ILP) {
    i64 r[ILP];
    bool direct = true;
    if constexpr (StagedBody<Body>::value) {
      if (staged) {
        direct = false;
        i64 tok[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
          const i64 c = c0 + k * kThreads;
          tok[k] = c < hi ? body.token(ctx, b, c) : 0;
        }
        staged_lanes<ILP>(
            body.table(),
            [&](int k, const auto& g) {
              const i64 c = c0 + k * kThreads;
              return c < hi ? body.entry(ctx, b, c, tok[k], g) : i64(0);
            },
            r);
      }
    }
    if (direct) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const i64 c = c0 + k * kThreads;
        r[k] = c < hi ? body.lane(ctx, b, c) : 0;
      }
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 c = c0 + k * kThreads;
      if (c < hi) body.store(b, c, r[k]);
    }
  }
}

template <class Body, int ILP>
__global__ void __launch_bounds__(kThreads) k_rows(Body body, i64 rows, bool staged) {
  for (i64 b = blockIdx.y; b < rows; b += gridDim.y) row_slice<ILP>(body, b, staged);
}

template <class Body>
void launch_rows(const Body& body, i64 rows, i64 max_cols, cudaStream_t s, const char* name) {
  if (rows <= 0) return;
  if (g_shape.lanes_per_thread >= kIlpWide) {
    const void* k = reinterpret_cast<const void*>(&k_rows<Body, kIlpWide>);
    k_rows<Body, kIlpWide><<<grid_rows(max_cols, rows, kIlpWide, g_shape.resident_grid, k), kThreads, 0, s>>>(body, rows,
                                                                                                     g_shape.staged);
  } else {
    const void* k = reinterpret_cast<const void*>(&k_rows<Body, kIlpNarrow>);
    k_rows<Body, kIlpNarrow><<<grid_rows(max_cols, rows, kIlpNarrow, g_shape.resident_grid, k), kThreads, 0, s>>>(
        body, rows, g_shape.staged);
  }
  check_launch(name);
}

// The req_to_token row of batch lane b, as route Spec chooses it (Spec::row): rows[b]; E10 plants
// the batch position b itself.
template <class Spec>
__device__ __forceinline__ i64 batch_row(const i64* rows, i64 b, Variant v) {
  return Spec::row(b, [rows](i64 lane) { return rows[lane]; }, v);
}

// Page-start token of column c of a req_to_token row (int32 ids widened to int64).
__device__ __forceinline__ i64 token_at(const Mat<const i32>& m, i64 row, i64 col) {
  return ld_stream(m.data + row * m.row_stride + col * m.col_stride);
}

// Table entry c of row b, narrowed to the int32 the kernels store (streaming store).
__device__ __forceinline__ void store_entry(const Mat<i32>& m, i64 b, i64 c, i64 v) {
  st_stream(m.data + b * m.row_stride + c * m.col_stride, static_cast<i32>(L::kv_narrow32<i64>(v)));
}

// §4.3 canonical_page_table and §4.11 full_prefill_table (identical argument fields): one
// prefix-only body; only the entry lane differs. E01 drops the max_pages bound (columns up to
// n_pages, at flat addresses like the host route), E10 reads row b; full prefill's one variant,
// B04, acts in its lane only, so the shared row arithmetic is its production one.
template <i64 PS, class Args>
struct PrefixTableBody {
  using Spec = std::conditional_t<std::is_same_v<Args, FullPrefillTableArgs>, RouteSpec<Route::full_prefill_table>,
                                  RouteSpec<Route::canonical_page_table>>;
  Args a;
  __device__ RowCtx row(i64 b) const {
    return {Spec::columns(a.seq_lens.data[b], page_size<PS>(a.page_size), a.max_pages, a.variant),
            batch_row<Spec>(a.req_pool_indices.data, b, a.variant)};
  }
  static constexpr bool kStaged = true;
  __device__ const i64* table() const { return a.v2p.data; }
  __device__ i64 token(const RowCtx& r, i64, i64 c) const {
    return token_at(a.req_to_token, r.row, c * page_size<PS>(a.page_size));
  }
  template <class G>
  __device__ i64 entry(const RowCtx&, i64, i64, i64 tok, const G& g) const {
    const i64 ps = page_size<PS>(a.page_size);
    if constexpr (std::is_same_v<Args, FullPrefillTableArgs>)
      return L::full_prefill_entry_lane<i64>(tok, g, ps, a.multiplier, a.variant);
    else
      return L::page_entry_lane<i64>(tok, g, ps, a.multiplier, a.variant);
  }
  __device__ i64 lane(const RowCtx& r, i64 b, i64 c) const { return entry(r, b, c, token(r, b, c), Gather{table()}); }
  __device__ void store(i64 b, i64 c, i64 v) const { store_entry(a.out, b, c, v); }
};

// read_table: live prefix [0, n) gets entries; with zero_tail, [n, max_pages) and rows [B, rows)
// get the sink 0. Columns are written as long as c < max(n, tail end).
template <i64 PS>
struct ReadTableBody {
  using Spec = RouteSpec<Route::read_table>;
  ReadTableArgs a;
  i64 batch;
  __device__ i64 live(i64 b) const {
    if (b >= batch) return 0;
    return Spec::columns<i64>(a.seq_lens.data[b] + a.seq_len_delta, page_size<PS>(a.page_size), a.max_pages,
                              a.variant);
  }
  // n: columns written (the live prefix, or max_pages with zero_tail); live_n: the live prefix;
  // row: the req_to_token row (0 for the padded rows [batch, rows), which only get the tail).
  struct Ctx : RowCtx {
    i64 live_n = 0;
  };
  __device__ Ctx row(i64 b) const {
    Ctx r;
    r.live_n = live(b);
    r.row = b < batch ? batch_row<Spec>(a.row_ids.data, b, a.variant) : 0;
    r.n = Spec::written_columns<i64>(r.live_n, a.max_pages, a.zero_tail);
    return r;
  }
  static constexpr bool kStaged = true;
  __device__ const i64* table() const { return a.v2p.data; }
  __device__ i64 token(const Ctx& r, i64, i64 c) const {
    return c >= r.live_n ? 0 : token_at(a.req_to_token, r.row, c * page_size<PS>(a.page_size));
  }
  template <class G>
  __device__ i64 entry(const Ctx& r, i64, i64 c, i64 tok, const G& g) const {
    // Zero tail (only reached when zero_tail); E02 fills the pad -1 instead of the sink 0.
    if (c >= r.live_n) return Spec::tail_fill<i64>(a.variant);
    // Only B09 and era_b_unclamped act inside the entry lane (as the host route); the other
    // variants act on the loop.
    const Variant ev = Spec::entry_variant(a.variant);
    return L::page_entry_lane<i64>(tok, g, page_size<PS>(a.page_size), a.multiplier, ev);
  }
  __device__ i64 lane(const Ctx& r, i64 b, i64 c) const { return entry(r, b, c, token(r, b, c), Gather{table()}); }
  __device__ void store(i64 b, i64 c, i64 v) const { store_entry(a.out, b, c, v); }
};

struct FlashmlaBody {
  using Spec = RouteSpec<Route::flashmla_block_table>;
  FlashmlaBlockTableArgs a;
  struct Ctx : RowCtx {
    i64 start = 0;
  };
  __device__ Ctx row(i64 b) const {
    Ctx r;
    const i64 n = Spec::pages<i64>(a.page_kernel_lens.data[b], a.page_size, a.variant);  // E09: floor
    r.n = Spec::columns(n, a.kv_indices.cols);  // never past the table width
    r.row = batch_row<Spec>(a.req_pool_indices.data, b, a.variant);
    r.start = (a.kv_start_idx.data != nullptr) ? a.kv_start_idx.data[b] : 0;
    return r;
  }
  static constexpr bool kStaged = true;
  __device__ const i64* table() const { return a.v2p.data; }
  __device__ i64 token(const Ctx& r, i64, i64 c) const {
    return token_at(a.req_to_token, r.row, r.start + c * a.page_size);
  }
  template <class G>
  __device__ i64 entry(const Ctx&, i64, i64, i64 tok, const G& g) const {
    if (!(a.v2p.data != nullptr)) return L::static_entry_lane<i64>(tok, a.page_size);
    return L::page_entry_lane<i64>(tok, g, a.page_size, a.multiplier, a.variant);
  }
  __device__ i64 lane(const Ctx& r, i64 b, i64 c) const { return entry(r, b, c, token(r, b, c), Gather{table()}); }
  __device__ void store(i64 b, i64 c, i64 v) const {
    a.kv_indices.data[b * a.kv_indices.row_stride + c * a.kv_indices.col_stride] = static_cast<i32>(L::kv_narrow32<i64>(v));
  }
};

struct EagerFunnelBody {
  EagerFunnelArgs a;
  __device__ RowCtx row(i64) const { return {a.page_table.cols, 0}; }
  static constexpr bool kStaged = true;
  __device__ const i64* table() const { return a.v2p.data; }
  __device__ i64 token(const RowCtx&, i64 b, i64 c) const {
    return a.page_table.data[b * a.page_table.row_stride + c * a.page_table.col_stride];
  }
  template <class G>
  __device__ i64 entry(const RowCtx&, i64, i64, i64 tok, const G& g) const {
    return L::eager_funnel_lane<i64>(tok, g, a.page_size, a.page_size * a.multiplier);
  }
  __device__ i64 lane(const RowCtx& r, i64 b, i64 c) const { return entry(r, b, c, token(r, b, c), Gather{table()}); }
  __device__ void store(i64 b, i64 c, i64 v) const { a.out.data[b * a.out.row_stride + c * a.out.col_stride] = v; }
};

struct ReadStreamBody {
  ReadStreamArgs a;
  // row: the row's first kv position (kv_start_idx, or 0)
  __device__ RowCtx row(i64 b) const {
    return {static_cast<i64>(a.indptr.data[b + 1]) - a.indptr.data[b],
            (a.kv_start_idx.data != nullptr) ? a.kv_start_idx.data[b] : 0};
  }
  __device__ i64 lane(const RowCtx& r, i64 b, i64 j) const {
    const i64 pos = r.row + j;
    const i64 col = L::kv_div<i64>(pos, a.page_size);
    const i64 entry = a.table.data[b * a.table.row_stride + col * a.table.col_stride];
    return L::stream_lane<i64>(entry, pos, a.page_size);
  }
  __device__ void store(i64 b, i64 j, i64 v) const {
    a.stream.data[a.indptr.data[b] + j] = static_cast<i32>(L::kv_narrow32<i64>(v));
  }
};

// ---- decode_metadata -----------------------------------------------------------------------------
struct DecodeParams {
  DecodeMetadataArgs a;
  int log2_ps;
};

// Block x = 0 of the last grid row writes cache_seqlens and the exclusive prefix sums cu_seqlens_k[0..B] (int32, the
// kernel's own accumulator width), by a block-wide scan over chunks of kThreads rows.
__device__ void decode_prefix_sums(const DecodeParams& p) {
  __shared__ i32 scan[kThreads];
  __shared__ i32 carry;
  const i64 B = p.a.seq_lens.size;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (i64 base = 0; base < B; base += kThreads) {
    const i64 b = base + threadIdx.x;
    const i32 len = b < B ? static_cast<i32>(L::kv_narrow32<i64>(p.a.seq_lens.data[b] + p.a.seq_len_delta)) : 0;
    if (b < B) p.a.cache_seqlens.data[b] = len;
    scan[threadIdx.x] = len;
    __syncthreads();
    for (int off = 1; off < kThreads; off <<= 1) {  // Hillis-Steele inclusive scan
      const i32 add = threadIdx.x >= static_cast<unsigned>(off) ? scan[threadIdx.x - off] : 0;
      __syncthreads();
      scan[threadIdx.x] = static_cast<i32>(static_cast<std::uint32_t>(scan[threadIdx.x]) + static_cast<std::uint32_t>(add));
      __syncthreads();
    }
    const i32 c0 = carry;
    if (b < B) p.a.cu_seqlens_k.data[b + 1] = static_cast<i32>(static_cast<std::uint32_t>(c0) + static_cast<std::uint32_t>(scan[threadIdx.x]));
    __syncthreads();
    if (threadIdx.x == kThreads - 1) carry = static_cast<i32>(static_cast<std::uint32_t>(c0) + static_cast<std::uint32_t>(scan[kThreads - 1]));
    __syncthreads();
  }
  if (threadIdx.x == 0) p.a.cu_seqlens_k.data[0] = 0;
}

// The page-table path of one decode_metadata launch, fixed at compile time so that each kernel
// carries only its own loads (one kernel with every path needed 79 registers at 4 lanes per
// thread): COPY = Era C (copy kernel_page_table), SWA = also write the SWA table, REMAP = Era B
// v2p (otherwise the static shift), LOG2 = log2(ps) when known at compile time, else -1.
template <bool COPY, bool SWA, bool REMAP, int LOG2>
struct DecodeBody {
  using Spec = RouteSpec<Route::decode_metadata>;
  DecodeParams p;
  __device__ int log2_ps() const { return LOG2 >= 0 ? LOG2 : p.log2_ps; }
  __device__ i64 ps() const { return LOG2 >= 0 ? (i64(1) << LOG2) : p.a.page_size; }
  __device__ RowCtx row(i64 b) const {
    if (p.a.skip_page_table) return {0, 0};
    const i64 n = Spec::columns<i64>(p.a.seq_lens.data[b] + p.a.seq_len_delta, ps(), log2_ps(), p.a.max_seq_pages);
    // Era C without SWA reads no req_to_token row.
    const i64 r = (!COPY || SWA) ? batch_row<Spec>(p.a.req_pool_indices.data, b, p.a.variant) : 0;
    return {n, r};
  }
  // The Era-B remap without SWA is one token load and one gather: staged (row_slice).
  static constexpr bool kStaged = REMAP && !COPY && !SWA;
  __device__ const i64* table() const { return p.a.v2p.data; }
  __device__ i64 token(const RowCtx& r, i64, i64 c) const { return token_at(p.a.req_to_token, r.row, c * ps()); }
  template <class G>
  __device__ i64 entry(const RowCtx&, i64, i64, i64 page_index, const G& g) const {
    return L::decode_entry_lane<i64>(page_index, g, log2_ps(), p.a.multiplier, p.a.variant);
  }
  __device__ i64 lane(const RowCtx& r, i64 b, i64 c) const {
    const DecodeMetadataArgs& a = p.a;
    const i64 page_index = (!COPY || SWA) ? token_at(a.req_to_token, r.row, c * ps()) : 0;
    if constexpr (SWA) {
      a.swa_page_table.data[b * a.swa_page_table.row_stride + c * a.swa_page_table.col_stride] = static_cast<i32>(
          L::kv_narrow32<i64>(L::decode_entry_lane<i64>(page_index, Gather{a.swa_v2p.data}, log2_ps(),
                                                        a.swa_multiplier, Variant{})));
    }
    if constexpr (COPY) {
      return a.kernel_page_table.data[b * a.kernel_page_table.row_stride + c * a.kernel_page_table.col_stride];
    } else if constexpr (REMAP) {
      return entry(r, b, c, page_index, Gather{a.v2p.data});
    } else {
      return (log2_ps() == 0) ? page_index : L::kv_shr<i64>(page_index, log2_ps());  // static: the shift only
    }
  }
  __device__ void store(i64 b, i64 c, i64 v) const { store_entry(p.a.page_table, b, c, v); }
};

// The grid has one extra row of blocks (y = gridDim.y - 1): its block x = 0 writes the prefix
// sums, concurrently with the page-table rows, so that the scan (one more dependent DRAM access
// plus the block-wide barriers) is not added to the critical path of a page-table block.
template <class Body, int ILP>
__global__ void __launch_bounds__(kThreads) k_decode_metadata(Body body, i64 rows, bool staged) {
  const unsigned table_rows = gridDim.y - 1;
  if (blockIdx.y == table_rows) {
    if (blockIdx.x == 0) decode_prefix_sums(body.p);
    return;
  }
  for (i64 b = blockIdx.y; b < rows; b += table_rows) row_slice<ILP>(body, b, staged);
}

// Grid of the page-table rows (capped one below the y limit) plus the prefix-sum row.
dim3 decode_grid(i64 cols, i64 rows, int ilp, const void* kernel) {
  dim3 g = grid_rows(cols, rows < kMaxGridY ? rows : kMaxGridY - 1, ilp, g_shape.decode_resident_grid, kernel);
  g.y += 1;
  return g;
}

template <class Body>
void launch_decode_body(const Body& body, i64 rows, cudaStream_t s) {
  const i64 cols = body.p.a.max_seq_pages;
  if (g_shape.decode_lanes_per_thread >= kIlpWide) {
    const void* k = reinterpret_cast<const void*>(&k_decode_metadata<Body, kIlpWide>);
    k_decode_metadata<Body, kIlpWide><<<decode_grid(cols, rows, kIlpWide, k), kThreads, 0, s>>>(body, rows, g_shape.staged);
  } else {
    const void* k = reinterpret_cast<const void*>(&k_decode_metadata<Body, kIlpNarrow>);
    k_decode_metadata<Body, kIlpNarrow><<<decode_grid(cols, rows, kIlpNarrow, k), kThreads, 0, s>>>(body, rows, g_shape.staged);
  }
}

// ---- kv_indices_inplace: fixed grid, n read on the device, grid-stride over [0, n) ---------------
constexpr unsigned kInplaceBlocks = 1024;
__global__ void __launch_bounds__(kThreads) k_kv_indices_inplace(KvIndicesInplaceArgs a) {
  i64 n = a.kv_indptr.data[a.batch_size];
  if (n > a.kv_indices.size) n = a.kv_indices.size;  // never past the buffer (the host route rejects it)
  if ((a.src.data != nullptr) && n > a.src.size) n = a.src.size;
  const i32* src = (a.src.data != nullptr) ? a.src.data : a.kv_indices.data;
  const Gather g{a.v2p.data};
  const i64 stride = a.page_size * a.multiplier;
  for (i64 i = static_cast<i64>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += static_cast<i64>(gridDim.x) * kThreads) {
    const i64 t = src[i];
    a.kv_indices.data[i] = static_cast<i32>(L::kv_narrow32<i64>(L::token_translate_lane<i64>(t, g, a.page_size, stride, Variant{})));
  }
}

// ---- envelope moves: page of the first token of each page-major run -------------------------------
__global__ void __launch_bounds__(kThreads) k_envelope_moves(EnvelopeMoveArgs a) {
  // grid_1d caps the grid at kMaxGridX blocks: the grid-stride loop covers runs past kMaxGridX * kThreads.
  const i64 runs = a.dst_tokens.size / a.page_size;
  const i64 step = static_cast<i64>(gridDim.x) * kThreads;
  for (i64 r = static_cast<i64>(blockIdx.x) * kThreads + threadIdx.x; r < runs; r += step) {
    a.dst_pages.data[r] = L::run_page_lane<i64>(a.dst_tokens.data[r * a.page_size], a.page_size);
    a.src_pages.data[r] = L::run_page_lane<i64>(a.src_tokens.data[r * a.page_size], a.page_size);
  }
}

// token_translate and swa_translate: ids through v2p with stride page_size * multiplier.
template <bool Swa, class Out, class Args>
void token_like_impl(const Args& a, const i64* v2p, i64 multiplier, cudaStream_t s, const char* name) {
  validate(a);
  const i64 stride = a.page_size * multiplier;
  dispatch_div(a.page_size, [&](auto ps) {
    launch_elementwise<Out>(a.ids.data, a.ids.size, a.out.data, TokenOp<decltype(ps), Swa>{Gather{v2p}, ps, stride, a.variant},
                            s, name);
  });
}
template <class Out>
void token_translate_impl(const TokenTranslateArgs<Out>& a, cudaStream_t s) {
  token_like_impl<false, Out>(a, a.v2p.data, a.multiplier, s, "token_translate");
}
template <class Out>
void swa_translate_impl(const SwaTranslateArgs<Out>& a, cudaStream_t s) {
  token_like_impl<true, Out>(a, a.swa_v2p.data, a.swa_multiplier, s, "swa_translate");
}

int log2_exact(i64 ps) {
  int l = 0;
  while ((i64(1) << l) < ps) ++l;
  return l;
}

}  // namespace

void set_launch_shape(const LaunchShape& shape) { g_shape = shape; }
LaunchShape launch_shape() { return g_shape; }

bool gpu_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    (void)cudaGetLastError();
    return false;
  }
  if (n < 1) {
    if (why) *why = "the CUDA runtime reports 0 devices";
    return false;
  }
  if (why) why->clear();
  return true;
}

void launch_token_translate(const TokenTranslateArgs<i64>& a, cudaStream_t s) { token_translate_impl(a, s); }
void launch_token_translate(const TokenTranslateArgs<i32>& a, cudaStream_t s) { token_translate_impl(a, s); }
void launch_swa_translate(const SwaTranslateArgs<i64>& a, cudaStream_t s) { swa_translate_impl(a, s); }
void launch_swa_translate(const SwaTranslateArgs<i32>& a, cudaStream_t s) { swa_translate_impl(a, s); }

void launch_flashmla_block_table(const FlashmlaBlockTableArgs& a, cudaStream_t s) {
  validate(a);
  launch_rows(FlashmlaBody{a}, a.req_pool_indices.size, a.kv_indices.cols, s, "flashmla_block_table");
}

// canonical_page_table and full_prefill_table: one launcher over PrefixTableBody.
template <class Args>
void launch_prefix_table(const Args& a, cudaStream_t s, const char* name) {
  validate(a);
  dispatch_ps(a.page_size, [&](auto ps_c) {
    launch_rows(PrefixTableBody<decltype(ps_c)::value, Args>{a}, a.req_pool_indices.size, a.max_pages, s, name);
  });
}

void launch_canonical_page_table(const CanonicalPageTableArgs& a, cudaStream_t s) {
  launch_prefix_table(a, s, "canonical_page_table");
}

void launch_read_table(const ReadTableArgs& a, cudaStream_t s) {
  validate(a);
  const i64 batch = a.row_ids.size;
  const i64 rows = a.zero_tail ? a.out.rows : batch;
  // B10 drops the max_pages bound: columns then run to n_pages, which the grid-stride loop covers.
  const i64 cols = has(a.variant, Behaviour::b10_no_max_pages_bound) ? a.out.cols : a.max_pages;
  dispatch_ps(a.page_size, [&](auto ps_c) {
    launch_rows(ReadTableBody<decltype(ps_c)::value>{a, batch}, rows, cols, s, "read_table");
  });
}

void launch_read_stream(const ReadStreamArgs& a, cudaStream_t s) {
  validate(a);
  const i64 batch = a.indptr.size - 1;
  launch_rows(ReadStreamBody{a}, batch, a.table.cols * a.page_size, s, "read_stream");
}

void launch_decode_metadata(const DecodeMetadataArgs& a, cudaStream_t s) {
  validate(a);
  const DecodeParams p{a, log2_exact(a.page_size)};
  const i64 rows = a.seq_lens.size;
  if (rows == 0) return;  // an empty batch launches nothing: cu_seqlens_k[0] keeps its old value
  const bool copy = a.kernel_page_table.data != nullptr, swa = a.swa_v2p.data != nullptr, remap = a.v2p.data != nullptr;
  if (copy && swa) launch_decode_body(DecodeBody<true, true, false, -1>{p}, rows, s);
  else if (copy) launch_decode_body(DecodeBody<true, false, false, -1>{p}, rows, s);
  else if (swa && remap) launch_decode_body(DecodeBody<false, true, true, -1>{p}, rows, s);
  else if (swa) launch_decode_body(DecodeBody<false, true, false, -1>{p}, rows, s);
  else if (!remap) launch_decode_body(DecodeBody<false, false, false, -1>{p}, rows, s);
  else if (p.log2_ps == 0) launch_decode_body(DecodeBody<false, false, true, 0>{p}, rows, s);  // the benchmarked
  else if (p.log2_ps == 6) launch_decode_body(DecodeBody<false, false, true, 6>{p}, rows, s);  // Era B shapes
  else launch_decode_body(DecodeBody<false, false, true, -1>{p}, rows, s);
  check_launch("decode_metadata");
}

void launch_eager_funnel(const EagerFunnelArgs& a, cudaStream_t s) {
  validate(a);
  if (has(a.variant, Behaviour::b02_rank2_index_select) && a.page_size == 1) {
    // Same failure as the host route: the rank-2 table reaches a 1-D-only index_select.
    throw InvalidArgument("page_table", "rank 2 [" + std::to_string(a.page_table.rows) + ", " +
                                            std::to_string(a.page_table.cols) + "]",
                          "index_select at page_size 1 accepts only a 1-D index (bug B02)");
  }
  launch_rows(EagerFunnelBody{a}, a.page_table.rows, a.page_table.cols, s, "eager_funnel");
}

void launch_kv_indices_inplace(const KvIndicesInplaceArgs& a, cudaStream_t s) {
  validate(a);
  // B05: the result went to a fresh tensor; the bound buffer keeps its virtual ids. A launcher
  // cannot allocate, so the planted variant writes nothing at all (the observable effect).
  if (RouteSpec<Route::kv_indices_inplace>::rebinds_fresh(a.variant)) return;
  k_kv_indices_inplace<<<kInplaceBlocks, kThreads, 0, s>>>(a);
  check_launch("kv_indices_inplace");
}

void launch_write_loc(const WriteLocArgs& a, cudaStream_t s) {
  validate(a);
  using Spec = RouteSpec<Route::write_loc>;
  const i64 n = a.loc.size;
  const i64 w = Spec::keeps_tail(a.variant) ? n : (a.out.size > n ? a.out.size : n);  // B06: no tail writes
  const i64 fill = Spec::tail_fill<i64>(a.variant);  // E02: pad -1 instead of the sink
  dispatch_div2(a.page_size, a.dcp_size, [&](auto ps, auto dcp) {
    launch_stream<i64>(a.loc.data, n, a.out.data, w,
                       WriteLocOp<decltype(ps), decltype(dcp)>{Gather{a.v2p.data}, ps, a.page_size * a.multiplier, dcp,
                                                               a.dcp_rank, a.variant, fill},
                       s, "write_loc");
  });
}

void launch_mamba_translate(const MambaTranslateArgs& a, cudaStream_t s) {
  validate(a);
  launch_elementwise<i32>(a.slots.data, a.slots.size, a.out.data, MambaOp{Gather{a.v2p.data}, a.clamp}, s, "mamba_translate");
}

void launch_full_prefill_table(const FullPrefillTableArgs& a, cudaStream_t s) {
  launch_prefix_table(a, s, "full_prefill_table");
}

void launch_dcp_read_translate(const DcpReadTranslateArgs& a, cudaStream_t s) {
  validate(a);
  dispatch_div2(a.page_size, a.dcp_size, [&](auto ps, auto dcp) {
    launch_elementwise<i64>(a.ids.data, a.ids.size, a.out.data,
                            DcpOp<decltype(ps), decltype(dcp)>{Gather{a.v2p.data}, ps, a.page_size * a.multiplier, dcp,
                                                               a.variant},
                            s, "dcp_read_translate");
  });
}

void launch_transfer_ids(const TransferIdsArgs& a, cudaStream_t s) {
  validate(a);
  dispatch_div(a.page_size, [&](auto ps) {
    launch_elementwise<i64>(a.ids.data, a.ids.size, a.out.data, TransferOp<decltype(ps)>{Gather{a.v2p.data}, ps, a.variant},
                            s, "transfer_ids");
  });
}

void launch_envelope_moves(const EnvelopeMoveArgs& a, cudaStream_t s) {
  validate(a);
  const i64 runs = a.dst_tokens.size / a.page_size;
  if (runs <= 0) return;
  k_envelope_moves<<<grid_1d(runs, kThreads), kThreads, 0, s>>>(a);
  check_launch("envelope_moves");
}

}  // namespace kvaddr::gpu
