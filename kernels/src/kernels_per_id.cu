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

template <class D>
struct IsPack : std::false_type {};
template <int... K>
struct IsPack<Pow2Pack<K...>> : std::true_type {};

// The spec's lane as an op of the streaming kernel (kernel_stream.cuh): out[i] = lane(ids[i], table).
// The streaming kernel reads a lane's id in the thread that writes its output, so out may alias the ids
// exactly; it takes 16-byte accesses where the pointers allow, like the hand-written streaming routes.
// A route with tail lanes (write_loc) gets `fill` on lanes [N, w).
template <class Lane>
struct SpecOp {
  Gather g;
  Lane lane;
  i64 fill;
  __device__ i64 operator()(i64 t) const { return static_cast<i64>(lane(t, g)); }
  __device__ i64 tail() const { return fill; }
};

// A spec's lane values on the device, its divisors of family D (lanes::divisor_at): Pow2Pack<K...>
// (each divisor handed over as a Pow2Value, which becomes its compile-time ConstPow2), Pow2Divisor,
// FastDivisor or plain int64 (LaunchShape::division 2); S = ps * M (validated to fit).
template <class D>
struct Values {
  auto div(i64 d) const {
    if constexpr (std::is_same_v<D, i64>) return d;
    else if constexpr (IsPack<D>::value) return Pow2Value{d};
    else return D::of(d);
  }
  i64 stride(i64 ps, i64 m) const { return ps * m; }
};
// Run on the host over a spec's lane construction: the divisors it asks for, in order (at most kMax).
struct DivisorProbe : Values<i64> {
  static constexpr int kMax = 4;
  i64* d;
  int* n;
  i64 div(i64 v) const {
    if (*n < kMax) d[*n] = v;
    ++*n;
    return v;
  }
};

template <class Spec, class D, class A, class Make>
void launch_lane(const A& a, const Make& make, cudaStream_t s) {
  using P = PerIdShape<Spec>;
  const auto& ids = P::ids(a);
  const auto& out = P::out(a);
  // Lanes written: the ids' [0, N), and for a route with tail lanes the tail [N, out.size) too
  // unless its variant keeps it stale.
  i64 w = ids.size;
  i64 fill = 0;
  if constexpr (has_tail_lanes<Spec>) {
    if (!Spec::keeps_tail(a.variant)) w = out.size > w ? out.size : w;
    fill = Spec::template tail_fill<i64>(a.variant);
  }
  if (w <= 0) return;
  using Out = std::remove_cv_t<std::remove_pointer_t<decltype(out.data)>>;
  using Lane = std::remove_cv_t<decltype(Spec::template lane<i64, D>(a, make))>;
  const SpecOp<Lane> op{Gather{P::table(a).data}, Spec::template lane<i64, D>(a, make), fill};
  bool int32_offsets = false;
  if constexpr (P::has_variant) int32_offsets = has(a.variant, Behaviour::int32_lane_offsets);
  if (!int32_offsets) return launch_stream<Out>(ids.data, ids.size, out.data, w, op, s, Spec::name.data());
  // int32_lane_offsets (issue 33): lane i loads and stores element wrap32(i) (lanes::launch_lane, as the host
  // runner). Per block of 2^32 launch lanes starting at `base`, the lanes [base, base + 2^31) store elements
  // [0, 2^31) (input lanes below ids.size, tail lanes past it); the lanes [base + 2^31, base + 2^32) store
  // before the buffer: skipped, their elements stay unwritten. One launch per block, in stream order, so a
  // lane i >= 2^32 rewrites element i - 2^32 after the lanes before it (in place: from the translated id).
  constexpr i64 kHalf = i64(1) << 31;
  for (i64 base = 0; base < w; base += 2 * kHalf) {
    const i64 n_k = ids.size - base < 0 ? 0 : (ids.size - base < kHalf ? ids.size - base : kHalf);
    const i64 w_k = w - base < kHalf ? w - base : kHalf;
    launch_stream<Out>(ids.data, n_k, out.data, w_k, op, s, Spec::name.data());
  }
}

// The compile-time specialisations (kernel_common.cuh): the common page sizes (PageShifts) at divisor
// position 0 and DCP sizes (DcpShifts) at position 1; a call whose divisors are all among them runs a
// lane built over Pow2Pack<log2 ps[, log2 dcp]>.

// Launches over Pow2Pack<Done..., K> for the K of `shifts` with 2^K == d[pos], then the next position;
// false when d[pos] has no specialisation.
template <class Spec, int Count, int... Done, class A, int... K>
bool launch_packed(const A& a, const i64* d, cudaStream_t s, Shifts<K...>) {
  constexpr int pos = sizeof...(Done);
  bool done = false;
  auto one = [&](auto k) {
    constexpr int kk = decltype(k)::value;
    if (done || d[pos] != (i64(1) << kk)) return;
    if constexpr (pos + 1 == Count) launch_lane<Spec, Pow2Pack<Done..., kk>>(a, Values<Pow2Pack<Done..., kk>>{}, s), done = true;
    else done = launch_packed<Spec, Count, Done..., kk>(a, d, s, DcpShifts{});
  };
  (one(std::integral_constant<int, K>{}), ...);
  return done;
}

// LaunchShape::division 0: a compile-time lane (Pow2Pack) when the call's divisors are common sizes,
// else Pow2Divisor when every divisor is a power of two (a shift, no branch), else FastDivisor;
// 1: FastDivisor; 2: int64 division. A: Spec::Args, or Spec::ArgsOf<Out> of a route whose output
// element type is a parameter.
template <class Spec, class A>
void launch_spec(const A& a, cudaStream_t s) {
  validate(a);
  if (g_shape.division == 2) return launch_lane<Spec, i64>(a, Values<i64>{}, s);
  if (g_shape.division == 1) return launch_lane<Spec, FastDivisor>(a, Values<FastDivisor>{}, s);
  i64 d[DivisorProbe::kMax] = {};
  int n = 0;
  (void)Spec::template lane<i64, i64>(a, DivisorProbe{{}, d, &n});
  constexpr int count = spec_divisor_count<Spec>();
  bool pow2 = n == count && n <= DivisorProbe::kMax;  // a lane with a varying or long divisor list: FastDivisor
  for (int i = 0; pow2 && i < n; ++i) pow2 = Pow2Divisor::fits(d[i]);
  if (!pow2) return launch_lane<Spec, FastDivisor>(a, Values<FastDivisor>{}, s);
  if constexpr (count == 0) {
    return launch_lane<Spec, Pow2Pack<>>(a, Values<Pow2Pack<>>{}, s);
  } else if constexpr (count <= 2) {
    if (launch_packed<Spec, count>(a, d, s, PageShifts{})) return;
  }
  launch_lane<Spec, Pow2Divisor>(a, Values<Pow2Divisor>{}, s);
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

// write_loc: its spec's Lane and tail lanes on the same launcher.
void launch_write_loc(const WriteLocArgs& a, cudaStream_t s) { launch_spec<RouteSpec<Route::write_loc>>(a, s); }

}  // namespace kvaddr::gpu
