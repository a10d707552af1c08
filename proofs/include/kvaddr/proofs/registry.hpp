#pragma once
// kvaddr proof obligations (issue 3): the public API of proofs/. No Z3 type appears here, so the
// CLI can call it without including z3++.h (proofs/ itself is built only where Z3 exists).
//
// Every obligation states its preconditions and conclusion once, covers a stated domain, and
// ends in one of three verdicts, kept apart everywhere:
//   proved  - the negated conclusion is unsatisfiable under the preconditions, for every query
//             of the obligation's domain;
//   refuted - some query is satisfiable: `counterexample` holds a replayable input (route,
//             variant, scalars, the table entries the lanes loaded);
//   unknown - a query hit its timeout or the solver gave up (`seconds` says how long it ran).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kvaddr::proofs {

enum class Verdict { proved, refuted, unknown };
std::string_view to_string(Verdict v);

struct ObligationInfo {
  std::string name;           // spec numbering, e.g. "I1.algebra", "sink.canonical_page_table.b09"
  std::string spec;           // spec section / bug id it comes from
  std::string preconditions;  // stated once, in words
  std::string conclusion;     // stated once, in words
  std::string domain;         // the domain the queries cover (reduced sweep / full sweep)
  Verdict expected = Verdict::proved;  // proved or refuted, never unknown
};

struct ObligationResult {
  std::string name;
  Verdict expected = Verdict::proved;
  Verdict verdict = Verdict::unknown;
  std::string counterexample;  // refuted: replayable input; unknown: which query gave up
  double seconds = 0.0;        // wall time of all queries of the obligation
  int queries = 0;             // number of solver queries run
  std::string domain;          // the domain actually covered by this run
  bool as_expected() const { return verdict == expected; }
};

struct RunOptions {
  // The DCP obligations (write_loc, dcp_read_translate; ps symbolic) run one query per dcp_size:
  // false = {1, 2, 4, 8}, true = every dcp_size in 1..16, 32, 64 (slower). Every other obligation is stated
  // for symbolic ps (or all 17 powers of two for the fa3 shift), whatever the flag.
  bool full_sweep = false;
  unsigned timeout_ms = 60000;  // per solver query (generous: a loaded 2-core CI machine must not turn a proof into unknown)
  // Empty: all. Otherwise run an obligation when its name equals an entry or starts with
  // "<entry>." (so "I8" selects every I8 obligation).
  std::vector<std::string> only;
  // Called before each selected obligation runs: (index among the selected, how many, its name).
  std::function<void(std::int64_t done, std::int64_t total, const std::string& name)> on_step;
};

// The static registry (names, statements, expected verdicts), in run order.
const std::vector<ObligationInfo>& obligations();

// Run the selected obligations; results in registry order.
std::vector<ObligationResult> run_all(const RunOptions& options = {});

// Run one obligation by exact name; throws kvaddr::InvalidArgument (argument "name") for an unknown name.
ObligationResult run_one(std::string_view name, const RunOptions& options = {});

// `{"obligations": [{"name", "verdict", "expected", "seconds"}...], "total_seconds"}` (issue 3).
std::string to_json(const std::vector<ObligationResult>& results);

// One line per obligation (name, verdict, expected, seconds, counterexample when refuted or
// unknown) and a total line.
std::string to_text(const std::vector<ObligationResult>& results);

}  // namespace kvaddr::proofs
