// CUDA kernel of write_loc (a streaming route with a tail of constant lanes): one lane function of
// kvaddr/translate/lanes.hpp per output lane. (token_translate, swa_translate and the per-id routes run
// on kernels_per_id.cu.)
#include "kernel_common.cuh"
#include "kernel_stream.cuh"

namespace kvaddr::gpu {
using namespace detail;
namespace {

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

}  // namespace

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
