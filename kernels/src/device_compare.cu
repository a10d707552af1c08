// See device_compare.hpp.
#include "device_compare.hpp"

#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/system_error.h>
#include <thrust/transform_reduce.h>

#include <string>

#include "kvaddr/kernels/launch.hpp"

namespace kvaddr::gpu::detail {
namespace {

struct CountFirst {
  std::int64_t count;
  std::int64_t first;
};

template <class T>
struct DiffAt {
  const T* a;
  const T* b;
  std::int64_t n;
  __host__ __device__ CountFirst operator()(std::int64_t i) const {
    return a[i] != b[i] ? CountFirst{1, i} : CountFirst{0, n};
  }
};

struct Combine {
  __host__ __device__ CountFirst operator()(const CountFirst& x, const CountFirst& y) const {
    return {x.count + y.count, x.first < y.first ? x.first : y.first};
  }
};

template <class T>
DeviceDifferences count_impl(const T* a, const T* b, std::int64_t n, cudaStream_t stream) {
  if (n < 0) throw InvalidArgument("n", std::to_string(n), "element count must be >= 0");
  if (n == 0) return {0, 0};
  if (a == nullptr) throw InvalidArgument("a", "null", "device buffer of n > 0 elements");
  if (b == nullptr) throw InvalidArgument("b", "null", "device buffer of n > 0 elements");
  CountFirst r{0, n};
  try {
    r = thrust::transform_reduce(thrust::cuda::par.on(stream), thrust::counting_iterator<std::int64_t>(0),
                                 thrust::counting_iterator<std::int64_t>(n), DiffAt<T>{a, b, n}, CountFirst{0, n},
                                 Combine{});
  } catch (const thrust::system_error& e) {
    throw CudaError("thrust::transform_reduce", e.code().value(), "thrust::system_error", e.what());
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw CudaError("count_differences", static_cast<int>(err), cudaGetErrorName(err), cudaGetErrorString(err));
  return {r.count, r.first};
}

}  // namespace

DeviceDifferences count_differences(const std::int32_t* a, const std::int32_t* b, std::int64_t n, cudaStream_t stream) {
  return count_impl(a, b, n, stream);
}
DeviceDifferences count_differences(const std::int64_t* a, const std::int64_t* b, std::int64_t n, cudaStream_t stream) {
  return count_impl(a, b, n, stream);
}

}  // namespace kvaddr::gpu::detail
