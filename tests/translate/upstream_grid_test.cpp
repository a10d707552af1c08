// The upstream example grid of spec §5.2, §5.3 and §5.5, reproduced on the host routes.
// Batch recipe (§5.2): L = 24, bs 5, seq_lens [ps, ps+1, 3ps, 7ps-3, 1], max_ctx 2048, 512 pages,
// a non-identity random v2p with v2p[0] = 0 (fixed-seed std::mt19937_64 permutation).
// Expectations are written inline from the spec formulas; nothing here calls model/ or lanes.hpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

constexpr std::int64_t kL = 24;
constexpr std::int64_t kB = 5;
constexpr std::int64_t kMaxCtx = 2048;
constexpr std::int64_t kPages = 512;
constexpr std::int64_t kPoolRows = 8;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

struct Grid {
  std::int64_t ps = 1;
  I64 seq;
  I64 rows = {3, 0, 6, 1, 5};  // non-contiguous, permuted pool rows
  I64 v2p;                     // [kPages + 1], v2p[0] = 0, trailing -1
  I32 r2t;                     // [kPoolRows, kMaxCtx], -1 past each request's allocated span

  explicit Grid(std::int64_t page_size) : ps(page_size) {
    seq = {ps, ps + 1, 3 * ps, 7 * ps - 3, 1};
    std::mt19937_64 rng(0x6b76616464720000ULL + static_cast<std::uint64_t>(ps));
    I64 phys(kPages - 1);
    std::iota(phys.begin(), phys.end(), 1);
    std::shuffle(phys.begin(), phys.end(), rng);
    v2p.assign(kPages + 1, -1);
    v2p[0] = 0;
    for (std::int64_t p = 1; p < kPages; ++p) v2p[static_cast<std::size_t>(p)] = phys[static_cast<std::size_t>(p - 1)];
    I64 free_pages(kPages - 1);
    std::iota(free_pages.begin(), free_pages.end(), 1);
    std::shuffle(free_pages.begin(), free_pages.end(), rng);
    r2t.assign(static_cast<std::size_t>(kPoolRows * kMaxCtx), -1);
    std::size_t next = 0;
    for (std::int64_t b = 0; b < kB; ++b) {
      // Room for the widest read of any test (seq + 3 ps).
      const std::int64_t n = ceil_div(seq[static_cast<std::size_t>(b)] + 3 * ps, ps);
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t vp = free_pages[next++];
        for (std::int64_t o = 0; o < ps; ++o) {
          at(rows[static_cast<std::size_t>(b)], i * ps + o) = static_cast<std::int32_t>(vp * ps + o);
        }
      }
    }
  }
  std::int32_t& at(std::int64_t row, std::int64_t col) { return r2t[static_cast<std::size_t>(row * kMaxCtx + col)]; }
  std::int64_t tok(std::int64_t b, std::int64_t col) const {
    return r2t[static_cast<std::size_t>(rows[static_cast<std::size_t>(b)] * kMaxCtx + col)];
  }
  std::int64_t v(std::int64_t page) const { return v2p[static_cast<std::size_t>(page)]; }
  Mat<const std::int32_t> req_to_token() const { return cmat(r2t, kPoolRows, kMaxCtx); }
  std::int64_t width() const { return kMaxCtx / ps; }
  std::int64_t n_pages(std::int64_t b, std::int64_t delta = 0) const {
    return ceil_div(seq[static_cast<std::size_t>(b)] + delta, ps);
  }
  // Spec §4.4 entry: page = 0 if tok < 0 else tok / ps; max(v2p[page] * M, 0).
  std::int64_t entry(std::int64_t b, std::int64_t c, std::int64_t m) const {
    const std::int64_t t = tok(b, c * ps);
    const std::int64_t page = t < 0 ? 0 : t / ps;
    return std::max<std::int64_t>(v(page) * m, 0);
  }
};

// decode_metadata over the grid's requests (lengths, req_to_token rows, ps, one page-table column a
// page); the caller adds v2p / multiplier and the outputs.
DecodeMetadataArgs decode_args(const Grid& g) {
  return decode_batch(cvec(g.seq), g.req_to_token(), cvec(g.rows), g.width(), g.ps);
}

I32 flashmla(const Grid& g, bool with_v2p, std::int64_t m) {
  I32 kv(static_cast<std::size_t>(kB * g.width()), -1);
  FlashmlaBlockTableArgs a{g.req_to_token(), cvec(g.rows), cvec(g.seq), {}, {}, g.ps, m, mmat(kv, kB, g.width())};
  if (with_v2p) a.v2p = cvec(g.v2p);
  translate::flashmla_block_table(a);
  return kv;
}

std::int32_t cell(const I32& t, std::int64_t width, std::int64_t r, std::int64_t c) {
  return t[static_cast<std::size_t>(r * width + c)];
}

class Grid3 : public ::testing::TestWithParam<std::int64_t> {};
INSTANTIATE_TEST_SUITE_P(PageSizes, Grid3, ::testing::Values(1, 32, 64));
class Grid2 : public ::testing::TestWithParam<std::int64_t> {};
INSTANTIATE_TEST_SUITE_P(PageSizes, Grid2, ::testing::Values(1, 64));
class Grid2Era : public ::testing::TestWithParam<std::int64_t> {};
INSTANTIATE_TEST_SUITE_P(PageSizes, Grid2Era, ::testing::Values(1, 32));

TEST(GridSetup, V2pIsANonIdentityPermutationWithPinnedZero) {
  const Grid g(64);
  EXPECT_EQ(g.v(0), 0);
  EXPECT_EQ(g.v(kPages), -1);
  std::int64_t moved = 0;
  for (std::int64_t p = 1; p < kPages; ++p) moved += (g.v(p) != p);
  EXPECT_GT(moved, kPages / 2);
}

// §5.2 test_dense_block_table_matches_reference + test_padded_lanes_stay_untouched.
TEST_P(Grid3, FlashmlaIsV2pTimesLOnLivePagesAndKeepsMinusOneTail) {
  const Grid g(GetParam());
  const I32 kv = flashmla(g, true, kL);
  for (std::int64_t b = 0; b < kB; ++b) {
    for (std::int64_t i = 0; i < g.width(); ++i) {
      const std::int64_t want = i < g.n_pages(b) ? g.v(g.tok(b, i * g.ps) / g.ps) * kL : -1;
      ASSERT_EQ(cell(kv, g.width(), b, i), want) << "b " << b << " i " << i;
    }
  }
}

// §5.2 test_identity_when_hooks_absent, §5.3 test_static_kernel_matches_reference (I10).
TEST_P(Grid3, StaticFlashmlaIsTokOverPs) {
  const Grid g(GetParam());
  const I32 kv = flashmla(g, false, 1);
  for (std::int64_t b = 0; b < kB; ++b)
    for (std::int64_t i = 0; i < g.width(); ++i)
      ASSERT_EQ(cell(kv, g.width(), b, i), i < g.n_pages(b) ? g.tok(b, i * g.ps) / g.ps : -1);
}

// §5.2 test_single_full_attention_layer_still_maps_v2p (B03): M = 1 still gathers.
TEST_P(Grid2, SingleLayerStillMapsV2p) {
  const Grid g(GetParam());
  const I32 kv = flashmla(g, true, 1);
  const I32 virt = flashmla(g, false, 1);
  for (std::int64_t b = 0; b < kB; ++b)
    for (std::int64_t i = 0; i < g.n_pages(b); ++i)
      ASSERT_EQ(cell(kv, g.width(), b, i), g.v(g.tok(b, i * g.ps) / g.ps));
  EXPECT_NE(kv, virt);
}

// §5.2 test_agrees_with_token_level_dense_translate (I7): block * ps = d(first token of page).
TEST_P(Grid3, BlockTimesPsIsTokenTranslateOfFirstToken) {
  const Grid g(GetParam());
  const I32 kv = flashmla(g, true, kL);
  I64 first, block;
  for (std::int64_t b = 0; b < kB; ++b) {
    for (std::int64_t i = 0; i < g.n_pages(b); ++i) {
      first.push_back(g.tok(b, i * g.ps));
      block.push_back(std::int64_t{cell(kv, g.width(), b, i)} * g.ps);
    }
  }
  I64 d(first.size());
  translate::token_translate<std::int64_t>({cvec(first), cvec(g.v2p), g.ps, kL, mvec(d)});
  EXPECT_EQ(d, block);
}

// §5.2 TestFa3MetadataDenseBlockTable: ps1 fast path / general path, M 24 and M 1, identity.
TEST_P(Grid2, DecodeMetadataLivePrefixEqualsFlashmla) {
  const Grid g(GetParam());
  for (const bool with_v2p : {true, false}) {
    for (const std::int64_t m : {kL, std::int64_t{1}}) {
      if (!with_v2p && m != 1) continue;
      const I32 kv = flashmla(g, with_v2p, m);
      I32 cache(kB, 777), cu(kB + 1, 777), table(static_cast<std::size_t>(kB * g.width()), 777);
      DecodeMetadataArgs a = decode_args(g);
      if (with_v2p) a.v2p = cvec(g.v2p);
      a.multiplier = m;
      a.cache_seqlens = mvec(cache);
      a.cu_seqlens_k = mvec(cu);
      a.page_table = mmat(table, kB, g.width());
      translate::decode_metadata(a);
      std::int32_t sum = 0;
      ASSERT_EQ(cu[0], 0);
      for (std::int64_t b = 0; b < kB; ++b) {
        ASSERT_EQ(cache[static_cast<std::size_t>(b)], g.seq[static_cast<std::size_t>(b)]);
        sum += cache[static_cast<std::size_t>(b)];
        ASSERT_EQ(cu[static_cast<std::size_t>(b + 1)], sum);
        for (std::int64_t c = 0; c < g.width(); ++c) {
          const std::int32_t want = c < g.n_pages(b) ? cell(kv, g.width(), b, c) : 777;  // prefix-only
          ASSERT_EQ(cell(table, g.width(), b, c), want) << "b " << b << " c " << c;
        }
      }
    }
  }
}

// §5.2 @ 1222cf40: canonical table fed to decode_metadata(src_is_kernel_page_table = True).
TEST_P(Grid2, CanonicalThroughDecodeCopyEqualsFlashmla) {
  const Grid g(GetParam());
  const I32 kv = flashmla(g, true, kL);
  I32 canon(static_cast<std::size_t>(kB * g.width()), -5);
  translate::canonical_page_table(
      {g.req_to_token(), cvec(g.rows), cvec(g.seq), cvec(g.v2p), g.ps, kL, g.width(), mmat(canon, kB, g.width())});
  I32 cache(kB), cu(kB + 1), table(static_cast<std::size_t>(kB * g.width()), -1);
  DecodeMetadataArgs a;
  a.seq_lens = cvec(g.seq);
  a.max_seq_pages = g.width();
  a.page_size = g.ps;
  a.kernel_page_table = cmat(canon, kB, g.width());
  a.cache_seqlens = mvec(cache);
  a.cu_seqlens_k = mvec(cu);
  a.page_table = mmat(table, kB, g.width());
  translate::decode_metadata(a);
  EXPECT_EQ(table, kv);
}

// ---- §5.3 (Era D, M = 1) -------------------------------------------------------------------------
I32 read_table(const Grid& g, const I64& seq, std::int64_t delta, std::int64_t max_pages, std::int64_t out_rows,
               std::int64_t out_cols, std::int32_t fill, bool zero_tail = false,
               Variant v = Variant::production) {
  I32 out(static_cast<std::size_t>(out_rows * out_cols), fill);
  ReadTableArgs a{g.req_to_token(), cvec(g.rows), cvec(seq), delta, max_pages, cvec(g.v2p), g.ps, 1,
                  mmat(out, out_rows, out_cols)};
  a.zero_tail = zero_tail;
  a.variant = v;
  translate::read_table(a);
  return out;
}

TEST_P(Grid2Era, SeqLenDeltaMatchesWidenedLens) {
  const Grid g(GetParam());
  const std::int64_t delta = g.ps + 1;
  I64 widened = g.seq;
  for (auto& s : widened) s += delta;
  const I32 with_delta = read_table(g, g.seq, delta, g.width(), kB, g.width(), -1);
  EXPECT_EQ(with_delta, read_table(g, widened, 0, g.width(), kB, g.width(), -1));
  EXPECT_NE(with_delta, read_table(g, g.seq, 0, g.width(), kB, g.width(), -1));
  for (std::int64_t b = 0; b < kB; ++b)
    for (std::int64_t c = 0; c < g.width(); ++c)
      ASSERT_EQ(cell(with_delta, g.width(), b, c), c < g.n_pages(b, delta) ? g.entry(b, c, 1) : -1);
}

TEST_P(Grid2Era, RowsStopAtTheTableWidth) {
  const Grid g(GetParam());
  const std::int64_t delta = 2 * g.ps;
  const std::int64_t max_pages = 3;
  const I32 out = read_table(g, g.seq, delta, max_pages, kB + 1, max_pages, 777);  // row kB = guard row
  for (std::int64_t b = 0; b < kB; ++b)
    for (std::int64_t c = 0; c < max_pages; ++c)
      ASSERT_EQ(cell(out, max_pages, b, c), c < g.n_pages(b, delta) ? g.entry(b, c, 1) : 777);
  for (std::int64_t c = 0; c < max_pages; ++c) EXPECT_EQ(cell(out, max_pages, kB, c), 777);
  if (g.ps == 32) {  // row 3 has ceil((7*32 - 3 + 64) / 32) = 9 pages: B10 spills two rows down
    const I32 bug =
        read_table(g, g.seq, delta, max_pages, kB + 1, max_pages, 777, false, Variant::b10_no_max_pages_bound);
    EXPECT_EQ(cell(bug, max_pages, kB, 0), g.entry(3, 6, 1));
    EXPECT_NE(bug, out);
  }
}

TEST_P(Grid2Era, ZeroTailFillsAFreshTable) {
  const Grid g(GetParam());
  std::int64_t live = 0;
  for (std::int64_t b = 0; b < kB; ++b) live = std::max(live, g.n_pages(b));
  const std::int64_t max_pages = live + 2;
  const std::int64_t cols = max_pages + 1;  // guard column
  const I32 out = read_table(g, g.seq, 0, max_pages, kB + 2, cols, 7, true);
  for (std::int64_t b = 0; b < kB + 2; ++b) {
    for (std::int64_t c = 0; c < cols; ++c) {
      std::int64_t want = 7;
      if (c < max_pages) want = (b < kB && c < g.n_pages(b)) ? g.entry(b, c, 1) : 0;
      ASSERT_EQ(cell(out, cols, b, c), want) << "b " << b << " c " << c;
    }
  }
}

TEST_P(Grid3, TableAndStreamAgree) {
  const Grid g(GetParam());
  const std::int64_t delta = 1;
  const std::int64_t rows = kB + 2;  // two padded rows
  const I32 table = read_table(g, g.seq, delta, g.width(), rows, g.width(), -9, true);
  const I64 starts = {0, 1, g.ps, 2, 0, 0, 0};
  I32 indptr = {0};
  for (std::int64_t b = 0; b < rows; ++b) {
    const std::int64_t len = b < kB ? g.seq[static_cast<std::size_t>(b)] + delta : g.ps + 1;
    const std::int64_t count = len - (b < kB ? starts[static_cast<std::size_t>(b)] : 0);
    indptr.push_back(indptr.back() + static_cast<std::int32_t>(count));
  }
  I32 stream(static_cast<std::size_t>(indptr.back()) + 3, 777);
  translate::read_stream({cmat(table, rows, g.width()), cvec(indptr), cvec(starts), g.ps, mvec(stream)});
  for (std::int64_t b = 0; b < rows; ++b) {
    for (std::int32_t j = indptr[static_cast<std::size_t>(b)]; j < indptr[static_cast<std::size_t>(b) + 1]; ++j) {
      const std::int64_t pos = starts[static_cast<std::size_t>(b)] + (j - indptr[static_cast<std::size_t>(b)]);
      // Live rows: phys of the virtual token at pos; padded rows: the sink page, pos % ps.
      const std::int64_t want =
          b < kB ? g.v(g.tok(b, pos - pos % g.ps) / g.ps) * g.ps + pos % g.ps : pos % g.ps;
      ASSERT_EQ(stream[static_cast<std::size_t>(j)], want) << "b " << b << " j " << j;
    }
  }
  for (std::size_t j = static_cast<std::size_t>(indptr.back()); j < stream.size(); ++j) EXPECT_EQ(stream[j], 777);
}

TEST_P(Grid3, ReadTableIsV2pOfVirtualPageAndAgreesWithTokenTranslate) {
  const Grid g(GetParam());
  const I32 out = read_table(g, g.seq, 0, g.width(), kB, g.width(), -1);
  const I32 virt = flashmla(g, false, 1);
  EXPECT_NE(out, virt);
  I64 first, block;
  for (std::int64_t b = 0; b < kB; ++b) {
    for (std::int64_t c = 0; c < g.width(); ++c) {
      ASSERT_EQ(cell(out, g.width(), b, c), c < g.n_pages(b) ? g.v(g.tok(b, c * g.ps) / g.ps) : -1);
      if (c < g.n_pages(b)) {
        first.push_back(g.tok(b, c * g.ps));
        block.push_back(std::int64_t{cell(out, g.width(), b, c)} * g.ps);
      }
    }
  }
  I64 phys(first.size());
  translate::token_translate<std::int64_t>({cvec(first), cvec(g.v2p), g.ps, 1, mvec(phys)});
  EXPECT_EQ(phys, block);
}

// §5.3 TestFa3MetadataBlockTable: prefix sums only, then the read table into page_table.
TEST_P(Grid2, EraDPrefixSumsThenReadTable) {
  const Grid g(GetParam());
  I32 cache(kB), cu(kB + 1), table(static_cast<std::size_t>(kB * g.width()), 777);
  DecodeMetadataArgs a = decode_args(g);
  a.skip_page_table = true;
  a.cache_seqlens = mvec(cache);
  a.cu_seqlens_k = mvec(cu);
  a.page_table = mmat(table, kB, g.width());
  translate::decode_metadata(a);
  EXPECT_EQ(table, I32(table.size(), 777));
  const I64 lens(cache.begin(), cache.end());
  translate::read_table({g.req_to_token(), cvec(g.rows), cvec(lens), 0, g.width(), cvec(g.v2p), g.ps, 1,
                         mmat(table, kB, g.width())});
  for (std::int64_t b = 0; b < kB; ++b)
    for (std::int64_t c = 0; c < g.width(); ++c)
      ASSERT_EQ(cell(table, g.width(), b, c), c < g.n_pages(b) ? g.v(g.tok(b, c * g.ps) / g.ps) : 777);
}

// ---- §5.5 test_translate_v2p_fusion.py ------------------------------------------------------------
constexpr std::int64_t kFusionPages = 32;

I64 fusion_v2p() {
  I64 v(kFusionPages + 1);
  for (std::int64_t p = 0; p < kFusionPages; ++p) v[static_cast<std::size_t>(p)] = kFusionPages - p;
  v[2] = -1;
  v[7] = -1;
  v[kFusionPages] = -1;
  return v;
}

// d(t) = t < 0 ? 0 : max(v2p[t / ps] * ps * M + t % ps, 0)
std::int64_t fusion_expected(const I64& v2p, std::int64_t t, std::int64_t ps, std::int64_t m) {
  if (t < 0) return 0;
  return std::max<std::int64_t>(v2p[static_cast<std::size_t>(t / ps)] * ps * m + t % ps, 0);
}

class Fusion : public ::testing::TestWithParam<std::tuple<std::int64_t, std::int64_t>> {};
INSTANTIATE_TEST_SUITE_P(PsM, Fusion,
                         ::testing::Combine(::testing::Values(1, 4, 256), ::testing::Values(1, 3)));

TEST_P(Fusion, MatchesReferenceAcrossPageSizesAndStrides) {
  const auto [ps, m] = GetParam();
  const I64 v2p = fusion_v2p();
  I64 ids;
  for (std::int64_t t = 0; t < kFusionPages * ps; ++t) {
    ids.push_back(t);
    if (t % 5 == 0) ids.push_back(-1);
  }
  I64 out(ids.size(), 777);
  translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), ps, m, mvec(out)});
  std::int64_t zeros = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(out[i], fusion_expected(v2p, ids[i], ps, m)) << "t " << ids[i];
    zeros += out[i] == 0;
  }
  EXPECT_GT(zeros, 2 * ps);  // tombstoned pages and padding hit the sink
  // Aliasing: the same call written over its input.
  I64 buf = ids;
  translate::token_translate<std::int64_t>({cvec(buf), cvec(v2p), ps, m, mvec(buf)});
  EXPECT_EQ(buf, out);
  // int32 output (translate_v2p / SWA tests): same values.
  I32 out32(ids.size(), 777);
  translate::swa_translate<std::int32_t>({cvec(ids), cvec(v2p), ps, m, mvec(out32)});
  EXPECT_TRUE(std::equal(out.begin(), out.end(), out32.begin()));
}

TEST(Fusion, TombstonedPageAndPaddingLandOnTheSink) {
  const I64 v2p = fusion_v2p();
  const I64 ids = {2 * 8 + 0, 2 * 8 + 7, -1, 7 * 8 + 3};
  I64 out(4, 777);
  translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), 8, 3, mvec(out)});
  EXPECT_EQ(out, (I64{0, 0, 0, 0}));
}

}  // namespace
}  // namespace kvaddr
