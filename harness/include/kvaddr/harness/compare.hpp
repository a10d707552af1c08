#pragma once
// Comparing one output's guarded buffer with its expected one, written once for both harnesses: the C++
// harness's run_case (harness/src/check.cpp) and kvaddr.check's (python/kvaddr/harness.py, through
// kvaddr._core.compare_guarded). Header-only (the Python extension includes it without linking the harness).
#include <cstddef>
#include <cstdint>
#include <string>

#include "kvaddr/harness/check.hpp"

namespace kvaddr::harness {

// How one output is laid out: `guard` sentinel lanes, the buffer, `guard` lanes. The buffer is `rows` x `stride`
// with `width` visible columns per row, or (stride 0) 1-D of `lanes` elements.
struct GuardedLayout {
  std::int64_t guard = 0, lanes = 0, rows = 1, stride = 0, width = 0;
  std::int64_t size() const { return stride > 0 ? rows * stride : lanes; }
};

struct Compared {
  std::int64_t differing = 0;  // lanes that differ, guards included
  bool outside = false;        // a differing lane lies outside the visible lanes (a guard, a column past the width)
  std::vector<Lane> first;     // the first `max_first` differing lanes, in buffer order
};

// Compares `total` lanes (guard + buffer + guard) of `exp` and `got`. A lane's place: guard_before / guard_after
// (col = its offset from the buffer's first / last lane: negative before, 0 = the first lane after), out (col =
// its index; 2-D: row and col, matrix), past_width (2-D, a column at or past `width`).
template <class E, class G>
Compared compare_guarded(const std::string& output, const E* exp, const G* got, std::int64_t total,
                         const GuardedLayout& l, std::size_t max_first = 8) {
  Compared c;
  const std::int64_t n = l.size();
  for (std::int64_t k = 0; k < total; ++k) {
    const auto e = static_cast<std::int64_t>(exp[k]), a = static_cast<std::int64_t>(got[k]);
    if (e == a) continue;
    ++c.differing;
    Lane lane{output, "out", 0, k - l.guard, e, a, false, ""};
    if (k < l.guard) {
      lane.region = "guard_before";
    } else if (k >= l.guard + n) {
      lane.region = "guard_after";
      lane.col = k - l.guard - n;
    } else if (l.stride > 0) {
      lane.matrix = true;
      lane.row = (k - l.guard) / l.stride;
      lane.col = (k - l.guard) % l.stride;
      if (lane.col >= l.width) lane.region = "past_width";
    }
    c.outside = c.outside || lane.region != "out";
    if (c.first.size() < max_first) c.first.push_back(std::move(lane));
  }
  return c;
}

}  // namespace kvaddr::harness
