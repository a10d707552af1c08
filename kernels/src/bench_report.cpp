// The bench report as JSON and as text (kvaddr/kernels/bench.hpp).
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "kvaddr/kernels/bench.hpp"

namespace kvaddr::gpu {

std::string to_json(const BenchReport& r) {
  nlohmann::json j;
  j["skipped"] = r.skipped;
  if (r.skipped) {
    j["skip_reason"] = r.skip_reason;
    return j.dump();
  }
  j["device"] = r.device;
  j["copy"] = {{"gbps", r.copy_gbps}, {"median_us", r.copy_median_us}, {"bytes", r.copy_bytes}};
  auto& arr = j["kernels"] = nlohmann::json::array();
  for (const auto& b : r.results)
    arr.push_back({{"name", b.name}, {"workload", b.workload}, {"median_us", b.median_us}, {"min_us", b.min_us},
                   {"bytes", b.bytes}, {"achieved_gbps", b.achieved_gbps}, {"ratio_to_copy", b.ratio_to_copy},
                   {"time_vs_min_traffic", b.time_vs_min}, {"target", b.target}, {"target_met", b.target_met},
                   {"time_vs_floors", b.time_vs_floors}});
  auto& fl = j["floors"] = nlohmann::json::array();
  for (const auto& f : r.floors)
    fl.push_back({{"name", f.name}, {"workload", f.workload}, {"median_us", f.median_us}, {"min_us", f.min_us},
                  {"bytes", f.bytes}, {"time_vs_min_traffic", f.time_vs_min}});
  auto& hs = j["harness"] = nlohmann::json::array();
  for (const auto& h : r.harness)
    hs.push_back({{"name", h.name}, {"workload", h.workload}, {"lanes", h.lanes}, {"median_us", h.median_us},
                  {"min_us", h.min_us}, {"lanes_per_second", h.lanes_per_second}, {"differences", h.differences},
                  {"target", ">= 1e10 checked lanes/s"}, {"target_met", h.target_met}});
  j["launch_latency"] = {{"workload", "token_translate N=1024 ps=64 M=24"},
                         {"completion", "busy-poll cudaStreamQuery"},
                         {"host_median_us", r.latency_host_median_us},
                         {"host_p90_us", r.latency_host_p90_us},
                         {"host_sync_median_us", r.latency_sync_median_us},
                         {"empty_kernel_launch_poll_us", r.latency_empty_poll_us},
                         {"gpu_event_median_us", r.latency_gpu_median_us},
                         {"target", "< 5 us launch to completion"},
                         {"target_met", r.latency_target_met},
                         {"empty_kernel_launch_sync_us", r.latency_empty_kernel_us},
                         {"graph_replay_us", r.latency_graph_us}};
  return j.dump(2);
}

std::string to_text(const BenchReport& r) {
  std::ostringstream s;
  if (r.skipped) {
    s << "bench: skipped (" << r.skip_reason << ")\n";
    return s.str();
  }
  s.setf(std::ios::fixed);
  s.precision(1);
  s << "device: " << r.device << "\ncopy D2D: " << r.copy_gbps << " GB/s (read+write, median " << r.copy_median_us
    << " us for " << r.copy_bytes / 1e6 << " MB)\n";
  for (const auto& b : r.results) {
    s << b.name << ": median " << b.median_us << " us (min " << b.min_us << "), " << b.bytes / 1e6 << " MB, "
      << b.achieved_gbps << " GB/s, ";
    s.precision(3);
    s << b.ratio_to_copy << " x copy, " << b.time_vs_min << " x min-traffic time";
    for (const auto& [floor, ratio] : b.time_vs_floors) s << ", " << ratio << " x " << floor;
    s.precision(1);
    s << "  [" << b.target << ": " << (b.target_met ? "met" : "NOT met") << "]\n";
  }
  for (const auto& f : r.floors) {
    s << f.name << ": median " << f.median_us << " us (min " << f.min_us << ")";
    if (f.bytes > 0) {
      s.precision(3);
      s << ", " << f.bytes / 1e6 << " MB, " << f.time_vs_min << " x min-traffic time";
      s.precision(1);
    }
    s << "  [" << f.workload << "]\n";
  }
  for (const auto& h : r.harness) {
    s << h.name << ": median " << h.median_us << " us (min " << h.min_us << ") for " << h.lanes << " lanes, ";
    s.precision(3);
    s << h.lanes_per_second / 1e9 << " G checked lanes/s, " << h.differences << " differences";
    s.precision(1);
    s << "  [>= 10 G lanes/s: " << (h.target_met ? "met" : "NOT met") << "]\n";
  }
  s.precision(2);
  s << "launch latency N=1024 (launch to completion, busy-poll): host median " << r.latency_host_median_us << " us (p90 "
    << r.latency_host_p90_us << "), with cudaStreamSynchronize " << r.latency_sync_median_us << " us, gpu events "
    << r.latency_gpu_median_us << " us  [< 5 us: " << (r.latency_target_met ? "met" : "NOT met")
    << "]\n  baselines: empty kernel launch+poll " << r.latency_empty_poll_us << " us, launch+sync "
    << r.latency_empty_kernel_us << " us, graph replay of the N=1024 launch (poll) " << r.latency_graph_us << " us\n";
  return s.str();
}

}  // namespace kvaddr::gpu
