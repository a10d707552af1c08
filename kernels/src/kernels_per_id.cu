// CUDA kernel of every per-id route (one id input, one table, scalars, one output lane per id;
// routes/<name>.hpp opened with KVADDR_PER_ID_ROUTE_SPEC): lane i of the output is the spec's lane
// (its Lane, over plain int64 and a raw masked gather) of ids[i]. Instantiated for the per-id
// routes of the route list by visit_route; no route is named here.
#include "kernel_common.cuh"

namespace kvaddr::gpu {
using namespace detail;
namespace {

// out[i] = lane(ids[i], table) for i < n, ILP lanes per thread per pass of a grid-stride loop. The
// thread that reads ids[i] writes out[i] after it, so out may alias the ids exactly.
template <class Out, class Lane, int ILP>
__global__ void __launch_bounds__(kThreads) k_per_id(const i64* ids, i64 n, Out* out, const i64* table, Lane lane) {
  const Gather g{table};
  const i64 step = i64(gridDim.x) * kThreads * ILP;
  for (i64 base = i64(blockIdx.x) * kThreads * ILP + threadIdx.x; base < n; base += step) {
    i64 v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 i = base + i64(k) * kThreads;
      v[k] = i < n ? ld_stream(ids + i) : 0;
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 i = base + i64(k) * kThreads;
      if (i < n) st_stream(out + i, static_cast<Out>(lane(v[k], g)));
    }
  }
}

// A spec's lane values on the device: divisors as FastDivisor (LaunchShape::division 0 or 1) or
// plain int64 (division 2), S = ps * M (validated to fit).
struct FastValues {
  FastDivisor div(i64 d) const { return FastDivisor::of(d); }
  i64 stride(i64 ps, i64 m) const { return ps * m; }
};
struct PlainValues {
  i64 div(i64 d) const { return d; }
  i64 stride(i64 ps, i64 m) const { return ps * m; }
};

template <class Spec, class D, class Make>
void launch_lane(const typename Spec::Args& a, const Make& make, cudaStream_t s) {
  using P = PerIdShape<Spec>;
  const auto& ids = P::ids(a);
  const auto& out = P::out(a);
  if (ids.size <= 0) return;
  using Out = std::remove_cv_t<std::remove_pointer_t<decltype(out.data)>>;
  const auto lane = Spec::template lane<i64, D>(a, make);
  constexpr int ilp = kIlpNarrow;
  const auto kernel = &k_per_id<Out, std::remove_cv_t<decltype(lane)>, ilp>;
  const unsigned grid = grid_elems(ids.size, ilp, reinterpret_cast<const void*>(kernel));
  kernel<<<grid, kThreads, 0, s>>>(ids.data, ids.size, out.data, P::table(a).data, lane);
  check_launch(Spec::name.data());
}

template <class Spec>
void launch_spec(const typename Spec::Args& a, cudaStream_t s) {
  validate(a);
  if (g_shape.division == 2) launch_lane<Spec, i64>(a, PlainValues{}, s);
  else launch_lane<Spec, FastDivisor>(a, FastValues{}, s);
}

}  // namespace

void launch_per_id(Route r, const void* args, cudaStream_t s) {
  visit_route(r, [&](auto spec) {
    using S = decltype(spec);
    if constexpr (uses_per_id_runner<S>) launch_spec<S>(*static_cast<const typename S::Args*>(args), s);
  });
}

}  // namespace kvaddr::gpu
