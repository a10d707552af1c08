#pragma once
// The bug catalogue of spec §6: every SGLang bug B01-B18, the two allocator guards, and the bugs
// of other engines E01-E11, each with the route it belongs to, the configuration that exposed it,
// its symptom, the check kinds expected to kill it (A algebraic, P property, D differential,
// C path coverage) and what plants it in kvaddr, or why nothing does.
//
// model/ does not depend on translate/, so a translate Variant is named by its string
// (kvaddr::to_string(Variant)); tests/translate checks every such name parses and that
// route_accepts / lane_plants hold for the listed routes.
#include <span>
#include <string_view>

namespace kvaddr::model {

enum class PlantKind {
  translate_variant,  // kvaddr::Variant, host routes and lanes.hpp (kernels, proofs)
  lane_variant,       // kvaddr::Variant planted in lanes.hpp only: host routes do not accept it yet
  wiring_variant,     // model::WiringVariant (check_wiring)
  pool_bug,           // model::PoolBug (SubPool::plant)
  pool_option,        // a SubPool / SwaComposite / layout option that re-creates the bug
  shares,             // planted by another entry's variant (same arithmetic shape)
  not_modelled,       // no variant; `note` says why
};
std::string_view to_string(PlantKind k) noexcept;

struct CatalogueEntry {
  std::string_view id;             // "B01" .. "B18", "G1", "G2" (allocator guards), "E01" .. "E11"
  std::string_view title;
  std::string_view routes;         // spec §4 route identifiers, comma-separated
  std::string_view configuration;  // upstream configuration that exposed it
  std::string_view symptom;
  std::string_view checks;         // expected killers, spec legend: "A", "P", "D", "C", combined with '+'
  PlantKind kind;
  std::string_view planted_by;     // variant / option name(s), comma-separated; the entry id for `shares`
  std::string_view note;           // extra detail; for not_modelled: the reason
};

std::span<const CatalogueEntry> bug_catalogue() noexcept;
const CatalogueEntry* find_bug(std::string_view id) noexcept;  // nullptr if unknown

}  // namespace kvaddr::model
