#pragma once
// "Behaves like": the smallest sets of catalogue behaviours whose host route reproduces a
// recording exactly. Production and the single behaviours are tried first (every one of them
// that matches is named); only when none matches are the composites searched, by size, and
// the search stops at the first size with a match, or when its budget (SearchBudget, replay.hpp) is
// spent: then it reports how many candidates it tried.
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::replay {

struct SearchResult {
  std::vector<Variant> found;                // in search order
  std::optional<std::int64_t> stopped_after; // set when the budget ended the search: candidates tried
};

// One call's search budget (SearchBudget: candidates and wall-clock seconds), spent by every search
// over the call in turn: the behaves-like search, then the inference (infer.hpp) with what is left.
class SearchMeter {
 public:
  explicit SearchMeter(const SearchBudget& budget) : budget_(budget), start_(std::chrono::steady_clock::now()) {}
  // Whether one more candidate may run (counted when it may): false once max_candidates ran or
  // max_seconds passed since the meter started.
  bool take() {
    if (tried_ >= budget_.max_candidates) return false;
    if (seconds() >= budget_.max_seconds) {
      out_of_time_ = true;
      return false;
    }
    ++tried_;
    return true;
  }
  std::int64_t tried() const { return tried_; }
  bool out_of_time() const { return out_of_time_; }
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  const SearchBudget& budget() const { return budget_; }

 private:
  SearchBudget budget_;
  std::chrono::steady_clock::time_point start_;
  std::int64_t tried_ = 0;
  bool out_of_time_ = false;
};

// `matches(v)` runs the route under v and compares with the recording; it returns false when the
// route rejects the call under v. The meter is asked before each candidate; stopped_after counts the
// candidates this search tried.
SearchResult smallest_matching(Route route, const std::function<bool(Variant)>& matches, SearchMeter& meter);

// The names of `vs` as the route prints them (registered composite names where they exist).
std::vector<std::string> variant_names(Route route, const std::vector<Variant>& vs);

}  // namespace kvaddr::replay
