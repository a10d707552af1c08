#pragma once
// Query runner: one solver call per query, three verdicts, counterexample rendering.
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kvaddr/proofs/registry.hpp"
#include "sym.hpp"

namespace kvaddr::proofs {

struct Outcome {
  Verdict verdict = Verdict::proved;
  std::string text;  // counterexample (refuted) or the query that gave up (unknown)
  double seconds = 0.0;
  int queries = 0;
};

// One query: preconditions, conclusion, and what to print when the conclusion fails.
struct Query {
  std::string header;  // "route=... variant=..." (fixed parameters of this query)
  std::vector<std::pair<std::string, sym::Sym>> shown;  // scalars printed in a counterexample
  std::vector<const sym::SymTable*> tables;             // loaded entries printed in a counterexample
  std::vector<sym::SymBool> pre;
  std::vector<std::pair<std::string, sym::SymBool>> concl;  // all must hold; labels name a failure

  void show(std::string name, const sym::Sym& v) { shown.emplace_back(std::move(name), v); }
  void require(const sym::SymBool& b) { pre.push_back(b); }
  void ensure(std::string label, const sym::SymBool& b) { concl.emplace_back(std::move(label), b); }
};

Outcome check(const Query& q, unsigned timeout_ms);

// Runs `one` for each value; stops at the first refutation; unknowns are kept (the first one's
// text is reported) and the sweep goes on.
Outcome sweep(const std::vector<std::int64_t>& values, const std::function<Outcome(std::int64_t)>& one);

// The ps domain of a sweep: reduced (23 values) or full (1..1024 plus 2^11..2^16).
std::vector<std::int64_t> ps_sweep(bool full);
std::vector<std::int64_t> pow2_sweep(bool full);  // powers of two 1..2^16 (both modes: 17 values)
std::string describe_ps_sweep(bool full);

}  // namespace kvaddr::proofs
