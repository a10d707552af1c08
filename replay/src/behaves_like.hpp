#pragma once
// "Behaves like": the smallest sets of catalogue behaviours whose host route reproduces a
// recording exactly. Production and the single behaviours are tried first (every one of them
// that matches is named); only when none matches are the composites searched, by size, and
// the search stops at the first size with a match.
#include <functional>
#include <string>
#include <vector>

#include "kvaddr/translate/validate.hpp"

namespace kvaddr::replay {

// `matches(v)` runs the route under v and compares with the recording; it returns false when the
// route rejects the call under v. The result lists variants in search order.
std::vector<Variant> smallest_matching(Route route, const std::function<bool(Variant)>& matches);

// The names of `vs` as the route prints them (registered composite names where they exist).
std::vector<std::string> variant_names(Route route, const std::vector<Variant>& vs);

}  // namespace kvaddr::replay
