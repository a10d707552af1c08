#pragma once
// The host grid of `kvaddr verify` (spec §5 upstream example grid, §5.8 gaps closed) lives in
// zoo/ (kvaddr/zoo/grid.hpp) so that the bug zoo's "upstream grid" column runs the very same
// cases; this header keeps the cli/ names.
#include "kvaddr/zoo/grid.hpp"

namespace kvaddr::cli {
using zoo::check_route_on_grid;
using zoo::check_simulator_readback;
using zoo::grid_page_sizes;
using zoo::GridOptions;
using zoo::has_int64_output;
}  // namespace kvaddr::cli
