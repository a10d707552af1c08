#pragma once
// kvaddr bug zoo (issue 6, part 2): the kill matrix of every planted bug variant against every
// check kind, and the mutation campaign over translate/'s host route arithmetic.
//
// Rows: every translate Variant on each route that accepts it, every pool bug (model::PoolBug and
// the E08 configuration), every wiring variant (model::WiringVariant), and `production` (the
// false-alarm row). Columns (check kinds): proofs (Z3 obligations), properties (randomised
// properties), stateful (command-sequence simulation), differential (GPU kernel running the variant
// vs the model; "skipped" without a GPU), upstream_grid (spec §5 cases exactly as upstream wrote
// them), coverage (the wiring model's default-resolution path-coverage check, spec legend C).
// Check kinds whose library was not built report "skipped".
#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kvaddr::zoo {

enum class Kind : int { proofs = 0, properties, stateful, differential, upstream_grid, coverage };
inline constexpr int kKinds = 6;
inline constexpr std::array<Kind, kKinds> kAllKinds{Kind::proofs,       Kind::properties,    Kind::stateful,
                                                     Kind::differential, Kind::upstream_grid, Kind::coverage};
std::string_view to_string(Kind k) noexcept;

enum class CellState { killed, survived, na, skipped };
std::string_view to_string(CellState s) noexcept;  // "killed" | "survived" | "n/a" | "skipped"

struct Cell {
  CellState state = CellState::na;
  double seconds = 0;   // time until the kill (or the whole budget when it survived)
  std::string killer;   // which obligation / property / grid case killed it
  std::string detail;   // first line of the failure
};

enum class Family { production, translate, pool, wiring, lifecycle };
std::string_view to_string(Family f) noexcept;

struct Row {
  std::string name;    // variant name ("production", "b09_no_padding_guard", "double_free_unchecked", ...)
  std::string route;   // spec §4 route ("-" for production; "page_lifecycle" for pool bugs; "backend_gate"...)
  Family family = Family::translate;
  std::string bug_id;  // catalogue id ("B09", "E04", "G1", ...; "" for production)
  std::array<Cell, kKinds> cells{};
  const Cell& cell(Kind k) const { return cells[static_cast<std::size_t>(k)]; }
  Cell& cell(Kind k) { return cells[static_cast<std::size_t>(k)]; }
  int kill_count() const noexcept;  // check kinds that killed it
};

struct ZooOptions {
  std::uint64_t seed = 0x7a6f6f;   // every generated case derives from it
  int property_cases = 400;        // per property per cell (a cell stops at the first kill)
  int stateful_runs = 40;          // stateful command sequences per cell
  int pool_cases = 300;            // pool / wiring property cases per cell
  std::int64_t differential_cases = 200;
  bool proofs = true;              // run the Z3 column (when built)
  bool differential = true;        // run the GPU column (when built and a GPU is present)
  std::vector<std::string> only;   // run only rows whose name is listed (empty: all)
  // Shard shard_index of shard_count: of the rows `only` selects, the p-th (matrix order) runs when
  // p mod shard_count == shard_index (`kvaddr zoo --shard`; kvaddr merge puts the rows back in order).
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  std::ostream* progress = nullptr;
};

struct ZooReport {
  std::vector<Row> rows;
  int production_false_alarms = 0;    // check kinds that flag production
  std::vector<std::string> gaps;      // "<name>@<route>: killed by N kinds (...)" for rows below 2
  double seconds = 0;
  bool gpu_present = false;
};

// Throws InvalidArgument for a shard_count < 1 or a shard_index outside [0, shard_count - 1].
ZooReport run_zoo(const ZooOptions& options = {});

// {"variants": [{"name", "route", "kills": {"proofs", "properties", "stateful", "differential",
// "upstream_grid", "coverage"}, "seconds": {...}, "family", "bug"}], "production_false_alarms",
// "gaps", "seconds"}
std::string to_json(const ZooReport& report);
std::string to_text(const ZooReport& report);

// ---- mutation campaign ----------------------------------------------------------------------------

struct MutantOptions {
  std::uint64_t seed = 0x6d7574;
  int property_cases = 150;        // per property per mutant (stops at the first failure)
  int stateful_runs = 8;
  std::vector<std::string> units;  // restrict to these units (empty: all)
  // Shard shard_index of shard_count: of the selected units, the p-th (unit order) runs when
  // p mod shard_count == shard_index.
  std::int64_t shard_index = 0;
  std::int64_t shard_count = 1;
  std::ostream* progress = nullptr;
};

struct Mutant {
  std::string unit;     // route (or "read_table.stream", "transfer_ids.envelope_moves")
  std::string op;       // mutation operator
  std::string site;     // "<site kind>#<k> seg <s>" (k-th occurrence of that kind in the lane segment)
  bool killed = false;
  // Left out of the score: survived, changed an intermediate value, and the classification table
  // (mutants.cpp) states why no output can differ on an admitted input.
  bool equivalent = false;
  bool argued = false;  // == equivalent; the JSON field classified_equivalent
  // Survived without ever changing a value on the generated inputs: a coverage gap (the checks
  // never reach the input class that would infect it), not a proof of equivalence. Counted as a
  // survivor in score(), listed separately.
  bool never_infected = false;
  std::string killer;   // "grid ps=..", property name, ...
  std::string reason;   // survivors: why (equivalent / gap), from the classification table
};

struct UnitScore {
  std::string unit;
  int mutants = 0;
  int killed = 0;
  int equivalent = 0;      // classified equivalent with a stated reason: left out of the score
  int argued = 0;          // == equivalent
  int never_infected = 0;  // survivors that never changed a value (coverage gaps): counted against the score
  double score() const noexcept {
    return mutants - equivalent ? static_cast<double>(killed) / (mutants - equivalent) : 1.0;
  }
  // The score over infected mutants only (never-infected ones left out, as a coverage measure apart).
  double infected_score() const noexcept {
    const int n = mutants - equivalent - never_infected;
    return n ? static_cast<double>(killed) / n : 1.0;
  }
};

struct MutationReport {
  std::vector<UnitScore> units;
  std::vector<Mutant> mutants;  // every mutant (survivors have killed == false)
  int total = 0;
  int killed = 0;
  int equivalent = 0;
  int argued = 0;
  int never_infected = 0;
  // Classification-table entries that no surviving infected mutant matched (stale: the sites moved)
  // or that matched a killed mutant (wrong); both must stay empty.
  std::vector<std::string> stale_classifications;
  double seconds = 0;
  // killed / (total - equivalent): the mutation score, never-infected mutants counted as survivors;
  // infected_score leaves them out.
  double score() const noexcept { return total - equivalent ? static_cast<double>(killed) / (total - equivalent) : 1.0; }
  double infected_score() const noexcept {
    const int n = total - equivalent - never_infected;
    return n ? static_cast<double>(killed) / n : 1.0;
  }
};

// Per-layer sums of a report: "arithmetic" (the route units) and "validation" (units named
// "validate.*": rule_skip mutants of validate.cpp and the routes' content preconditions).
UnitScore layer_score(const MutationReport& r, bool validation);

// The mutation units, in campaign order (the names MutantOptions::units takes).
std::vector<std::string> mutant_units();

// Throws InvalidArgument for a shard_count < 1 or a shard_index outside [0, shard_count - 1].
MutationReport run_mutants(const MutantOptions& options = {});
std::string to_json(const MutationReport& report);  // {"units": [{"unit","mutants","killed","score"}], "score", "survivors": [...]}
std::string to_text(const MutationReport& report);

// docs/bug-zoo.md: the catalogue rows joined with the kill matrix, then the mutation scores and
// every surviving mutant (mutation may be null: the section then says it was not run).
std::string to_markdown(const ZooReport& report, const MutationReport* mutation);

}  // namespace kvaddr::zoo
