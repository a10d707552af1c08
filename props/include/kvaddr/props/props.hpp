#pragma once
// kvaddr property campaign (issue 4): RapidCheck properties over every host route of translate/
// against the reference model of model/, cross-route agreements, int32 no-silent-wrap checks, a
// stateful unified-pool simulation, and the kill matrix of the planted bug variants.
//
// This header does not expose RapidCheck: a caller (the CLI, `kvaddr verify`) links kvaddr_props
// and sees plain structs. kvaddr_props exists only when RapidCheck was found at configure time
// (target `kvaddr_props`; guard with `if(TARGET kvaddr_props)`).
//
// Reproducibility: every property runs with seed `derive_seed(options.seed, name)`. A failure
// carries RapidCheck's reproduce string; exporting RC_PARAMS="reproduce=<string>" replays exactly
// that counterexample (see docs/props.md), whatever the seed.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/translate/variant.hpp"

namespace kvaddr::props {

inline constexpr std::uint64_t kDefaultSeed = 0x6b7661646472ULL;  // "kvaddr"

struct Options {
  std::uint64_t seed = kDefaultSeed;
  int cases_per_property = 6000;  // RapidCheck max_success of each stateless property
  int stateful_runs = 250;        // RapidCheck cases of the stateful simulation (each a command sequence)
  int max_size = 100;             // RapidCheck max_size of the stateless properties
  int stateful_max_size = 80;     // RapidCheck max_size of the stateful simulation (command sequence length)
  bool shrink = true;             // shrink failures to a minimal counterexample
  std::ostream* progress = nullptr;  // one line per property when set (the CLI passes &std::cerr)
  std::vector<std::string> only;     // run only these property names (empty = all)
  // Called before each selected property runs: (index among the selected, how many, its name).
  std::function<void(std::int64_t done, std::int64_t total, const std::string& name)> on_step;
};

struct PropertyInfo {
  std::string name;
  std::string summary;
  std::vector<Variant> kills;  // bug variants this property must catch (props_gate_test's KillMatrix)
  std::vector<Route> routes;   // routes that run the variant; a kill counts only if one accepts it
  // True when some route of `routes` accepts v on the host (route_accepts).
  bool can_run(Variant v) const noexcept;
};

struct PropertyResult {
  std::string name;
  int cases = 0;          // generated cases run (successes, plus the failing one)
  bool passed = false;
  std::string failure;    // empty when passed: description, counterexample, seed, reproduce command
  std::string reproduce;  // RapidCheck reproduce string (value of RC_PARAMS's `reproduce=`), empty when passed
  std::uint64_t seed = 0; // the RapidCheck seed this property ran with
  double seconds = 0;
};

struct Report {
  std::vector<PropertyResult> properties;  // stateless properties, then "stateful_pool"
  std::int64_t stateful_steps = 0;         // commands executed by the stateful simulation
  std::int64_t stateful_moves = 0;         // compaction page moves observed by the simulation
  std::int64_t total_cases = 0;            // sum of PropertyResult::cases
  double seconds = 0;
  bool passed() const noexcept;
};

// Stable list of the stateless properties plus "stateful_pool".
const std::vector<PropertyInfo>& list_properties();

// Seed of one property: gen::mix_step(seed ^ fnv1a(name)) (one SplitMix64 step, gen/rng.hpp).
std::uint64_t derive_seed(std::uint64_t seed, std::string_view name) noexcept;

// Runs one property (InvalidArgument "property" for an unknown name). With a variant other than
// production, the routes the property exercises run that bug variant (a route that does not accept
// it runs production). stateful_steps/moves are added to *steps/*moves when given.
PropertyResult run_property(std::string_view name, const Options& options, Variant variant = Variant::production,
                            std::int64_t* steps = nullptr, std::int64_t* moves = nullptr);

// Runs every property (or options.only) and the stateful simulation.
Report run_props(const Options& options);

// JSON of a report: {"properties": [{"name", "cases", "passed"}], "stateful_steps", "total_cases", "seconds"}.
std::string to_json(const Report& report);

}  // namespace kvaddr::props
