// Graph mode's case logic on the host (src/memory.hpp's emulate_graph_on_host: the "graph" is the kernel's
// call on the capture case, called again with the same struct for every later case, as a replay launches
// it): the redrawn cases stay inside every route's contract at the capture case's shapes, new values reach
// the same buffers, and a wrapper that keeps a value from its first call is caught at a replay. The CUDA
// capture itself runs in harness/gpu_tests.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/model/errors.hpp"
#include "memory.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using harness::Report;

struct Emulated {
  Emulated() { harness::detail::emulate_graph_on_host(true); }
  ~Emulated() { harness::detail::emulate_graph_on_host(false); }
  Emulated(const Emulated&) = delete;
  Emulated& operator=(const Emulated&) = delete;
};

template <class S>
harness::KernelOf<S::id> host_route() {
  return [](const typename S::Args& a) { S::run(a); };
}

TEST(HarnessGraphHost, EveryRoutePassesOnReplaysOfItsCaptureCall) {
  const Emulated on;
  const Options o{.cases = 40, .seed = 21, .graph = true};
  int routes = 0;
  for_each_route([&](auto spec) {
    using S = decltype(spec);
    const Report r = harness::check<S::id>(host_route<S>(), o);
    EXPECT_TRUE(r.ok) << r.to_text();
    EXPECT_TRUE(r.graph);
    EXPECT_EQ(r.cases, 40) << r.to_text();  // every redrawn case lies inside the contract
    EXPECT_EQ(r.rejected, 0) << r.to_text();
    ++routes;
  });
  EXPECT_EQ(routes, kRouteCount);
  const Report t = harness::check_token_translate_i32(
      [](const TokenTranslateArgs<std::int32_t>& a) { RouteSpec<Route::token_translate>::run(a); }, o);
  EXPECT_TRUE(t.ok) << t.to_text();
  EXPECT_EQ(t.overflow.cases, 0);  // no overflow cases in graph mode
  const Report w = harness::check_swa_translate_i32(
      [](const SwaTranslateArgs<std::int32_t>& a) { RouteSpec<Route::swa_translate>::run(a); }, o);
  EXPECT_TRUE(w.ok) << w.to_text();
}

TEST(HarnessGraphHost, EveryReplayGetsTheSameBuffersWithNewValues) {
  const Emulated on;
  std::set<const std::int64_t*> lens_ptrs;
  std::set<std::int64_t> max_pages, batch;
  std::set<std::vector<std::int64_t>> lens_seen;
  int calls = 0;
  const Report r = harness::check_read_table(
      [&](const ReadTableArgs& a) {
        ++calls;
        lens_ptrs.insert(a.seq_lens.data);
        max_pages.insert(a.max_pages);
        batch.insert(a.seq_lens.size);
        lens_seen.emplace(a.seq_lens.data, a.seq_lens.data + a.seq_lens.size);
        RouteSpec<Route::read_table>::run(a);
      },
      Options{.cases = 30, .seed = 3, .graph = true});
  EXPECT_TRUE(r.ok) << r.to_text();
  EXPECT_EQ(calls, 30);  // the warm-up and 29 replays (the capture call itself is not run on the host)
  EXPECT_EQ(lens_ptrs.size(), 1U);
  EXPECT_EQ(max_pages.size(), 1U);
  EXPECT_EQ(batch.size(), 1U);
  EXPECT_GE(lens_seen.size(), 25U);  // the lengths are redrawn into the same buffer
}

// A wrapper that bounds its column loop by the longest row of its first call (the warm-up): right on that
// batch, wrong on a later, longer one.
TEST(HarnessGraphHost, AWrapperThatKeepsItsFirstCallsBoundIsCaughtAtAReplay) {
  const Emulated on;
  std::int64_t baked = -1;
  const auto kernel = [&baked](const CanonicalPageTableArgs& a) {
    if (baked < 0) {
      baked = 1;
      for (std::int64_t i = 0; i < a.seq_lens.size; ++i)
        baked = std::max(baked, (a.seq_lens.data[i] + a.page_size - 1) / a.page_size);
    }
    CanonicalPageTableArgs b = a;
    b.max_pages = std::min(a.max_pages, baked);
    RouteSpec<Route::canonical_page_table>::run(b);
  };
  const auto root = std::filesystem::temp_directory_path() / ("kvaddr_harness_graph_host_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  const Report r = harness::check_canonical_page_table(
      kernel, Options{.cases = 100, .seed = 21, .replay_dir = root.string(), .graph = true});
  ASSERT_FALSE(r.ok) << r.to_text();
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_GE(r.case_index, 1);
  EXPECT_EQ(r.shrink_steps, 0);  // graph failures keep the captured shapes
  ASSERT_FALSE(r.first.empty());
  EXPECT_GE(r.first[0].col, baked) << r.to_text();
  EXPECT_LT(r.first[0].actual, -0x2A000000);  // a sentinel: the lane was left unwritten
  std::ifstream side(std::filesystem::path(r.replay_dir) / "cxx_case.json");
  const std::string text((std::istreambuf_iterator<char>(side)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"graph\": true"), std::string::npos) << text;
  // eagerly, on the recorded case, production passes and the kept bound fails again
  EXPECT_TRUE(harness::check_canonical_page_table(host_route<RouteSpec<Route::canonical_page_table>>(),
                                                  Options{.from_replay = r.replay_dir})
                  .ok);
  EXPECT_FALSE(harness::check_canonical_page_table(kernel, Options{.from_replay = r.replay_dir}).ok);
  std::filesystem::remove_all(root);
}

TEST(HarnessGraphHost, WithoutTheHookHostMemoryIsRejected) {
  try {
    harness::check_transfer_ids([](const TransferIdsArgs&) {}, Options{.cases = 2, .graph = true});
    FAIL() << "graph = true in host memory was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "graph");
  }
}

}  // namespace
