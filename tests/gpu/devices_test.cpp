// kvaddr diff over several GPUs (kernels/devices.hpp) and the shards of run_differential.
#include <gtest/gtest.h>

#include <string>

#include "kvaddr/kernels/devices.hpp"
#include "kvaddr/kernels/diff.hpp"
#include "kvaddr/model/errors.hpp"

namespace {

using namespace kvaddr;

TEST(GpuShards, ShardOptionsAreValidatedBeforeAnythingRuns) {
  gpu::DiffOptions o;
  o.host_only = true;
  o.cases = 4;
  o.shard_count = 0;
  EXPECT_THROW(gpu::run_differential(o), InvalidArgument);
  o.shard_count = 2;
  o.shard_index = 2;
  EXPECT_THROW(gpu::run_differential(o), InvalidArgument);
  o.shard_index = -1;
  EXPECT_THROW(gpu::run_differential(o), InvalidArgument);
  o.shard_index = 1;
  EXPECT_EQ(gpu::run_differential(o).cases_run, 2);  // case indices 1 and 3
  o.min_lanes = 10;
  EXPECT_THROW(gpu::run_differential(o), InvalidArgument);
  o.shard_count = 1;
  o.shard_index = 0;
  EXPECT_NO_THROW(gpu::run_differential(o));
}

TEST(GpuShards, DeviceCountIsBoundedByTheRuntime) {
  gpu::DiffOptions o;
  o.cases = 4;
  const int n = gpu::device_count();
  EXPECT_GE(n, 0);
  EXPECT_THROW(gpu::run_on_devices(o, 0), InvalidArgument);
  EXPECT_THROW(gpu::run_on_devices(o, n + 1), InvalidArgument);
}

TEST(GpuShards, DevicesTogetherRunTheShard) {
  const int n = gpu::device_count();
  if (n < 1) GTEST_SKIP() << "no CUDA GPU";
  gpu::DiffOptions o;
  o.cases = 6 * n;
  o.seed = 3;
  o.max_case_lanes = 4096;
  o.shard_index = 1;
  o.shard_count = 2;
  const auto whole = gpu::run_differential(o);
  ASSERT_TRUE(whole.ok());
  const auto runs = gpu::run_on_devices(o, n);
  ASSERT_EQ(static_cast<int>(runs.size()), n);
  std::int64_t cases = 0, lanes = 0;
  for (const auto& r : runs) {
    EXPECT_TRUE(r.report.ok()) << r.report.skip_reason;
    EXPECT_EQ(r.shard_count, 2 * n);
    EXPECT_EQ(r.shard_index, 1 + 2 * r.device);
    cases += r.report.cases_run;
    lanes += r.report.lanes_compared;
  }
  EXPECT_EQ(cases, whole.cases_run);
  EXPECT_EQ(cases, 3 * n);
  EXPECT_EQ(lanes, whole.lanes_compared);
}

}  // namespace
