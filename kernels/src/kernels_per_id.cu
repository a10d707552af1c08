// CUDA launcher of every per-id route (one id input, one table, scalars, one output lane per id;
// routes/<name>.hpp opened with KVADDR_PER_ID_ROUTE_SPEC): lane i of the output is the spec's lane
// (its Lane, over plain int64 and a raw masked gather) of ids[i], run by the streaming kernel of
// kernel_stream.cuh. Instantiated for the per-id routes of the route list by visit_route, and for
// token_translate and swa_translate (whose output element type is a parameter) by their launchers.
#include "kernel_common.cuh"
#include "kernel_stream.cuh"

namespace kvaddr::gpu {
using namespace detail;
namespace {

// The spec's lane as an op of the streaming kernel (kernel_stream.cuh): out[i] = lane(ids[i], table).
// The streaming kernel reads a lane's id in the thread that writes its output, so out may alias the ids
// exactly; it takes 16-byte accesses where the pointers allow, like the hand-written streaming routes.
template <class Lane>
struct SpecOp {
  Gather g;
  Lane lane;
  __device__ i64 operator()(i64 t) const { return static_cast<i64>(lane(t, g)); }
  __device__ i64 tail() const { return 0; }
};

// A spec's lane values on the device, its divisors of type D: Pow2Divisor, FastDivisor or plain int64
// (LaunchShape::division 2); S = ps * M (validated to fit).
template <class D>
struct Values {
  D div(i64 d) const {
    if constexpr (std::is_same_v<D, i64>) return d;
    else return D::of(d);
  }
  i64 stride(i64 ps, i64 m) const { return ps * m; }
};
// Run on the host over a spec's lane construction: whether every divisor it asks for is a power of two.
struct Pow2Probe : Values<i64> {
  bool* all;
  explicit Pow2Probe(bool* a) : all(a) {}
  i64 div(i64 d) const {
    *all = *all && Pow2Divisor::fits(d);
    return d;
  }
};

template <class Spec, class D, class A, class Make>
void launch_lane(const A& a, const Make& make, cudaStream_t s) {
  using P = PerIdShape<Spec>;
  const auto& ids = P::ids(a);
  const auto& out = P::out(a);
  if (ids.size <= 0) return;
  using Out = std::remove_cv_t<std::remove_pointer_t<decltype(out.data)>>;
  using Lane = std::remove_cv_t<decltype(Spec::template lane<i64, D>(a, make))>;
  launch_elementwise<Out>(ids.data, ids.size, out.data, SpecOp<Lane>{Gather{P::table(a).data}, Spec::template lane<i64, D>(a, make)},
                          s, Spec::name.data());
}

// LaunchShape::division 0: Pow2Divisor when every divisor of the call is a power of two (every common
// page and DCP size: a shift, no branch), FastDivisor otherwise; 1: FastDivisor; 2: int64 division.
// A: Spec::Args, or Spec::ArgsOf<Out> of a route whose output element type is a parameter.
template <class Spec, class A>
void launch_spec(const A& a, cudaStream_t s) {
  validate(a);
  if (g_shape.division == 2) return launch_lane<Spec, i64>(a, Values<i64>{}, s);
  bool pow2 = g_shape.division == 0;
  if (pow2) (void)Spec::template lane<i64, i64>(a, Pow2Probe{&pow2});
  if (pow2) launch_lane<Spec, Pow2Divisor>(a, Values<Pow2Divisor>{}, s);
  else launch_lane<Spec, FastDivisor>(a, Values<FastDivisor>{}, s);
}

}  // namespace

void launch_per_id(Route r, const void* args, cudaStream_t s) {
  visit_route(r, [&](auto spec) {
    using S = decltype(spec);
    if constexpr (uses_per_id_runner<S>) launch_spec<S>(*static_cast<const typename S::Args*>(args), s);
  });
}

// token_translate and swa_translate (int64 or int32 out): the same launcher over their spec's Lane.
void launch_token_translate(const TokenTranslateArgs<i64>& a, cudaStream_t s) {
  launch_spec<RouteSpec<Route::token_translate>>(a, s);
}
void launch_token_translate(const TokenTranslateArgs<i32>& a, cudaStream_t s) {
  launch_spec<RouteSpec<Route::token_translate>>(a, s);
}
void launch_swa_translate(const SwaTranslateArgs<i64>& a, cudaStream_t s) { launch_spec<RouteSpec<Route::swa_translate>>(a, s); }
void launch_swa_translate(const SwaTranslateArgs<i32>& a, cudaStream_t s) { launch_spec<RouteSpec<Route::swa_translate>>(a, s); }

}  // namespace kvaddr::gpu
