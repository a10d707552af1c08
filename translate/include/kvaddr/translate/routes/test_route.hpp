#pragma once
// Route spec of test_route: a test-only route, compiled only with the CMake option
// KVADDR_TEST_ROUTE (off by default; `scripts/run.sh test` and its sanitizer leg turn it on). It proves
// that a route is three files (docs/adding-a-route.md): this header, its enumerator in
// variant.hpp and its line in route_list.hpp. Every consumer (host route and validation, CUDA
// kernel and differential case, CLI, replay, zoo grid and mutation unit, properties, proofs'
// spec_lane, C++ harness, Python binding) takes it from the list with no edit of its own.
//
// test_route(t) = the physical page of virtual token t: max(v2p[t / ps], 0), and 0 for padding
// (t < 0). Its one catalogue behaviour, B16, uses the virtual page t / ps as the physical one.
#if defined(KVADDR_TEST_ROUTE)
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/route_spec.hpp"
#if !defined(__CUDACC__)  // id_model: host checks only (model/ is C++20, nvcc reads this header as C++17)
#include <span>

#include "kvaddr/model/formulas.hpp"
#endif

namespace kvaddr {

struct TestRouteArgs {
  Vec<const std::int64_t> ids;
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  Vec<std::int64_t> out;
  Variant variant = Variant::production;
};

KVADDR_PER_ID_ROUTE_SPEC(test_route, TestRouteArgs)
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids).widening(), required_arg("v2p", &Args::v2p),
                      required_arg("page_size", &Args::page_size), required_arg("out", &Args::out),
                      optional_arg("variant", &Args::variant)};
  }
  static constexpr std::string_view doc = "test-only: out[i] = 0 if t < 0 else max(v2p[t // ps], 0).";
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b16_virtual_as_physical; }
  template <class C>
  static void check_scalars(const Args& a, const C& c) { c.page_size(a.page_size); }
  // The lane does its own arithmetic: kv_div, kv_pick and kv_max0 are called unqualified, so that the
  // checked integer, the fast divisors and Z3 find their own overloads (the using-declarations give
  // the builtin ones).
  template <class I, class D>
  struct Lane {
    lanes::divisor_at_t<D, 0> ps;
    Variant v;
    template <class G>
    KVADDR_HD I operator()(I t, G&& v2p) const {
      using lanes::kv_div;
      using lanes::kv_max0;
      using lanes::kv_pick;
      const auto live = !(t < I(0));
      const I page = kv_pick(live, kv_div(t, ps), I(0));
      if (has(v, Behaviour::b16_virtual_as_physical)) return page;
      return kv_max0(v2p(page, live));
    }
  };
  template <class I, class D, class Make>
  static constexpr Lane<I, D> lane(const Args& a, const Make& make) { return {make.div(a.page_size), a.variant}; }
};

#if !defined(__CUDACC__)
// The model formula: the page of phys(t) (model/formulas.hpp), 0 for padding and tombstones.
template <class Src>
std::int64_t id_model(RouteSpec<Route::test_route>, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  const std::int64_t ps = s.scalar("page_size");
  return model::phys(table, ps, model::VirtualToken(id)).value / ps;
}
#endif

}  // namespace kvaddr
#endif  // KVADDR_TEST_ROUTE
