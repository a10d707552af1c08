#pragma once
// The mutation campaign's interface to the host routes (bug zoo, issue 6). The production library
// (kvaddr_translate) carries no mutation hooks: its route bodies are instantiated with a no-op
// hooks policy and its entry points carry no switch. kvaddr_translate_mutation holds a second
// instantiation of the same bodies with the hooks below and replaces the entry points' seam at link
// time; while a `Campaign` object lives, every host entry point (routes and validate) runs that
// instantiation, and the hooks act on the calling thread's `tl_state`.
//
// Sites: every checked-integer operation, table gather, matrix offset and a few route-loop
// values. A site belongs to the route call in progress (RouteScope) and to a segment of it
// (lane(seg): 0 = per row / per id, 1 = per column, 2 = the route's epilogue after its lane
// loops); its index k counts the occurrences of that site kind since the segment began.
// `resume(seg)` returns to a segment after a nested loop without restarting its count. A mutant
// {unit, seg, site, k, op} changes exactly that occurrence in every lane. Nothing changes unless
// a mutant (or the counting pass) is armed for the running route.
#include <cstdint>

#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::translate::mutation {

enum class Site : int { addsub, mul, div, rem, shr, pick, cmp, eq, gather, mat, row, stride, bound, rule, kCount };
enum class Op : int {
  none,
  arith_plus1,      // addsub: result + 1 (off-by-one, e.g. in ceil division's n + d - 1)
  arith_minus1,     // addsub: result - 1
  mul_narrow32,     // mul: product wrapped to int32 (narrowing before the multiply is used)
  mul_drop_rhs,     // mul: a * b -> a (stride / multiplier dropped)
  div_floor,        // div: truncating -> floor division
  div_plus1,        // div: quotient + 1 (off-by-one page count)
  rem_zero,         // rem: offset dropped
  shr_trunc,        // shr: floor (arithmetic shift) -> truncating division by 2^s
  pick_then,        // pick: condition forced true (clamp / guard misplaced)
  pick_else,        // pick: condition forced false (clamp / guard missing)
  pick_negate,      // pick: branches swapped
  cmp_boundary,     // cmp: < <-> <=, > <-> >= (mask on the wrong bound)
  eq_negate,        // eq: == <-> !=
  gather_index,     // gather: the index is used where the table value is needed (dropped v2p gather)
  gather_unmasked,  // gather: the load ignores its mask
  gather_next,      // gather: reads the next table entry (row off by one)
  mat_stride_swap,  // mat: row and column strides swapped in an element offset
  row_batch,        // row: batch position b used as the req_to_token row (row swap)
  stride_drop_mult, // stride: S = ps instead of ps * M
  bound_plus1,      // bound: a loop bound / tail start one too high
  bound_minus1,     // bound: one too low
  rule_skip,        // rule: a validation rule (validate.cpp, a route's content precondition) not enforced
  kCount
};
inline constexpr int kSegments = 3;
inline constexpr int kSites = static_cast<int>(Site::kCount);
inline constexpr int kMaxK = 64;

// Mutation units: one per route of the route list, then the two host entry points without a Route.
inline constexpr int kUnitReadStream = kRouteCount;
inline constexpr int kUnitEnvelopeMoves = kRouteCount + 1;
inline constexpr int kUnits = kRouteCount + 2;
inline constexpr int unit_of(Route r) { return static_cast<int>(r); }
// The validation of unit u (validate.cpp) is a unit of its own: kUnits + u.
inline constexpr int validation_unit(int u) { return kUnits + u; }

struct Mutant {
  int unit = -1;
  int seg = 0;
  Site site = Site::addsub;
  int k = 0;
  Op op = Op::none;
};

struct State {
  int unit = -1;        // unit of the route call in progress (-1: none)
  bool armed = false;   // counting or a mutant is active for `unit`
  int seg = 0;
  std::uint16_t count[kSegments][kSites] = {};
  int counting_unit = -1;                  // counting pass: record the sites of this unit
  std::uint64_t seen[kSegments][kSites] = {};  // bit k: occurrence k of (seg, site) was reached
  Mutant active;                           // active.unit == -1: no mutant
  bool infected = false;                   // the active mutant changed a value at least once
};
inline thread_local State tl_state;

// While a Campaign lives, the host entry points run the hooked instantiation (defined in
// kvaddr_translate_mutation, whose entry-point definitions replace the production library's weak
// ones at link time in a binary that uses Campaign). Campaigns nest; the entry points return to the
// production bodies when the last one ends.
class Campaign {
 public:
  Campaign() noexcept;
  ~Campaign();
  Campaign(const Campaign&) = delete;
  Campaign& operator=(const Campaign&) = delete;
};

inline bool armed() noexcept { return tl_state.armed; }

// Marks the start of a lane of segment `seg` (resets that segment's occurrence counters).
inline void lane(int seg) noexcept {
  State& s = tl_state;
  if (!s.armed) return;
  s.seg = seg;
  for (auto& c : s.count[seg]) c = 0;
}

// Returns to segment `seg` after a nested loop of another segment, keeping its occurrence count.
inline void resume(int seg) noexcept {
  State& s = tl_state;
  if (!s.armed) return;
  s.seg = seg;
}

// One occurrence of `site`: records it in the counting pass; returns the active mutant's op when
// this is its occurrence, else Op::none.
inline Op hit(Site site) noexcept {
  State& s = tl_state;
  const int si = static_cast<int>(site);
  const int k = s.count[s.seg][si]++;
  if (s.counting_unit == s.unit) {
    if (k < kMaxK) s.seen[s.seg][si] |= std::uint64_t{1} << k;
    return Op::none;
  }
  const Mutant& m = s.active;
  return (m.unit == s.unit && m.seg == s.seg && m.site == site && m.k == k) ? m.op : Op::none;
}

// RAII: the route call of unit `u` is in progress.
class RouteScope {
 public:
  explicit RouteScope(int u) noexcept : prev_unit_(tl_state.unit), prev_armed_(tl_state.armed), prev_seg_(tl_state.seg) {
    State& s = tl_state;
    s.unit = u;
    s.armed = (s.counting_unit == u) || (s.active.unit == u);
    s.seg = 0;
    if (s.armed)
      for (auto& row : s.count)
        for (auto& c : row) c = 0;
  }
  ~RouteScope() {
    tl_state.unit = prev_unit_;
    tl_state.armed = prev_armed_;
    tl_state.seg = prev_seg_;
  }
  RouteScope(const RouteScope&) = delete;
  RouteScope& operator=(const RouteScope&) = delete;

 private:
  int prev_unit_;
  bool prev_armed_;
  int prev_seg_;
};

// Records that the active mutant changed a value (mutants that never do are equivalent on the
// inputs the checks generated).
inline void infect(bool changed) noexcept { tl_state.infected = tl_state.infected || changed; }

// Route-loop values: `value` normally; the alternative under the active mutant of that site.
inline std::int64_t alt(Site site, std::int64_t value, std::int64_t alternative) noexcept {
  if (!armed()) return value;
  if (hit(site) == Op::none) return value;
  infect(value != alternative);
  return alternative;
}
// A validation rule: `ok` normally; under the active rule_skip mutant of this occurrence the rule is
// not enforced (it infects when it would have rejected).
inline bool rule(bool ok) noexcept {
  if (!armed()) return ok;
  if (hit(Site::rule) != Op::rule_skip) return ok;
  infect(!ok);
  return true;
}

inline std::int64_t bound(std::int64_t value) noexcept {
  if (!armed()) return value;
  switch (hit(Site::bound)) {
    case Op::bound_plus1: infect(true); return value + 1;
    case Op::bound_minus1: infect(true); return value - 1;
    default: return value;
  }
}

}  // namespace kvaddr::translate::mutation
