#pragma once
// Test-only route specs of tests/route_list (compiled into no library): TransferIdsCopy, a copy of
// transfer_ids' spec under another name that no consumer names, and TwoOutputs, a field list of no
// known route shape.
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>

#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace test_route {

// transfer_ids' spec (routes/transfer_ids.hpp), spelt out under another name.
struct TransferIdsCopy {
  static constexpr Route id = Route::transfer_ids;
  static constexpr std::string_view name = "transfer_ids_copy";
  using Args = TransferIdsArgs;
  static void run(const Args& a) { translate::transfer_ids(a); }
  static constexpr auto fields() {
    return std::tuple{required_arg("ids", &Args::ids).widening(), required_arg("v2p", &Args::v2p),
                      required_arg("page_size", &Args::page_size), required_arg("out", &Args::out),
                      optional_arg("variant", &Args::variant)};
  }
  static constexpr bool accepts(Behaviour b) { return b == Behaviour::b16_virtual_as_physical; }
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
