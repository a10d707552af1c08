#pragma once
// Device-side comparison for the differential check (kernels/ internal; plain C++ header).
// Counts, on the GPU, the elements where two device buffers differ and finds the first such
// index, with one Thrust transform-reduce: the check then copies a kernel's output back only when
// it differs from the expectation (to list the first differing lanes).
#include <cstdint>

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace kvaddr::gpu::detail {

struct DeviceDifferences {
  std::int64_t count = 0;  // elements i < n with a[i] != b[i]
  std::int64_t first = 0;  // smallest such i; n when count == 0
};

// a and b are device pointers to n elements; runs on `stream` and waits for the result.
// Throws kvaddr::CudaError on a CUDA failure, InvalidArgument for n < 0 or a null pointer with n > 0.
DeviceDifferences count_differences(const std::int32_t* a, const std::int32_t* b, std::int64_t n, cudaStream_t stream);
DeviceDifferences count_differences(const std::int64_t* a, const std::int64_t* b, std::int64_t n, cudaStream_t stream);

}  // namespace kvaddr::gpu::detail
