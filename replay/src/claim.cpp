// The claim of a manifest call: its variant (from "variant" and the era flags) and its era.
#include <fmt/format.h>

#include "call.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::replay::detail {

using json = nlohmann::json;

namespace {

// Splits the stride parts (stride_ignored(x), stride0(x)) off a variant spelling; returns the rest.
std::string take_presentations(const std::string& name, std::vector<Presentation>& out) {
  std::string rest;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t plus = name.find('+', start);
    const std::string part = name.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    bool taken = false;
    for (const auto& [prefix, kind] : {std::pair{std::string("stride_ignored("), Presentation::packed},
                                       std::pair{std::string("stride0("), Presentation::zero}}) {
      if (part.rfind(prefix, 0) != 0) continue;
      const std::string arg = part.size() > prefix.size() + 1 && part.back() == ')'
                                  ? part.substr(prefix.size(), part.size() - prefix.size() - 1)
                                  : "";
      if (arg.empty() || arg.find_first_of("(),+ ") != std::string::npos) {
        bad("claim '" + part + "': name one input, as " + prefix + "NAME)");
      }
      for (const Presentation& p : out)
        if (p.input == arg) bad("claim '" + name + "': input " + arg + " is re-presented twice");
      out.push_back({kind, arg});
      taken = true;
    }
    if (!taken) rest += (rest.empty() ? "" : "+") + part;
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  return rest.empty() && !out.empty() ? "production" : rest;
}

}  // namespace

std::string claim_text(const Claim& c, Route route) {
  std::string s(to_string(c.variant, route));
  if (!c.presented.empty() && c.variant.empty()) s.clear();
  for (const Presentation& p : c.presented) s += (s.empty() ? "" : "+") + p.text();
  return s;
}

Claim read_claim(const json& call, Route route) {
  Claim claim;
  std::optional<Variant> explicit_variant;
  if (call.contains("variant")) {
    if (!call.at("variant").is_string()) bad("'variant' must be a string");
    const std::string name = take_presentations(call.at("variant").get<std::string>(), claim.presented);
    try {
      explicit_variant = parse_variant(name);
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
