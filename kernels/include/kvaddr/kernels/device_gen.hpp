#pragma once
// Device-side generation of benchmark-scale inputs (Thrust), so that 2^24-element tables and id
// streams are made where they are used instead of on the host and copied over. Every function
// runs on `stream` and returns when its work is done (Thrust's synchronous cuda::par policy on that
// stream; not for use inside a graph capture), is deterministic in `seed`, validates its arguments (kvaddr::InvalidArgument naming the argument and value) and
// throws kvaddr::CudaError on a CUDA failure. Includable without nvcc.
#include <cstdint>

#include "kvaddr/kernels/launch.hpp"

namespace kvaddr::gpu {

// v2p of `pages` virtual pages (pages + 1 elements): v2p[0] = 0 (the sink), a uniformly random
// permutation of the physical pages [1, pages) in v2p[1..pages), v2p[pages] = -1 (the sentinel).
void fill_random_v2p(std::int64_t* v2p, std::int64_t pages, std::uint64_t seed, cudaStream_t stream);

// out[i] = first + a uniformly random permutation of [0, n), i < n (thrust::shuffle keyed by
// gen::SplitMix64(seed)).
void fill_random_permutation(std::int64_t* out, std::int64_t n, std::int64_t first, std::uint64_t seed,
                             cudaStream_t stream);

// ids[i] = gen::nth(seed, i) mod below for i < n (draw i of gen::SplitMix64(seed)), below >= 1.
void fill_random_ids(std::int64_t* ids, std::int64_t n, std::int64_t below, std::uint64_t seed, cudaStream_t stream);

// Page-major req_to_token rows: r2t[b * tokens + j] = vp[b * (tokens / ps) + j / ps] * ps + j % ps for
// b < rows, j < tokens (tokens a multiple of ps). The caller states the bound of vp's values,
// 0 <= vp[k] < max_page (not read back); max_page * ps must fit int32, so every token does.
void fill_page_major_tokens(std::int32_t* r2t, const std::int64_t* vp, std::int64_t rows, std::int64_t tokens,
                            std::int64_t ps, std::int64_t max_page, cudaStream_t stream);

}  // namespace kvaddr::gpu
