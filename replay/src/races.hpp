#pragma once
// Racing writes. A kernel whose rows spill past their width (grid_spill, B10, E01) can store to a
// lane of another row, or to a lane that another row's program also stores to; on the device those
// stores race, so the lane may end with any of their values. The host route runs the rows in order
// (the last store wins), which is only one of the possible outputs.
//
// The writes of each program are found without looking inside the route: the route runs on one
// part of the call (one batch row, or read_table's padded-row fill) twice, on two "before" buffers
// that differ in every lane; a lane holds the same value after both runs exactly when the part
// stores to it (the table routes never read their output).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kvaddr/replay/replay.hpp"

namespace kvaddr::replay::detail {

using I64 = std::vector<std::int64_t>;
// The stores to each lane of one output buffer, in the host's order.
using LaneWrites = std::vector<std::vector<RaceWrite>>;

// The lanes that `run` stores to, with their values: run(prefill) returns the buffer after the
// part ran on `prefill`; it is called on `before` and on `before` with every lane's low bit
// flipped. Entry i is the stored value, or nullopt when lane i was not stored to.
std::vector<std::optional<std::int64_t>> stored_lanes(const I64& before, const std::function<I64(const I64&)>& run);

// Appends the stores of one writer (row `writer`) to `w` (same length as `stored`).
void add_writes(LaneWrites& w, const std::vector<std::optional<std::int64_t>>& stored, std::int64_t writer);

// The buffer that the host order leaves: `before` with every lane's last store applied.
I64 last_write_wins(const I64& before, const LaneWrites& w);

// The distinct values stored to one lane, ascending (a lane is contested when there are >= 2).
I64 possible_values(const std::vector<RaceWrite>& writes);

// Where a lane of an output sits: its multi-dimensional index and region. row_stride > 0: the
// buffer is rows of row_stride lanes of which the first shape[1] are the table (the rest "guard column").
// width > 0 (a 2-D table the kernel saw `width` columns of, "presented": {"widths"}): columns from
// width on are "past width".
struct LanePlace {
  std::vector<std::int64_t> index;
  std::string region;
};
LanePlace place_of(const I64& shape, std::int64_t row_stride, std::int64_t flat, std::int64_t width = 0);

// One output's part of a variant's race: its name, shape and stride, the recorded buffer, the
// buffer the host order leaves and every store of the variant's grid.
struct RacedOutput {
  const std::string* name = nullptr;
  const I64* shape = nullptr;
  std::int64_t row_stride = 0;
  const I64* recorded = nullptr;
  const I64* host = nullptr;
  const LaneWrites* writes = nullptr;
  bool guards_intact = true;  // the lanes outside the buffer kept their values
  std::int64_t width = 0;      // as place_of's
};

// The race of `variant` over its outputs, or nullopt when no lane is contested.
std::optional<Race> race_of(const std::string& variant, const std::vector<RacedOutput>& outputs);

}  // namespace kvaddr::replay::detail
