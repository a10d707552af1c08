// CUDA kernels of the streaming routes (token_translate, swa_translate, write_loc):
// one lane function of kvaddr/translate/lanes.hpp per output lane. (The per-id routes run on
// kernels_per_id.cu.)
#include "kernel_common.cuh"
#include "kernel_stream.cuh"

namespace kvaddr::gpu {
using namespace detail;
namespace {

// One token id through a v2p: the token_translate lane, or the swa_translate lane when Swa.
template <class DP, bool Swa>
struct TokenOp {
  Gather g; DP ps; i64 stride; Variant v;
  __device__ i64 operator()(i64 t) const {
    if constexpr (Swa) return L::swa_translate_lane<i64, typename DP::type>(t, g, ps.get(), stride, v);
    else return L::token_translate_lane<i64, typename DP::type>(t, g, ps.get(), stride, v);
  }
  __device__ i64 tail() const { return 0; }
};
// write_loc: lanes [0, N) translated; the tail [N, out_width) gets `fill` (the sink 0; E02: -1).
template <class DP, class DD>
struct WriteLocOp {
  Gather g; DP ps; i64 stride; DD dcp; i64 rank; Variant v; i64 fill;
  __device__ i64 operator()(i64 loc) const {
    return L::write_loc_lane<i64, typename DP::type, typename DD::type>(loc, g, ps.get(), stride, dcp.get(), rank,
                                                                         v);
  }
  __device__ i64 tail() const { return fill; }
};

// token_translate and swa_translate: ids through v2p with stride page_size * multiplier.
template <bool Swa, class Out, class Args>
void token_like_impl(const Args& a, const i64* v2p, i64 multiplier, cudaStream_t s, const char* name) {
  validate(a);
  const i64 stride = a.page_size * multiplier;
  dispatch_div(a.page_size, [&](auto ps) {
    launch_elementwise<Out>(a.ids.data, a.ids.size, a.out.data, TokenOp<decltype(ps), Swa>{Gather{v2p}, ps, stride, a.variant},
                            s, name);
  });
}
template <class Out>
void token_translate_impl(const TokenTranslateArgs<Out>& a, cudaStream_t s) {
  token_like_impl<false, Out>(a, a.v2p.data, a.multiplier, s, "token_translate");
}
template <class Out>
void swa_translate_impl(const SwaTranslateArgs<Out>& a, cudaStream_t s) {
  token_like_impl<true, Out>(a, a.swa_v2p.data, a.swa_multiplier, s, "swa_translate");
}

}  // namespace

void launch_token_translate(const TokenTranslateArgs<i64>& a, cudaStream_t s) { token_translate_impl(a, s); }
void launch_token_translate(const TokenTranslateArgs<i32>& a, cudaStream_t s) { token_translate_impl(a, s); }
void launch_swa_translate(const SwaTranslateArgs<i64>& a, cudaStream_t s) { swa_translate_impl(a, s); }
void launch_swa_translate(const SwaTranslateArgs<i32>& a, cudaStream_t s) { swa_translate_impl(a, s); }

void launch_write_loc(const WriteLocArgs& a, cudaStream_t s) {
  validate(a);
  using Spec = RouteSpec<Route::write_loc>;
  const i64 n = a.loc.size;
  const i64 w = Spec::keeps_tail(a.variant) ? n : (a.out.size > n ? a.out.size : n);  // B06: no tail writes
  const i64 fill = Spec::tail_fill<i64>(a.variant);  // E02: pad -1 instead of the sink
  dispatch_div2(a.page_size, a.dcp_size, [&](auto ps, auto dcp) {
    launch_stream<i64>(a.loc.data, n, a.out.data, w,
                       WriteLocOp<decltype(ps), decltype(dcp)>{Gather{a.v2p.data}, ps, a.page_size * a.multiplier, dcp,
                                                               a.dcp_rank, a.variant, fill},
                       s, "write_loc");
  });
}

}  // namespace kvaddr::gpu
