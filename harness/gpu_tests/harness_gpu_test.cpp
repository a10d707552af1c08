// The C++ harness in device memory, with kvaddr's own CUDA launchers as the kernel under test
// (production passes; a forced catalogue variant is caught and named). Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/kernels/launch.hpp"

namespace {
using namespace kvaddr;

void require_gpu() {
  std::string why;
  if (!gpu::gpu_available(&why)) GTEST_SKIP() << "no GPU: " << why;
}

TEST(HarnessGpu, KvaddrTokenTranslatePassesInDeviceMemory) {
  require_gpu();
  const auto r = harness::check_token_translate(
      [](const TokenTranslateArgs<std::int64_t>& a) { gpu::launch_token_translate(a, nullptr); },
      {.cases = 200, .seed = 1, .max_lanes = 1 << 16, .memory = harness::Memory::device});
  EXPECT_TRUE(r.ok) << r.to_text();
}

TEST(HarnessGpu, ForcedStaleTailIsNamedOnTheDevice) {
  require_gpu();
  const auto r = harness::check_write_loc(
      [](const WriteLocArgs& a) {
        WriteLocArgs b = a;
        b.variant = Variant::b06_stale_tail;
        gpu::launch_write_loc(b, nullptr);
      },
      {.cases = 50, .seed = 2, .memory = harness::Memory::device});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.behaves_like, std::vector<std::string>{"b06_stale_tail"}) << r.to_text();
}

TEST(HarnessGpu, ReadTablePassesInDeviceMemory) {
  require_gpu();
  const auto r = harness::check_read_table([](const ReadTableArgs& a) { gpu::launch_read_table(a, nullptr); },
                                           {.cases = 200, .seed = 3, .memory = harness::Memory::device});
  EXPECT_TRUE(r.ok) << r.to_text();
}

}  // namespace
