#pragma once
// Private: the table runner (routes_tables.ipp) with the production hooks policy, for a page-table
// route spec outside the route list (a test's design change of a listed route):
// standalone_tables::run_table<Spec>(a) validates and runs it exactly as the library runs the listed
// page-table routes (translate::canonical_page_table and the others).
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
namespace standalone_tables {
using H = NoHooks;
using CI = BasicCI<H>;
using TableGather = BasicTableGather<H>;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"  // the listed routes' bodies a test does not call
#include "validate_body.ipp"
#include "routes_tables.ipp"
#include "routes_per_id.ipp"
#pragma GCC diagnostic pop
}  // namespace standalone_tables
}  // namespace
}  // namespace kvaddr::translate::detail
