// Replay directories of the C++ harness: a planted kernel's minimal failing case is written in docs/replay.md's
// format, kvaddr's replay library reproduces it as a difference named by the planted variant, and
// Options::from_replay runs a kernel on the same case again (the correct one passes, the planted one fails the
// same way). Plus the new options' validation, both sides of each rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using harness::Report;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("kvaddr_harness_replay_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

// The host route of spec S under variant v, as the kernel under check (host memory).
template <class S>
harness::KernelOf<S::id> host_route(Variant v) {
  return [v](const typename S::Args& a) {
    auto b = a;
    b.variant = v;
    S::run(b);
  };
}

template <class S>
void expect_replayable(Variant planted, std::uint64_t seed) {
  const fs::path root = fresh_dir(std::string(S::name));
  const Report r = harness::check<S::id>(host_route<S>(planted), Options{.cases = 60, .seed = seed, .replay_dir = root});
  ASSERT_FALSE(r.ok) << S::name;
  ASSERT_FALSE(r.replay_dir.empty()) << r.to_text();
  const fs::path dir = r.replay_dir;
  EXPECT_EQ(dir.parent_path(), root);
  EXPECT_EQ(dir.filename().string(),
            std::string(S::name) + "-seed" + std::to_string(seed) + "-case" + std::to_string(r.case_index));
  EXPECT_TRUE(fs::is_regular_file(dir / "manifest.json"));
  EXPECT_TRUE(fs::is_regular_file(dir / "cxx_case.json"));
  EXPECT_NE(r.to_text().find("replay: " + dir.string()), std::string::npos) << r.to_text();
  EXPECT_NE(r.snippet.find("kvaddr::harness::check_" + std::string(S::name) + "(my_kernel, {.from_replay = \"" +
                           dir.string() + "\"})"),
            std::string::npos)
      << r.snippet;

  // kvaddr's replay re-runs the host route on the recorded before buffers: the kernel's output differs from
  // production exactly where the harness said, and the planted variant reproduces it.
  const replay::ReplayReport rep = replay::replay_dir(dir);
  ASSERT_TRUE(rep.error.empty()) << rep.error;
  ASSERT_EQ(rep.calls.size(), 1U);
  const replay::CallReport& call = rep.calls[0];
  ASSERT_EQ(call.status, replay::CallStatus::differs) << S::name << "\n" << replay::to_text(rep);
  EXPECT_EQ(call.route, S::name);
  EXPECT_EQ(call.lanes_differing, r.differing) << replay::to_text(rep) << "\n" << r.to_text();
  const std::string v(to_string(planted));
  EXPECT_NE(std::find(call.matching_variants.begin(), call.matching_variants.end(), v), call.matching_variants.end())
      << replay::to_text(rep);
  EXPECT_EQ(replay::exit_code(rep), 1);

  // The same case, run again through from_replay: production passes on every lane, the planted route fails again
  // at the same lanes.
  const Report good = harness::check<S::id>(host_route<S>(Variant::production), Options{.from_replay = dir.string()});
  EXPECT_TRUE(good.ok) << good.to_text();
  EXPECT_EQ(good.cases, 1);
  if (r.minimal_case.find("one allocation") == std::string::npos) {
    EXPECT_EQ(good.lanes, call.lanes_checked) << S::name;
  } else {  // an adjacent layout's one output is recorded as the whole shared allocation: more lanes than its own
    EXPECT_GT(call.lanes_checked, good.lanes - 128) << S::name;
  }
  const Report bad = harness::check<S::id>(host_route<S>(planted), Options{.from_replay = dir.string()});
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.kind, r.kind);
  EXPECT_EQ(bad.differing, r.differing);
  ASSERT_EQ(bad.first.size(), r.first.size());
  for (std::size_t i = 0; i < r.first.size(); ++i) {
    EXPECT_EQ(bad.first[i].row, r.first[i].row);
    EXPECT_EQ(bad.first[i].col, r.first[i].col);
    EXPECT_EQ(bad.first[i].actual, r.first[i].actual);
  }
  EXPECT_TRUE(bad.replay_dir.empty());  // the case is recorded already
  fs::remove_all(root);
}

TEST(HarnessReplay, PlantedFailuresReplayAsDifferencesOnEveryFormOfCase) {
  expect_replayable<RouteSpec<Route::token_translate>>(Variant::b17_doc_formula, 1);      // 1-D, out == ids in some
  expect_replayable<RouteSpec<Route::read_table>>(Variant::b10_no_max_pages_bound, 2);    // padded rows, zero tail
  expect_replayable<RouteSpec<Route::canonical_page_table>>(Variant::e10_batch_index_rows, 3);
  expect_replayable<RouteSpec<Route::flashmla_block_table>>(Variant::e09_floor_pages, 4);  // page_kernel_lens
  expect_replayable<RouteSpec<Route::decode_metadata>>(Variant::e10_batch_index_rows, 5);  // three outputs
  expect_replayable<RouteSpec<Route::kv_indices_inplace>>(Variant::b05_rebind_fresh, 6);   // int32 kv_indptr
  expect_replayable<RouteSpec<Route::write_loc>>(Variant::b06_stale_tail, 7);
  expect_replayable<RouteSpec<Route::swa_translate>>(Variant::b11_swa_no_clamp, 8);
  expect_replayable<RouteSpec<Route::dcp_read_translate>>(Variant::b14_dcp_untranslated, 9);
  expect_replayable<RouteSpec<Route::transfer_ids>>(Variant::b16_virtual_as_physical, 10);
  expect_replayable<RouteSpec<Route::full_prefill_table>>(Variant::b04_prefill_no_remap, 11);
}

TEST(HarnessReplay, ManifestHoldsTheGuardedOutputsAndTheRouteArguments) {
  const fs::path root = fresh_dir("manifest");
  const Report r = harness::check_read_table(host_route<RouteSpec<Route::read_table>>(Variant::b10_no_max_pages_bound),
                                             Options{.cases = 60, .seed = 2, .replay_dir = root.string()});
  ASSERT_FALSE(r.replay_dir.empty());
  const fs::path d = r.replay_dir;
  std::ifstream in(d / "manifest.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* key : {"\"req_to_token\"", "\"req_pool_indices\"", "\"seq_lens\"", "\"v2p\"", "\"max_pages\"",
                          "\"offset\": 64", "\"variant\": \"production\"", "\"format\": \"kvaddr-replay\""})
    EXPECT_NE(text.find(key), std::string::npos) << key << "\n" << text;
  const replay::NpyArray before = replay::read_npy(d / "out.out.before.npy");
  const replay::NpyArray after = replay::read_npy(d / "out.out.after.npy");
  EXPECT_EQ(before.dtype, replay::NpyDtype::int32);
  EXPECT_EQ(before.size(), after.size());
  EXPECT_GT(before.size(), 128);  // the buffer and its two 64-lane guards
  // the guards are unchanged by the spill (it lands in the padding columns or rows, inside the buffer)
  EXPECT_TRUE(std::equal(before.values.begin(), before.values.begin() + 64, after.values.begin()));
  fs::remove_all(root);
}

TEST(HarnessReplay, AKernelThatRaisesIsRecordedWithUnchangedOutputs) {
  const fs::path root = fresh_dir("raised");
  const Report r = harness::check_transfer_ids(
      [](const TransferIdsArgs& a) {
        if (a.ids.size > 2) throw std::runtime_error("too many ids");
        RouteSpec<Route::transfer_ids>::run(a);
      },
      Options{.cases = 20, .seed = 1, .replay_dir = root.string()});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "raised");
  ASSERT_FALSE(r.replay_dir.empty());
  const replay::NpyArray before = replay::read_npy(fs::path(r.replay_dir) / "out.out.before.npy");
  const replay::NpyArray after = replay::read_npy(fs::path(r.replay_dir) / "out.out.after.npy");
  EXPECT_EQ(before.values, after.values);
  const Report again = harness::check_transfer_ids(
      [](const TransferIdsArgs& a) {
        if (a.ids.size > 2) throw std::runtime_error("too many ids");
      },
      Options{.from_replay = r.replay_dir});
  EXPECT_EQ(again.kind, "raised");
  EXPECT_EQ(again.detail, "too many ids");
  fs::remove_all(root);
}

template <class F>
std::string argument_of(const F& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.argument();
  }
  return "(nothing thrown)";
}

const auto kIdentity = [](const TransferIdsArgs& a) { RouteSpec<Route::transfer_ids>::run(a); };

TEST(HarnessReplay, ReplayDirMustNotBeAFile) {
  const fs::path root = fresh_dir("file");
  fs::create_directories(root);
  std::ofstream(root / "plain") << "x";
  EXPECT_EQ(argument_of([&] { harness::check_transfer_ids(kIdentity, Options{.cases = 2, .replay_dir = (root / "plain").string()}); }),
            "replay_dir");
  // a directory that does not exist yet is fine (made on a failure), as is an existing one
  EXPECT_TRUE(harness::check_transfer_ids(kIdentity, Options{.cases = 2, .replay_dir = (root / "new").string()}).ok);
  EXPECT_TRUE(harness::check_transfer_ids(kIdentity, Options{.cases = 2, .replay_dir = root.string()}).ok);
  EXPECT_FALSE(fs::exists(root / "new"));  // nothing failed, nothing written
  fs::remove_all(root);
}

TEST(HarnessReplay, FromReplayNeedsARecordingOfTheSameRouteAndForm) {
  const fs::path root = fresh_dir("from");
  fs::create_directories(root / "empty");
  std::ofstream(root / "plain") << "x";
  EXPECT_EQ(argument_of([&] { harness::check_transfer_ids(kIdentity, Options{.from_replay = (root / "plain").string()}); }),
            "from_replay");
  EXPECT_EQ(argument_of([&] { harness::check_transfer_ids(kIdentity, Options{.from_replay = (root / "empty").string()}); }),
            "from_replay");
  const Report r = harness::check_token_translate(
      host_route<RouteSpec<Route::token_translate>>(Variant::b17_doc_formula), Options{.cases = 30, .replay_dir = root.string()});
  ASSERT_FALSE(r.replay_dir.empty());
  EXPECT_EQ(argument_of([&] { harness::check_transfer_ids(kIdentity, Options{.from_replay = r.replay_dir}); }),
            "from_replay");  // another route
  const Report r32 = harness::check_token_translate_i32(
      [](const TokenTranslateArgs<std::int32_t>& a) {
        auto b = a;
        b.variant = Variant::b17_doc_formula;
        RouteSpec<Route::token_translate>::run(b);
      },
      Options{.cases = 30, .seed = 99, .replay_dir = root.string(), .overflow_fraction = 0.0});
  EXPECT_NE(r32.snippet.find("check_token_translate_i32(my_kernel"), std::string::npos) << r32.snippet;
  EXPECT_EQ(argument_of([&] {
              harness::check_token_translate_i32([](const TokenTranslateArgs<std::int32_t>&) {},
                                                 Options{.from_replay = r.replay_dir});
            }),
            "from_replay");  // the same route, the int32-out form
  EXPECT_TRUE(harness::check_token_translate(host_route<RouteSpec<Route::token_translate>>(Variant::production),
                                             Options{.from_replay = r.replay_dir})
                  .ok);
  fs::remove_all(root);
}

TEST(HarnessOptions, EachNewOptionIsValidatedOnBothSides) {
  auto run = [](Options o) { return harness::check_transfer_ids(kIdentity, o); };
  EXPECT_EQ(argument_of([&] { run(Options{.cases = -1}); }), "cases");
  EXPECT_EQ(run(Options{.cases = 0}).cases, 0);
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .max_lanes = 0}); }), "max_lanes");
  EXPECT_TRUE(run(Options{.cases = 2, .max_lanes = 1}).ok);
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .overflow_fraction = -0.01}); }), "overflow_fraction");
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .overflow_fraction = 1.01}); }), "overflow_fraction");
  EXPECT_TRUE(run(Options{.cases = 2, .overflow_fraction = 0.0}).ok);
  EXPECT_TRUE(run(Options{.cases = 2, .overflow_fraction = 1.0}).ok);
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .overflow = static_cast<harness::OverflowPolicy>(3)}); }),
            "overflow");
  EXPECT_TRUE(run(Options{.cases = 2, .overflow = harness::OverflowPolicy::skip}).ok);
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .shrink_seconds = -0.01}); }), "shrink_seconds");
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .shrink_seconds = 1.01e9}); }), "shrink_seconds");
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .shrink_seconds = std::nan("")}); }), "shrink_seconds");
  EXPECT_TRUE(run(Options{.cases = 2, .shrink_seconds = 0.0}).ok);
  EXPECT_TRUE(run(Options{.cases = 2, .shrink_seconds = 1e9}).ok);
  // graph mode needs device memory (and a build with CUDA)
  EXPECT_EQ(argument_of([&] { run(Options{.cases = 2, .graph = true}); }), "graph");
  EXPECT_TRUE(run(Options{.cases = 2, .graph = false}).ok);
}

// Options::shrink_seconds bounds gen/shrink.hpp's search: 0 s takes no step, the default shrinks.
TEST(HarnessOptions, ShrinkSecondsBoundsTheShrinking) {
  const auto bug = host_route<RouteSpec<Route::token_translate>>(Variant::b17_doc_formula);
  const Report shrunk = harness::check_token_translate(bug, Options{.cases = 30, .seed = 99});
  const Report kept = harness::check_token_translate(bug, Options{.cases = 30, .seed = 99, .shrink_seconds = 0.0});
  ASSERT_FALSE(shrunk.ok);
  ASSERT_FALSE(kept.ok);
  EXPECT_EQ(shrunk.case_index, kept.case_index);
  EXPECT_GT(shrunk.shrink_steps, 0);
  EXPECT_EQ(kept.shrink_steps, 0);
  EXPECT_NE(shrunk.minimal_case, kept.minimal_case);
}

// The naming list (kvaddr/harness/naming.hpp) holds the route's registered composites: a kernel that is one is
// named by it (the C++ harness tried no composite before).
TEST(HarnessNaming, ARegisteredCompositeIsNamed) {
  const Report r = harness::check<Route::decode_metadata>(
      host_route<RouteSpec<Route::decode_metadata>>(Variant::pr33046_as_written), Options{.cases = 100, .seed = 2});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(std::find(r.behaves_like.begin(), r.behaves_like.end(), "pr33046_as_written"), r.behaves_like.end())
      << r.to_text();
}

}  // namespace
