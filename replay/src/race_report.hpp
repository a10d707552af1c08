#pragma once
// The races of a replayed call as its report shows them (where each contested lane sits, Race / RaceCell);
// which values a lane can hold is kvaddr/replay/races.hpp, shared with the harnesses' naming.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvaddr/replay/races.hpp"
#include "kvaddr/replay/replay.hpp"

namespace kvaddr::replay::detail {

using I64 = std::vector<std::int64_t>;
using replay::LaneWrites;
using replay::possible_values;

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
