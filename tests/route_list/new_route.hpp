#pragma once
// Test-only route specs of tests/route_list (compiled into no library): TransferIdsCopy, a copy of
// transfer_ids' spec under another name that no consumer names, run by the per-id host runner
// (translate/src/standalone_runners.hpp), and TwoOutputs, a field list of no known route shape.
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>

#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/routes.hpp"
#include "standalone_runners.hpp"  // translate/src: the per-id host runner for a spec outside the list

namespace kvaddr {
namespace test_route {

// transfer_ids' spec (routes/transfer_ids.hpp) under another name: its fields, behaviours and model
// spelt out, its lane and scalar checks those of transfer_ids; its host route is the per-id runner.
struct TransferIdsCopy {
  static constexpr Route id = Route::transfer_ids;
  static constexpr std::string_view name = "transfer_ids_copy";
  using Args = TransferIdsArgs;
  static void run(const Args& a) { translate::detail::standalone::run_per_id<TransferIdsCopy>(a); }
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids).widening(), required_arg("v2p", &Args::v2p),
                      required_arg("page_size", &Args::page_size), required_arg("out", &Args::out),
                      optional_arg("variant", &Args::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b16_virtual_as_physical; }
  using Listed = RouteSpec<Route::transfer_ids>;
  template <class C>
  static void check_scalars(const Args& a, const C& c) { Listed::check_scalars(a, c); }
  template <class I, class D>
  using Lane = Listed::Lane<I, D>;
  template <class I, class D, class Make>
  static Lane<I, D> lane(const Args& a, const Make& make) { return Listed::lane<I, D>(a, make); }
};
template <class Src>
std::int64_t id_model(TransferIdsCopy, std::span<const std::int64_t> table, const Src& s, std::int64_t id) {
  return model::phys(table, s.scalar("page_size"), model::VirtualToken(id)).value;
}

// A spec of no known shape (a second output): the consumers that need code of their own for it
// say so (the zoo grid asks for a grid_case overload).
struct TwoOutputs {
  struct Args {
    Vec<const std::int64_t> ids;
    Vec<std::int64_t> out, other;
  };
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids), required_arg("out", &Args::out),
                      required_arg("other", &Args::other)};
  }
};

}  // namespace test_route

}  // namespace kvaddr
