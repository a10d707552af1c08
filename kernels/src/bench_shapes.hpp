#pragma once
// The launch shapes (kvaddr::gpu::LaunchShape) that run_bench times every workload under besides the
// defaults, in the same process; rows are named "<workload><tag>".
#include <utility>
#include <vector>

#include "kvaddr/kernels/launch.hpp"

namespace kvaddr::gpu {

inline std::vector<std::pair<const char*, LaunchShape>> bench_shapes() {
  return {
      {"@decode8-resident", LaunchShape{4, false, 8, true}},  // 4 lanes, full grid; decode: 8 lanes, resident grid
      {"@ilp8-resident", LaunchShape{8, true, 8, true}},
      {"@ilp8-fullgrid", LaunchShape{8, false, 8, false}},
      {"@ilp4-resident", LaunchShape{4, true, 4, true}},
      {"@scalar-io", LaunchShape{4, false, 4, false, 0, false}},  // 8-byte accesses only
      {"@fastdiv", LaunchShape{4, false, 4, false, 1, true}},     // FastDivisor for every divisor
      {"@hwdiv", LaunchShape{4, false, 4, false, 2, true}},       // int64 division for every divisor
      {"@hwdiv-scalar-io", LaunchShape{4, false, 4, false, 2, false}},
      // The tile streaming kernel with evict-first ids and outputs; the slice streaming kernel (k_stream),
      // default and with its knobs.
      {"@stream-evict-first", LaunchShape{4, false, 4, false, 0, true, 0, false, true, true, true, true}},
      {"@stream-slices", LaunchShape{4, false, 4, false, 0, true, 0, false, true, true, false}},
      {"@minblocks8", LaunchShape{4, false, 4, false, 0, true, 8, false, true, true, false}},
      {"@device-slice", LaunchShape{4, false, 4, false, 0, true, 0, true, true, true, false}},  // slice divided per thread
      {"@unstaged", LaunchShape{4, false, 4, false, 0, true, 0, false, false}},  // table gathers lane by lane
      {"@table-ilp4", LaunchShape{4, false, 4, false, 0, true, 0, false, true, false}}};  // narrow rows 4 lanes
}

}  // namespace kvaddr::gpu
