#pragma once
// Device kernels of graph mode's fast loop (python/kvaddr/graph_fast.py): the per-case draw into the
// captured input buffers, the resets of the guarded backings, the comparison of every backing with its
// expectation into a per-case count, and the device-resident case counter. Each call enqueues one
// kernel on `stream` (nothing when there is no work), reads the case index from device memory and
// synchronises nothing, so the sequence can be captured once in a CUDA graph and replayed per case.
// Plain C++ header (no cuda_runtime.h), for gpu_module.cpp.
#include <cstdint>

#include "kvaddr/kernels/graph_draw.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace kvaddr::python::graph_fast {

inline constexpr int kMaxJobs = 16;

// A device array of int32 / int64 elements: element (r, c) at ptr + r * row_stride + c * col_stride.
struct Target {
  void* ptr = nullptr;
  std::int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
  std::int32_t bits = 64;
};

struct DrawJob {
  graph_draw::Job job;
  Target dst;
};

struct CopyJob {  // bytes / 4 int32 words from src to dst (bytes a multiple of 4)
  const void* src = nullptr;
  void* dst = nullptr;
  std::int64_t bytes = 0;
};

struct ComparePair {  // n contiguous elements of `bits`
  const void* a = nullptr;
  const void* b = nullptr;
  std::int64_t n = 0;
  std::int32_t bits = 64;
};

// Every job's values of case *counter (graph_draw::value) written into its target.
void launch_draw(const DrawJob* jobs, int n, std::uint64_t seed, const std::int64_t* counter, cudaStream_t stream);
// Every copy.
void launch_copies(const CopyJob* jobs, int n, cudaStream_t stream);
// counts[*counter % slots] += the number of differing elements over all pairs.
void launch_compare(const ComparePair* pairs, int n, const std::int64_t* counter, std::int64_t* counts,
                    std::int64_t slots, cudaStream_t stream);
// *counter += 1.
void launch_bump(std::int64_t* counter, cudaStream_t stream);

}  // namespace kvaddr::python::graph_fast
