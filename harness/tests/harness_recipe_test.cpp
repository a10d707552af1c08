// Same seed, same case: the case the C++ harness draws for (route, seed, index, lanes) holds the arrays and
// scalars of gen::draw_recipe for the same arguments (the recipe kvaddr.check builds its case from;
// python/tests/test_recipes.py checks the Python side byte for byte), for every route the harness draws.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kvaddr/gen/recipe.hpp"
#include "kvaddr/harness/check.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {
using namespace kvaddr;
using I64s = std::vector<std::int64_t>;

// The recipe arrays a route's case takes as its inputs, by input name.
std::map<std::string, std::string> inputs_of(Route r, const gen::Recipe& rec) {
  const std::string name(to_string(r));
  if (name == "write_loc") return {{"loc", "loc"}, {"v2p", "v2p"}};
  if (name == "eager_funnel") return {{"v2p", "v2p"}};  // page_table: compared row by row (a row stride)
  if (name == "kv_indices_inplace") return {{"v2p", "v2p"}, {"lens", "lens"}};
  if (rec.arrays.count("req_to_token")) {
    std::map<std::string, std::string> m{{"req_to_token", "req_to_token"}, {"rows", "req_pool_indices"},
                                         {"lens", "seq_lens"}, {"v2p", "v2p"}};
    if (rec.arrays.count("kv_start_idx")) m["kv_start_idx"] = "kv_start_idx";
    return m;
  }
  const gen::IdShape s = gen::id_shape(r);
  return {{"ids", s.ids}, {"v2p", s.table}};
}

TEST(HarnessRecipe, EveryDrawnCaseHoldsTheRecipeOfItsSeedAndIndex) {
  const gen::RecipeParams params{{"big_entries", 0}, {"long_rows", 0}};
  int compared = 0;
  for (Route r : gen::recipe_routes()) {
    for (const auto& [seed, index, lanes] : {std::tuple<std::uint64_t, std::int64_t, std::int64_t>{0, 0, 4096},
                                             {1, 5, 4096}, {7, 123, 64}, {(std::uint64_t{1} << 40) + 3, 9, 512}}) {
      const gen::Recipe rec = gen::draw_recipe(r, seed, static_cast<std::uint64_t>(index), lanes, params);
      const harness::detail::DrawnCase c = harness::detail::drawn_case(r, seed, index, lanes);
      const std::string at = std::string(to_string(r)) + " seed " + std::to_string(seed) + " case " + std::to_string(index);
      const bool clamped = c.scalars.count("clamp") && c.scalars.at("clamp") != 0;  // the harness's clamp cases
      for (const auto& [key, input] : inputs_of(r, rec)) {
        if (clamped) continue;
        ASSERT_TRUE(c.arrays.count(input)) << at << ": " << input;
        EXPECT_EQ(c.arrays.at(input), rec.arrays.at(key).values) << at << ": " << input;
        ++compared;
      }
      EXPECT_EQ(c.scalars.count("page_size") ? c.scalars.at("page_size") : 1, rec.ints.at("page_size")) << at;
      if (c.scalars.count("multiplier")) {
        EXPECT_EQ(c.scalars.at("multiplier"), rec.ints.at("multiplier")) << at;
      }
      const std::string name(to_string(r));
      if (name == "eager_funnel") {
        const auto& t = rec.arrays.at("page_table");
        const I64s& got = c.arrays.at("page_table");
        const auto stride = static_cast<std::int64_t>(got.size()) / t.shape[0];
        for (std::int64_t row = 0; row < t.shape[0]; ++row)
          for (std::int64_t col = 0; col < t.shape[1]; ++col)
            ASSERT_EQ(got[static_cast<std::size_t>(row * stride + col)],
                      t.values[static_cast<std::size_t>(row * t.shape[1] + col)]) << at;
      }
      if (name == "kv_indices_inplace") {
        const I64s& ids = rec.arrays.at("ids").values;
        const I64s& before = c.befores.at("kv_indices");
        EXPECT_EQ(I64s(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(ids.size())), ids) << at;
        EXPECT_EQ(static_cast<std::int64_t>(before.size()), static_cast<std::int64_t>(ids.size()) + rec.ints.at("tail"));
      }
      if (rec.ints.count("width") && c.scalars.count("max_pages")) {
        EXPECT_EQ(c.scalars.at("max_pages"), rec.ints.at("width")) << at;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

// The layout each drawn case is presented in follows its recipe's presentation fields, both ways: req_to_token rows
// 3 wider exactly when r2t_strided; the strided 1-D inputs listed as packed exactly when strided (token_translate's
// rank-2 ids excepted: kvaddr.check presents those unstrided); an adjacent layout only from adjacent_pool 1 (touching)
// or 2 (sharing lanes), never beside an alias or overlap; an alias exactly when the recipe aliases or overlaps
// (offset 0 for an alias).
TEST(HarnessRecipe, EveryDrawnCaseIsPresentedAsItsRecipeSays) {
  const gen::RecipeParams params{{"big_entries", 0}, {"long_rows", 0}};
  std::map<std::string, int> seen;
  for (Route r : gen::recipe_routes()) {
    for (std::int64_t index = 0; index < 120; ++index) {
      const gen::Recipe rec = gen::draw_recipe(r, 3, static_cast<std::uint64_t>(index), 512, params);
      const auto p = harness::detail::drawn_case(r, 3, index, 512).presented;
      const std::string at = std::string(to_string(r)) + " case " + std::to_string(index);
      const auto flag = [&](const char* k) {
        return (rec.bools.count(k) && rec.bools.at(k)) || (rec.ints.count(k) && rec.ints.at(k) != 0);
      };
      if (rec.arrays.count("req_to_token")) {
        const std::int64_t cols = rec.arrays.at("req_to_token").shape[1];
        EXPECT_EQ(p.req_to_token_stride, flag("r2t_strided") ? cols + 3 : cols) << at;
        seen["r2t strided"] += flag("r2t_strided");
      } else {
        EXPECT_EQ(p.req_to_token_stride, 0) << at;
      }
      const bool rank2 = flag("rank2") && !rec.arrays.at("ids").values.empty();
      const bool packed = flag("strided") && !rank2 && std::string(to_string(r)) != "eager_funnel";
      EXPECT_EQ(!p.packed.empty(), packed) << at;
      seen["packed"] += packed;
      const std::int64_t pool = rec.ints.at("adjacent_pool");
      if (!p.adjacent.empty()) {
        EXPECT_TRUE(pool == 1 || pool == 2) << at;
        EXPECT_EQ(p.shared > 0, pool == 2) << at;
        EXPECT_FALSE(flag("alias") || flag("overlap")) << at;
        ++seen[pool == 1 ? "adjacent" : "adjacent overlap"];
      }
      if (pool == 0 || flag("alias") || flag("overlap")) {
        EXPECT_TRUE(p.adjacent.empty()) << at;
      }
      if (!p.alias.empty()) {
        EXPECT_TRUE(flag("alias") || flag("overlap")) << at;
        EXPECT_EQ(p.alias_offset == 0, flag("alias")) << at;
        ++seen[p.alias_offset == 0 ? "alias" : "alias overlap"];
      }
    }
  }
  for (const char* kind : {"r2t strided", "packed", "adjacent", "adjacent overlap", "alias", "alias overlap"})
    EXPECT_GE(seen[kind], 5) << kind;
}

TEST(HarnessRecipe, DrawnCaseValidatesItsArguments) {
  EXPECT_NO_THROW(harness::detail::drawn_case(Route::write_loc, 0, 0, 1));
  EXPECT_THROW(harness::detail::drawn_case(Route::write_loc, 0, -1, 64), InvalidArgument);
  EXPECT_THROW(harness::detail::drawn_case(Route::write_loc, 0, 0, 0), InvalidArgument);  // lanes (gen)
  EXPECT_THROW(harness::detail::drawn_case(static_cast<Route>(-1), 0, 0, 64), InvalidArgument);
}

}  // namespace
