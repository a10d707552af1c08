// The shrinker (shrink.hpp): the candidate order on hand-made recipes (every candidate, exactly), the greedy
// loop (minimal recipe, steps, budget, step bound, visited recipes, exceptions) and the argument validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "kvaddr/gen/shrink.hpp"
#include "kvaddr/model/errors.hpp"

namespace {
using namespace kvaddr;
using namespace kvaddr::gen;
using V = std::vector<i64>;

std::string show(const Recipe& r) {  // a failing comparison shows the recipe
  std::ostringstream os;
  for (const auto& [k, v] : r.ints) os << k << "=" << v << " ";
  for (const auto& [k, v] : r.bools) os << k << "=" << v << " ";
  for (const auto& [k, a] : r.arrays) {
    os << k << (a.int32 ? "(i32)" : "") << "[";
    for (i64 x : a.values) os << x << ",";
    os << "] ";
  }
  for (const auto& k : r.absent) os << k << "=None ";
  return os.str();
}

RecipeArray arr(V v) { return {v, {static_cast<i64>(v.size())}, false}; }

// A per-id recipe: ids, v2p, page_size 2, multiplier 1, out aliasing the ids.
Recipe token(V ids, V v2p) {
  Recipe r;
  r.ints = {{"page_size", 2}, {"multiplier", 1}, {"overlap", 0}};
  r.bools = {{"alias", true}, {"rank2", false}, {"strided", false}};
  r.arrays = {{"ids", arr(ids)}, {"v2p", arr(v2p)}};
  return r;
}

Recipe with_ids(Recipe r, V ids) {
  r.arrays["ids"] = arr(ids);
  return r;
}

TEST(Shrink, TokenCandidatesInOrder) {
  const Recipe r = token({5, -1}, {3, -1, -1});
  Recipe plain = r;
  plain.bools["alias"] = false;
  Recipe compact = r;  // page 2 only, renumbered 0: token 5 = page 2 offset 1 -> 1
  compact.arrays["v2p"] = arr({-1, -1});
  compact.arrays["ids"] = arr({1, -1});
  auto v2p = [&](V v) {
    Recipe c = r;
    c.arrays["v2p"] = arr(v);
    return c;
  };
  const std::vector<Recipe> want{
      // fewest rows: halves, then single elements
      with_ids(r, {5}), with_ids(r, {-1}), with_ids(r, {-1}), with_ids(r, {5}),
      // presentation flags
      plain,
      // fewest pages: the pages read (no v2p cut: id 5 names page 2), then short-table entries
      compact, v2p({0, -1, -1}), v2p({0, -1, -1}), v2p({3, 1, -1}), v2p({3, -1, 2}),
      // smallest ids: all 0, then 5 lowered by 0, 5 / 2, 5 mod 2, 5 mod 2 + 2, 5 - 4, 5 - 2, 5 - 2, 5 - 1; -1 to 0
      with_ids(r, {0, 0}), with_ids(r, {0, -1}), with_ids(r, {2, -1}), with_ids(r, {1, -1}), with_ids(r, {3, -1}),
      with_ids(r, {1, -1}), with_ids(r, {3, -1}), with_ids(r, {3, -1}), with_ids(r, {4, -1}), with_ids(r, {5, 0})};
  const std::vector<Recipe> got = shrink_candidates("token_translate", r);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "candidate " << i << ": " << show(got[i]);
}

// A table recipe: rows [1] of a 3 x 4 req_to_token, lens [3], width 2, page_size 2, multiplier 2, one extra row.
Recipe table() {
  Recipe r;
  r.ints = {{"page_size", 2}, {"multiplier", 2}, {"width", 2}, {"extra_rows", 1}, {"pad", 0}, {"seq_len_delta", 0}};
  r.bools = {{"strided", false}, {"r2t_strided", true}, {"zero_tail", false}};
  r.arrays = {{"rows", arr({1})}, {"lens", arr({3})}, {"v2p", arr({1, 0, -1, 2, 5, -1})},
              {"req_to_token", {{0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0}, {3, 4}, true}}};
  r.absent = {"kv_start_idx"};
  return r;
}

TEST(Shrink, TableCandidatesFlagsThenTableThenPages) {
  const Recipe r = table();
  auto set = [&](const char* k, i64 v) {
    Recipe c = r;
    c.ints[k] = v;
    return c;
  };
  Recipe plain = r;
  plain.bools["r2t_strided"] = false;
  Recipe two_rows = r;  // the rows past the last one read dropped
  two_rows.arrays["req_to_token"] = {{0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, true};
  Recipe one_row = r;  // only the row read, renumbered 0 (then with row 0 kept first: two_rows again)
  one_row.arrays["req_to_token"] = {{4, 5, 6, 7}, {1, 4}, true};
  one_row.arrays["rows"] = arr({0});
  Recipe compact = r;  // pages 0..3 read: v2p without page 4 (the columns need 2 * 2 = 4: no column cut)
  compact.arrays["v2p"] = arr({1, 0, -1, 2, -1});
  // (the cut to half the pages is not offered: req_to_token names page 3; the cut of the last page is `compact`)
  const std::vector<Recipe> want{plain, set("extra_rows", 0), set("multiplier", 1), set("width", 1), set("width", 1),
                                 two_rows, one_row, two_rows, compact, compact};
  const std::vector<Recipe> got = shrink_candidates("read_table", r);
  ASSERT_GE(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "candidate " << i << ": " << show(got[i]);
  // then the short v2p's entries (p = 0: to 0 twice; 2: live; 3: to 0; 4: to 4, to 0; 5: live), then the values
  Recipe v0 = r;
  v0.arrays["v2p"].values[0] = 0;
  EXPECT_EQ(got[want.size()], v0);
  EXPECT_EQ(got.size(), want.size() + 7 + 2 + 3 + 6);  // 7 v2p entries, rows / lens at 0, rows x3, lens x6
}

TEST(Shrink, TableKeepsOneRowPerBatchEntry) {
  Recipe r = table();
  r.arrays["rows"] = arr({0, 0});  // two batch entries reading row 0 of three
  r.arrays["lens"] = arr({3, 3});
  std::vector<i64> kept;
  for (const Recipe& c : shrink_candidates("read_table", r))
    if (c.arrays.at("rows").values.size() == 2) kept.push_back(c.arrays.at("req_to_token").shape[0]);
  EXPECT_EQ(*std::min_element(kept.begin(), kept.end()), 2);  // rows past the last read cut to 2, never to 1
  r.arrays["rows"] = arr({0});
  r.arrays["lens"] = arr({3});
  kept.clear();
  for (const Recipe& c : shrink_candidates("read_table", r)) kept.push_back(c.arrays.at("req_to_token").shape[0]);
  EXPECT_EQ(*std::min_element(kept.begin(), kept.end()), 1);  // one entry: one row
}

TEST(Shrink, FunnelColumnsAndTokens) {
  Recipe r;
  r.ints = {{"page_size", 4}, {"multiplier", 1}, {"pad", 0}};
  r.bools = {{"strided", false}, {"alias", false}, {"overlap", false}};
  r.arrays = {{"page_table", {{8, 12}, {1, 2}, false}}, {"v2p", arr({0, 1, 2, 3, -1})}};
  const std::vector<Recipe> got = shrink_candidates("eager_funnel", r);
  auto table = [&](V v) {
    Recipe c = r;
    c.arrays["page_table"] = {v, {1, static_cast<i64>(v.size())}, false};
    return c;
  };
  // columns 1 of 2 from the left and the right (cols / 2 == cols - 1: twice), then tokens 8, 12 lowered to page
  // starts: 0, (8 / 2) rounded down to the page 4, 8 - 8 mod 4 = 8 (not lower), 8 - 4
  const std::vector<Recipe> want{table({8}), table({12}), table({8}), table({12}), table({0, 12}), table({4, 12}),
                                 table({4, 12}), table({8, 0}), table({8, 4}), table({8, 8})};
  ASSERT_GE(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "candidate " << i << ": " << show(got[i]);
}

TEST(Shrink, GreedyLoopReachesTheSmallestFailingRecipe) {
  // fails while some id names page 2 or higher (a token >= 4): the minimal case is one id, the smallest such
  const Recipe r = token({9, 1, 13, -1, 6}, {4, 0, 3, 1, 2, 6, 5, -1});
  i64 calls = 0;
  const Shrunk s = shrink_recipe("token_translate", r, [&](const Recipe& c) {
    ++calls;
    for (i64 x : c.arrays.at("ids").values)
      if (x >= 4) return true;
    return false;
  }, 60.0);
  // (the predicate reads no table; v2p keeps the pages up to id 4's page 2, entries lowered to 0, and its
  // padding entry, made live)
  Recipe want = token({4}, {0, 0, 0, 5});
  want.bools["alias"] = false;
  EXPECT_EQ(s.recipe, want) << show(s.recipe);
  EXPECT_GT(s.steps, 3);
  EXPECT_GT(calls, s.steps);
}

TEST(Shrink, StepBoundBudgetAndExceptions) {
  const Recipe r = token({9, 1, 13}, {4, 0, 3, -1});
  const auto always = [](const Recipe&) { return true; };
  const Shrunk none = shrink_recipe("token_translate", r, always, 60.0, 0);
  EXPECT_EQ(none.recipe, r);
  EXPECT_EQ(none.steps, 0);
  const Shrunk one = shrink_recipe("token_translate", r, always, 60.0, 1);
  EXPECT_EQ(one.steps, 1);
  EXPECT_EQ(one.recipe, with_ids(r, {9}));  // the first candidate: the second half cut
  const Shrunk spent = shrink_recipe("token_translate", r, always, 0.0);  // no time: no step
  EXPECT_EQ(spent.steps, 0);
  i64 calls = 0;
  const Shrunk never = shrink_recipe("token_translate", r, [&](const Recipe&) { ++calls; return false; }, 60.0);
  EXPECT_EQ(never.steps, 0);
  EXPECT_LT(calls, static_cast<i64>(shrink_candidates("token_translate", r).size()));  // duplicates tried once
  EXPECT_THROW(shrink_recipe("token_translate", r, [](const Recipe&) -> bool { throw std::runtime_error("x"); }, 1.0),
               std::runtime_error);
}

TEST(Shrink, ValidatesItsArguments) {
  const Recipe r = token({1}, {0, -1});
  const auto no = [](const Recipe&) { return false; };
  EXPECT_NO_THROW(shrink_recipe("token_translate", r, no, 0.0, 0));
  EXPECT_THROW(shrink_recipe("token_translate", r, no, -0.001), InvalidArgument);
  EXPECT_THROW(shrink_recipe("token_translate", r, no, 1.0 / 0.0), InvalidArgument);
  EXPECT_THROW(shrink_recipe("token_translate", r, no, 1.0, -1), InvalidArgument);
  EXPECT_THROW(shrink_recipe("token_translate", r, {}, 1.0), InvalidArgument);
  Recipe bad = r;
  bad.arrays.erase("v2p");
  EXPECT_THROW(shrink_candidates("token_translate", bad), InvalidArgument);
  bad = r;
  bad.arrays["v2p"] = arr({});
  EXPECT_THROW(shrink_candidates("token_translate", bad), InvalidArgument);
  bad = r;
  bad.ints["page_size"] = 0;
  EXPECT_THROW(shrink_candidates("token_translate", bad), InvalidArgument);
  bad.ints["page_size"] = (i64{1} << 40) + 1;
  EXPECT_THROW(shrink_candidates("token_translate", bad), InvalidArgument);
  bad.ints["page_size"] = i64{1} << 40;
  EXPECT_NO_THROW(shrink_candidates("token_translate", bad));
  bad = r;
  bad.arrays["ids"].shape = {i64{1} << 62, 8};  // an element count past int64
  EXPECT_THROW(shrink_candidates("token_translate", bad), InvalidArgument);
  bad.arrays["ids"].shape = {-1};
  EXPECT_THROW(shrink_candidates("token_translate", bad), InvalidArgument);
  bad = r;
  bad.arrays["ids"].shape = {2};  // one value
  EXPECT_THROW(shrink_candidates("token_translate", bad), InvalidArgument);
  Recipe t = table();
  t.arrays["lens"] = arr({3, 4});  // rows and lens differ
  EXPECT_THROW(shrink_candidates("read_table", t), InvalidArgument);
  t = table();
  t.arrays["req_to_token"].shape = {12};
  t.arrays["req_to_token"].values.resize(12);
  EXPECT_THROW(shrink_candidates("read_table", t), InvalidArgument);
  t = table();
  t.ints.erase("width");
  EXPECT_THROW(shrink_candidates("read_table", t), InvalidArgument);
}

// The drawn case python/tests/test_shrink.py shrinks with the same predicate through kvaddr._core: both front
// ends reach this recipe in 27 steps.
TEST(Shrink, DrawnTableCaseShrinksAsFromPython) {
  const Recipe r = draw_recipe(Route::read_table, 5, 3, 256);
  const Shrunk s = shrink_recipe("read_table", r, [](const Recipe& c) {
    const V& lens = c.arrays.at("lens").values;
    const V& v2p = c.arrays.at("v2p").values;
    return !lens.empty() && *std::max_element(lens.begin(), lens.end()) >= 5 &&
           *std::max_element(v2p.begin(), v2p.end()) >= 3;
  }, 60.0);
  Recipe want = r;
  want.ints["extra_rows"] = 0;
  want.ints["multiplier"] = 1;
  want.ints["seq_len_delta"] = 0;
  want.ints["width"] = 1;
  want.arrays["lens"] = arr({5});
  want.arrays["rows"] = arr({0});
  want.arrays["v2p"] = arr({0, 3});
  want.arrays["req_to_token"] = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {1, 16}, true};
  EXPECT_EQ(s.recipe, want) << show(s.recipe);
  EXPECT_EQ(s.steps, 27);
}

}  // namespace
