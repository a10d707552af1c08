#pragma once
// Host checks of `kvaddr verify`: the upstream example grid of spec §5 (with the gaps of §5.8
// closed: a tombstone inside a live prefix, a padding row, non-contiguous req_pool_indices),
// every route compared with model/ lane by lane, untouched lanes included; and the same grid run
// against every bug variant, each of which must be caught.
#include <cstdint>
#include <string>
#include <vector>

#include "kvaddr/translate/variant.hpp"

namespace kvaddr::zoo {

struct GridOptions {
  std::int64_t page_size = 64;
  std::int64_t multiplier = 24;  // L = 24 (spec §5.2)
  bool upstream_exact = false;   // true: upstream's cases exactly (no tombstone, no padding)
  std::uint64_t seed = 20260829;
  // Physical pages offset by 2^21 so that P*S + o passes 2^31 (int64 routes only; E03).
  bool large_ids = false;
};

// Whether the route's outputs are int64 (so the large-id grid applies to it).
bool has_int64_output(Route route);

// Runs `route` (with `variant`) on the grid and compares with the model. Returns "" when every
// written lane equals the model and every untouched lane kept its sentinel; otherwise the first
// mismatch (or the error the route raised), as a short replayable description.
std::string check_route_on_grid(Route route, Variant variant, const GridOptions& options);

// The same, with the number of lanes the route's grid case compared (0 for a route without one).
struct GridRun {
  std::string mismatch;
  std::int64_t compared = 0;
};
GridRun run_route_on_grid(Route route, Variant variant, const GridOptions& options);

// Page sizes at which a route is exercised (decode_metadata needs powers of two).
std::vector<std::int64_t> grid_page_sizes(Route route);

// Allocate, tag every (layer, slot), free the middle request eagerly (compaction must move
// pages), lazily free another and flush, then read every live slot back through
// token_translate, canonical_page_table and read_table and compare the tag. "" on success.
std::string check_simulator_readback(std::uint64_t seed);

}  // namespace kvaddr::zoo
