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
#include "race_report.hpp"

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
  // Optional (page tables): the run with `extra_rows` rows of memory appended to each table output,
  // as a spilling kernel sees the memory after the buffer. Each output comes back grown (its view,
  // then the extra rows); the extra lanes start as the recorded parent's lanes after the view where
  // it has them, else kUnrecorded. Not offered where a grown table changes the call (zero_tail).
  std::function<std::vector<I64>(Variant, std::int64_t extra_rows)> run_grown;
};

// The value the lanes of grown memory past every recorded lane start with (run_grown).
inline constexpr std::int64_t kUnrecorded = -1234567891;

// The lanes after an output's view in its recorded parent (empty without guard regions).
inline I64 lanes_after_view(const Output& o) {
  const auto end = o.offset + static_cast<std::int64_t>(o.before.size());
  if (o.parent_before.empty() || end >= static_cast<std::int64_t>(o.parent_before.size())) return {};
  return I64(o.parent_before.begin() + end, o.parent_before.end());
}

// `before` followed by `extra` lanes: `after_view` first, then kUnrecorded.
inline I64 grown_buffer(const I64& before, const I64& after_view, std::int64_t extra) {
  I64 g = before;
  for (std::int64_t j = 0; j < extra; ++j)
    g.push_back(j < static_cast<std::int64_t>(after_view.size()) ? after_view[static_cast<std::size_t>(j)] : kUnrecorded);
  return g;
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
