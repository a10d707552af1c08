#include "behaves_like.hpp"

namespace kvaddr::replay {

std::vector<Variant> smallest_matching(Route route, const std::function<bool(Variant)>& matches) {
  Variant all = Variant::production;
  for (int i = 0; i < kBehaviourCount; ++i)
    if (behaviour_in_route(route, static_cast<Behaviour>(i))) all = all | Variant::of(static_cast<Behaviour>(i));
  const std::vector<Variant> candidates = accepted_subsets(route, all);  // smallest first
  std::vector<Variant> found;
  int found_size = -1;
  for (const Variant& v : candidates) {
    const int size = v.size();
    // Sizes 0 and 1 are one tier (every matching single is named); then stop at the first size.
    if (found_size >= 0 && size > (found_size <= 1 ? 1 : found_size)) break;
    if (matches(v)) {
      found.push_back(v);
      if (found_size < 0) found_size = size;
    }
  }
  return found;
}

std::vector<std::string> variant_names(Route route, const std::vector<Variant>& vs) {
  std::vector<std::string> out;
  out.reserve(vs.size());
  for (const Variant& v : vs) out.emplace_back(to_string(v, route));
  return out;
}

}  // namespace kvaddr::replay
