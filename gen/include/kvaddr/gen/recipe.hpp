#pragma once
// The one drawing of a differential-harness case (docs/harness.md "Seeding"): a *recipe* is a set of
// named scalars and 1-D / 2-D integer arrays that fixes one case completely. Case `index` of `seed` is
// drawn from SplitMix64(recipe_key(seed, index)) by draw_recipe; the C++ harness (harness/) and the Python
// harness (python/kvaddr/cases.py through kvaddr._core.draw_recipe) build their cases from it, so the same
// (route, seed, index, lanes, params) is the same case on every front end.
//
// The per-id routes (is_per_id_route) are drawn from their field list (IdShape), so a per-id route added
// to the route list is drawn with no edit here. The other routes (write_loc, the batch tables,
// kv_indices_inplace, eager_funnel) have their own drawers. Every entry point validates its arguments
// (InvalidArgument naming route, lanes, params[<key>], ...) before drawing.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kvaddr/gen/rng.hpp"
#include "kvaddr/translate/contracts.hpp"

namespace kvaddr::gen {

// The value lists the drawers pick from (kvaddr.cases exposes them to Python's strategies).
inline constexpr i64 kOddPageSizes[] = {1, 2, 3, 4, 5, 7, 16, 64, 100, 256};
inline constexpr i64 kPow2PageSizes[] = {1, 2, 4, 16, 64, 256};
inline constexpr i64 kMultipliers[] = {1, 2, 3, 7};
// The share of cases drawn with an admitted adjacent layout (one allocation, touching slices) and with a
// rejected (partially overlapping) one; the layout itself is chosen by the front end (kvaddr.adjacent).
inline constexpr double kAdjacentAdmitted = 1.0 / 6;
inline constexpr double kAdjacentRejected = 1.0 / 30;

struct RecipeArray {
  std::vector<i64> values;  // row-major
  std::vector<i64> shape;   // {n} or {rows, cols}
  bool int32 = false;       // the element type the case presents (values fit it)
  bool operator==(const RecipeArray&) const = default;
};

struct Recipe {
  std::map<std::string, i64> ints;
  std::map<std::string, bool> bools;
  std::map<std::string, RecipeArray> arrays;
  std::vector<std::string> absent;  // optional arrays the case leaves out (kv_start_idx)
  // draw_recipe_packed only: the elements of the int32 arrays as int32, by name (their entry in `arrays` keeps
  // the shape and the int32 flag, with `values` empty); empty everywhere else.
  std::map<std::string, std::vector<i32>> packed;
  bool operator==(const Recipe&) const = default;
};

// Generator parameters: integers, flags as 0 / 1. Keys: page_size, multiplier (or the route's own
// multiplier field), dcp_size, dcp_rank, seq_len_delta, zero_tail, kv_start_idx, big_entries, long_rows,
// and any other int64 scalar field of a route. A parameter replaces the drawn value; the draw still happens,
// so the draws up to the first one whose range depends on the parameter stay those of the same (seed, index).
using RecipeParams = std::map<std::string, i64>;

// What a per-id route's recipe needs from its field list: the first and second 1-D inputs (ids, table),
// the int64 scalar named "*multiplier" ("" when none), the other int64 scalars with their struct defaults,
// whether it has page_size, whether its output is int32. The route-specific forms are by name, as in the
// spec: token_translate takes rank-2 ids, mamba_translate is a raw slot gather (slots in the table, no
// tombstones, no out aliasing), dcp_read_translate takes ids widened by dcp_size.
struct IdShape {
  std::string route, ids, table, multiplier;
  std::vector<std::pair<std::string, i64>> extra;
  bool page_size = false, out32 = false;
};
// The IdShape of a per-id route of the list (InvalidArgument "route" for another route).
IdShape id_shape(Route r);

// The routes draw_recipe draws, in list order (the per-id routes and the routes with a drawer here).
std::vector<Route> recipe_routes();

// Case `index` of `seed` for `route`, its output lanes bounded by `lanes` (sizes log-uniform up to it).
// InvalidArgument: route (no drawer), lanes (outside [1, 2^31]), params[<key>] (unknown key, value outside
// its domain, dcp_rank >= dcp_size).
Recipe draw_recipe(Route route, u64 seed, u64 index, i64 lanes, const RecipeParams& params = {});
// The same from a stream already positioned (draw_recipe above uses recipe_rng(seed, index)).
Recipe draw_recipe(Route route, SplitMix64& rng, i64 lanes, const RecipeParams& params = {});
// The same recipe with its int32 arrays (req_to_token) in Recipe::packed instead of their values (the Python
// binding's form, which hands them to numpy as they are: the table is most of a 4096-lane case's elements).
Recipe draw_recipe_packed(Route route, SplitMix64& rng, i64 lanes, const RecipeParams& params = {});
// A per-id route's recipe from its shape (a route the list does not hold yet, e.g. in a test).
Recipe draw_id_recipe(const IdShape& shape, SplitMix64& rng, i64 lanes, const RecipeParams& params = {});

// Graph mode's later cases (both harnesses replay one captured call on them): the recipe `capture` with
// freshly drawn values at its shapes and scalars: v2p and ids / loc / page_table (the id routes, write_loc,
// kv_indices_inplace, eager_funnel); v2p, req_to_token, the batch rows and lengths (the tables; lengths within
// width * page_size - seq_len_delta and, with kv_start_idx, within req_to_token). InvalidArgument "recipe"
// for a recipe without the fields of the route's drawer.
Recipe redraw_recipe(Route route, const Recipe& capture, SplitMix64& rng);

// ---- the pieces the recipes are made of (graph mode's redraws and the huge cases reuse them) --------
// v2p [num_pages + 1]: a permuted pool (pages < 2 * num_pages) with tombstones (-1, at a drawn rate) and the
// trailing padding entry -1. big: physical pages shifted so that page * scale passes 2^31.
std::vector<i64> draw_v2p(SplitMix64& rng, i64 num_pages, bool big = false, i64 scale = 1);
// Virtual token ids in [0, (num_pages + 1) * ps), a share `pad` of them -1 and pad / 5 of them -ps - 1.
std::vector<i64> draw_ids(SplitMix64& rng, i64 n, i64 num_pages, i64 ps, double pad = 0.05);
// req_to_token [rows, cols]: each run of ps columns the tokens of one random virtual page (page * ps +
// offset, pages in [0, num_pages]); a share `padding` of the page-start tokens -1.
std::vector<i32> page_major_rows(SplitMix64& rng, i64 rows, i64 cols, i64 ps, i64 num_pages, double padding);
// (ids, v2p) of a per-id case as `route` takes them: mamba_translate's raw gather gets slots in
// [0, v2p.size()) and entries >= 0, dcp_read_translate's ids arrive widened by dcp_size (padding stays
// negative); other routes take them as drawn.
void fit_token_values(const std::string& route, std::vector<i64>& ids, std::vector<i64>& v2p, i64 dcp_size);

}  // namespace kvaddr::gen
