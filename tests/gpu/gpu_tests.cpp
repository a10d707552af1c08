// GPU tests (label gpu): differential budget, per-variant agreement, graph capture, errors.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "kvaddr/kernels/device_gen.hpp"
#include "kvaddr/kernels/diff.hpp"
#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/translate/routes.hpp"

namespace {

using namespace kvaddr;
using i64 = std::int64_t;
using i32 = std::int32_t;

#define REQUIRE_GPU()                                       \
  do {                                                      \
    std::string why_;                                       \
    if (!gpu::gpu_available(&why_)) GTEST_SKIP() << "no CUDA GPU: " << why_; \
  } while (0)

void ck(cudaError_t e) { ASSERT_EQ(e, cudaSuccess) << cudaGetErrorString(e); }

// Small RAII device buffer.
template <class T>
struct Dev {
  T* p = nullptr;
  i64 n = 0;
  explicit Dev(const std::vector<T>& h) : n(static_cast<i64>(h.size())) {
    EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(1, h.size()) * sizeof(T)), cudaSuccess);
    if (!h.empty()) {
      EXPECT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    }
  }
  ~Dev() { (void)cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  std::vector<T> get() const {
    std::vector<T> h(static_cast<std::size_t>(n));
    if (n) {
      EXPECT_EQ(cudaMemcpy(h.data(), p, h.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return h;
  }
  Vec<const T> c() const { return {p, n}; }
  Vec<T> m() { return {p, n}; }
};

i64 env_or(const char* name, i64 fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoll(v) : fallback;
}

// ---- the differential budget: >= 10^8 translated lanes across all kernels ----------------------
TEST(GpuDiff, BudgetOfOneHundredMillionLanes) {
  REQUIRE_GPU();
  gpu::DiffOptions o;
  o.seed = static_cast<std::uint64_t>(env_or("KVADDR_GPU_SEED", 20260917));
  o.cases = gpu::kDiffKernelCount * 4;
  o.min_lanes = env_or("KVADDR_GPU_LANES", 100'000'000);
  o.max_case_lanes = i64(1) << 21;
  const gpu::DiffReport r = gpu::run_differential(o);
  std::printf("%s", gpu::to_text(r).c_str());
  EXPECT_TRUE(r.ok()) << gpu::to_text(r);
  EXPECT_GE(r.lanes_translated, o.min_lanes);
  for (const auto& k : r.per_kernel) EXPECT_GT(k.cases, 0) << gpu::to_string(k.kernel);
}

// Many small cases per kernel: every variant, every edge class, tiny and empty batches.
TEST(GpuDiff, ManySmallCasesPerKernel) {
  REQUIRE_GPU();
  for (int k = 0; k < gpu::kDiffKernelCount; ++k) {
    gpu::DiffOptions o;
    o.seed = 7 + static_cast<std::uint64_t>(k);
    o.cases = env_or("KVADDR_GPU_SMALL_CASES", 60);
    o.max_case_lanes = 2048;
    o.only = static_cast<gpu::DiffKernel>(k);
    const gpu::DiffReport r = gpu::run_differential(o);
    EXPECT_TRUE(r.ok()) << gpu::to_text(r);
  }
}

// Both lane shapes of the table kernels for rows of at most 1024 columns (one column a thread, the
// default; four columns a thread) agree with the model on the same cases.
TEST(GpuDiff, NarrowRowShapesAgree) {
  REQUIRE_GPU();
  const gpu::LaunchShape keep = gpu::launch_shape();
  for (const bool narrow : {true, false}) {
    gpu::LaunchShape shape;
    shape.table_narrow_rows = narrow;
    gpu::set_launch_shape(shape);
    gpu::DiffOptions o;
    o.seed = 31;
    o.cases = gpu::kDiffKernelCount * 12;
    o.max_case_lanes = 1 << 14;
    const gpu::DiffReport r = gpu::run_differential(o);
    EXPECT_TRUE(r.ok()) << "table_narrow_rows " << narrow << "\n" << gpu::to_text(r);
  }
  gpu::set_launch_shape(keep);
}

// ---- forced variants: the generator reaches every planted bug class (a kill = the route running
// the variant disagrees with the model, or throws). Host-only needs no GPU; the GPU leg runs the
// kernels with the variant and must kill against the model too (never a mere GPU-vs-host split).
struct ForcedCell {
  Variant v;
  Route r;
};
const ForcedCell kForced[] = {
    {Variant::e10_batch_index_rows, Route::flashmla_block_table}, {Variant::e10_batch_index_rows, Route::canonical_page_table},
    {Variant::e10_batch_index_rows, Route::read_table},           {Variant::e10_batch_index_rows, Route::decode_metadata},
    {Variant::e02_minus_one_sentinel, Route::canonical_page_table}, {Variant::e02_minus_one_sentinel, Route::read_table},
    {Variant::e02_minus_one_sentinel, Route::write_loc},          {Variant::e03_int32_offset, Route::token_translate},
    {Variant::e03_int32_offset, Route::write_loc},                {Variant::b09_no_padding_guard, Route::flashmla_block_table},
    {Variant::b09_no_padding_guard, Route::canonical_page_table}, {Variant::b09_no_padding_guard, Route::read_table},
    {Variant::b09_no_padding_guard, Route::decode_metadata},
    {Variant::e01_no_column_bound, Route::canonical_page_table},  {Variant::e01_no_column_bound, Route::read_table},
    {Variant::e09_floor_pages, Route::flashmla_block_table},      {Variant::e09_floor_pages, Route::read_table},
    {Variant::b10_no_max_pages_bound, Route::read_table},
};

gpu::DiffReport forced_run(const ForcedCell& f, bool host_only) {
  gpu::DiffOptions o;
  o.seed = 1;
  o.cases = env_or("KVADDR_FORCED_CASES", 200);
  o.max_case_lanes = 4096;
  o.host_only = host_only;
  o.force_variant = f.v;
  o.force_route = f.r;
  return gpu::run_differential(o);
}

// Every forced variant is caught, by a check other than the host route's own (the model or the GPU).
void expect_forced_variants_killed(bool host_only) {
  for (const auto& f : kForced) {
    const auto r = forced_run(f, host_only);
    ASSERT_TRUE(r.first_mismatch.has_value()) << to_string(f.v) << " on " << to_string(f.r) << " survived";
    EXPECT_NE(r.first_mismatch->against, "host") << gpu::to_text(r);
    std::printf("%s%s on %s: killed by %s vs %s (case %lld)\n", host_only ? "host-only: " : "",
                std::string(to_string(f.v)).c_str(), std::string(to_string(f.r)).c_str(),
                std::string(gpu::to_string(r.first_mismatch->kernel)).c_str(), r.first_mismatch->against.c_str(),
                static_cast<long long>(r.first_mismatch->case_index));
  }
}

TEST(GpuDiffHostOnly, ForcedVariantsAreKilled) { expect_forced_variants_killed(true); }

TEST(GpuDiff, ForcedVariantsAreKilledOnTheGpu) {
  REQUIRE_GPU();
  expect_forced_variants_killed(false);
}

TEST(GpuDiff, ReplayIsDeterministic) {
  REQUIRE_GPU();
  const auto a = gpu::replay_case(99, 5, 4096);
  const auto b = gpu::replay_case(99, 5, 4096);
  EXPECT_TRUE(a.ok());
  EXPECT_EQ(a.lanes_translated, b.lanes_translated);
  EXPECT_EQ(a.lanes_compared, b.lanes_compared);
}

// ---- per-variant: the GPU reproduces the host variant's output --------------------------------
struct Fixture {
  // 6 virtual pages; page 3 is a tombstone; sentinel row.
  std::vector<i64> v2p = {0, 4, 2, -1, 1, 5, -1};
};

TEST(GpuVariants, FlashmlaEraBUnclampedGivesMinusM) {
  REQUIRE_GPU();
  Fixture f;
  const i64 ps = 4, M = 24, W = 4;
  std::vector<i32> r2t(16);
  for (i64 j = 0; j < 16; ++j) r2t[static_cast<std::size_t>(j)] = static_cast<i32>((j / 4 + 1) * 4 + j % 4);  // pages 1..4
  std::vector<i64> rows = {0}, lens = {13};
  for (Variant v : {Variant::production, Variant::era_b_unclamped}) {
    std::vector<i32> host(static_cast<std::size_t>(W), -1);
    FlashmlaBlockTableArgs h{{r2t.data(), 1, 16, 16, 1}, cvec(rows), cvec(lens), {}, cvec(f.v2p), ps, M, {host.data(), 1, W, W, 1}, v};
    translate::flashmla_block_table(h);
    Dev<i32> dr2t(r2t), dout(std::vector<i32>(static_cast<std::size_t>(W), -1));
    Dev<i64> drows(rows), dlens(lens), dv2p(f.v2p);
    gpu::launch_flashmla_block_table({{dr2t.p, 1, 16, 16, 1}, drows.c(), dlens.c(), {}, dv2p.c(), ps, M, {dout.p, 1, W, W, 1}, v}, nullptr);
    ck(cudaDeviceSynchronize());
    EXPECT_EQ(dout.get(), host);
    EXPECT_EQ(host[2], v == Variant::era_b_unclamped ? -M : 0);  // page 3 is the tombstone
  }
}

TEST(GpuVariants, DecodeEraBUnclampedGivesMinusM) {
  REQUIRE_GPU();
  Fixture f;
  const i64 ps = 1, M = 24;
  std::vector<i32> r2t = {1, 2, 3, 4};
  std::vector<i64> rows = {0}, lens = {4};
  for (Variant v : {Variant::production, Variant::era_b_unclamped}) {
    std::vector<i32> cache(1), cu(2), pt(4, 77);
    DecodeMetadataArgs h;
    h.seq_lens = cvec(lens);
    h.req_to_token = {r2t.data(), 1, 4, 4, 1};
    h.req_pool_indices = cvec(rows);
    h.max_seq_pages = 4;
    h.page_size = ps;
    h.v2p = cvec(f.v2p);
    h.multiplier = M;
    h.cache_seqlens = mvec(cache);
    h.cu_seqlens_k = mvec(cu);
    h.page_table = {pt.data(), 1, 4, 4, 1};
    h.variant = v;
    translate::decode_metadata(h);
    Dev<i32> dr2t(r2t), dcache(std::vector<i32>(1)), dcu(std::vector<i32>(2)), dpt(std::vector<i32>(4, 77));
    Dev<i64> drows(rows), dlens(lens), dv2p(f.v2p);
    DecodeMetadataArgs d = h;
    d.seq_lens = dlens.c();
    d.req_to_token.data = dr2t.p;
    d.req_pool_indices = drows.c();
    d.v2p = dv2p.c();
    d.cache_seqlens = dcache.m();
    d.cu_seqlens_k = dcu.m();
    d.page_table.data = dpt.p;
    gpu::launch_decode_metadata(d, nullptr);
    ck(cudaDeviceSynchronize());
    EXPECT_EQ(dpt.get(), pt);
    EXPECT_EQ(dcu.get(), cu);
    EXPECT_EQ(pt[2], v == Variant::era_b_unclamped ? -M : 0);
  }
}

template <class Args, class HostFn, class GpuFn>
void token_variant_case(const std::vector<i64>& ids, const std::vector<i64>& v2p, Variant v, i64 ps, i64 M, HostFn host_fn,
                        GpuFn gpu_fn, std::vector<i64>* host_out) {
  std::vector<i64> host(ids.size(), -9);
  host_fn(Args{cvec(ids), cvec(v2p), ps, M, mvec(host), v});
  Dev<i64> did(ids), dv2p(v2p), dout(std::vector<i64>(ids.size(), -9));
  gpu_fn(Args{did.c(), dv2p.c(), ps, M, dout.m(), v});
  ck(cudaDeviceSynchronize());
  EXPECT_EQ(dout.get(), host) << "variant " << to_string(v);
  *host_out = host;
}

TEST(GpuVariants, TokenDocFormulaAndSwaNoClamp) {
  REQUIRE_GPU();
  Fixture f;
  const std::vector<i64> ids = {-1, 0, 5, 13, 14, 20, 27};  // page 3 (tokens 12..15) is a tombstone
  std::vector<i64> out;
  for (Variant v : {Variant::production, Variant::b17_doc_formula}) {
    token_variant_case<TokenTranslateArgs<i64>>(
        ids, f.v2p, v, 4, 3, [](const TokenTranslateArgs<i64>& a) { translate::token_translate(a); },
        [](const TokenTranslateArgs<i64>& a) { gpu::launch_token_translate(a, nullptr); }, &out);
    if (v == Variant::b17_doc_formula) EXPECT_EQ(out[3], 3 * 12 + 1);  // virtual page used as physical
    else EXPECT_EQ(out[3], 0);
  }
  for (Variant v : {Variant::production, Variant::b11_swa_no_clamp}) {
    token_variant_case<SwaTranslateArgs<i64>>(
        ids, f.v2p, v, 4, 2, [](const SwaTranslateArgs<i64>& a) { translate::swa_translate(a); },
        [](const SwaTranslateArgs<i64>& a) { gpu::launch_swa_translate(a, nullptr); }, &out);
    if (v == Variant::b11_swa_no_clamp) EXPECT_LT(out[3], 0);
    else EXPECT_EQ(out[3], 0);
  }
}

TEST(GpuVariants, WriteLocStaleTailAndKvIndicesRebind) {
  REQUIRE_GPU();
  Fixture f;
  const std::vector<i64> loc = {0, 5, -1, 9};
  for (Variant v : {Variant::production, Variant::b06_stale_tail}) {
    std::vector<i64> host(8, 42);
    translate::write_loc({cvec(loc), cvec(f.v2p), 4, 2, 1, 0, mvec(host), v});
    Dev<i64> dloc(loc), dv2p(f.v2p), dout(std::vector<i64>(8, 42));
    gpu::launch_write_loc({dloc.c(), dv2p.c(), 4, 2, 1, 0, dout.m(), v}, nullptr);
    ck(cudaDeviceSynchronize());
    EXPECT_EQ(dout.get(), host);
    EXPECT_EQ(host[7], v == Variant::b06_stale_tail ? 42 : 0);
  }
  const std::vector<i32> indptr = {0, 2, 3};
  for (Variant v : {Variant::production, Variant::b05_rebind_fresh}) {
    std::vector<i32> host = {1, 5, 9, 1 << 30};
    translate::kv_indices_inplace({mvec(host), cvec(indptr), 2, {}, cvec(f.v2p), 4, 2, v});
    Dev<i32> dbuf(std::vector<i32>{1, 5, 9, 1 << 30}), dind(indptr);
    Dev<i64> dv2p(f.v2p);
    gpu::launch_kv_indices_inplace({dbuf.m(), dind.c(), 2, {}, dv2p.c(), 4, 2, v}, nullptr);
    ck(cudaDeviceSynchronize());
    EXPECT_EQ(dbuf.get(), host);
    EXPECT_EQ(host[3], 1 << 30);  // tail untouched
  }
}

TEST(GpuVariants, EagerFunnelB02FailsLikeTheHost) {
  // Host-side argument check: runs without a GPU too (no CUDA call is reached).
  Fixture f;
  std::vector<i64> pt = {1, 2}, out(2);
  const EagerFunnelArgs h{{pt.data(), 1, 2, 2, 1}, cvec(f.v2p), 1, 1, {out.data(), 1, 2, 2, 1}, Variant::b02_rank2_index_select};
  EXPECT_THROW(translate::eager_funnel(h), InvalidArgument);
  EXPECT_THROW(gpu::launch_eager_funnel(h, nullptr), InvalidArgument);
}

TEST(GpuLaunchers, ValidateRejectsBadArgumentsBeforeAnyCudaCall) {
  Fixture f;
  std::vector<i64> ids = {1}, out(1);
  EXPECT_THROW(gpu::launch_token_translate(TokenTranslateArgs<i64>{cvec(ids), cvec(f.v2p), 0, 1, mvec(out)}, nullptr), InvalidArgument);
  EXPECT_THROW(gpu::launch_token_translate(TokenTranslateArgs<i64>{cvec(ids), cvec(f.v2p), 4, 1, mvec(out), Variant::b09_no_padding_guard}, nullptr),
               InvalidArgument);
}

TEST(GpuLaunchers, CudaErrorIsAKvaddrError) {
  const CudaError e("cudaMalloc", 2, "cudaErrorMemoryAllocation", "out of memory");
  const Error& base = e;
  EXPECT_EQ(base.argument(), "cudaMalloc");
  EXPECT_EQ(e.code(), 2);
}

// ---- CUDA graph capture: launchers are capture-safe and replay reads the current inputs --------
TEST(GpuGraph, CaptureAndReplayTokenTranslateAndWriteLoc) {
  REQUIRE_GPU();
  Fixture f;
  const i64 ps = 4, M = 3, n = 5, width = 9;
  std::vector<i64> ids = {-1, 1, 6, 13, 22};
  Dev<i64> dids(ids), dv2p(f.v2p), dout(std::vector<i64>(n, 0)), dw(std::vector<i64>(width, 5));
  cudaStream_t s = nullptr;
  ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g = nullptr;
  cudaGraphExec_t ge = nullptr;
  ck(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  gpu::launch_token_translate(TokenTranslateArgs<i64>{dids.c(), dv2p.c(), ps, M, dout.m()}, s);
  gpu::launch_write_loc({dids.c(), dv2p.c(), ps, M, 1, 0, dw.m()}, s);
  ck(cudaStreamEndCapture(s, &g));
  ck(cudaGraphInstantiate(&ge, g, 0));
  for (int replay = 0; replay < 3; ++replay) {
    for (auto& t : ids) t = (t + 7) % 24;  // new batch in the same (pointer-stable) buffer
    ck(cudaMemcpyAsync(dids.p, ids.data(), ids.size() * sizeof(i64), cudaMemcpyHostToDevice, s));  // ordered before the replay on `s`
    ck(cudaGraphLaunch(ge, s));
    ck(cudaStreamSynchronize(s));
    std::vector<i64> want(static_cast<std::size_t>(n)), wantw(static_cast<std::size_t>(width), 5);
    translate::token_translate(TokenTranslateArgs<i64>{cvec(ids), cvec(f.v2p), ps, M, mvec(want)});
    translate::write_loc({cvec(ids), cvec(f.v2p), ps, M, 1, 0, mvec(wantw)});
    EXPECT_EQ(dout.get(), want) << "replay " << replay;
    EXPECT_EQ(dw.get(), wantw) << "replay " << replay;
  }
  ck(cudaGraphExecDestroy(ge));
  ck(cudaGraphDestroy(g));
  ck(cudaStreamDestroy(s));
}

TEST(GpuGraph, KvIndicesInplaceReadsItsBoundOnTheDevice) {
  REQUIRE_GPU();
  Fixture f;
  std::vector<i32> virt = {1, 2, 5, 6, 9, 17, 21, 22};
  std::vector<i32> indptr = {0, 3, 3};
  Dev<i32> dsrc(virt), dbuf(std::vector<i32>(8, 1 << 30)), dind(indptr);
  Dev<i64> dv2p(f.v2p);
  cudaStream_t s = nullptr;
  ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t g = nullptr;
  cudaGraphExec_t ge = nullptr;
  ck(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  gpu::launch_kv_indices_inplace({dbuf.m(), dind.c(), 2, dsrc.c(), dv2p.c(), 4, 2}, s);
  ck(cudaStreamEndCapture(s, &g));
  ck(cudaGraphInstantiate(&ge, g, 0));
  for (i32 n : {3, 8, 1}) {  // the bound changes between replays without re-capture
    indptr = {0, n / 2, n};
    // The bound's upload and the buffer's reset are ordered on the replay stream itself: `s` is
    // non-blocking, so a copy or memset on the legacy default stream would not be ordered before
    // the graph (it failed 2 of 3000 runs next to a loaded GPU).
    ck(cudaMemcpyAsync(dind.p, indptr.data(), indptr.size() * sizeof(i32), cudaMemcpyHostToDevice, s));
    ck(cudaMemsetAsync(dbuf.p, 0x40, 8 * sizeof(i32), s));
    ck(cudaGraphLaunch(ge, s));
    ck(cudaStreamSynchronize(s));
    std::vector<i32> want(8, 0x40404040);
    translate::kv_indices_inplace({mvec(want), cvec(indptr), 2, cvec(virt), cvec(f.v2p), 4, 2});
    EXPECT_EQ(dbuf.get(), want) << "n = " << n;
  }
  ck(cudaGraphExecDestroy(ge));
  ck(cudaGraphDestroy(g));
  ck(cudaStreamDestroy(s));
}

// ---- device-side generation (device_gen.hpp, Thrust) ------------------------------------------
TEST(GpuDeviceGen, RejectsBadArgumentsBeforeAnyCudaCall) {  // runs without a GPU too
  const auto argument_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.argument();
    }
    return "(no error)";
  };
  EXPECT_EQ(argument_of([] { gpu::fill_random_ids(nullptr, 5, 10, 1, nullptr); }), "ids");
  i64 dummy = 0;
  EXPECT_EQ(argument_of([&] { gpu::fill_random_ids(&dummy, 1, 0, 1, nullptr); }), "below");
  EXPECT_EQ(argument_of([&] { gpu::fill_random_ids(&dummy, -1, 5, 1, nullptr); }), "n");
  EXPECT_EQ(argument_of([&] { gpu::fill_random_v2p(&dummy, 0, 1, nullptr); }), "pages");
  EXPECT_EQ(argument_of([&] { gpu::fill_random_permutation(nullptr, 3, 1, 1, nullptr); }), "out");
  i32 t = 0;
  EXPECT_EQ(argument_of([&] { gpu::fill_page_major_tokens(&t, &dummy, 1, 10, 4, 1, nullptr); }), "tokens");
  EXPECT_EQ(argument_of([&] { gpu::fill_page_major_tokens(&t, &dummy, 1, 64, 64, i64(1) << 25, nullptr); }),
            "max_page");  // 2^25 * 64 > 2^31 - 1
}

TEST(GpuDeviceGen, V2pIsASinkPinnedPermutationWithSentinel) {
  REQUIRE_GPU();
  const i64 pages = 1000;
  Dev<i64> a(std::vector<i64>(pages + 1, 7)), b(std::vector<i64>(pages + 1, 7)), c(std::vector<i64>(pages + 1, 7));
  gpu::fill_random_v2p(a.p, pages, 42, nullptr);
  gpu::fill_random_v2p(b.p, pages, 42, nullptr);
  gpu::fill_random_v2p(c.p, pages, 43, nullptr);
  const auto va = a.get(), vb = b.get(), vc = c.get();
  EXPECT_EQ(va.front(), 0);  // the sink
  EXPECT_EQ(va.back(), -1);  // the sentinel
  std::vector<i64> mid(va.begin() + 1, va.end() - 1), want(pages - 1);
  std::iota(want.begin(), want.end(), i64(1));
  EXPECT_NE(mid, want);  // shuffled
  std::sort(mid.begin(), mid.end());
  EXPECT_EQ(mid, want);  // a permutation of the physical pages [1, pages)
  EXPECT_EQ(va, vb);     // deterministic in the seed
  EXPECT_NE(va, vc);
}

TEST(GpuDeviceGen, IdsInRangeAndPageMajorTokens) {
  REQUIRE_GPU();
  Dev<i64> ids(std::vector<i64>(4096, -5));
  gpu::fill_random_ids(ids.p, 4096, 37, 9, nullptr);
  const auto v = ids.get();
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](i64 x) { return x >= 0 && x < 37; }));
  EXPECT_EQ(std::set<i64>(v.begin(), v.end()).size(), 37u);  // 4096 draws reach every value of 37
  // rows 2, tokens 8, ps 4: two pages a row, vp = {5, 9, 2, 7}
  Dev<i64> vp(std::vector<i64>{5, 9, 2, 7});
  Dev<i32> r2t(std::vector<i32>(16, -1));
  gpu::fill_page_major_tokens(r2t.p, vp.p, 2, 8, 4, 10, nullptr);
  EXPECT_EQ(r2t.get(), (std::vector<i32>{20, 21, 22, 23, 36, 37, 38, 39, 8, 9, 10, 11, 28, 29, 30, 31}));
}

}  // namespace
