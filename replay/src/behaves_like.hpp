#pragma once
// "Behaves like": the smallest sets of catalogue behaviours whose host route reproduces a
// recording exactly. Production and the single behaviours are tried first (every one of them
// that matches is named); only when none matches are the composites searched, by size, and
// the search stops at the first size with a match, or when its budget (SearchBudget, replay.hpp) is
// spent: then it reports how many candidates it tried.
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

// `matches(v)` runs the route under v and compares with the recording; it returns false when the
// route rejects the call under v. The budget is checked before each candidate.
SearchResult smallest_matching(Route route, const std::function<bool(Variant)>& matches, const SearchBudget& budget);

// The names of `vs` as the route prints them (registered composite names where they exist).
std::vector<std::string> variant_names(Route route, const std::vector<Variant>& vs);

}  // namespace kvaddr::replay
