#pragma once
// The differential check over every GPU of a host: one worker thread per device, each bound to
// its device with cudaSetDevice, the cases split round-robin between the workers. Includable
// without nvcc.
#include <vector>

#include "kvaddr/kernels/diff.hpp"

namespace kvaddr::gpu {

// Number of CUDA devices the runtime sees; 0 where there is no driver or no GPU.
int device_count() noexcept;

struct DeviceRun {
  int device = 0;
  std::int64_t shard_index = 0;  // the sub-shard this worker ran (see run_on_devices)
  std::int64_t shard_count = 1;
  DiffReport report;
  double seconds = 0;
};

// Runs `options` (itself shard i of n) on `devices` GPUs: worker d runs sub-shard i + n*d of n*devices,
// so that the workers together run exactly the case indices of shard i of n. Throws InvalidArgument
// "devices" unless 1 <= devices <= device_count(). A worker whose device cannot be selected, or whose
// run throws, reports skipped with the reason (the merge of the workers' reports then names it).
std::vector<DeviceRun> run_on_devices(const DiffOptions& options, int devices);

}  // namespace kvaddr::gpu
