// The recipes are the project's fixed ground truth (replay recordings, the C++ / Python same-case test, the kill
// matrix): these digests pin every value of a set of drawn recipes, graph mode's redraws and the pieces. A change
// to the drawing that moves one value fails here; a speed-up of the drawing must leave them as they are.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kvaddr/gen/recipe.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {
using namespace kvaddr;
using namespace kvaddr::gen;

// FNV-1a over 64-bit words.
struct Digest {
  u64 h = 0xcbf29ce484222325ull;
  void add(u64 x) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((x >> (8 * i)) & 0xff)) * 0x100000001b3ull;
  }
  void add(const std::string& s) {
    add(s.size());
    for (char c : s) add(static_cast<u64>(static_cast<unsigned char>(c)));
  }
  template <class T>
  void add(const std::vector<T>& v) {
    add(v.size());
    for (T x : v) add(static_cast<u64>(static_cast<i64>(x)));
  }
  void add(const Recipe& r) {
    for (const auto& [k, v] : r.ints) add(k), add(static_cast<u64>(v));
    for (const auto& [k, v] : r.bools) add(k), add(u64{v});
    for (const auto& [k, a] : r.arrays) add(k), add(a.shape), add(u64{a.int32}), add(a.values);
    for (const auto& k : r.absent) add(k);
  }
};

// Routes with a drawer of their own and two per-id routes, at two lane bounds, 40 cases each, plus parameters
// that force the rare edges (overflowing entries, long decode rows, kv_start_idx, a fixed page size).
u64 recipes_digest(const char* route, const RecipeParams& params) {
  Digest d;
  for (i64 lanes : {i64{64}, i64{4096}})
    for (u64 i = 0; i < 40; ++i) d.add(draw_recipe(parse_route(route), 11, i, lanes, params));
  return d.h;
}

TEST(RecipePins, DrawnRecipesKeepEveryValue) {
  EXPECT_EQ(recipes_digest("read_table", {}), 4438242076442569645ull);
  EXPECT_EQ(recipes_digest("decode_metadata", {}), 601832815676778454ull);
  EXPECT_EQ(recipes_digest("canonical_page_table", {}), 16465939705309408808ull);
  EXPECT_EQ(recipes_digest("full_prefill_table", {}), 12840721548585905716ull);
  EXPECT_EQ(recipes_digest("flashmla_block_table", {}), 13315398069889634230ull);
  EXPECT_EQ(recipes_digest("kv_indices_inplace", {}), 16643320955100604593ull);
  EXPECT_EQ(recipes_digest("eager_funnel", {}), 7691329526971359230ull);
  EXPECT_EQ(recipes_digest("write_loc", {}), 6503782319601476656ull);
  EXPECT_EQ(recipes_digest("token_translate", {}), 11169678875690662668ull);
  EXPECT_EQ(recipes_digest("dcp_read_translate", {}), 17809643585705912295ull);
  EXPECT_EQ(recipes_digest("decode_metadata", {{"long_rows", 1}, {"big_entries", 1}, {"page_size", 16}}), 17960712134220225793ull);
  EXPECT_EQ(recipes_digest("flashmla_block_table", {{"kv_start_idx", 1}, {"multiplier", 7}}), 6605611333057268953ull);
}

TEST(RecipePins, RedrawsAndPiecesKeepEveryValue) {
  Digest d;
  for (const char* route : {"read_table", "decode_metadata", "flashmla_block_table", "kv_indices_inplace",
                            "eager_funnel", "write_loc", "token_translate", "mamba_translate"})
    for (u64 i = 0; i < 20; ++i) {
      const Recipe c = draw_recipe(parse_route(route), 5, i, 1024, {{"big_entries", 0}, {"long_rows", 0}});
      SplitMix64 s = recipe_rng(5, 1000 + i);
      d.add(redraw_recipe(parse_route(route), c, s));
    }
  EXPECT_EQ(d.h, 9600743416924106923ull);
  Digest p;
  SplitMix64 r(77);
  for (i64 k = 0; k < 30; ++k) {
    const i64 ps = r.between(1, 300), pages = r.between(0, 3000);
    p.add(draw_v2p(r, pages, k % 2 == 1, r.between(1, 1000)));
    p.add(draw_ids(r, r.between(0, 2000), pages, ps, 0.05 * static_cast<double>(k % 3)));
    // the row count and the row length drawn in a fixed order (two draws in one argument list would be evaluated in
    // the compiler's order: GCC drew the length first, Clang the count, and the digest differed)
    const i64 row_len = r.between(0, 700);
    const i64 rows = r.between(0, 30);
    p.add(page_major_rows(r, rows, row_len, ps, pages, 0.01 * static_cast<double>(k % 4)));
  }
  EXPECT_EQ(p.h, 8007588874975938785ull);
}

}  // namespace

namespace {
// draw_recipe_packed (the Python binding's form) is draw_recipe with the int32 arrays' elements in Recipe::packed.
TEST(RecipePins, PackedIsTheSameRecipeWithItsInt32ArraysPacked) {
  for (Route route : recipe_routes())
    for (u64 i = 0; i < 6; ++i) {
      SplitMix64 plain_rng = recipe_rng(3, i), rng = recipe_rng(3, i);
      const Recipe plain = draw_recipe(route, plain_rng, 2048);
      Recipe packed = draw_recipe_packed(route, rng, 2048);
      EXPECT_TRUE(plain.packed.empty());
      for (auto& [k, a] : packed.arrays) {
        const RecipeArray& want = plain.arrays.at(k);
        ASSERT_EQ(a.shape, want.shape) << to_string(route) << " " << k;
        EXPECT_EQ(a.int32, want.int32) << to_string(route) << " " << k;
        if (!a.int32) {
          EXPECT_EQ(packed.packed.count(k), 0u) << to_string(route) << " " << k;
          continue;
        }
        ASSERT_EQ(packed.packed.count(k), 1u) << to_string(route) << " " << k;
        EXPECT_TRUE(a.values.empty());
        a.values.assign(packed.packed.at(k).begin(), packed.packed.at(k).end());
      }
      packed.packed.clear();
      EXPECT_EQ(packed, plain) << to_string(route) << " " << i;
      EXPECT_EQ(rng.state(), plain_rng.state()) << to_string(route);  // the same draws
    }
}
}  // namespace
