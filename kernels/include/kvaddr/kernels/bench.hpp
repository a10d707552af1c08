#pragma once
// Speed measurement of the GPU kernels (issue 5 workloads), includable without nvcc.
// Each kernel is timed with CUDA events around one launch (L2 flushed before every run unless
// disabled), median of `runs` runs after `warmup` runs; the device-to-device copy bandwidth is
// measured in the same session and every kernel's achieved bytes/s (its minimum DRAM traffic,
// docs/performance.md) is reported as a ratio of it.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kvaddr::gpu {

struct BenchOptions {
  int runs = 30;            // timed runs per workload (median reported), >= 20 for the targets
  int warmup = 5;
  bool flush_l2 = true;     // read a 256 MiB scratch buffer (clean L2) before every timed run
  int latency_runs = 2000;  // host-timed launch-to-completion runs for the latency workload
};

struct BenchResult {
  std::string name;          // e.g. "token_translate/ps64"
  std::string workload;      // shape description
  double median_us = 0, min_us = 0;
  double bytes = 0;          // minimum DRAM traffic of the traffic model
  double achieved_gbps = 0;  // bytes / median time
  double ratio_to_copy = 0;  // achieved / copy bandwidth
  double time_vs_min = 0;    // median time / (bytes / copy bandwidth)
  std::string target;        // the target in words
  bool target_met = false;
  // The BenchFloor rows of the same run it is read against, each with median / that floor's median.
  std::vector<std::pair<std::string, double>> time_vs_floors{};
};

// A reference kernel timed like the workloads (L2 flushed, events around one launch): what the
// machine needs for a launch, one dependent DRAM access, a chain of three, or a bare random
// gather, so that each workload's time can be read against what its access structure allows.
struct BenchFloor {
  std::string name;      // e.g. "floor/empty_kernel"
  std::string workload;  // what it does
  double median_us = 0, min_us = 0;
  double bytes = 0;      // traffic model of the same kind as the workloads (0: none)
  double time_vs_min = 0;  // median time / (bytes / copy bandwidth); 0 when bytes == 0
};

// A harness-throughput row: one whole check of `lanes` lanes of a token route (the ids made on the
// device, the reference launch, the on-device comparison against a second output buffer, the
// user's kernel excluded), timed on the host clock.
struct BenchHarness {
  std::string name;      // e.g. "harness/token_translate"
  std::string workload;
  std::int64_t lanes = 0;
  double median_us = 0, min_us = 0;
  double lanes_per_second = 0;    // lanes / median
  std::int64_t differences = 0;   // summed over every run (0: the comparison agreed each time)
  bool target_met = false;        // >= 1e10 lanes/s and no difference
};

struct BenchReport {
  bool skipped = false;
  std::string skip_reason;
  std::string device;
  double copy_gbps = 0;        // device-to-device copy, bytes read + written per second
  double copy_median_us = 0;
  double copy_bytes = 0;
  std::vector<BenchResult> results;
  std::vector<BenchFloor> floors;
  std::vector<BenchHarness> harness;
  // Launch latency, N = 1024 token_translate, launch to completion on the host clock (launcher
  // call, host validation included, until the stream is seen idle). Two ways to see completion:
  // busy-polling cudaStreamQuery (the target is judged on this one) and cudaStreamSynchronize.
  double latency_host_median_us = 0;  // busy-poll
  double latency_host_p90_us = 0;
  double latency_sync_median_us = 0;  // cudaStreamSynchronize
  double latency_empty_poll_us = 0;   // baseline: empty kernel, launch + busy-poll
  double latency_gpu_median_us = 0;   // same launch timed with events
  bool latency_target_met = false;
  double latency_empty_kernel_us = 0;  // baseline: empty kernel, launch + cudaStreamSynchronize
  double latency_graph_us = 0;         // the N = 1024 launch replayed from a CUDA graph
};

// Runs every workload; skipped = true (never throws) when no GPU is present.
BenchReport run_bench(const BenchOptions& options = {});
std::string to_json(const BenchReport& r);
std::string to_text(const BenchReport& r);

// A prepared set of workloads for external harnesses (Google Benchmark's kvaddr_bench).
class BenchSession {
 public:
  explicit BenchSession(const BenchOptions& options = {});
  ~BenchSession();
  BenchSession(const BenchSession&) = delete;
  BenchSession& operator=(const BenchSession&) = delete;
  std::vector<std::string> workloads() const;   // names accepted by time_once_us
  double time_once_us(const std::string& name);  // one timed run (L2 flushed first when enabled)
  double bytes(const std::string& name) const;   // traffic model
  double copy_gbps();                            // measured once, cached

 private:
  friend BenchReport run_bench(const BenchOptions& options);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvaddr::gpu
