// Same seed, same case: the case the C++ harness draws for (route, seed, index, lanes) holds the arrays and
// scalars of gen::draw_recipe for the same arguments (the recipe kvaddr.check builds its case from;
// python/tests/test_recipes.py checks the Python side byte for byte), for every route the harness draws.
#include <gtest/gtest.h>

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

TEST(HarnessRecipe, DrawnCaseValidatesItsArguments) {
  EXPECT_NO_THROW(harness::detail::drawn_case(Route::write_loc, 0, 0, 1));
  EXPECT_THROW(harness::detail::drawn_case(Route::write_loc, 0, -1, 64), InvalidArgument);
  EXPECT_THROW(harness::detail::drawn_case(Route::write_loc, 0, 0, 0), InvalidArgument);  // lanes (gen)
  EXPECT_THROW(harness::detail::drawn_case(static_cast<Route>(-1), 0, 0, 64), InvalidArgument);
}

}  // namespace
