// The C++ harness in device memory, with kvaddr's own CUDA launchers as the kernel under test
// for every route the harness checks (production passes; forced catalogue variants are caught and named).
// Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/kernels/launch.hpp"

namespace {
using namespace kvaddr;

std::string no_gpu_reason() {
  std::string why;
  return gpu::gpu_available(&why) ? std::string() : (why.empty() ? std::string("no GPU") : why);
}

#define KVADDR_REQUIRE_GPU()                                            \
  do {                                                                  \
    const std::string why = no_gpu_reason();                            \
    if (!why.empty()) GTEST_SKIP() << "no CUDA GPU: " << why;           \
  } while (0)

TEST(HarnessGpu, KvaddrTokenTranslatePassesInDeviceMemory) {
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check_token_translate(
      [](const TokenTranslateArgs<std::int64_t>& a) { gpu::launch_token_translate(a, nullptr); },
      {.cases = 200, .seed = 1, .max_lanes = 1 << 16, .memory = harness::Memory::device});
  EXPECT_TRUE(r.ok) << r.to_text();
}

TEST(HarnessGpu, ForcedStaleTailIsNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
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
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check_read_table([](const ReadTableArgs& a) { gpu::launch_read_table(a, nullptr); },
                                           {.cases = 200, .seed = 3, .memory = harness::Memory::device});
  EXPECT_TRUE(r.ok) << r.to_text();
}

TEST(HarnessGpu, TableRoutesPassInDeviceMemory) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 150, .seed = 4, .memory = harness::Memory::device};
  auto r = harness::check_canonical_page_table(
      [](const CanonicalPageTableArgs& a) { gpu::launch_canonical_page_table(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_flashmla_block_table(
      [](const FlashmlaBlockTableArgs& a) { gpu::launch_flashmla_block_table(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_decode_metadata([](const DecodeMetadataArgs& a) { gpu::launch_decode_metadata(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_kv_indices_inplace(
      [](const KvIndicesInplaceArgs& a) { gpu::launch_kv_indices_inplace(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
}

TEST(HarnessGpu, ForcedBatchRowsAreNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check_decode_metadata(
      [](const DecodeMetadataArgs& a) {
        DecodeMetadataArgs b = a;
        b.variant = Variant::e10_batch_index_rows;
        gpu::launch_decode_metadata(b, nullptr);
      },
      {.cases = 100, .seed = 7, .memory = harness::Memory::device});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(std::find(r.behaves_like.begin(), r.behaves_like.end(), "e10_batch_index_rows"), r.behaves_like.end())
      << r.to_text();
}

TEST(HarnessGpu, IdRoutesPassInDeviceMemory) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 200, .seed = 9, .max_lanes = 1 << 16, .memory = harness::Memory::device};
  auto r = harness::check_swa_translate(
      [](const SwaTranslateArgs<std::int64_t>& a) { gpu::launch_swa_translate(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_dcp_read_translate([](const DcpReadTranslateArgs& a) { gpu::launch_dcp_read_translate(a, nullptr); },
                                        o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_transfer_ids([](const TransferIdsArgs& a) { gpu::launch_transfer_ids(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_mamba_translate([](const MambaTranslateArgs& a) { gpu::launch_mamba_translate(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_token_translate_i32(
      [](const TokenTranslateArgs<std::int32_t>& a) { gpu::launch_token_translate(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_swa_translate_i32(
      [](const SwaTranslateArgs<std::int32_t>& a) { gpu::launch_swa_translate(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
}

TEST(HarnessGpu, FullPrefillAndEagerFunnelPassInDeviceMemory) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 150, .seed = 10, .memory = harness::Memory::device};
  auto r = harness::check_full_prefill_table(
      [](const FullPrefillTableArgs& a) { gpu::launch_full_prefill_table(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
  r = harness::check_eager_funnel([](const EagerFunnelArgs& a) { gpu::launch_eager_funnel(a, nullptr); }, o);
  EXPECT_TRUE(r.ok) << r.to_text();
}

TEST(HarnessGpu, ForcedIdRouteVariantsAreNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 100, .seed = 11, .memory = harness::Memory::device};
  auto r = harness::check_swa_translate(
      [](const SwaTranslateArgs<std::int64_t>& a) {
        auto b = a;
        b.variant = Variant::b11_swa_no_clamp;
        gpu::launch_swa_translate(b, nullptr);
      },
      o);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.behaves_like, std::vector<std::string>{"b11_swa_no_clamp"}) << r.to_text();
  r = harness::check_transfer_ids(
      [](const TransferIdsArgs& a) {
        auto b = a;
        b.variant = Variant::b16_virtual_as_physical;
        gpu::launch_transfer_ids(b, nullptr);
      },
      o);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.behaves_like, std::vector<std::string>{"b16_virtual_as_physical"}) << r.to_text();
  r = harness::check_dcp_read_translate(
      [](const DcpReadTranslateArgs& a) {
        auto b = a;
        b.variant = Variant::b14_dcp_untranslated;
        gpu::launch_dcp_read_translate(b, nullptr);
      },
      o);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.behaves_like, std::vector<std::string>{"b14_dcp_untranslated"}) << r.to_text();
}

TEST(HarnessGpu, ForcedPrefillNoRemapIsNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check<Route::full_prefill_table>(
      [](const FullPrefillTableArgs& a) {
        auto b = a;
        b.variant = Variant::b04_prefill_no_remap;
        gpu::launch_full_prefill_table(b, nullptr);
      },
      {.cases = 100, .seed = 15, .memory = harness::Memory::device});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(std::find(r.behaves_like.begin(), r.behaves_like.end(), "b04_prefill_no_remap"), r.behaves_like.end())
      << r.to_text();
}

}  // namespace
