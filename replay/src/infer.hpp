#pragma once
// Behaviour inference (issue 33): when no catalogue variant (or composite) reproduces a recorded
// call, structural explanations are proposed from the lanes that differ and each is CONFIRMED by
// re-execution before it is reported: a parametrised variant that reproduces every recorded lane of
// the call (its grown buffers included, see Prepared::run_grown). Candidates:
//   * a spill past the column bound up to a grid boundary G (grid_spill@G on the tables,
//     era_d_read_table@G on decode_metadata), G read off the last differing lane of the table for
//     every row that can reach it, plus the upstream 256; and the unbounded spills (b10, e01),
//     each alone or with one other behaviour of the route; runs on the table grown by the rows the
//     spill needs, so a spill of the last row past every guard is reproduced on the recorded lanes
//     and its stores past them are counted, not refused;
//   * int32_lane_offsets on the per-id routes (lanes at or past 2^31 unwritten), read off the lane set;
// within what is left of the call's search budget (SearchMeter, behaves_like.hpp: the behaves-like
// search spends it first), "not explained within the bound" otherwise.
#include <functional>
#include <utility>
#include <optional>
#include <string>
#include <vector>

#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/validate.hpp"
#include "behaves_like.hpp"
#include "call.hpp"
#include "prepare.hpp"

namespace kvaddr::replay::detail {

// The candidates and time come from the call's SearchMeter; this bounds the memory of one candidate.
struct InferBounds {
  std::int64_t max_grown_lanes = std::int64_t{1} << 24;  // per output: a larger growth is not tried
};

// What the inference needs to know of the call besides its prepared runs.
struct InferCall {
  Route route{};
  const load::Prepared* prepared = nullptr;
  std::optional<std::int64_t> column_bound;  // max_pages / max_seq_pages from the scalars
  std::string bound_name;                    // "max_pages" / "max_seq_pages"
  std::int64_t lanes_differing = 0;          // of the claimed variant (0 when it raised)
};

// The confirmed explanations (smallest first; empty with `not_explained` set when none is).
struct InferResult {
  std::vector<Inferred> found;
  std::string not_explained;
};
// `first` (when not production) is tried before every other candidate: the claimed variant, whose
// run raised only because its stores ran past the recorded memory.
InferResult infer(const InferCall& call, SearchMeter& meter, Variant first = Variant::production,
                  const InferBounds& bounds = {});

// Lanes of a launch as sorted, disjoint, non-empty half-open ranges [first, last): a launch of 2^31 lanes
// or more is stated by its ranges, never enumerated.
struct LaneRange {
  std::int64_t first = 0, last = 0;
  friend bool operator==(const LaneRange&, const LaneRange&) = default;
};
using LaneSet = std::vector<LaneRange>;

// int32_lane_offsets read off a per-id launch of `launch_lanes` lanes (token_translate, write_loc): the
// differing lanes that kept their value from before the call (`unwritten`), the other differing lanes
// (`rewritten`) and the lanes that evidently were written (`written`: the claim's value, not their value
// from before). Confirmed by re-running lanes::launch_lane over the launch, one block of 2^31 lanes at a
// time (within a block the wrapped offset is i minus a constant, so its first and last lanes settle the
// block): explained when the unwritten lanes all have a negative offset, no lane with a negative offset
// was written (a lane in neither set kept a value equal to the one it should get: it cannot tell), and
// every rewritten lane is an element a later lane lands on again. Empty `found` otherwise (with the reason).
InferResult infer_lane_offsets(std::int64_t launch_lanes, const LaneSet& unwritten, const LaneSet& rewritten,
                               const LaneSet& written = {});
// The same read off a recorded per-id call: its out's differing lanes against the claim's run.
InferResult infer_lane_offsets(const InferCall& call, Variant claimed);

// Inputs read with another stride than recorded: for every input recorded with a stride other than 1,
// stride_ignored(name) (read packed); for every 1-D input, stride0(name) (every lane reads its first
// element). `reproduces(p)` re-runs the call with the claim plus p and says whether every recorded lane
// matches; the first that does is reported.
InferResult infer_presentations(const std::vector<std::string>& vector_inputs,
                                const std::vector<std::pair<std::string, std::int64_t>>& strided,
                                const std::function<bool(const Presentation&)>& reproduces,
                                const std::function<std::string(const Presentation&)>& claim_with,
                                SearchMeter& meter);

}  // namespace kvaddr::replay::detail
