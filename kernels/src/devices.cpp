#include "kvaddr/kernels/devices.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <exception>
#include <string>
#include <thread>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::gpu {

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

std::vector<DeviceRun> run_on_devices(const DiffOptions& options, int devices) {
  const int available = device_count();
  if (devices < 1 || devices > available) {
    throw InvalidArgument("devices", std::to_string(devices),
                          "must be in [1, " + std::to_string(available) + "] (the CUDA devices of this host)");
  }
  if (options.shard_count < 1 || options.shard_index < 0 || options.shard_index >= options.shard_count) {
    throw InvalidArgument("shard_index", std::to_string(options.shard_index),
                          "must be in [0, shard_count - 1] with shard_count >= 1");
  }
  std::vector<DeviceRun> runs(static_cast<std::size_t>(devices));
  std::vector<std::thread> workers;
  for (int d = 0; d < devices; ++d) {
    auto& run = runs[static_cast<std::size_t>(d)];
    run.device = d;
    run.shard_index = options.shard_index + options.shard_count * d;
    run.shard_count = options.shard_count * devices;
    workers.emplace_back([&run, &options] {
      DiffOptions o = options;
      o.shard_index = run.shard_index;
      o.shard_count = run.shard_count;
      const auto t0 = std::chrono::steady_clock::now();
      if (cudaSetDevice(run.device) != cudaSuccess) {
        run.report.skipped = true;
        run.report.skip_reason = "cudaSetDevice(" + std::to_string(run.device) + ") failed";
      } else {
        try {
          run.report = run_differential(o);
        } catch (const std::exception& e) {
          run.report.skipped = true;
          run.report.skip_reason = "device " + std::to_string(run.device) + ": " + e.what();
        }
      }
      run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
  }
  for (auto& w : workers) w.join();
  return runs;
}

}  // namespace kvaddr::gpu
