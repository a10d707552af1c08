#include "behaves_like.hpp"

namespace kvaddr::replay {

SearchResult smallest_matching(Route route, const std::function<bool(Variant)>& matches, SearchMeter& meter) {
  Variant all = Variant::production;
  for (int i = 0; i < kBehaviourCount; ++i)  // not the launch-size behaviours: equal to production on every call here
    if (behaviour_in_route(route, static_cast<Behaviour>(i)) && (Variant::of(static_cast<Behaviour>(i)).bits & kLaunchSizeBits) == 0)
      all = all | Variant::of(static_cast<Behaviour>(i));
  const std::vector<Variant> candidates = accepted_subsets(route, all);  // smallest first
  SearchResult result;
  std::vector<Variant>& found = result.found;
  int found_size = -1;
  std::int64_t tried = 0;
  for (const Variant& v : candidates) {
    const int size = v.size();
    // Sizes 0 and 1 are one tier (every matching single is named); then stop at the first size.
    if (found_size >= 0 && size > (found_size <= 1 ? 1 : found_size)) break;
    // The budget: at most max_candidates runs and max_seconds of wall clock per call.
    if (!meter.take()) {
      result.stopped_after = tried;
      break;
    }
    ++tried;
    if (matches(v)) {
      found.push_back(v);
      if (found_size < 0) found_size = size;
    }
  }
  return result;
}

std::vector<std::string> variant_names(Route route, const std::vector<Variant>& vs) {
  std::vector<std::string> out;
  out.reserve(vs.size());
  for (const Variant& v : vs) out.emplace_back(to_string(v, route));
  return out;
}

}  // namespace kvaddr::replay
