#pragma once
// Query runner: one solver call per query, three verdicts, counterexample rendering.
#include <chrono>
#include <functional>
#include <initializer_list>
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
  // Several scalars at once, printed in the order given.
  void show(std::initializer_list<std::pair<std::string, sym::Sym>> named) {
    for (const auto& [name, v] : named) shown.emplace_back(name, v);
  }
  void require(const sym::SymBool& b) { pre.push_back(b); }
  void ensure(std::string label, const sym::SymBool& b) { concl.emplace_back(std::move(label), b); }
};

Outcome check(const Query& q, unsigned timeout_ms);

// Runs `one` for each value; stops at the first refutation; unknowns are kept (the first one's
// text is reported) and the sweep goes on.
Outcome sweep(const std::vector<std::int64_t>& values, const std::function<Outcome(std::int64_t)>& one);

// Powers of two 1..2^16 (17 values): the page sizes of the fa3 kernel's shift (decode_metadata).
std::vector<std::int64_t> pow2_sweep();

// dcp_size values of the DCP obligations (write_loc, dcp_read_translate), whose ps stays symbolic:
// {1, 2, 4, 8} by default; under RunOptions::full_sweep every value 1..16 plus 32 and 64 (the
// queries' domain bound is kMaxDcpSize; sizes such as 14 need tens of seconds each).
inline constexpr std::int64_t kMaxDcpSize = 64;
std::vector<std::int64_t> dcp_sweep(bool full);
std::string describe_dcp_sweep(bool full);

}  // namespace kvaddr::proofs
