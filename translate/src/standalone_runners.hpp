#pragma once
// Private: the host runners with the production hooks policy, for a route spec outside the route list
// (a test's route, or a listed route's spec with one function replaced): standalone::run_per_id<Spec>(a)
// and standalone::validate_per_id<Spec>(a) (routes_per_id.ipp), and standalone::run_table<Spec>(a)
// (routes_tables.ipp), validate and run it exactly as the library runs the listed per-id and page-table
// routes (whose entry points are translate::<route> and kvaddr::validate).
#include <bit>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "checked.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::translate::detail {
namespace {  // each including translation unit has its own instantiation
namespace standalone {
using H = NoHooks;
using CI = BasicCI<H>;
using TableGather = BasicTableGather<H>;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"  // the listed routes' bodies and rules a test does not call
#include "validate_body.ipp"
#include "routes_tables.ipp"
#include "routes_per_id.ipp"
#pragma GCC diagnostic pop
}  // namespace standalone
}  // namespace
}  // namespace kvaddr::translate::detail
