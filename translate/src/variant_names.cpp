// Variant names: behaviours, composites ('+'-joined), registered composite names, route
// acceptance with typed errors, and the subset search space of "behaves like".
#include <algorithm>
#include <array>
#include <mutex>
#include <set>
#include <string>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr {
namespace {

constexpr std::array<std::string_view, kBehaviourCount> kBehaviourNames{{
    "b02_rank2_index_select", "b04_prefill_no_remap",   "b05_rebind_fresh",        "b06_stale_tail",
    "b09_no_padding_guard",   "b10_no_max_pages_bound", "b11_swa_no_clamp",        "b14_dcp_untranslated",
    "b16_virtual_as_physical", "b17_doc_formula",       "era_b_unclamped",         "e01_no_column_bound",
    "e02_minus_one_sentinel", "e03_int32_offset",       "e09_floor_pages",         "e10_batch_index_rows",
    "grid_spill",             "int32_wrap",             "int32_lengths",           "full_width_page_table",
    "swa_no_padding_guard",   "era_d_read_table",       "int32_lane_offsets",
}};

// Interned composite spellings: to_string returns views that stay valid for the program's lifetime.
std::string_view intern(std::string s) {
  static std::mutex mu;
  static std::set<std::string, std::less<>> names;
  const std::lock_guard<std::mutex> lock(mu);
  return *names.insert(std::move(s)).first;
}

std::string joined(Variant v) {
  std::string out;
  for (int i = 0; i < kBehaviourCount; ++i) {
    if (!has(v, static_cast<Behaviour>(i))) continue;
    if (!out.empty()) out += '+';
    out += kBehaviourNames[static_cast<std::size_t>(i)];
    if ((Variant::of(static_cast<Behaviour>(i)).bits & kColumnBlockBits) != 0 && v.column_block != kDefaultColumnBlock) {
      out += '@' + std::to_string(v.column_block);
    }
  }
  return out;
}

// One '+'-separated part: "production", a behaviour (grid_spill and era_d_read_table may carry "@G",
// the column block G >= 1), or a composite name.
Variant parse_part(std::string_view part, std::string_view whole) {
  if (part == "production") return Variant::production;
  for (const auto& c : kNamedComposites)
    if (part == c.name) return c.variant;
  std::string_view base = part;
  std::int32_t block = kDefaultColumnBlock;
  if (const auto at = part.find('@'); at != std::string_view::npos) {
    base = part.substr(0, at);
    const std::string digits(part.substr(at + 1));
    if ((base != "grid_spill" && base != "era_d_read_table") || digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) ||
        std::stoi(digits) < 1) {
      throw InvalidArgument("variant", std::string(whole),
                            "'" + std::string(part) +
                                "': only grid_spill and era_d_read_table take a column block, as grid_spill@G, G >= 1");
    }
    block = std::stoi(digits);
  }
  for (std::size_t i = 0; i < kBehaviourNames.size(); ++i) {
    if (kBehaviourNames[i] == base) return with_column_block(Variant::of(static_cast<Behaviour>(i)), block);
  }
  throw InvalidArgument("variant", std::string(whole),
                        "unknown variant: '" + std::string(part) + "' is neither a behaviour nor a registered composite");
}

}  // namespace

std::string_view to_string(Behaviour b) noexcept {
  const auto i = static_cast<std::size_t>(b);
  return i < kBehaviourNames.size() ? kBehaviourNames[i] : "unknown";
}

std::string_view to_string(Variant v) noexcept {
  if (v.empty()) return "production";
  if (v.size() == 1 && v.column_block == kDefaultColumnBlock) {
    for (int i = 0; i < kBehaviourCount; ++i)
      if (has(v, static_cast<Behaviour>(i))) return kBehaviourNames[static_cast<std::size_t>(i)];
  }
  try {
    return intern(joined(v));
  } catch (...) {
    return "unknown";
  }
}

std::string_view to_string(Variant v, Route r) noexcept {
  for (const auto& c : kNamedComposites)
    if (c.route == r && c.variant == v) return c.name;
  return to_string(v);
}

Variant parse_variant(std::string_view name) {
  if (name.empty()) throw InvalidArgument("variant", "", "empty variant name");
  Variant v = Variant::production;
  std::size_t start = 0;
  while (true) {
    const std::size_t plus = name.find('+', start);
    const std::string_view part = name.substr(start, plus == std::string_view::npos ? plus : plus - start);
    if (part.empty()) throw InvalidArgument("variant", std::string(name), "empty part between '+'");
    const Variant p = parse_part(part, name);
    if (!p.empty() && (v.bits & p.bits) != 0) {
      throw InvalidArgument("variant", std::string(name), "'" + std::string(part) + "' names a behaviour twice");
    }
    v = v | p;
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  return v;
}

void require_variant(Route r, Variant v) {
  if (route_accepts(r, v)) return;
  const std::string name(to_string(v));
  if (v.column_block < 1) {
    throw InvalidArgument("variant", name, "grid_spill's column block must be >= 1 (got " +
                                               std::to_string(v.column_block) + ")");
  }
  for (int i = 0; i < kBehaviourCount; ++i) {
    const auto b = static_cast<Behaviour>(i);
    if (has(v, b) && !behaviour_in_route(r, b)) {
      throw InvalidArgument("variant", name,
                            "behaviour " + std::string(to_string(b)) + " is not a variant of route " +
                                std::string(to_string(r)));
    }
  }
  if (const BehaviourConflict* c = variant_conflict(v)) {
    throw InvalidArgument("variant", name,
                          std::string(to_string(c->a)) + " and " + std::string(to_string(c->b)) + " cannot combine: " +
                              c->why);
  }
  throw InvalidArgument("variant", name, "not a variant of route " + std::string(to_string(r)));
}

std::vector<Behaviour> behaviours(Variant v) {
  std::vector<Behaviour> out;
  for (int i = 0; i < kBehaviourCount; ++i)
    if (has(v, static_cast<Behaviour>(i))) out.push_back(static_cast<Behaviour>(i));
  return out;
}

std::vector<Variant> accepted_subsets(Route r, Variant within) {
  std::vector<Behaviour> bs;
  for (const Behaviour b : behaviours(within))
    if (behaviour_in_route(r, b)) bs.push_back(b);
  std::vector<Variant> out;
  const std::uint32_t n = static_cast<std::uint32_t>(bs.size());
  for (std::uint32_t mask = 0; mask < (std::uint32_t{1} << n); ++mask) {
    Variant v = with_column_block(Variant::production, within.column_block);
    for (std::uint32_t i = 0; i < n; ++i)
      if ((mask >> i) & 1u) v = v | Variant::of(bs[i]);
    v.column_block = within.column_block;
    if (route_accepts(r, v)) out.push_back(v);
  }
  std::stable_sort(out.begin(), out.end(), [](const Variant& a, const Variant& b) { return a.size() < b.size(); });
  return out;
}

}  // namespace kvaddr
