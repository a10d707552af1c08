// Behaviour inference: candidates read off the differing lanes, confirmed by re-execution (infer.hpp).
#include "infer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/lanes.hpp"

namespace kvaddr::replay::detail {
namespace {

using load::I64;
using load::Output;
using load::Prepared;

// The last lane of output `o` that the recording changed away from `reference` (the view, then the
// parent's lanes after it, counted from the view's first lane); -1 when none.
std::int64_t last_differing(const Output& o, const I64& reference) {
  std::int64_t last = -1;
  const auto n = static_cast<std::int64_t>(o.after.size());
  for (std::int64_t i = 0; i < n && i < static_cast<std::int64_t>(reference.size()); ++i)
    if (o.after[static_cast<std::size_t>(i)] != reference[static_cast<std::size_t>(i)]) last = i;
  const auto end = o.offset + n;
  for (auto q = end; q < static_cast<std::int64_t>(o.parent_after.size()); ++q)
    if (o.parent_after[static_cast<std::size_t>(q)] != o.parent_before[static_cast<std::size_t>(q)]) last = q - o.offset;
  return last;
}

// Whether a run on grown memory reproduces every recorded lane; counts the stores that landed past them.
bool reproduces(const Prepared& p, const std::vector<I64>& got, std::int64_t& unrecorded) {
  unrecorded = 0;
  if (got.size() != p.outputs.size()) return false;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const Output& o = p.outputs[k];
    const auto n = o.after.size();
    if (got[k].size() < n || !std::equal(o.after.begin(), o.after.end(), got[k].begin())) return false;
    const auto parent = static_cast<std::int64_t>(o.parent_after.size());
    for (std::int64_t q = 0; q < o.offset; ++q)  // the guard before the view: never written by a spill
      if (o.parent_after[static_cast<std::size_t>(q)] != o.parent_before[static_cast<std::size_t>(q)]) return false;
    // The parent's lanes after the view: as the grown run left them, or untouched past its growth.
    for (auto q = o.offset + static_cast<std::int64_t>(n); q < parent; ++q) {
      const auto j = static_cast<std::size_t>(q - o.offset);
      const std::int64_t want = j < got[k].size() ? got[k][j] : o.parent_before[static_cast<std::size_t>(q)];
      if (o.parent_after[static_cast<std::size_t>(q)] != want) return false;
    }
    for (auto j = static_cast<std::size_t>(std::max<std::int64_t>(parent - o.offset, static_cast<std::int64_t>(n)));
         j < got[k].size(); ++j)
      unrecorded += got[k][j] != load::kUnrecorded;
  }
  return true;
}

struct Candidate {
  Variant v;
  std::int64_t extent_hint = 0;  // lanes a row may write (for the growth); 0: from the grid
};

std::string describe(Route route, Variant v, const InferCall& call, std::int64_t unrecorded) {
  const std::string bound = call.column_bound ? fmt::format("{} = {}", call.bound_name, *call.column_bound)
                                              : call.bound_name;
  std::string s;
  const Variant spill_bits = Variant::grid_spill | Variant::era_d_read_table;
  if ((v.bits & kColumnBlockBits) != 0) {
    const std::int64_t g = v.column_block;
    const std::string upto = call.column_bound ? fmt::format("column {}", (*call.column_bound + g - 1) / g * g)
                                               : fmt::format("the next multiple of {}", g);
    s = has(v, Behaviour::era_d_read_table)
            ? fmt::format("page table built by build_kv_read_table: spills past {} up to {} of its launch grid "
                          "(column block {})",
                          bound, upto, g)
            : fmt::format("spills past {} up to {} of the launch grid (column block {})", bound, upto, g);
  } else if (has(v, Behaviour::b10_no_max_pages_bound) || has(v, Behaviour::e01_no_column_bound)) {
    s = fmt::format("spills past {} up to each row's page count (no column bound)", bound);
  } else {
    s = fmt::format("behaves like {}", to_string(v, route));
  }
  const Variant rest = v - spill_bits - Variant::b10_no_max_pages_bound - Variant::e01_no_column_bound;
  if (!rest.empty() && (v.bits & ~rest.bits) != 0) s += fmt::format(", with {}", to_string(rest, route));
  if (unrecorded > 0) s += fmt::format("; {} of its stores land past the recorded memory", unrecorded);
  return s;
}

// Why no candidate explained the call: how many of them ran, and the budget that bounded them.
std::string not_within_bound(std::int64_t tried, std::size_t candidates, const SearchMeter& meter) {
  return fmt::format("not explained within the bound ({} of {} structural candidates tried{}; the call's search "
                     "budget: {} candidates, {} s, {} spent)",
                     tried, candidates, meter.out_of_time() ? ", time bound reached" : "",
                     meter.budget().max_candidates, meter.budget().max_seconds, meter.tried());
}

}  // namespace

InferResult infer(const InferCall& call, SearchMeter& meter, Variant first, const InferBounds& bounds) {
  InferResult res;
  const Prepared& p = *call.prepared;
  const Route route = call.route;
  const bool grid = behaviour_in_route(route, Behaviour::grid_spill);
  const bool era_d = behaviour_in_route(route, Behaviour::era_d_read_table);
  if (!p.run_grown || (!grid && !era_d)) {
    res.not_explained = "not explained: no structural candidate applies to this route";
    return res;
  }
  // The reference the spill is read against: production where it runs, else the recorded before.
  std::vector<I64> reference;
  try {
    reference = p.run(Variant::production);
  } catch (const kvaddr::Error&) {
    for (const Output& o : p.outputs) reference.push_back(o.before);
  }
  // Grid boundaries read off the last differing lane of each table, for every row that can reach it.
  std::set<std::int64_t> extents;
  std::int64_t stride = 1, rows = 0, last = -1;
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    const Output& o = p.outputs[k];
    if (o.shape.size() != 2) continue;
    const std::int64_t f = last_differing(o, reference[k]);
    stride = std::max<std::int64_t>(o.stride(), 1);
    rows = std::max(rows, o.shape[0]);
    last = std::max(last, f);
    for (std::int64_t b = 0; f >= 0 && b < o.shape[0] && b * stride <= f; ++b) {
      const std::int64_t x = f - b * stride + 1;
      if (!call.column_bound || x > *call.column_bound) extents.insert(x);
    }
  }
  std::vector<Candidate> cands;
  if (!first.empty() && route_accepts(route, first)) cands.push_back({first, last + 1 + rows * stride});
  const Behaviour spill = grid ? Behaviour::grid_spill : Behaviour::era_d_read_table;
  cands.push_back({Variant::of(spill), 0});  // the upstream grid (G = 256)
  for (const std::int64_t x : extents)
    if (x != kDefaultColumnBlock && x <= (std::int64_t{1} << 30))
      cands.push_back({with_column_block(Variant::of(spill), static_cast<std::int32_t>(x)), 0});
  for (const Behaviour b : {Behaviour::b10_no_max_pages_bound, Behaviour::e01_no_column_bound})
    if (behaviour_in_route(route, b)) cands.push_back({Variant::of(b), last + 1 + rows * stride});
  // Then each with one other behaviour of the route.
  const std::size_t singles = cands.size();
  for (std::size_t i = 0; i < singles; ++i) {
    for (int b = 0; b < kBehaviourCount; ++b) {
      const Variant other = Variant::of(static_cast<Behaviour>(b));
      if (cands[i].v.contains(other) || !behaviour_in_route(route, static_cast<Behaviour>(b))) continue;
      const Variant v = cands[i].v | other;
      if (route_accepts(route, v)) cands.push_back({v, cands[i].extent_hint});
    }
  }
  std::int64_t tried = 0;
  for (const Candidate& c : cands) {
    if (!meter.take()) break;
    ++tried;
    // Memory for the last row's whole spill: the grid's column extent (or the hint) past the view.
    std::int64_t extent = c.extent_hint;
    if ((c.v.bits & kColumnBlockBits) != 0) {
      const std::int64_t g = c.v.column_block;
      extent = call.column_bound ? (*call.column_bound + g - 1) / g * g : 2 * g + 2 * stride;
    }
    const std::int64_t extra_rows = (extent + stride - 1) / stride + 1;
    if (extra_rows * stride > bounds.max_grown_lanes) continue;
    std::vector<I64> got;
    try {
      got = p.run_grown(c.v, extra_rows);
    } catch (const kvaddr::Error&) {
      continue;
    }
    std::int64_t unrecorded = 0;
    if (!reproduces(p, got, unrecorded)) continue;
    res.found.push_back({std::string(to_string(c.v, route)), describe(route, c.v, call, unrecorded),
                         call.lanes_differing, unrecorded});
    break;  // candidates are in order of preference (the upstream grid, then the smallest G): the first one
  }
  if (res.found.empty()) res.not_explained = not_within_bound(tried, cands.size(), meter);
  return res;
}

namespace {

// The lanes of [0, n) whose wrapped offset is negative (unwritten) and the elements a later lane lands on
// again (rewritten), block by block of 2^31 lanes through lanes::launch_lane.
void lane_offset_sets(std::int64_t n, LaneSet& unwritten, LaneSet& rewritten) {
  constexpr std::int64_t block = std::int64_t{1} << 31;
  const Variant v = Variant::int32_lane_offsets;
  const auto add = [](LaneSet& s, std::int64_t a, std::int64_t b) {
    if (a >= b) return;
    if (!s.empty() && s.back().last >= a) s.back().last = std::max(s.back().last, b);
    else s.push_back({a, b});
  };
  std::int64_t rewritten_end = 0;  // elements [0, rewritten_end) are landed on again by a later lane
  for (std::int64_t first = 0; first < n; first += block) {
    const std::int64_t last = std::min(n, first + block) - 1;
    const std::int64_t e0 = lanes::launch_lane(first, v), e1 = lanes::launch_lane(last, v);
    if (e0 < 0) add(unwritten, first, last + 1);
    else if (e0 != first) rewritten_end = std::max(rewritten_end, e1 + 1);
  }
  add(rewritten, 0, rewritten_end);
}

std::int64_t lanes_in(const LaneSet& s) {
  std::int64_t n = 0;
  for (const LaneRange& r : s) n += r.last - r.first;
  return n;
}

bool overlaps(const LaneSet& a, const LaneSet& b) {
  return std::any_of(a.begin(), a.end(), [&](const LaneRange& r) {
    return std::any_of(b.begin(), b.end(), [&](const LaneRange& o) { return r.first < o.last && o.first < r.last; });
  });
}

bool within(const LaneSet& inner, const LaneSet& outer) {
  return std::all_of(inner.begin(), inner.end(), [&](const LaneRange& r) {
    return std::any_of(outer.begin(), outer.end(), [&](const LaneRange& o) { return o.first <= r.first && r.last <= o.last; });
  });
}

}  // namespace

InferResult infer_lane_offsets(std::int64_t launch_lanes, const LaneSet& unwritten, const LaneSet& rewritten,
                               const LaneSet& written) {
  InferResult res;
  require(launch_lanes >= 0, "launch_lanes", launch_lanes, "must be >= 0");
  for (const LaneSet* s : {&unwritten, &rewritten, &written}) {
    for (std::size_t k = 0; k < s->size(); ++k) {
      const LaneRange& r = (*s)[k];
      require(r.first >= 0 && r.last > r.first && r.last <= launch_lanes && (k == 0 || (*s)[k - 1].last < r.first),
              s == &unwritten ? "unwritten" : s == &rewritten ? "rewritten" : "written", r.first,
              "lane ranges must be sorted, disjoint (not adjacent), non-empty and inside the launch");
    }
  }
  LaneSet want_unwritten, may_rewrite;
  lane_offset_sets(launch_lanes, want_unwritten, may_rewrite);
  if (unwritten.empty() || !within(unwritten, want_unwritten) || !within(rewritten, may_rewrite) ||
      overlaps(written, want_unwritten)) {
    res.not_explained = want_unwritten.empty()
                            ? fmt::format("not explained: int32_lane_offsets leaves no lane unwritten on a launch of {} "
                                          "lanes (it acts from lane 2^31 on)",
                                          launch_lanes)
                            : "not explained: the differing lanes are not those int32_lane_offsets leaves unwritten";
    return res;
  }
  const LaneRange& first = want_unwritten.front();
  std::string text = fmt::format("lanes >= 2^31 not written (lane offsets formed in int32): {} lanes unwritten, from "
                                 "lane {} to {}",
                                 lanes_in(want_unwritten), first.first, want_unwritten.back().last - 1);
  if (lanes_in(unwritten) != lanes_in(want_unwritten))
    text += fmt::format(" ({} of them kept a value equal to the one they should get)",
                        lanes_in(want_unwritten) - lanes_in(unwritten));
  if (!rewritten.empty())
    text += fmt::format("; {} lanes below 2^31 stored again by lanes 2^32 past them", lanes_in(rewritten));
  res.found.push_back({std::string(to_string(Variant::int32_lane_offsets)), std::move(text),
                       lanes_in(unwritten) + lanes_in(rewritten), 0});
  return res;
}

InferResult infer_lane_offsets(const InferCall& call, Variant claimed) {
  const Prepared& p = *call.prepared;
  InferResult none;
  none.not_explained = "not explained: int32_lane_offsets applies to the per-id routes only";
  if (!behaviour_in_route(call.route, Behaviour::int32_lane_offsets) || p.outputs.empty()) return none;
  std::vector<I64> want;
  try {
    want = p.run(claimed);
  } catch (const kvaddr::Error&) {
    return none;
  }
  const Output& o = p.outputs.front();
  LaneSet unwritten, rewritten, written;
  const auto add = [](LaneSet& s, std::int64_t i) {
    if (!s.empty() && s.back().last == i) ++s.back().last;
    else s.push_back({i, i + 1});
  };
  for (std::size_t i = 0; i < o.after.size() && i < want.front().size(); ++i) {
    const auto lane = static_cast<std::int64_t>(i);
    if (o.after[i] == want.front()[i]) {
      if (o.after[i] != o.before[i]) add(written, lane);
      continue;
    }
    add(o.after[i] == o.before[i] ? unwritten : rewritten, lane);
  }
  return infer_lane_offsets(static_cast<std::int64_t>(o.after.size()), unwritten, rewritten, written);
}

InferResult infer_presentations(const std::vector<std::string>& vector_inputs,
                                const std::vector<std::pair<std::string, std::int64_t>>& strided,
                                const std::function<bool(const Presentation&)>& reproduces,
                                const std::function<std::string(const Presentation&)>& claim_with,
                                SearchMeter& meter) {
  InferResult res;
  std::vector<std::pair<Presentation, std::string>> cands;
  for (const auto& [name, stride] : strided)
    cands.push_back({{Presentation::packed, name}, fmt::format("reads {} as packed (presented with stride {})", name, stride)});
  for (const std::string& name : vector_inputs)
    cands.push_back({{Presentation::zero, name}, fmt::format("reads {} with stride 0 (every lane reads its first element)", name)});
  std::int64_t tried = 0;
  for (const auto& [p, text] : cands) {
    if (!meter.take()) break;
    ++tried;
    bool ok = false;
    try {
      ok = reproduces(p);
    } catch (const std::exception&) {
      ok = false;  // the re-presented call is outside the route's contract
    }
    if (ok) {
      res.found.push_back({claim_with(p), text, 0, 0});
      return res;
    }
  }
  res.not_explained = not_within_bound(tried, cands.size(), meter);
  return res;
}

}  // namespace kvaddr::replay::detail
