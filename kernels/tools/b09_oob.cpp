// B09 demonstration for compute-sanitizer memcheck (docs/sanitizers.md).
// canonical_page_table at ps = 1 with a padding token (-1) at a page start of a live prefix:
//   production            : explicit sign test, the padding lane reads v2p[0] -> entry 0, clean;
//   b09_no_padding_guard  : truncating division -1 / 1 = -1, the lane loads v2p[-1], one int64
//                           before the v2p allocation (memcheck: invalid __global__ read of size 8).
// Usage: kvaddr_b09_oob [production|b09]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "kvaddr/kernels/launch.hpp"

int main(int argc, char** argv) {
  using namespace kvaddr;
  const bool b09 = argc > 1 && std::strcmp(argv[1], "b09") == 0;
  std::string why;
  if (!gpu::gpu_available(&why)) {
    std::printf("no CUDA GPU: %s\n", why.c_str());
    return 0;
  }
  const std::int64_t ps = 1, M = 24, cols = 8;
  const std::vector<std::int64_t> v2p = {0, 5, 3, 7, 2, 1, 6, 4, -1};  // 8 virtual pages + sentinel
  const std::vector<std::int32_t> r2t = {3, 4, -1, 5, 1, 2, 6, 7};     // one request, padding at column 2
  const std::vector<std::int64_t> rows = {0}, lens = {8};
  std::int64_t *d_v2p = nullptr, *d_rows = nullptr, *d_lens = nullptr;
  std::int32_t *d_r2t = nullptr, *d_out = nullptr;
  cudaMalloc(&d_v2p, v2p.size() * sizeof(std::int64_t));
  cudaMalloc(&d_rows, sizeof(std::int64_t));
  cudaMalloc(&d_lens, sizeof(std::int64_t));
  cudaMalloc(&d_r2t, r2t.size() * sizeof(std::int32_t));
  cudaMalloc(&d_out, cols * sizeof(std::int32_t));
  cudaMemcpy(d_v2p, v2p.data(), v2p.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice);
  cudaMemcpy(d_rows, rows.data(), sizeof(std::int64_t), cudaMemcpyHostToDevice);
  cudaMemcpy(d_lens, lens.data(), sizeof(std::int64_t), cudaMemcpyHostToDevice);
  cudaMemcpy(d_r2t, r2t.data(), r2t.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, cols * sizeof(std::int32_t));
  CanonicalPageTableArgs a{{d_r2t, 1, cols, cols, 1}, {d_rows, 1}, {d_lens, 1}, {d_v2p, std::int64_t(v2p.size())},
                           ps, M, cols, {d_out, 1, cols, cols, 1},
                           b09 ? Variant::b09_no_padding_guard : Variant::production};
  std::printf("canonical_page_table ps=1 M=24, req_to_token row {3, 4, -1, 5, 1, 2, 6, 7}, variant %s\n",
              b09 ? "b09_no_padding_guard" : "production");
  gpu::launch_canonical_page_table(a, nullptr);
  const cudaError_t e = cudaDeviceSynchronize();
  std::vector<std::int32_t> out(cols);
  cudaMemcpy(out.data(), d_out, cols * sizeof(std::int32_t), cudaMemcpyDeviceToHost);
  std::printf("sync: %s; out =", cudaGetErrorName(e));
  for (auto v : out) std::printf(" %d", v);
  std::printf("\n");
  cudaFree(d_v2p);
  cudaFree(d_rows);
  cudaFree(d_lens);
  cudaFree(d_r2t);
  cudaFree(d_out);
  return 0;
}
