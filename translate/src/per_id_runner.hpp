#pragma once
// Private: the per-id host runner (routes_per_id.ipp) with the production hooks policy, for a
// per-id route spec outside the route list (a test's route): standalone::run_per_id<Spec>(a) and
// standalone::validate_per_id<Spec>(a) validate and run it exactly as the library runs the listed
// per-id routes (whose entry points are translate::<route> and kvaddr::validate).
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "checked.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::translate::detail {
namespace {  // each including translation unit has its own instantiation
namespace standalone {
using H = NoHooks;
using CI = BasicCI<H>;
using TableGather = BasicTableGather<H>;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"  // the rules a per-id validation does not call
#include "validate_rules.ipp"
#include "routes_per_id.ipp"
#pragma GCC diagnostic pop
}  // namespace standalone
}  // namespace
}  // namespace kvaddr::translate::detail
