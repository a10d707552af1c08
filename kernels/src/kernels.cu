// CUDA kernels of every GPU route (spec §4.1-4.13). Each kernel instantiates the lane functions of
// kvaddr/translate/lanes.hpp with plain int64_t and a device gather that is a masked load with
// fill 0 and NO bounds check (so a planted bug such as B09 really reads outside the table and
// compute-sanitizer memcheck can report it). No arithmetic of a route is re-derived here: the
// kernels only decide which lanes run (grids, row/column loops) and where results are stored.
// This unit holds the process-wide launch shape and the device query; the kernels are in
// kernels_per_id.cu (the per-id routes, token_translate, swa_translate and write_loc, on the streaming
// kernel of kernel_stream.cuh) and kernels_rows.cu (the page tables and the other row-shaped routes)
// (shared helpers: kernel_common.cuh).
#include <cuda_runtime.h>

#include <string>

#include "kvaddr/kernels/launch.hpp"

namespace kvaddr::gpu {
namespace detail {
LaunchShape g_shape{};
}  // namespace detail

void set_launch_shape(const LaunchShape& shape) { detail::g_shape = shape; }
LaunchShape launch_shape() { return detail::g_shape; }

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

}  // namespace kvaddr::gpu
