#pragma once
// Racing writes, written once for every front end: replay (prepare.cpp's per-program split, replay.cpp's
// comparison and report), the C++ harness's naming and kvaddr.check's (both through kvaddr/harness/naming.hpp
// name_case; Python through kvaddr._core.name_case).
//
// A kernel whose rows spill past their width (grid_spill, B10, E01) can store to a lane of another row, or to
// a lane that another row's program also stores to; on the device those stores race, so the lane may end with
// any of their values. The host route runs the rows in order (the last store wins), which is only one of the
// possible outputs.
//
// The writes of each program are found without looking inside the route: the route runs on one part of the
// call (one batch row, or read_table's padded-row fill) twice, on two "before" buffers that differ in every
// lane; a lane holds the same value after both runs exactly when the part stores to it (the table routes
// never read their output).
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/variant.hpp"

namespace kvaddr::replay {

// One store to a lane that several programs of the kernel's grid write: the batch row whose program stores
// it (-1: read_table's zero_tail fill of the padded rows [B, rows)) and the value.
struct RaceWrite {
  std::int64_t row = 0;
  std::int64_t value = 0;
  friend bool operator==(const RaceWrite&, const RaceWrite&) = default;
};

// The stores to each lane of one output buffer, in the host's order.
using LaneWrites = std::vector<std::vector<RaceWrite>>;

// Whether a variant writes past a row's own columns, so that rows can store to the same lane.
inline bool spills(Variant v) {
  return has(v, Behaviour::grid_spill) || has(v, Behaviour::b10_no_max_pages_bound) ||
         has(v, Behaviour::e01_no_column_bound);
}

// Whether the rows of `route` can race under `v`: a page table whose columns are bounded by max_pages
// (spec_rules::BoundedTableColumns: canonical_page_table, read_table) under a spilling variant.
inline bool races_on(Route route, Variant v) {
  const bool bounded = visit_route(
      route, [](auto spec) { return std::is_base_of_v<spec_rules::BoundedTableColumns, decltype(spec)>; });
  return bounded && spills(v);
}

// Whether some row of KV length lens[b] + delta has more pages of `page_size` than lanes per row (`stride`):
// without such a row no two programs share a lane. A length the route rejects (negative, overflowing, or a
// page size < 1) counts as such a row: the route decides.
bool rows_leave_their_own(const std::vector<std::int64_t>& lens, std::int64_t delta, std::int64_t page_size,
                          std::int64_t stride);

// The lanes that `run` stores to, with their values: run(prefill) returns the buffer after the part ran on
// `prefill`; it is called on `before` and on `before` with every lane's low bit flipped. Entry i is the stored
// value, or nullopt when lane i was not stored to.
std::vector<std::optional<std::int64_t>> stored_lanes(
    const std::vector<std::int64_t>& before,
    const std::function<std::vector<std::int64_t>(const std::vector<std::int64_t>&)>& run);

// Appends the stores of one writer (row `writer`) to `w` (same length as `stored`).
void add_writes(LaneWrites& w, const std::vector<std::optional<std::int64_t>>& stored, std::int64_t writer);

// The buffer that the host order leaves: `before` with every lane's last store applied.
std::vector<std::int64_t> last_write_wins(const std::vector<std::int64_t>& before, const LaneWrites& w);

// The distinct values stored to one lane, ascending (a lane is contested when there are >= 2).
std::vector<std::int64_t> possible_values(const std::vector<RaceWrite>& writes);

// The most buffer lanes the split of a call's stores by program may copy (parts x runs x lanes); a larger call
// is compared in the host's row order only.
inline constexpr double kMaxRaceLanes = 1u << 28;

// The table of a page-table call as its programs see it: `batch` rows, each one program (its column blocks
// never store to the same lane), over a buffer of `table_rows` rows of `stride` lanes; with `zero_tail`
// (read_table) the fill of the padded rows [batch, table_rows) is one more program (row -1).
struct RowSplit {
  std::int64_t batch = 0;
  std::int64_t table_rows = 0;
  std::int64_t stride = 0;
  bool zero_tail = false;
};

// One part of the call on a buffer: batch rows [b0, b1) on the table rows [row0, table_rows) of `prefill`,
// with the padded-row fill on or off; returns the whole buffer after it ran (throws kvaddr::Error where the
// route rejects the part).
using PartRun = std::function<std::vector<std::int64_t>(std::int64_t row0, std::int64_t b0, std::int64_t b1,
                                                        bool fill_tail, const std::vector<std::int64_t>& prefill)>;

// Every store of the call's grid to each lane of the table `before`, per writing program, in the host's order;
// nullopt when the split is over kMaxRaceLanes, the route rejects a part, or the parts in the host's order do not
// give `whole`, the whole call's output (then the split is wrong and the call is compared in the host's order only).
std::optional<LaneWrites> split_writes(const std::vector<std::int64_t>& before, const RowSplit& split,
                                       const PartRun& run_part, const std::vector<std::int64_t>& whole);

// Whether `actual` is one of the outputs the racing programs can leave, and not only the host's: some lane is
// contested (stores of >= 2 values), each contested lane holds one of its values and every other lane equals
// `host` (the output in the host's order).
bool matches_up_to_race(const std::vector<std::int64_t>& host, const std::vector<std::int64_t>& actual,
                        const LaneWrites& writes);

}  // namespace kvaddr::replay
