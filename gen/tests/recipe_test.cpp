// The harness recipes (recipe.hpp): one drawing per (route, seed, index), parameters that replace a drawn
// value without moving the other draws, the fields of every route's recipe, and the argument validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "kvaddr/gen/recipe.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {
using namespace kvaddr;
using namespace kvaddr::gen;

std::set<std::string> keys(const Recipe& r) {
  std::set<std::string> k;
  for (const auto& [n, v] : r.ints) k.insert(n);
  for (const auto& [n, v] : r.bools) k.insert(n);
  for (const auto& [n, v] : r.arrays) k.insert(n);
  for (const auto& n : r.absent) k.insert(n);
  return k;
}

TEST(Recipe, TheKeyIsTheHarnessCaseKey) {
  EXPECT_EQ(recipe_key(0, 0), 0x632BE59BD9B4E019ULL);
  EXPECT_EQ(recipe_key(1, 2), kGolden ^ (2 + 0x632BE59BD9B4E019ULL));
}

TEST(Recipe, SameSeedAndIndexSameRecipeOtherIndexOtherRecipe) {
  for (Route r : recipe_routes()) {
    const Recipe a = draw_recipe(r, 7, 3, 512), b = draw_recipe(r, 7, 3, 512), c = draw_recipe(r, 7, 4, 512);
    EXPECT_EQ(a, b) << to_string(r);
    EXPECT_NE(a, c) << to_string(r);
  }
}

TEST(Recipe, EveryRouteOfTheListWithADrawerHasItsFields) {
  const std::set<std::string> id{"page_size", "multiplier", "v2p", "ids", "rank2", "strided", "alias", "overlap",
                                 "adjacent_pool", "adjacent_pick"};
  const std::set<std::string> table{"page_size", "multiplier", "v2p", "req_to_token", "rows", "lens", "width", "pad",
                                    "extra_rows", "seq_len_delta", "zero_tail", "kv_start_idx", "strided",
                                    "r2t_strided", "adjacent_pool", "adjacent_pick"};
  for (Route r : recipe_routes()) {
    const Recipe x = draw_recipe(r, 1, 0, 256);
    const std::string name(to_string(r));
    if (name == "dcp_read_translate") {
      auto want = id;
      want.insert("dcp_size");
      EXPECT_EQ(keys(x), want);
    } else if (name.ends_with("_table") || name == "decode_metadata") {
      EXPECT_EQ(keys(x), table) << name;
      EXPECT_TRUE(x.arrays.at("req_to_token").int32);
      EXPECT_EQ(x.arrays.at("req_to_token").shape.size(), 2u);
    } else if (name == "write_loc") {
      EXPECT_EQ(keys(x), (std::set<std::string>{"page_size", "multiplier", "dcp_size", "dcp_rank", "v2p", "loc", "tail",
                                                "strided", "alias", "overlap", "adjacent_pool", "adjacent_pick"}));
    } else if (name == "kv_indices_inplace") {
      EXPECT_EQ(keys(x), (std::set<std::string>{"page_size", "multiplier", "v2p", "lens", "ids", "tail", "pad",
                                                "adjacent_pool", "adjacent_pick"}));
    } else if (name == "eager_funnel") {
      EXPECT_EQ(keys(x), (std::set<std::string>{"page_size", "multiplier", "v2p", "page_table", "alias", "overlap",
                                                "pad", "strided", "adjacent_pool", "adjacent_pick"}));
    } else {
      EXPECT_EQ(keys(x), id) << name;
    }
  }
}

TEST(Recipe, AParameterReplacesItsValueAndKeepsTheDrawsBefore) {
  const Recipe a = draw_recipe(Route::write_loc, 5, 9, 512);
  const Recipe b = draw_recipe(Route::write_loc, 5, 9, 512, {{"page_size", 13}});
  EXPECT_EQ(b.ints.at("page_size"), 13);
  EXPECT_EQ(a.arrays.at("loc").values.size(), b.arrays.at("loc").values.size());
  EXPECT_EQ(a.ints.at("multiplier"), b.ints.at("multiplier"));
  const Recipe c = draw_recipe(Route::flashmla_block_table, 5, 9, 512, {{"kv_start_idx", 1}});
  EXPECT_EQ(c.arrays.at("kv_start_idx").values.size(), c.arrays.at("lens").values.size());
  const Recipe d = draw_recipe(Route::flashmla_block_table, 5, 9, 512, {{"kv_start_idx", 0}});
  EXPECT_EQ(d.absent, std::vector<std::string>{"kv_start_idx"});
  // the route's own multiplier field
  EXPECT_EQ(draw_recipe(Route::swa_translate, 2, 0, 64, {{"swa_multiplier", 5}}).ints.at("multiplier"), 5);
}

TEST(Recipe, SizesStayInsideTheLaneBound) {
  for (u64 i = 0; i < 40; ++i) {
    EXPECT_LE(draw_recipe(Route::token_translate, 3, i, 64).arrays.at("ids").values.size(), 64u);
    EXPECT_GE(draw_recipe(Route::token_translate, 3, i, 1).arrays.at("ids").values.size(), 1u);
    const Recipe t = draw_recipe(Route::read_table, 3, i, 64);
    EXPECT_LE(t.arrays.at("rows").values.size(), 16u);  // b <= lanes / 4
  }
}

TEST(Recipe, TheDistributionsReachTheirEdges) {
  int alias = 0, overlap = 0, big = 0, admitted = 0, rejected = 0;
  for (u64 i = 0; i < 400; ++i) {
    const Recipe t = draw_recipe(Route::token_translate, 11, i, 256);
    alias += t.bools.at("alias");
    overlap += t.ints.at("overlap") > 0;
    admitted += t.ints.at("adjacent_pool") == 1;
    rejected += t.ints.at("adjacent_pool") == 2;
    const auto& v = t.arrays.at("v2p").values;
    big += *std::max_element(v.begin(), v.end()) * t.ints.at("page_size") * t.ints.at("multiplier") >= (i64{1} << 31);
  }
  EXPECT_GT(alias, 20);
  EXPECT_GT(overlap, 10);
  EXPECT_GT(big, 10);
  EXPECT_GT(admitted, 30);
  EXPECT_GT(rejected, 2);
}

TEST(Recipe, ValidatesItsArguments) {
  EXPECT_NO_THROW(draw_recipe(Route::write_loc, 0, 0, 1));
  EXPECT_THROW(draw_recipe(Route::write_loc, 0, 0, 0), InvalidArgument);
  EXPECT_NO_THROW(draw_recipe(Route::write_loc, 0, 0, i64{1} << 10, {{"page_size", i64{1} << 20}}));
  EXPECT_THROW(draw_recipe(Route::write_loc, 0, 0, 64, {{"page_size", (i64{1} << 20) + 1}}), InvalidArgument);
  EXPECT_THROW(draw_recipe(Route::write_loc, 0, 0, 64, {{"page_size", 0}}), InvalidArgument);
  EXPECT_THROW(draw_recipe(Route::write_loc, 0, 0, 64, {{"no_such", 1}}), InvalidArgument);
  EXPECT_THROW(draw_recipe(Route::write_loc, 0, 0, 64, {{"dcp_size", 2}, {"dcp_rank", 2}}), InvalidArgument);
  EXPECT_NO_THROW(draw_recipe(Route::write_loc, 0, 0, 64, {{"dcp_size", 2}, {"dcp_rank", 1}}));
  EXPECT_THROW(draw_recipe(Route::read_table, 0, 0, 64, {{"zero_tail", 2}}), InvalidArgument);
  EXPECT_NO_THROW(draw_recipe(Route::read_table, 0, 0, 64, {{"zero_tail", 1}, {"max_pages", 3}}));
  try {
    draw_recipe(Route::write_loc, 0, 0, 64, {{"no_such", 1}});
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "params['no_such']");
  }
  SplitMix64 r(1);
  EXPECT_THROW(draw_v2p(r, -1), InvalidArgument);
  EXPECT_THROW(draw_v2p(r, (i64{1} << 24) + 1), InvalidArgument);
  EXPECT_EQ(draw_v2p(r, 0), std::vector<i64>{-1});
  EXPECT_THROW(draw_ids(r, 4, 2, 0), InvalidArgument);
  EXPECT_THROW(draw_ids(r, 4, 2, 1, 1.5), InvalidArgument);
  EXPECT_THROW(page_major_rows(r, -1, 2, 1, 2, 0), InvalidArgument);
  EXPECT_EQ(page_major_rows(r, 0, 5, 1, 2, 0).size(), 0u);
}

TEST(Recipe, PiecesKeepTheirRanges) {
  SplitMix64 r(3);
  const auto v2p = draw_v2p(r, 50);
  ASSERT_EQ(v2p.size(), 51u);
  EXPECT_EQ(v2p.back(), -1);
  std::set<i64> live;
  for (std::size_t i = 0; i + 1 < v2p.size(); ++i) {
    EXPECT_GE(v2p[i], -1);
    EXPECT_LT(v2p[i], 100);
    if (v2p[i] >= 0) {
      EXPECT_TRUE(live.insert(v2p[i]).second);  // a permutation: no page twice
    }
  }
  for (i64 t : draw_ids(r, 500, 10, 4)) EXPECT_TRUE(t == -1 || t == -5 || (t >= 0 && t < 44)) << t;
  const auto r2t = page_major_rows(r, 3, 10, 4, 7, 0);
  for (i64 row = 0; row < 3; ++row)
    for (i64 c = 0; c < 10; ++c) {
      const i32 t = r2t[static_cast<std::size_t>(row * 10 + c)], start = r2t[static_cast<std::size_t>(row * 10 + c / 4 * 4)];
      EXPECT_EQ(t, start + c % 4);
      EXPECT_EQ(start % 4, 0);
      EXPECT_LE(start / 4, 7);
    }
  std::vector<i64> ids{-1, 3, 9}, table{5, -1, 2};
  fit_token_values("mamba_translate", ids, table, 1);
  EXPECT_EQ(ids, (std::vector<i64>{0, 0, 0}));
  EXPECT_EQ(table, (std::vector<i64>{5, 0, 2}));
  ids = {-1, 3};
  fit_token_values("dcp_read_translate", ids, table, 4);
  EXPECT_EQ(ids, (std::vector<i64>{-1, 12}));
}

TEST(Recipe, IdShapesAreReadOffTheFieldList) {
  const IdShape s = id_shape(Route::swa_translate);
  EXPECT_EQ(s.multiplier, "swa_multiplier");
  EXPECT_TRUE(s.page_size);
  const IdShape m = id_shape(Route::mamba_translate);
  EXPECT_TRUE(m.out32);
  EXPECT_FALSE(m.page_size);
  EXPECT_EQ(m.multiplier, "");
  EXPECT_THROW(id_shape(Route::read_table), InvalidArgument);
  EXPECT_THROW(draw_recipe(static_cast<Route>(-1), 0, 0, 64), InvalidArgument);
}

}  // namespace

namespace {
TEST(Recipe, RedrawKeepsTheShapesAndScalarsOfTheCapture) {
  for (Route r : recipe_routes()) {
    const Recipe c = draw_recipe(r, 4, 0, 1024, {{"big_entries", 0}, {"long_rows", 0}});
    SplitMix64 s1 = recipe_rng(4, 1), s2 = recipe_rng(4, 1);
    const Recipe a = redraw_recipe(r, c, s1), b = redraw_recipe(r, c, s2);
    EXPECT_EQ(a, b) << to_string(r);  // the stream of (seed, index)
    EXPECT_EQ(a.ints, c.ints) << to_string(r);
    EXPECT_EQ(a.bools, c.bools) << to_string(r);
    EXPECT_EQ(a.absent, c.absent) << to_string(r);
    for (const auto& [k, v] : c.arrays) {
      EXPECT_EQ(a.arrays.at(k).shape, v.shape) << to_string(r) << " " << k;
      EXPECT_EQ(a.arrays.at(k).values.size(), v.values.size()) << to_string(r) << " " << k;
    }
  }
}

TEST(Recipe, RedrawChecksItsCapture) {
  SplitMix64 s(1);
  Recipe c = draw_recipe(Route::write_loc, 1, 0, 64);
  EXPECT_NO_THROW(redraw_recipe(Route::write_loc, c, s));
  c.arrays.erase("loc");
  EXPECT_THROW(redraw_recipe(Route::write_loc, c, s), InvalidArgument);
  Recipe t = draw_recipe(Route::read_table, 1, 0, 64);
  t.ints.erase("width");
  EXPECT_THROW(redraw_recipe(Route::read_table, t, s), InvalidArgument);
  Recipe z = draw_recipe(Route::token_translate, 1, 0, 64);
  z.ints["page_size"] = 0;
  EXPECT_THROW(redraw_recipe(Route::token_translate, z, s), InvalidArgument);
  // the drawers' bounds, both sides: page_size up to 2^20, write_loc's dcp_size in [1, 2^10]
  for (Route route : {Route::eager_funnel, Route::read_table, Route::write_loc}) {
    Recipe p = draw_recipe(route, 1, 0, 64);
    p.ints["page_size"] = i64{1} << 20;
    EXPECT_NO_THROW(redraw_recipe(route, p, s)) << to_string(route);
    p.ints["page_size"] = (i64{1} << 20) + 1;
    EXPECT_THROW(redraw_recipe(route, p, s), InvalidArgument) << to_string(route);
  }
  // int32 tokens: (pages + 1) * page_size up to 2^31 (2^11 pages of 2^20 tokens: 2^11 - 1 pages fit, 2^11 do not)
  for (Route route : {Route::read_table, Route::kv_indices_inplace}) {
    for (const auto& [pages, ok] : {std::pair{(i64{1} << 11) - 1, true}, {i64{1} << 11, false}}) {
      Recipe p = draw_recipe(route, 1, 0, 64);
      p.ints["page_size"] = i64{1} << 20;
      p.arrays["v2p"].values.assign(static_cast<std::size_t>(pages + 1), 0);
      if (ok) EXPECT_NO_THROW(redraw_recipe(route, p, s)) << to_string(route);
      else EXPECT_THROW(redraw_recipe(route, p, s), InvalidArgument) << to_string(route);
    }
  }
  for (const auto& [dcp, ok] : {std::pair{i64{1}, true}, {i64{1} << 10, true}, {i64{0}, false}, {(i64{1} << 10) + 1, false}}) {
    c = draw_recipe(Route::write_loc, 1, 0, 64);
    c.ints["dcp_size"] = dcp;
    if (ok) EXPECT_NO_THROW(redraw_recipe(Route::write_loc, c, s)) << dcp;
    else EXPECT_THROW(redraw_recipe(Route::write_loc, c, s), InvalidArgument) << dcp;
  }
}
}  // namespace
