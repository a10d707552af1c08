// GPU tests of the composable variants (issues 17, 18) on hand-computed buffers: the PR #33046
// decode remap reading v2p[-1] / v2p[-2] through a slice of a parent allocation, the empty batch,
// and the grid-bounded spill into a guard column. Each case also runs the host route.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/translate/routes.hpp"

namespace {

using namespace kvaddr;
using i64 = std::int64_t;
using i32 = std::int32_t;

template <class T>
T* upload(const std::vector<T>& h) {
  T* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, (h.empty() ? 1 : h.size()) * sizeof(T)), cudaSuccess);
  if (!h.empty()) {
    EXPECT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  return p;
}
template <class T>
std::vector<T> download(const T* p, std::size_t n) {
  std::vector<T> h(n);
  if (n != 0) {
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  }
  return h;
}

bool have_gpu(std::string* why) { return gpu::gpu_available(why); }

// Parent {100, 200 | 0, 5, 7, -1}: the v2p view starts at offset 2 (v2p[-1] = 200, v2p[-2] = 100).
const std::vector<i64> kParent = {100, 200, 0, 5, 7, -1};

// ps = 16, M = 4, two rows of 2 pages: row 0 = padding -1 (v2p[-1] -> 800), page 1 (5 -> 20);
// row 1 = page 3 (tombstone -> -4), page 2 (7 -> 28); B = 0 when `empty`.
void decode_case(Variant v, bool empty, std::vector<i32> want_table, std::vector<i32> want_cu) {
  std::vector<i32> r2t(64, 0);
  r2t[0] = -1;
  r2t[16] = 16;
  r2t[32] = 48;
  r2t[48] = 32;
  const std::vector<i64> lens = empty ? std::vector<i64>{} : std::vector<i64>{32, 32};
  const std::vector<i64> rows = empty ? std::vector<i64>{} : std::vector<i64>{0, 1};
  const i64 B = static_cast<i64>(lens.size());
  std::vector<i32> cache(2, 9), cu(3, 55), table(4, 9);
  DecodeMetadataArgs h;
  h.seq_lens = cvec(lens);
  h.req_to_token = {r2t.data(), 2, 32, 32, 1};
  h.req_pool_indices = cvec(rows);
  h.max_seq_pages = 2;
  h.page_size = 16;
  h.v2p = {kParent.data() + 2, 4, 2, 0};
  h.multiplier = 4;
  h.cache_seqlens = {cache.data(), B};
  h.cu_seqlens_k = {cu.data(), B + 1};
  h.page_table = {table.data(), B, 2, 2, 1};
  h.variant = v;
  translate::decode_metadata(h);
  EXPECT_EQ(table, want_table) << "host " << to_string(v, Route::decode_metadata);
  EXPECT_EQ(cu, want_cu) << "host";

  i32* dr2t = upload(r2t);
  i64* dlens = upload(lens);
  i64* drows = upload(rows);
  i64* dparent = upload(kParent);
  i32* dcache = upload(std::vector<i32>(2, 9));
  i32* dcu = upload(std::vector<i32>(3, 55));
  i32* dtable = upload(std::vector<i32>(4, 9));
  DecodeMetadataArgs d = h;
  d.seq_lens = {dlens, B};
  d.req_to_token.data = dr2t;
  d.req_pool_indices = {drows, B};
  d.v2p = {dparent + 2, 4, 2, 0};
  d.cache_seqlens = {dcache, B};
  d.cu_seqlens_k = {dcu, B + 1};
  d.page_table.data = dtable;
  gpu::launch_decode_metadata(d, nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(download(dtable, 4), want_table) << "device " << to_string(v, Route::decode_metadata);
  EXPECT_EQ(download(dcu, 3), want_cu) << "device";
  for (void* p : {static_cast<void*>(dr2t), static_cast<void*>(dlens), static_cast<void*>(drows),
                  static_cast<void*>(dparent), static_cast<void*>(dcache), static_cast<void*>(dcu),
                  static_cast<void*>(dtable)})
    (void)cudaFree(p);
}

TEST(GpuComposite, Pr33046ReadsBeforeTheTableAndLeaksMinusM) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA GPU: " << why;
  decode_case(Variant::pr33046_as_written, false, {800, 20, -4, 28}, {0, 32, 64});
  decode_case(Variant::production, false, {0, 20, 0, 28}, {0, 32, 64});
}

TEST(GpuComposite, EmptyDecodeBatchWritesNothing) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA GPU: " << why;
  decode_case(Variant::production, true, {9, 9, 9, 9}, {55, 55, 55});
}

TEST(GpuComposite, GridSpillIntoTheGuardColumn) {
  std::string why;
  if (!have_gpu(&why)) GTEST_SKIP() << "no CUDA GPU: " << why;
  // ps = 2, v2p {0, -1, 3, 1, 4, -1}; rows 2 4 | 6 8 ...: row 0 (len 4) pages 1, 2 -> 0, 3; row 1
  // (len 2) page 3 -> 1. out 2 x 1 with a guard column (row_stride 2): flat {r0c0, guard, r1c0}.
  const std::vector<i64> v2p = {0, -1, 3, 1, 4, -1}, rows = {0, 1}, lens = {4, 2};
  const std::vector<i32> r2t = {2, 3, 4, 5, 6, 7, 8, 9};
  for (Variant v : {Variant::production, Variant::grid_spill}) {
    const std::vector<i32> want = v == Variant::grid_spill ? std::vector<i32>{0, 3, 1} : std::vector<i32>{0, 77, 1};
    i32* dr2t = upload(r2t);
    i64* dv2p = upload(v2p);
    i64* drows = upload(rows);
    i64* dlens = upload(lens);
    i32* dout = upload(std::vector<i32>(3, 77));
    CanonicalPageTableArgs d{{dr2t, 2, 4, 4, 1}, {drows, 2}, {dlens, 2}, {dv2p, 6}, 2, 1, 1, {dout, 2, 1, 2, 1}, v};
    gpu::launch_canonical_page_table(d, nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(download(dout, 3), want) << to_string(v);
    for (void* p : {static_cast<void*>(dr2t), static_cast<void*>(dv2p), static_cast<void*>(drows),
                    static_cast<void*>(dlens), static_cast<void*>(dout)})
      (void)cudaFree(p);
  }
}

}  // namespace
