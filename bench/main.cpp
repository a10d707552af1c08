// kvaddr_bench: Google Benchmark over the issue-5 workloads (manual time = CUDA events around one
// launch, L2 flushed before each). `kvaddr_bench --report` prints kvaddr::gpu::run_bench()
// instead (medians, copy-bandwidth ratios, targets); add --json for JSON.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "kvaddr/kernels/bench.hpp"
#include "kvaddr/kernels/launch.hpp"

int main(int argc, char** argv) {
  bool report = false, json = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--report") == 0) report = true;
    if (std::strcmp(argv[i], "--json") == 0) json = true;
  }
  std::string why;
  if (!kvaddr::gpu::gpu_available(&why)) {
    std::printf("no CUDA GPU: %s\n", why.c_str());
    return 0;
  }
  if (report) {
    const auto r = kvaddr::gpu::run_bench();
    std::printf("%s\n", json ? kvaddr::gpu::to_json(r).c_str() : kvaddr::gpu::to_text(r).c_str());
    return 0;
  }
  auto session = std::make_shared<kvaddr::gpu::BenchSession>();
  const double copy = session->copy_gbps();
  for (const auto& name : session->workloads()) {
    benchmark::RegisterBenchmark(name.c_str(), [session, name, copy](benchmark::State& st) {
      for (auto _ : st) st.SetIterationTime(session->time_once_us(name) * 1e-6);
      st.SetBytesProcessed(static_cast<std::int64_t>(session->bytes(name)) * st.iterations());
      st.counters["copy_GBps"] = copy;
    })->UseManualTime()->MinTime(0.2);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
