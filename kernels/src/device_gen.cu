// See kvaddr/kernels/device_gen.hpp.
#include "kvaddr/kernels/device_gen.hpp"

#include "kvaddr/gen/rng.hpp"

#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/sequence.h>
#include <thrust/shuffle.h>
#include <thrust/system/system_error.h>
#include <thrust/tabulate.h>

#include <limits>
#include <string>

namespace kvaddr::gpu {
namespace {

using i64 = std::int64_t;

void check_cuda(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw CudaError(what, static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
}

template <class F>
void thrust_call(const char* what, F&& f) {
  try {
    f();
  } catch (const thrust::system_error& e) {
    throw CudaError(what, e.code().value(), "thrust::system_error", e.what());
  }
  check_cuda(what);
}

void need_buffer(const void* p, const char* name, i64 n) {
  if (n > 0 && p == nullptr) throw InvalidArgument(name, "null", "device buffer of " + std::to_string(n) + " elements");
}

// Lane i: draw i of gen::SplitMix64(seed), reduced modulo `below`.
struct SplitMixMod {
  std::uint64_t seed;
  std::uint64_t below;
  __host__ __device__ i64 operator()(i64 i) const {
    return static_cast<i64>(gen::nth(seed, static_cast<std::uint64_t>(i)) % below);
  }
};

// gen::SplitMix64(seed) as thrust::shuffle's random bit generator (it draws its Feistel round keys
// from it on the host, one call per key, and reads no min()/max()): the top 32 bits of each draw,
// in stream order.
struct ShuffleBits {
  using result_type = std::uint32_t;
  std::uint64_t seed;
  std::uint64_t drawn = 0;
  __host__ __device__ result_type operator()() { return static_cast<result_type>(gen::nth(seed, drawn++) >> 32); }
};

struct PageMajorToken {
  const i64* vp;
  i64 tokens;
  i64 ps;
  __host__ __device__ std::int32_t operator()(i64 e) const {
    const i64 b = e / tokens, j = e % tokens;
    return static_cast<std::int32_t>(vp[b * (tokens / ps) + j / ps] * ps + j % ps);
  }
};

}  // namespace

void fill_random_permutation(i64* out, i64 n, i64 first, std::uint64_t seed, cudaStream_t stream) {
  if (n < 0) throw InvalidArgument("n", std::to_string(n), "element count must be >= 0");
  need_buffer(out, "out", n);
  if (n == 0) return;
  thrust_call("fill_random_permutation", [&] {
    const auto policy = thrust::cuda::par.on(stream);
    thrust::sequence(policy, out, out + n, first);
    thrust::shuffle(policy, out, out + n, ShuffleBits{seed});
  });
}

void fill_random_v2p(i64* v2p, i64 pages, std::uint64_t seed, cudaStream_t stream) {
  if (pages < 1) throw InvalidArgument("pages", std::to_string(pages), "a v2p table has at least the sink page");
  need_buffer(v2p, "v2p", pages + 1);
  fill_random_permutation(v2p + 1, pages - 1, 1, seed, stream);
  // The sink and the sentinel come from host values on this stack frame: copy, then wait for them.
  const i64 sink = 0, sentinel = -1;
  const auto ok = [](cudaError_t e, const char* call) {
    if (e != cudaSuccess) throw CudaError(call, static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
  };
  ok(cudaMemcpyAsync(v2p, &sink, sizeof sink, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  ok(cudaMemcpyAsync(v2p + pages, &sentinel, sizeof sentinel, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
  ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

void fill_random_ids(i64* ids, i64 n, i64 below, std::uint64_t seed, cudaStream_t stream) {
  if (n < 0) throw InvalidArgument("n", std::to_string(n), "element count must be >= 0");
  if (below < 1) throw InvalidArgument("below", std::to_string(below), "ids are drawn from [0, below), below >= 1");
  need_buffer(ids, "ids", n);
  if (n == 0) return;
  thrust_call("fill_random_ids", [&] {
    thrust::tabulate(thrust::cuda::par.on(stream), ids, ids + n, SplitMixMod{seed, static_cast<std::uint64_t>(below)});
  });
}

void fill_page_major_tokens(std::int32_t* r2t, const i64* vp, i64 rows, i64 tokens, i64 ps, i64 max_page,
                            cudaStream_t stream) {
  if (rows < 0) throw InvalidArgument("rows", std::to_string(rows), "must be >= 0");
  if (ps < 1) throw InvalidArgument("ps", std::to_string(ps), "page size must be >= 1");
  if (tokens < 0 || tokens % ps != 0)
    throw InvalidArgument("tokens", std::to_string(tokens), "must be a non-negative multiple of ps = " + std::to_string(ps));
  if (max_page < 0 || (ps > 0 && max_page > std::numeric_limits<std::int32_t>::max() / ps))
    throw InvalidArgument("max_page", std::to_string(max_page),
                          "max_page * ps must fit int32 (ps = " + std::to_string(ps) + ")");
  if (rows > 0 && tokens > 0 && rows > std::numeric_limits<i64>::max() / tokens)
    throw InvalidArgument("rows", std::to_string(rows), "rows * tokens overflows int64");
  const i64 n = rows * tokens;
  need_buffer(r2t, "r2t", n);
  need_buffer(vp, "vp", n / ps);
  if (n == 0) return;
  thrust_call("fill_page_major_tokens", [&] {
    thrust::tabulate(thrust::cuda::par.on(stream), r2t, r2t + n, PageMajorToken{vp, tokens, ps});
  });
}

}  // namespace kvaddr::gpu
