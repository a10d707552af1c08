#pragma once
// The one shrinker of a failing harness case (docs/harness.md "Shrinking"): greedy steps over the case's
// recipe (recipe.hpp), used by the C++ harness (harness/src/check.cpp) and by kvaddr.check through
// kvaddr._core.shrink_recipe. A candidate is a smaller recipe; the caller's predicate says whether the
// candidate still fails the same way (it builds the case, runs the reference and the kernel). The first
// candidate that does is taken and the search restarts from it, until no candidate fails, the time budget
// is spent or max_steps steps were taken.
//
// Candidate order (shrink_candidates), from the largest cut to the smallest:
//   1. fewest rows: the batch (ids / loc / the table rows with their lengths and starts / the funnel's rows /
//      kv_indices_inplace's lengths) cut by halves, then eighths (more than 16 rows) or single rows; with
//      extra_rows, each cut also once with the removed rows kept as extra output rows;
//   2. presentation flags cleared: strided, r2t_strided, alias, overlap, rank2, pad, adjacent, extra_rows,
//      tail, seq_len_delta, kv_start_idx (absent), zero_tail; then tail / pad / extra_rows / seq_len_delta / overlap
//      halved and lowered by one; multiplier and dcp_size to 1;
//   3. shortest lengths: the table's width halved / minus one, req_to_token cut to the rows and columns read
//      (the rows read renumbered, then with row 0 kept first; never fewer rows than batch entries);
//      the funnel's columns halved / minus one;
//   4. fewest pages: only the pages the case reads, renumbered 0, 1, ... in order; v2p cut to half / one less
//      where no token of the case names a page cut away;
//      short tables: a tombstone made live as its own page, entries lowered to their index and to 0;
//   5. smallest ids (batches of at most 16): a field all 0, then each element lowered (0, x / 2, x mod ps,
//      x mod ps + ps, x - 2^k bisection steps, x - ps, x - 1).
// A recipe's keys are those of recipe.hpp; the Python front end maps its adjacent layout to the flag
// bools["adjacent"]. Candidates are deterministic: the same recipe gives the same list on every front end.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kvaddr/gen/recipe.hpp"

namespace kvaddr::gen {

// The candidates of `r` for the route named `route` (a route of the list or a per-id route the list does not
// hold: a recipe with "ids" is shrunk as a per-id case). InvalidArgument "recipe" naming the missing or
// malformed key (v2p, page_size, the batch arrays, req_to_token, width) before anything is built.
std::vector<Recipe> shrink_candidates(const std::string& route, const Recipe& r);

struct Shrunk {
  Recipe recipe;        // the smallest recipe that still fails (the input when no step was taken)
  std::int64_t steps;   // accepted steps
};

// Greedy shrinking: `still_fails(candidate)` true keeps the candidate. Recipes already tried are not tried
// again. `seconds` (>= 0, finite) bounds the wall time, `max_steps` (>= 0) the accepted steps. An exception
// of `still_fails` propagates. InvalidArgument: seconds, max_steps, and those of shrink_candidates.
Shrunk shrink_recipe(const std::string& route, Recipe r, const std::function<bool(const Recipe&)>& still_fails,
                     double seconds, std::int64_t max_steps = 5000);

}  // namespace kvaddr::gen
