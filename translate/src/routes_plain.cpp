// The production instantiation of the host routes and their validation: the route bodies with
// the no-op hooks policy, and the public entry points (kvaddr::validate, kvaddr::translate::*).
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "checked.hpp"
#include "entry_points.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::translate::detail {

std::atomic<const EntryPoints*> g_entry_override{nullptr};

namespace plain {
using H = NoHooks;
using CI = BasicCI<H>;
using TableGather = BasicTableGather<H>;
#include "validate_body.ipp"
#include "routes_tables.ipp"
#include "routes_tokens.ipp"
}  // namespace plain

}  // namespace kvaddr::translate::detail

// ---- public entry points: the production bodies, unless a mutation campaign is running ---------
namespace kvaddr {

#define KVADDR_VALIDATE(fn, A)                                                                   \
  void validate(const A& a) {                                                                    \
    if (const auto* e = translate::detail::entry_override()) [[unlikely]] return e->check(a); \
    translate::detail::plain::validate_args(a);                                                  \
  }
KVADDR_HOST_ROUTES(KVADDR_VALIDATE)
#undef KVADDR_VALIDATE

template <class Out>
void validate(const TokenTranslateArgs<Out>& a) {
  if (const auto* e = translate::detail::entry_override()) [[unlikely]] return e->check(a);
  translate::detail::plain::validate_args(a);
}
template void validate(const TokenTranslateArgs<std::int32_t>&);
template void validate(const TokenTranslateArgs<std::int64_t>&);

template <class Out>
void validate(const SwaTranslateArgs<Out>& a) {
  if (const auto* e = translate::detail::entry_override()) [[unlikely]] return e->check(a);
  translate::detail::plain::validate_args(a);
}
template void validate(const SwaTranslateArgs<std::int32_t>&);
template void validate(const SwaTranslateArgs<std::int64_t>&);

}  // namespace kvaddr

namespace kvaddr::translate {

#define KVADDR_ROUTE(fn, A)                                                      \
  void fn(const A& a) {                                                          \
    if (const auto* e = detail::entry_override()) [[unlikely]] return e->run(a); \
    detail::plain::fn(a);                                                        \
  }
KVADDR_HOST_ROUTES(KVADDR_ROUTE)
#undef KVADDR_ROUTE

template <class Out>
void token_translate(const TokenTranslateArgs<Out>& a) {
  if (const auto* e = detail::entry_override()) [[unlikely]] return e->run(a);
  detail::plain::token_translate(a);
}
template void token_translate(const TokenTranslateArgs<std::int32_t>&);
template void token_translate(const TokenTranslateArgs<std::int64_t>&);

template <class Out>
void swa_translate(const SwaTranslateArgs<Out>& a) {
  if (const auto* e = detail::entry_override()) [[unlikely]] return e->run(a);
  detail::plain::swa_translate(a);
}
template void swa_translate(const SwaTranslateArgs<std::int32_t>&);
template void swa_translate(const SwaTranslateArgs<std::int64_t>&);

}  // namespace kvaddr::translate
