#pragma once
// Adjacent slices of one allocation, written once for both front ends (kvaddr.adjacent reaches it through
// kvaddr._core; header-only, like compare.hpp, so the extension includes it without linking the harness).
//
// A case's chosen arguments (`members`, in backing order) are consecutive slices of ONE int32 backing:
//
//   guard elements of members[0]'s type | members[0] | members[1] | ... | guard elements of members.back()'s type
//
// Every member is its whole contiguous buffer, measured in int32 lanes (an int64 element is 2 lanes). `shared`
// int32 lanes: 0 - each member starts where the previous one ends (touching); > 0 - each starts `shared` lanes
// before the previous one's end (a partial overlap, for pairs validation must reject; the later member's values
// are in the shared lanes). An int64 member starts at an even lane; a layout misaligning one is refused.
//
// attribute() compares two backings lane by lane and blames each differing lane on
//   * an output's own lanes: region out / past_width (a 2-D output's column at or past its visible width);
//   * an output's window - `guard` elements (of the output's type) before its first and after its last lane -
//     where it lies in an input (neighbour_before / neighbour_after, the input's element named) or in the
//     backing's guard region (guard_before / guard_after); the nearest output is blamed;
//   * any other lane of an input: the kernel wrote into that input (region input).
//
// adjacent_candidates(route) reads the layouts a route admits (touching) and rejects (overlapping) off its spec
// (RouteSpec::adjacent_admitted / adjacent_rejected, route_spec.hpp); a per-id route that declares no admitted
// list gets the per-id rule: (ids, out), (out, ids), (table, out), (out, table), (ids, table, out).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::harness {

// One member of an adjacent layout.
struct AdjacentMember {
  std::string name;
  std::int64_t units = 1;           // int32 lanes per element: 1 (int32) or 2 (int64)
  std::vector<std::int64_t> shape;  // 1 or 2 sizes >= 0
  bool output = false;
  std::int64_t width = -1;          // a 2-D output's visible columns; -1: all of them
  std::int64_t elements() const {  // Overflow naming the member when the product does not fit
    return shape.size() == 2 ? checked_mul(shape[0], shape[1], name + ".shape") : shape.at(0);
  }
};

struct AdjacentSpan {
  std::string name;
  std::int64_t lo = 0, hi = 0;  // int32 lanes [lo, hi) of the backing
  bool operator==(const AdjacentSpan&) const = default;
};

struct AdjacentLayoutOf {
  std::vector<AdjacentMember> members;
  std::int64_t shared = 0, guard = 0;
  std::vector<AdjacentSpan> spans;  // one per member, in order
  std::int64_t total = 0;           // int32 lanes of the backing, guards included
};

// One attributed element (an int64 element counts once, whichever of its lanes differ).
struct AdjacentLane {
  std::string name;                 // the output blamed; a written input; a guard: the member next to it
  std::vector<std::int64_t> index;  // the element's index (guards: offset from the edge; neighbours: window offset)
  std::string region;               // out, past_width, guard_before, guard_after, neighbour_before/after, input
  std::int64_t expected = 0, actual = 0;
  std::string neighbour;            // neighbour_*: the input's element "name[i]"; out: a window hint "name[+k]"
};

struct AdjacentAttribution {
  std::vector<AdjacentLane> lanes;          // the first `limit` output / window / guard elements and the first
                                            // `limit` written input elements, in backing order
  std::int64_t differing = 0;               // differing output, window and guard elements
  bool out_of_bounds = false;               // one of them lies outside the outputs' visible lanes
  std::vector<std::string> inputs_changed;  // inputs written outside every output's window, in backing order
};

// The layout of `members` (validated: every entry point argument named; nothing is written on a refusal).
inline AdjacentLayoutOf adjacent_layout(std::vector<AdjacentMember> members, std::int64_t shared, std::int64_t guard) {
  const auto s = [](std::int64_t v) { return std::to_string(v); };
  if (members.empty()) throw InvalidArgument("members", "[]", "an adjacent layout needs at least one member");
  if (shared < 0) throw InvalidArgument("shared", s(shared), "must be >= 0 int32 lanes");
  if (guard < 0 || guard > (std::int64_t{1} << 40)) throw InvalidArgument("guard", s(guard), "must lie in [0, 2^40]");
  std::set<std::string> names;
  for (const AdjacentMember& m : members) {
    if (m.name.empty() || !names.insert(m.name).second)
      throw InvalidArgument("members", m.name.empty() ? "''" : m.name, "member names must be non-empty and distinct");
    if (m.units != 1 && m.units != 2) throw InvalidArgument(m.name + ".units", s(m.units), "must be 1 (int32) or 2 (int64)");
    if (m.shape.empty() || m.shape.size() > 2) throw InvalidArgument(m.name + ".shape", s(std::int64_t(m.shape.size())) + " sizes",
                                                                     "must be 1 or 2 sizes");
    for (std::int64_t d : m.shape)
      if (d < 0 || d > (std::int64_t{1} << 40)) throw InvalidArgument(m.name + ".shape", s(d), "sizes must lie in [0, 2^40]");
    if (m.width != -1 && (!m.output || m.shape.size() != 2 || m.width < 0 || m.width > m.shape[1]))
      throw InvalidArgument(m.name + ".width", s(m.width), "only a 2-D output has a visible width, in [0, its columns]");
  }
  AdjacentLayoutOf l{std::move(members), shared, guard, {}, 0};
  std::int64_t pos = guard * l.members.front().units;
  for (std::size_t i = 0; i < l.members.size(); ++i) {
    const AdjacentMember& m = l.members[i];
    if (i > 0) pos -= shared;
    if (pos < 0) throw InvalidArgument("shared", s(shared), "places " + m.name + " before the backing's first lane");
    if (pos % m.units != 0)
      throw InvalidArgument("adjacent", m.name + " (int64) would start at int32 lane " + s(pos),
                            "an int64 member must start on an element boundary (an even int32 lane)");
    const std::int64_t n = checked_mul(m.elements(), m.units, m.name + ".shape");
    l.spans.push_back({m.name, pos, checked_add(pos, n, m.name + ".shape")});
    pos += n;
  }
  l.total = checked_add(pos, guard * l.members.back().units, "guard");
  for (const AdjacentSpan& sp : l.spans)
    if (sp.hi > l.total) throw InvalidArgument("shared", s(shared), "places " + sp.name + " past the backing's end");
  return l;
}

namespace adjacent_detail {

// The value of the element of `units` lanes at lane k (little-endian int64 for 2).
inline std::int64_t element(const std::int32_t* b, std::int64_t k, std::int64_t units) {
  if (units == 1) return b[k];
  const auto lo = static_cast<std::uint32_t>(b[k]), hi = static_cast<std::uint32_t>(b[k + 1]);
  return static_cast<std::int64_t>((std::uint64_t{hi} << 32) | lo);
}

inline std::vector<std::int64_t> unravel(const AdjacentMember& m, std::int64_t e) {
  if (m.shape.size() == 2) return {e / m.shape[1], e % m.shape[1]};
  return {e};
}

struct Window {
  std::int64_t distance = -1;  // -1: none
  std::size_t output = 0;
  bool after = false;
  std::int64_t offset = 0;
};

// The nearest output (other than `exclude`) whose window of `guard` elements holds lane p (first on a tie).
inline Window window(const AdjacentLayoutOf& l, std::int64_t p, std::size_t exclude) {
  Window best;
  for (std::size_t i = 0; i < l.members.size(); ++i) {
    if (!l.members[i].output || i == exclude) continue;
    const std::int64_t u = l.members[i].units, lo = l.spans[i].lo, hi = l.spans[i].hi;
    Window w{-1, i, false, 0};
    if (lo - l.guard * u <= p && p < lo) w = {lo - p, i, false, -((lo - p + u - 1) / u)};
    else if (hi <= p && p < hi + l.guard * u) w = {p - hi + 1, i, true, (p - hi) / u};
    if (w.distance >= 0 && (best.distance < 0 || w.distance < best.distance)) best = w;
  }
  return best;
}

inline std::string index_text(const std::vector<std::int64_t>& idx) {
  std::string t;
  for (std::size_t i = 0; i < idx.size(); ++i) t += (i ? ", " : "") + std::to_string(idx[i]);
  return t;
}

}  // namespace adjacent_detail

// Compares the backings `expected` and `actual` (l.total int32 lanes each) and attributes every differing lane.
inline AdjacentAttribution adjacent_attribute(const AdjacentLayoutOf& l, const std::int32_t* expected,
                                              const std::int32_t* actual, std::int64_t lanes, std::size_t limit = 8) {
  namespace d = adjacent_detail;
  const AdjacentLayoutOf own = adjacent_layout(l.members, l.shared, l.guard);  // a layout made by hand is refused
  if (own.spans != l.spans || own.total != l.total)
    throw InvalidArgument("layout", std::to_string(l.total) + " lanes", "is not adjacent_layout's for its members");
  if (lanes != l.total)
    throw InvalidArgument("actual", std::to_string(lanes) + " lanes", "the backing has " + std::to_string(l.total));
  if (lanes > 0 && (expected == nullptr || actual == nullptr)) throw InvalidArgument("actual", "null", "needs the backing");
  AdjacentAttribution r;
  std::set<std::pair<std::int64_t, std::int64_t>> seen;  // (member, element); guards: member -1 / -2
  std::size_t n_input = 0, n_other = 0;
  const AdjacentSpan &first = l.spans.front(), &last = l.spans.back();
  const std::size_t none = l.members.size();
  for (std::int64_t p = 0; p < lanes; ++p) {
    if (expected[p] == actual[p]) continue;
    AdjacentLane lane;
    std::pair<std::int64_t, std::int64_t> key;
    std::int64_t at = 0, units = 1;  // the element's first lane and size
    if (p < first.lo || p >= last.hi) {  // the backing's guard: an element of the neighbouring member's type
      const bool before = p < first.lo;
      const AdjacentMember& m = before ? l.members.front() : l.members.back();
      units = m.units;
      const std::int64_t g = before ? p / units : (p - last.hi) / units;
      at = before ? g * units : last.hi + g * units;
      key = {before ? -1 : -2, g};
      lane = {m.name, {before ? g - l.guard : g}, before ? "guard_before" : "guard_after", 0, 0, ""};
    } else {
      std::size_t mi = none;  // the last span holding p: the later member's values are in shared lanes
      for (std::size_t i = 0; i < l.spans.size(); ++i)
        if (l.spans[i].lo <= p && p < l.spans[i].hi) mi = i;
      if (mi == none) continue;  // not reached: the spans cover [first.lo, last.hi) when they touch or overlap
      const AdjacentMember& m = l.members[mi];
      units = m.units;
      const std::int64_t e = (p - l.spans[mi].lo) / units;
      at = l.spans[mi].lo + e * units;
      key = {static_cast<std::int64_t>(mi), e};
      const std::vector<std::int64_t> idx = d::unravel(m, e);
      if (m.output) {
        const bool past = m.width >= 0 && idx[1] >= m.width;
        const d::Window near = d::window(l, p, mi);  // a lane next to another output: a hint only
        lane = {m.name, idx, past ? "past_width" : "out", 0, 0,
                near.distance < 0 ? "" : l.members[near.output].name + "[" + (near.after ? "+" : "") +
                                             std::to_string(near.offset) + "]"};
      } else if (const d::Window w = d::window(l, p, none); w.distance >= 0) {
        lane = {l.members[w.output].name, {w.offset}, w.after ? "neighbour_after" : "neighbour_before", 0, 0,
                m.name + "[" + d::index_text(idx) + "]"};
      } else {
        lane = {m.name, idx, "input", 0, 0, ""};
      }
    }
    if (!seen.insert(key).second) continue;
    const bool input = lane.region == "input";
    if (input) {
      bool listed = false;
      for (const std::string& x : r.inputs_changed) listed = listed || x == lane.name;
      if (!listed) r.inputs_changed.push_back(lane.name);
    } else {
      ++r.differing;
      r.out_of_bounds = r.out_of_bounds || lane.region != "out";
    }
    std::size_t& listed = input ? n_input : n_other;
    if (listed < limit) {
      ++listed;
      lane.expected = d::element(expected, at, units);
      lane.actual = d::element(actual, at, units);
      r.lanes.push_back(std::move(lane));
    }
  }
  return r;
}

// ---- the candidate layouts of a route, from its spec ----------------------------------------------------------
struct AdjacentCandidate {
  std::vector<std::string> names;
  std::int64_t shared = 0;
  bool operator==(const AdjacentCandidate&) const = default;
};

namespace adjacent_detail {
inline AdjacentCandidate split(const AdjacentLayout& a) {
  AdjacentCandidate c{{}, a.shared};
  std::string_view m = a.members;
  while (!m.empty()) {
    const std::size_t sp = m.find(' ');
    if (sp != 0) c.names.emplace_back(m.substr(0, sp));
    m = sp == std::string_view::npos ? std::string_view{} : m.substr(sp + 1);
  }
  return c;
}
template <class Spec>
std::vector<AdjacentCandidate> candidates(bool admitted) {
  std::vector<AdjacentCandidate> out;
  if (admitted) {
    if constexpr (requires { Spec::adjacent_admitted; }) {
      for (const AdjacentLayout& a : Spec::adjacent_admitted) out.push_back(split(a));
    } else if constexpr (is_per_id_route<Spec>) {  // the per-id rule
      std::vector<std::string> in, o;
      for (const FieldInfo& f : field_infos<Spec>()) {
        if (f.kind == ArgKind::vec_in) in.emplace_back(f.name);
        if (f.kind == ArgKind::vec_out) o.emplace_back(f.name);
      }
      const std::string &ids = in.at(0), &table = in.at(1), &res = o.at(0);
      out = {{{ids, res}, 0}, {{res, ids}, 0}, {{table, res}, 0}, {{res, table}, 0}, {{ids, table, res}, 0}};
    }
  } else if constexpr (requires { Spec::adjacent_rejected; }) {
    for (const AdjacentLayout& a : Spec::adjacent_rejected) out.push_back(split(a));
  }
  return out;
}
}  // namespace adjacent_detail

// The admitted (touching) or rejected (partially overlapping) candidate layouts of route r, in the spec's order.
inline std::vector<AdjacentCandidate> adjacent_candidates(Route r, bool admitted) {
  return visit_route(r, [admitted](auto spec) { return adjacent_detail::candidates<decltype(spec)>(admitted); });
}

// The first of `candidates`, from the k-th on (cyclically), that a case can be laid out in: every member one of
// `arrays` (the case's arrays that may be laid out: present, not strided, not aliased), no int64 member
// misaligned, and, for a partial overlap, no member empty (or of visible width 0: it overlaps nothing). None
// when none fits.
inline std::optional<AdjacentCandidate> adjacent_choose(const std::vector<AdjacentCandidate>& candidates, std::int64_t k,
                                                        const std::map<std::string, AdjacentMember>& arrays,
                                                        std::int64_t guard) {
  if (k < 0) throw InvalidArgument("k", std::to_string(k), "must be >= 0");
  if (guard < 0 || guard > (std::int64_t{1} << 40)) throw InvalidArgument("guard", std::to_string(guard), "must lie in [0, 2^40]");
  for (const auto& [name, m] : arrays) {
    if (m.name != name) throw InvalidArgument("arrays", name, "holds a member named " + m.name);
    adjacent_layout({m}, 0, guard);  // the member's own rules (units, shape, width)
  }
  for (const AdjacentCandidate& c : candidates)
    if (c.names.empty() || c.shared < 0)
      throw InvalidArgument("candidates", std::to_string(c.names.size()) + " names, shared " + std::to_string(c.shared),
                            "a candidate names at least one member and shares >= 0 lanes");
  const auto n = static_cast<std::int64_t>(candidates.size());
  for (std::int64_t j = 0; j < n; ++j) {
    const AdjacentCandidate& c = candidates[static_cast<std::size_t>((k % n + j) % n)];
    std::vector<AdjacentMember> ms;
    bool usable = true, empty = false;
    for (const std::string& name : c.names) {
      const auto it = arrays.find(name);
      if (it == arrays.end()) {
        usable = false;
        break;
      }
      ms.push_back(it->second);
      empty = empty || it->second.elements() == 0 || it->second.width == 0;
    }
    if (!usable || (c.shared > 0 && empty)) continue;
    try {
      adjacent_layout(std::move(ms), c.shared, guard);
    } catch (const InvalidArgument&) {
      continue;  // a misaligned int64 member
    }
    return c;
  }
  return std::nullopt;
}

}  // namespace kvaddr::harness
