// The C++ harness in device memory, with kvaddr's own CUDA launchers as the kernel under test
// for every route the harness checks (production passes; forced catalogue variants are caught and named).
// Graph mode: every launcher passes on graph replays; a column bound baked at capture is caught only there.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/replay/replay.hpp"

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

// The launcher `launch` as a harness kernel, on the default stream.
template <class Args>
std::function<void(const Args&)> as_kernel(void (*launch)(const Args&, cudaStream_t)) {
  return [launch](const Args& a) { launch(a, nullptr); };
}

void expect_passes(const harness::Report& r) { EXPECT_TRUE(r.ok) << r.to_text(); }

// The launcher `launch` with the variant of its arguments forced to v, on the default stream.
template <class Args>
std::function<void(const Args&)> forced(Variant v, void (*launch)(const Args&, cudaStream_t)) {
  return [v, launch](const Args& a) {
    Args b = a;
    b.variant = v;
    launch(b, nullptr);
  };
}

// The report of a forced variant's check: it failed, and names exactly that variant.
void expect_only_named(const harness::Report& r, const std::string& variant) {
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.behaves_like, std::vector<std::string>{variant}) << r.to_text();
}

TEST(HarnessGpu, KvaddrTokenTranslatePassesInDeviceMemory) {
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check_token_translate(
      [](const TokenTranslateArgs<std::int64_t>& a) { gpu::launch_token_translate(a, nullptr); },
      {.cases = 200, .seed = 1, .max_lanes = 1 << 16, .memory = harness::Memory::device});
  EXPECT_TRUE(r.ok) << r.to_text();
}

TEST(HarnessGpu, ForcedStaleTailIsNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  expect_only_named(harness::check_write_loc(forced(Variant::b06_stale_tail, gpu::launch_write_loc),
                                             {.cases = 50, .seed = 2, .memory = harness::Memory::device}),
                    "b06_stale_tail");
}

// An adjacent layout in device memory (one cudaMalloc'ed allocation, compared whole): the launcher plus one store
// (a cudaMemcpy) past out where loc is the argument right after it is caught and named by loc's element.
TEST(HarnessGpu, AStorePastOutIntoTheAdjacentInputIsNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check_write_loc(
      [](const WriteLocArgs& a) {
        gpu::launch_write_loc(a, nullptr);
        const std::int64_t v = 4242;
        if (a.out.data + a.out.size == a.loc.data) {
          ASSERT_EQ(cudaMemcpy(a.out.data + a.out.size, &v, sizeof v, cudaMemcpyHostToDevice), cudaSuccess);
        }
      },
      {.cases = 300, .seed = 21, .memory = harness::Memory::device});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "out_of_bounds");
  ASSERT_EQ(r.first.size(), 1U) << r.to_text();
  EXPECT_EQ(r.first[0].region, "neighbour_after");
  EXPECT_EQ(r.first[0].neighbour, "loc[0]");
  EXPECT_EQ(r.first[0].actual, 4242);
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
  expect_passes(harness::check_canonical_page_table(as_kernel(gpu::launch_canonical_page_table), o));
  expect_passes(harness::check_flashmla_block_table(as_kernel(gpu::launch_flashmla_block_table), o));
  expect_passes(harness::check_decode_metadata(as_kernel(gpu::launch_decode_metadata), o));
  expect_passes(harness::check_kv_indices_inplace(as_kernel(gpu::launch_kv_indices_inplace), o));
}

TEST(HarnessGpu, ForcedBatchRowsAreNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check_decode_metadata(forced(Variant::e10_batch_index_rows, gpu::launch_decode_metadata),
                                                {.cases = 100, .seed = 7, .memory = harness::Memory::device});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(std::find(r.behaves_like.begin(), r.behaves_like.end(), "e10_batch_index_rows"), r.behaves_like.end())
      << r.to_text();
}

TEST(HarnessGpu, IdRoutesPassInDeviceMemory) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 200, .seed = 9, .max_lanes = 1 << 16, .memory = harness::Memory::device};
  expect_passes(harness::check_swa_translate(as_kernel<SwaTranslateArgs<std::int64_t>>(gpu::launch_swa_translate), o));
  expect_passes(harness::check_dcp_read_translate(as_kernel(gpu::launch_dcp_read_translate), o));
  expect_passes(harness::check_transfer_ids(as_kernel(gpu::launch_transfer_ids), o));
  expect_passes(harness::check_mamba_translate(as_kernel(gpu::launch_mamba_translate), o));
  expect_passes(
      harness::check_token_translate_i32(as_kernel<TokenTranslateArgs<std::int32_t>>(gpu::launch_token_translate), o));
  expect_passes(
      harness::check_swa_translate_i32(as_kernel<SwaTranslateArgs<std::int32_t>>(gpu::launch_swa_translate), o));
}

TEST(HarnessGpu, FullPrefillAndEagerFunnelPassInDeviceMemory) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 150, .seed = 10, .memory = harness::Memory::device};
  expect_passes(harness::check_full_prefill_table(as_kernel(gpu::launch_full_prefill_table), o));
  expect_passes(harness::check_eager_funnel(as_kernel(gpu::launch_eager_funnel), o));
}

TEST(HarnessGpu, ForcedIdRouteVariantsAreNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 100, .seed = 11, .memory = harness::Memory::device};
  using SwaArgs = SwaTranslateArgs<std::int64_t>;
  expect_only_named(
      harness::check_swa_translate(forced<SwaArgs>(Variant::b11_swa_no_clamp, gpu::launch_swa_translate), o),
      "b11_swa_no_clamp");
  expect_only_named(
      harness::check_transfer_ids(forced(Variant::b16_virtual_as_physical, gpu::launch_transfer_ids), o),
      "b16_virtual_as_physical");
  expect_only_named(
      harness::check_dcp_read_translate(forced(Variant::b14_dcp_untranslated, gpu::launch_dcp_read_translate), o),
      "b14_dcp_untranslated");
}

TEST(HarnessGpu, ForcedPrefillNoRemapIsNamedOnTheDevice) {
  KVADDR_REQUIRE_GPU();
  const auto r = harness::check<Route::full_prefill_table>(
      forced(Variant::b04_prefill_no_remap, gpu::launch_full_prefill_table),
      {.cases = 100, .seed = 15, .memory = harness::Memory::device});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(std::find(r.behaves_like.begin(), r.behaves_like.end(), "b04_prefill_no_remap"), r.behaves_like.end())
      << r.to_text();
}

}  // namespace

namespace {
// ---- graph mode --------------------------------------------------------------------------------------
namespace graph_mode {
using namespace kvaddr;

cudaStream_t harness_stream() { return static_cast<cudaStream_t>(harness::stream()); }

TEST(HarnessGpuGraph, ProductionLaunchersPassOnGraphReplaysForEveryRoute) {
  KVADDR_REQUIRE_GPU();
  const harness::Options o{.cases = 40, .seed = 21, .memory = harness::Memory::device, .graph = true};
  std::vector<harness::Report> rs;
  rs.push_back(harness::check_token_translate(
      [](const TokenTranslateArgs<std::int64_t>& a) { gpu::launch_token_translate(a, harness_stream()); }, o));
  rs.push_back(harness::check_token_translate_i32(
      [](const TokenTranslateArgs<std::int32_t>& a) { gpu::launch_token_translate(a, harness_stream()); }, o));
  rs.push_back(harness::check_swa_translate(
      [](const SwaTranslateArgs<std::int64_t>& a) { gpu::launch_swa_translate(a, harness_stream()); }, o));
  rs.push_back(harness::check_swa_translate_i32(
      [](const SwaTranslateArgs<std::int32_t>& a) { gpu::launch_swa_translate(a, harness_stream()); }, o));
  rs.push_back(harness::check_dcp_read_translate(
      [](const DcpReadTranslateArgs& a) { gpu::launch_dcp_read_translate(a, harness_stream()); }, o));
  rs.push_back(harness::check_transfer_ids([](const TransferIdsArgs& a) { gpu::launch_transfer_ids(a, harness_stream()); }, o));
  rs.push_back(
      harness::check_mamba_translate([](const MambaTranslateArgs& a) { gpu::launch_mamba_translate(a, harness_stream()); }, o));
  rs.push_back(harness::check_write_loc([](const WriteLocArgs& a) { gpu::launch_write_loc(a, harness_stream()); }, o));
  rs.push_back(harness::check_read_table([](const ReadTableArgs& a) { gpu::launch_read_table(a, harness_stream()); }, o));
  rs.push_back(harness::check_canonical_page_table(
      [](const CanonicalPageTableArgs& a) { gpu::launch_canonical_page_table(a, harness_stream()); }, o));
  rs.push_back(harness::check_full_prefill_table(
      [](const FullPrefillTableArgs& a) { gpu::launch_full_prefill_table(a, harness_stream()); }, o));
  rs.push_back(harness::check_flashmla_block_table(
      [](const FlashmlaBlockTableArgs& a) { gpu::launch_flashmla_block_table(a, harness_stream()); }, o));
  rs.push_back(
      harness::check_decode_metadata([](const DecodeMetadataArgs& a) { gpu::launch_decode_metadata(a, harness_stream()); }, o));
  rs.push_back(harness::check_kv_indices_inplace(
      [](const KvIndicesInplaceArgs& a) { gpu::launch_kv_indices_inplace(a, harness_stream()); }, o));
  rs.push_back(harness::check_eager_funnel([](const EagerFunnelArgs& a) { gpu::launch_eager_funnel(a, harness_stream()); }, o));
  for (const auto& r : rs) {
    std::cout << r.to_text() << "\n";
    EXPECT_TRUE(r.ok) << r.to_text();
    EXPECT_TRUE(r.graph);
    EXPECT_GE(r.cases, 20) << r.to_text();  // replays of the one captured graph, after the warm-up case
  }
}

// A launcher that bounds its column loop by the longest row it saw on the host: each eager call reads seq_lens
// back and is right; under capture it cannot, and keeps the warm-up batch's bound in the graph.
harness::CanonicalPageTableKernel baking_launcher(std::int64_t* baked) {
  return [baked](const CanonicalPageTableArgs& a) {
    cudaStream_t s = harness_stream();
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (s != nullptr) {
      ASSERT_EQ(cudaStreamIsCapturing(s, &st), cudaSuccess);
    }
    if (st == cudaStreamCaptureStatusNone) {
      std::vector<std::int64_t> lens(static_cast<std::size_t>(a.seq_lens.size));
      if (!lens.empty()) {
        ASSERT_EQ(cudaMemcpy(lens.data(), a.seq_lens.data, lens.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost),
                  cudaSuccess);
      }
      *baked = 1;
      for (std::int64_t l : lens) *baked = std::max(*baked, (l + a.page_size - 1) / a.page_size);
    }
    CanonicalPageTableArgs b = a;
    b.max_pages = std::min(a.max_pages, *baked);
    gpu::launch_canonical_page_table(b, s);
  };
}

TEST(HarnessGpuGraph, AColumnBoundBakedAtCaptureIsCaughtOnlyByGraphReplays) {
  KVADDR_REQUIRE_GPU();
  std::int64_t baked = 0;
  const harness::Report eager = harness::check_canonical_page_table(
      baking_launcher(&baked), {.cases = 100, .seed = 21, .memory = harness::Memory::device});
  EXPECT_TRUE(eager.ok) << eager.to_text();
  const auto root = std::filesystem::temp_directory_path() / ("kvaddr_harness_graph_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  const harness::Report g = harness::check_canonical_page_table(
      baking_launcher(&baked),
      {.cases = 100, .seed = 21, .memory = harness::Memory::device, .replay_dir = root.string(), .graph = true});
  std::cout << g.to_text() << "\nbaked bound " << baked << "\n";
  ASSERT_FALSE(g.ok) << g.to_text();
  EXPECT_TRUE(g.graph);
  EXPECT_EQ(g.kind, "mismatch") << g.to_text();
  EXPECT_GE(g.case_index, 1);  // a replay, not the warm-up
  EXPECT_EQ(g.shrink_steps, 0);
  ASSERT_FALSE(g.first.empty());
  EXPECT_GE(g.first[0].col, baked) << g.to_text();  // a column past the captured bound was left unwritten
  // the replay directory reproduces it on the host, and the production launcher passes on it
  const replay::ReplayReport rep = replay::replay_dir(g.replay_dir);
  ASSERT_EQ(rep.calls.size(), 1U);
  EXPECT_EQ(rep.calls[0].status, replay::CallStatus::differs) << replay::to_text(rep);
  const harness::Report again = harness::check_canonical_page_table(
      [](const CanonicalPageTableArgs& a) { gpu::launch_canonical_page_table(a, nullptr); },
      {.memory = harness::Memory::device, .from_replay = g.replay_dir});
  EXPECT_TRUE(again.ok) << again.to_text();
  std::filesystem::remove_all(root);
}

TEST(HarnessGpuGraph, ALaunchOutsideTheHarnessStreamFailsTheGraphCheck) {
  KVADDR_REQUIRE_GPU();
  const harness::Report r = harness::check_write_loc([](const WriteLocArgs& a) { gpu::launch_write_loc(a, nullptr); },
                                                     {.cases = 20, .seed = 23, .memory = harness::Memory::device,
                                                      .graph = true});
  std::cout << r.to_text() << "\n";
  EXPECT_FALSE(r.ok) << r.to_text();  // the capture breaks (or captures nothing): never a silent pass
}

}  // namespace graph_mode
}  // namespace
