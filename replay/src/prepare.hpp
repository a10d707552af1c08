#pragma once
// Per-route preparation of a replayed call (prepare.cpp): reads the route's arguments from the
// loaded call and returns how to run it under a variant, plus the optional model, preconditions
// and per-program store split.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "call.hpp"
#include "loader.hpp"
#include "races.hpp"

namespace kvaddr::replay::load {

struct Prepared {
  std::vector<Output> outputs;
  Runner run;
  // Optional: the reference model's (model/) production outputs, independent of translate/.
  std::function<std::vector<I64>()> model;
  // Optional: the production preconditions the call breaks (translate/preconditions.hpp).
  std::function<std::vector<std::string>()> preconditions;
  // Optional: every store of the variant's grid to each lane of each output, per writing program
  // (races.hpp); nullopt when the stores cannot be split by program on this call.
  std::function<std::optional<std::vector<detail::LaneWrites>>(Variant)> writes;
};

// The most buffer lanes the split of a call's stores by program may copy (parts x runs x lanes);
// a larger call is compared in the host's row order only.
inline constexpr double kMaxRaceLanes = 1u << 28;

// Whether a variant writes past a row's own columns, so that rows can store to the same lane.
inline bool spills(Variant v) {
  return has(v, Behaviour::grid_spill) || has(v, Behaviour::b10_no_max_pages_bound) ||
         has(v, Behaviour::e01_no_column_bound);
}

using detail::Claim;

// The preparation of a call of `route`, through the route list: the per-id routes and the
// page-table routes by their spec's field list; write_loc, kv_indices_inplace, eager_funnel and
// decode_metadata by loaders of their own.
Prepared prepare(Route route, Call& c, const Claim& claim);
Prepared prep_write_loc(Call& c);
Prepared prep_kv_indices(Call& c);
Prepared prep_eager_funnel(Call& c);
Prepared prep_decode(Call& c);

}  // namespace kvaddr::replay::load
