#pragma once
// Host API of the CUDA re-implementations of every GPU route (spec §4.1-4.13). Includable from
// plain C++ (no nvcc, no cuda_runtime.h): cudaStream_t is forward-declared exactly as the CUDA
// runtime declares it.
//
// Every launcher:
//   * takes the route's contract struct (contracts.hpp) holding DEVICE pointers, and a stream;
//   * validates shapes and scalars on the host (kvaddr::validate, reads no array contents) and
//     throws the typed kvaddr error for a bad argument;
//   * enqueues exactly one kernel (or none, for an empty launch) on `stream`: no host
//     synchronisation, no allocation, outputs written in place, so it may be captured into a
//     CUDA graph and replayed;
//   * checks the launch and throws kvaddr::CudaError on a CUDA failure.
// Lane arithmetic comes from kvaddr/translate/lanes.hpp (the same source as the host routes), so
// `variant` selects the same historical bug on the GPU as on the host.
#include <cstdint>
#include <string>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/host_routes.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // identical to the CUDA runtime's declaration

namespace kvaddr {

// A failed CUDA runtime call: argument() names the call, value() the cudaError_t name, reason()
// the runtime's description; code() is the numeric cudaError_t.
class CudaError : public Error {
 public:
  CudaError(std::string call, int code, std::string name, std::string description)
      : Error(ErrorKind::invalid_state, std::move(call), std::move(name), std::move(description)), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

namespace gpu {

// True when the CUDA runtime sees at least one device; otherwise *why (if given) says why
// (no driver, no device, runtime error text). Never throws.
bool gpu_available(std::string* why = nullptr);

// Launch shape of the gather kernels, per family. Defaults are the fastest shapes measured on
// H200 machines (docs/performance.md): every family takes 4 independent lanes per thread and one
// block per kThreads x 4 lanes; decode_metadata too (one kernel per page-table path, 40 registers).
// 8 lanes per thread and the resident grid
// (at most one wave, every block an equal, warp-aligned slice of its rows' columns) remain
// selectable: the bench switches shapes to measure them in the same process. Process-wide; set it
// only while no launch is in flight on another thread. Outputs are identical for every shape.
struct LaunchShape {
  int lanes_per_thread = 4;          // elementwise and table kernels: 8, or 4 (anything below 8)
  bool resident_grid = false;        // cap their grid at the device's resident blocks
  int decode_lanes_per_thread = 4;   // decode_metadata (one kernel per page-table path)
  bool decode_resident_grid = false;
  // Run-time divisors (page size, dcp_size) of the streaming kernels: 0 = compile-time constants for
  // ps in {1, 16, 32, 64, 128} and dcp_size in {1, 2} (write_loc), kvaddr::Pow2Divisor when every
  // divisor of the call is a power of two (token, swa and the per-id routes), kvaddr::FastDivisor
  // (fast_div.hpp) for the others; 1 = FastDivisor for every value; 2 = the plain int64 division.
  int division = 0;
  // Streaming kernels: 16-byte loads / stores of two lanes where in and out are aligned for them.
  bool vector_io = true;
  // Slice streaming kernel at 4 lanes per thread: 8 = compile it for 8 resident blocks per SM
  // (__launch_bounds__ minimum blocks: at most 32 registers); anything else: no such bound.
  int stream_min_blocks = 0;
  // Slice streaming kernel: true = every thread computes its block's slice with a division on the device;
  // false = the launcher passes the slice length (one host division per launch).
  bool device_slice = false;
  // Table kernels: true = a thread issues the req_to_token loads of all its columns together, then
  // their table gathers together (staged_lanes, kernels/src/kernel_common.cuh); false = column by
  // column. (The streaming kernels evaluate lane by lane: a staged form measured slower there.)
  bool staged = true;
  // Table kernels at 4 lanes per thread: rows of at most 1024 columns (ps = 64 tables of 32768 tokens:
  // 512) take one column a thread, several blocks a row; false = 4 columns a thread.
  bool table_narrow_rows = true;
  // Streaming kernels: true = one tile of 4 lanes a thread a block where 16-byte access applies
  // (k_stream_tiles, kernels/src/kernel_stream.cuh); false, and for unaligned pointers, the slice kernel
  // (k_stream), the only one that reads lanes_per_thread, resident_grid, stream_min_blocks and
  // device_slice.
  bool stream_tiles = true;
  // The tile kernel's id loads and output stores: true = evict-first (ld/st.global.cs, as the slice
  // and table kernels), false = the default cache policy (measured faster, docs/performance.md).
  bool stream_evict_first = false;
};
void set_launch_shape(const LaunchShape& shape);
LaunchShape launch_shape();

// One launcher per host entry point (kvaddr/translate/host_routes.hpp), launch_<function>(a, s):
//   §4.1 token_translate (int64 and int32 out; out may alias ids);
//   §4.2 Era B flashmla block table (columns < n_pages written, the rest untouched);
//   §4.3 Era C canonical page table (prefix-only);
//   §4.4 read table (+ zero_tail) and the packed CSR stream over a built table (read_stream);
//   §4.5 fa3 decode metadata: cache_seqlens, cu_seqlens_k and the page table (ps1 / general
//        paths, Era B remap, Era C copy, Era D skip) in one launch;
//   §4.6 eager funnel: token translate of the page-start tokens, then the division by ps;
//   §4.7 in-place kv_indices translate: fixed grid, n = kv_indptr[batch_size] read on the device;
//   §4.8 write loc: lanes [0, N) translated, [N, out_width) zeroed in the same launch;
//   §4.9 SWA translate (int64 and int32 out);
//   §4.11 FULL-prefill graph table;
//   §4.13 envelope moves (page-major runs -> pages).
#define KVADDR_DECLARE_LAUNCH(fn, A) void launch_##fn(const A& a, cudaStream_t s);
KVADDR_HOST_ROUTES(KVADDR_DECLARE_LAUNCH)
KVADDR_HOST_TEMPLATE_ROUTES(KVADDR_DECLARE_LAUNCH)
#undef KVADDR_DECLARE_LAUNCH

// The launcher of every per-id route (KVADDR_PER_ID_ROUTE_SPEC: §4.10 mamba_translate, §4.12
// dcp_read_translate, §4.13 transfer_ids): one kernel over the spec's lane (kernels/src/kernels_per_id.cu),
// out may alias the ids exactly where both have one element type. launch_per_id takes the route and its Args by address; launch(a, s) is the typed form.
void launch_per_id(Route r, const void* args, cudaStream_t s);
template <class A, class = decltype(PerIdRouteOf<A>::value)>
void launch(const A& a, cudaStream_t s) {
  launch_per_id(PerIdRouteOf<A>::value, &a, s);
}
// launch_<route> names of the per-id launchers, for their callers (bench, harness, python).
inline void launch_mamba_translate(const MambaTranslateArgs& a, cudaStream_t s) { launch(a, s); }
inline void launch_dcp_read_translate(const DcpReadTranslateArgs& a, cudaStream_t s) { launch(a, s); }
inline void launch_transfer_ids(const TransferIdsArgs& a, cudaStream_t s) { launch(a, s); }

}  // namespace gpu
}  // namespace kvaddr
