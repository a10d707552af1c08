// The races of a replayed call as its report shows them (race_report.hpp).
#include "race_report.hpp"

#include <algorithm>

namespace kvaddr::replay::detail {

LanePlace place_of(const I64& shape, std::int64_t row_stride, std::int64_t flat, std::int64_t width) {
  LanePlace p;
  if (row_stride > 0 && shape.size() == 2) {
    const std::int64_t c = flat % row_stride;
    p.index = {flat / row_stride, c};
    if (c >= shape[1]) p.region = "guard column";
    return p;
  }
  I64 strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  std::int64_t rest = flat;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    p.index.push_back(strides[k] == 0 ? 0 : rest / strides[k]);
    rest = strides[k] == 0 ? 0 : rest % strides[k];
  }
  if (width > 0 && p.index.size() == 2 && p.index[1] >= width) p.region = "past width";
  return p;
}

std::optional<Race> race_of(const std::string& variant, const std::vector<RacedOutput>& outputs) {
  Race race;
  race.variant = variant;
  race.consistent = true;
  for (const RacedOutput& o : outputs) {
    if (!o.guards_intact) race.consistent = false;
    const I64& rec = *o.recorded;
    for (std::size_t i = 0; i < rec.size(); ++i) {
      const std::vector<RaceWrite> none;
      const auto& w = i < o.writes->size() ? (*o.writes)[i] : none;
      const I64 possible = possible_values(w);
      if (possible.size() < 2) {
        if (i >= o.host->size() || (*o.host)[i] != rec[i]) race.consistent = false;
        continue;
      }
      ++race.cells_contested;
      const bool ok = std::binary_search(possible.begin(), possible.end(), rec[i]);
      if (!ok) race.consistent = false;
      if (race.cells.size() >= kMaxDiffs) continue;
      RaceCell cell;
      cell.output = *o.name;
      cell.flat = static_cast<std::int64_t>(i);
      LanePlace pl = place_of(*o.shape, o.row_stride, cell.flat, o.width);
      cell.index = std::move(pl.index);
      cell.region = std::move(pl.region);
      cell.writes = w;
      cell.possible = possible;
      cell.recorded = rec[i];
      cell.recorded_possible = ok;
      race.cells.push_back(std::move(cell));
    }
  }
  if (race.cells_contested == 0) return std::nullopt;
  return race;
}

}  // namespace kvaddr::replay::detail
