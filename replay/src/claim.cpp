// The claim of a manifest call: its variant (from "variant" and the era flags) and its era.
#include <fmt/format.h>

#include "call.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::replay::detail {

using json = nlohmann::json;

Claim read_claim(const json& call, Route route) {
  Claim claim;
  std::optional<Variant> explicit_variant;
  if (call.contains("variant")) {
    if (!call.at("variant").is_string()) bad("'variant' must be a string");
    try {
      explicit_variant = parse_variant(call.at("variant").get<std::string>());
    } catch (const kvaddr::Error& e) {
      bad(e.what());
    }
  }
  std::optional<Variant> from_flags;
  if (call.contains("flags")) {
    const json& f = call.at("flags");
    if (!f.is_object()) bad("'flags' must be a JSON object");
    for (const auto& [k, v] : f.items()) {
      if (k == "clamp_entries" || k == "padding_guard") {
        if (!v.is_boolean()) bad("flags." + k + " must be true or false");
        if (!v.get<bool>()) {
          const Variant implied = k == "clamp_entries" ? Variant::era_b_unclamped : Variant::b09_no_padding_guard;
          from_flags = from_flags.value_or(Variant::production) | implied;  // the flags compose
        }
      } else if (k == "tail_policy") {
        if (!v.is_string() || (v != "prefix_only" && v != "zero_tail")) {
          bad("flags.tail_policy must be \"prefix_only\" or \"zero_tail\"");
        }
        if (route != Route::read_table && v == "zero_tail") bad("flags.tail_policy zero_tail: only read_table has a zero tail");
        claim.zero_tail = (v == "zero_tail");
      } else {
        bad("unknown flag '" + k + "'");
      }
    }
  }
  if (explicit_variant && from_flags && *explicit_variant != *from_flags) {
    bad(fmt::format("variant {} disagrees with the flags, which name {}", to_string(*explicit_variant),
                    to_string(*from_flags)));
  }
  claim.variant = explicit_variant.value_or(from_flags.value_or(Variant::production));
  if (!route_accepts(route, claim.variant)) {
    bad(fmt::format("variant {} is not a variant of route {}", to_string(claim.variant), to_string(route)));
  }
  return claim;
}

void check_era(const json& call) {
  if (!call.contains("era")) return;
  const json& e = call.at("era");
  if (!e.is_string() || (e != "A" && e != "B" && e != "C" && e != "D")) {
    bad("'era' must be one of \"A\", \"B\", \"C\", \"D\"");
  }
  const std::string era = e.get<std::string>();
  if ((era == "A" || era == "D") && call.contains("scalars") && call.at("scalars").is_object()) {
    for (const char* m : {"multiplier", "swa_multiplier"}) {
      if (call.at("scalars").contains(m) && call.at("scalars").at(m) != 1) {
        bad("era " + era + " has no kernel page multiplier (" + m + " must be 1)");
      }
    }
  }
}

}  // namespace kvaddr::replay::detail
