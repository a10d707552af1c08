// Device kernels of graph mode's fast loop (graph_fast.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "graph_fast.hpp"
#include "kvaddr/kernels/launch.hpp"  // kvaddr::CudaError
#include "kvaddr/model/errors.hpp"

namespace kvaddr::python::graph_fast {
namespace {

constexpr int kThreads = 256;

template <class T>
struct Batch {
  T j[kMaxJobs];
  int n;
};

void check_launch(const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throw CudaError(what, static_cast<int>(err), cudaGetErrorName(err), cudaGetErrorString(err));
}

void check_count(int n) {
  if (n < 0 || n > kMaxJobs) throw InvalidArgument("jobs", std::to_string(n), "between 0 and 16 jobs per launch");
}

unsigned blocks_for(std::int64_t lanes) {
  const std::int64_t b = (lanes + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, 2048));
}

__global__ void draw_kernel(Batch<DrawJob> b, std::uint64_t seed, const std::int64_t* counter) {
  const DrawJob& d = b.j[blockIdx.y];
  const std::int64_t k = *counter;
  const std::int64_t lanes = d.dst.rows * d.dst.cols;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < lanes;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / d.dst.cols, c = i % d.dst.cols;
    const std::int64_t v = graph_draw::value(d.job, seed, k, r, c);
    const std::int64_t at = r * d.dst.row_stride + c * d.dst.col_stride;
    if (d.dst.bits == 32) {
      static_cast<std::int32_t*>(d.dst.ptr)[at] = static_cast<std::int32_t>(v);
    } else {
      static_cast<std::int64_t*>(d.dst.ptr)[at] = v;
    }
  }
}

__global__ void copy_kernel(Batch<CopyJob> b) {
  const CopyJob& d = b.j[blockIdx.y];
  const std::int64_t words = d.bytes / 4;
  const auto* src = static_cast<const std::int32_t*>(d.src);
  auto* dst = static_cast<std::int32_t*>(d.dst);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

__global__ void compare_kernel(Batch<ComparePair> b, const std::int64_t* counter, std::int64_t* counts,
                               std::int64_t slots) {
  const ComparePair& d = b.j[blockIdx.y];
  unsigned long long mine = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < d.n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (d.bits == 32) {
      mine += static_cast<const std::int32_t*>(d.a)[i] != static_cast<const std::int32_t*>(d.b)[i];
    } else {
      mine += static_cast<const std::int64_t*>(d.a)[i] != static_cast<const std::int64_t*>(d.b)[i];
    }
  }
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, off);
  if ((threadIdx.x & 31) == 0 && mine != 0) {
    const std::int64_t slot = *counter % slots;
    atomicAdd(reinterpret_cast<unsigned long long*>(counts + slot), mine);
  }
}

__global__ void bump_kernel(std::int64_t* counter) { *counter += 1; }

}  // namespace

void launch_draw(const DrawJob* jobs, int n, std::uint64_t seed, const std::int64_t* counter, cudaStream_t stream) {
  check_count(n);
  if (counter == nullptr) throw InvalidArgument("counter", "0", "a device pointer to the case counter");
  Batch<DrawJob> b{};
  std::int64_t lanes = 0;
  for (int i = 0; i < n; ++i) {
    const DrawJob& d = jobs[i];
    if (d.dst.rows < 0 || d.dst.cols < 0) throw InvalidArgument("rows", std::to_string(d.dst.rows), "a shape must be >= 0");
    if (d.dst.bits != 32 && d.dst.bits != 64) throw InvalidArgument("bits", std::to_string(d.dst.bits), "must be 32 or 64");
    if (d.dst.ptr == nullptr && d.dst.rows * d.dst.cols > 0) throw InvalidArgument("ptr", "0", "a device pointer");
    b.j[i] = d;
    lanes = std::max(lanes, d.dst.rows * d.dst.cols);
  }
  b.n = n;
  if (n == 0 || lanes == 0) return;
  draw_kernel<<<dim3(blocks_for(lanes), static_cast<unsigned>(n)), kThreads, 0, stream>>>(b, seed, counter);
  check_launch("graph_fast draw_kernel");
}

void launch_copies(const CopyJob* jobs, int n, cudaStream_t stream) {
  check_count(n);
  Batch<CopyJob> b{};
  std::int64_t words = 0;
  for (int i = 0; i < n; ++i) {
    if (jobs[i].bytes < 0 || jobs[i].bytes % 4)
      throw InvalidArgument("bytes", std::to_string(jobs[i].bytes), "a copy is a whole number of 4-byte words");
    b.j[i] = jobs[i];
    words = std::max(words, jobs[i].bytes / 4);
  }
  b.n = n;
  if (n == 0 || words == 0) return;
  copy_kernel<<<dim3(blocks_for(words), static_cast<unsigned>(n)), kThreads, 0, stream>>>(b);
  check_launch("graph_fast copy_kernel");
}

void launch_compare(const ComparePair* pairs, int n, const std::int64_t* counter, std::int64_t* counts,
                    std::int64_t slots, cudaStream_t stream) {
  check_count(n);
  if (slots < 1) throw InvalidArgument("slots", std::to_string(slots), "must be >= 1");
  if (counter == nullptr || counts == nullptr) throw InvalidArgument("counts", "0", "device pointers");
  Batch<ComparePair> b{};
  std::int64_t lanes = 0;
  for (int i = 0; i < n; ++i) {
    if (pairs[i].bits != 32 && pairs[i].bits != 64)
      throw InvalidArgument("bits", std::to_string(pairs[i].bits), "must be 32 or 64");
    if (pairs[i].n < 0) throw InvalidArgument("n", std::to_string(pairs[i].n), "must be >= 0");
    b.j[i] = pairs[i];
    lanes = std::max(lanes, pairs[i].n);
  }
  b.n = n;
  if (n == 0 || lanes == 0) return;
  compare_kernel<<<dim3(blocks_for(lanes), static_cast<unsigned>(n)), kThreads, 0, stream>>>(b, counter, counts, slots);
  check_launch("graph_fast compare_kernel");
}

void launch_bump(std::int64_t* counter, cudaStream_t stream) {
  if (counter == nullptr) throw InvalidArgument("counter", "0", "a device pointer to the case counter");
  bump_kernel<<<1, 1, 0, stream>>>(counter);
  check_launch("graph_fast bump_kernel");
}

}  // namespace kvaddr::python::graph_fast
