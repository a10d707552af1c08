#pragma once
// Private: the zoo's own check families for the rows props/ does not reach (pool bugs, wiring
// variants). Each returns "" when the check passes, else the first failure.
#include <cstdint>
#include <string>

#include "kvaddr/model/pool.hpp"
#include "kvaddr/model/wiring.hpp"

namespace kvaddr::zoo::detail {

// A pool row: a planted PoolBug, or (e08 = true) the E08 configuration.
struct PoolRow {
  model::PoolBug bug = model::PoolBug::none;
  bool e08 = false;
};

// Property (single adversarial step per generated case): fresh pool, a few requests with tagged
// tokens, one step (double free, duplicate free, multi-page alloc, eager/lazy free), refill; then
// §4.14 invariants, tag read-back of every live token, the sink page never live. `cases` cases.
std::string pool_property(const PoolRow& row, std::uint64_t seed, int cases, int* ran);
// Stateful: `runs` random command sequences (alloc, write, eager/lazy free, flush, stale and
// duplicate frees) with the same checks after every command.
std::string pool_stateful(const PoolRow& row, std::uint64_t seed, int runs, int* ran);
// Upstream §5.1 pool cases exactly: alloc 8 at ps 1 (d = phys*L), ps 4 alloc 12 (paged formula),
// 3 x alloc(4), free the middle eagerly, survivors read back through d.
std::string pool_upstream_grid(const PoolRow& row);

// Property over generated configurations: every configuration the production gate admits must
// start under the variant and translate at every hop.
std::string wiring_property(model::WiringVariant v, std::uint64_t seed, int cases, int* ran);
// Path coverage (spec legend C): the configuration table of the wiring model, check_wiring(v).
std::string wiring_coverage(model::WiringVariant v);
// Upstream §5.4 allowlist cases and §5.2 hook-detection cases exactly.
std::string wiring_upstream_grid(model::WiringVariant v);

}  // namespace kvaddr::zoo::detail
