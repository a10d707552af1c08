// The C++ harness on canonical_page_table, flashmla_block_table, decode_metadata and kv_indices_inplace:
// host kernels written from the spec pass; planted catalogue bugs are caught with their first differing
// lane, shrunk and named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"
#include "planted.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using std::int32_t;
using std::int64_t;

int32_t entry(const int64_t* v2p, int64_t tok, int64_t ps, int64_t m) {
  const int64_t page = tok < 0 ? 0 : tok / ps;
  return static_cast<int32_t>(std::max<int64_t>(v2p[page] * m, 0));
}

// ---- canonical_page_table ----------------------------------------------------------------------------
void my_canonical(const CanonicalPageTableArgs& a, bool batch_rows) {
  const int64_t ps = a.page_size;
  for (int64_t b = 0; b < a.req_pool_indices.size; ++b) {
    const int64_t n = std::min((a.seq_lens.data[b] + ps - 1) / ps, a.max_pages);
    const int64_t row = batch_rows ? b : a.req_pool_indices.data[b];
    for (int64_t c = 0; c < n; ++c)
      a.out.data[b * a.out.row_stride + c] = entry(a.v2p.data, a.req_to_token.data[row * a.req_to_token.row_stride + c * ps], ps, a.multiplier);
  }
}

TEST(HarnessRoutes, CanonicalPageTable) {
  harness_test::check_good_and_planted(
      harness::check_canonical_page_table, my_canonical,
      {.cases = 150, .seed = 5, .overflow_fraction = 0.0}, {.cases = 100, .seed = 5},
      {.kind = "mismatch", .named = {"e10_batch_index_rows"}, .output = "out"},
      [](const harness::Report& ok, const harness::Report& r) {
        EXPECT_GE(ok.cases, 140);
        EXPECT_EQ(r.first[0].region, "out");
        EXPECT_EQ(r.first[0].row, 0) << r.to_text();
        // shrunk to one batch row reading pool row 1 of a two-row req_to_token: row 0 is what the bug reads
        EXPECT_NE(r.minimal_case.find("req_pool_indices=[1]"), std::string::npos) << r.minimal_case;
        EXPECT_NE(r.minimal_case.find("req_to_token [2, "), std::string::npos) << r.minimal_case;
        EXPECT_EQ(r.differing, 1);
      });
}

// ---- flashmla_block_table -------------------------------------------------------------------------------
void my_flashmla(const FlashmlaBlockTableArgs& a, bool floor_pages) {
  const int64_t ps = a.page_size;
  for (int64_t b = 0; b < a.req_pool_indices.size; ++b) {
    const int64_t len = a.page_kernel_lens.data[b];
    const int64_t n = std::min(floor_pages ? len / ps : (len + ps - 1) / ps, a.kv_indices.cols);
    const int64_t start = a.kv_start_idx.present() ? a.kv_start_idx.data[b] : 0;
    const int32_t* row = a.req_to_token.data + a.req_pool_indices.data[b] * a.req_to_token.row_stride;
    for (int64_t i = 0; i < n; ++i)
      a.kv_indices.data[b * a.kv_indices.row_stride + i] = entry(a.v2p.data, row[start + i * ps], ps, a.multiplier);
  }
}

TEST(HarnessRoutes, FlashmlaBlockTable) {
  harness_test::check_good_and_planted(
      harness::check_flashmla_block_table, my_flashmla, {.cases = 150, .seed = 6}, {.cases = 100, .seed = 6},
      // one row, one partial page: one lane left as the sentinel
      {.kind = "mismatch", .named = {"e09_floor_pages"}, .only = true, .lanes = 1, .output = "kv_indices", .row = 0},
      [](const harness::Report&, const harness::Report& r) {
        EXPECT_LE(r.first[0].actual, -0x2A2A0000);  // the prefill stayed
        EXPECT_GE(r.first[0].expected, 0);
      });
}

// ---- decode_metadata -----------------------------------------------------------------------------------
void my_decode(const DecodeMetadataArgs& a, bool batch_rows, bool delta_in_sums) {
  int64_t shift = 0;
  while ((int64_t{1} << shift) < a.page_size) ++shift;
  a.cu_seqlens_k.data[0] = 0;
  for (int64_t b = 0; b < a.seq_lens.size; ++b) {
    const int64_t len = a.seq_lens.data[b] + a.seq_len_delta;
    a.cache_seqlens.data[b] = static_cast<int32_t>(len);
    a.cu_seqlens_k.data[b + 1] =
        static_cast<int32_t>(a.cu_seqlens_k.data[b] + (delta_in_sums ? len : a.seq_lens.data[b]));
    const int64_t live = std::min((len + a.page_size - 1) >> shift, a.max_seq_pages);
    const int64_t row = batch_rows ? b : a.req_pool_indices.data[b];
    for (int64_t c = 0; c < live; ++c) {
      const int64_t tok = a.req_to_token.data[row * a.req_to_token.row_stride + c * a.page_size];
      const int64_t page = tok < 0 ? 0 : tok >> shift;
      a.page_table.data[b * a.page_table.row_stride + c] =
          static_cast<int32_t>(std::max<int64_t>(a.v2p.data[page] * a.multiplier, 0));
    }
  }
}

TEST(HarnessRoutes, DecodeMetadata) {
  harness_test::check_good_and_planted(
      harness::check_decode_metadata, [](const auto& a, bool planted) { my_decode(a, planted, true); },
      {.cases = 150, .seed = 7}, {.cases = 100, .seed = 7},
      {.named = {"e10_batch_index_rows"}, .output = "page_table"},
      [](const harness::Report&, const harness::Report& r) {
        EXPECT_EQ(r.first[0].row, 0);
        EXPECT_NE(r.minimal_case.find("req_pool_indices=[1]"), std::string::npos) << r.minimal_case;
        EXPECT_NE(r.minimal_case.find("req_to_token [2, "), std::string::npos) << r.minimal_case;
        // prefix sums without seq_len_delta: cu_seqlens_k differs from lane 1 on, named by no variant
        const auto s = harness::check_decode_metadata([](const auto& a) { my_decode(a, false, false); },
                                                      Options{.cases = 100, .seed = 7});
        ASSERT_FALSE(s.ok);
        EXPECT_EQ(s.kind, "mismatch");
        ASSERT_FALSE(s.first.empty());
        EXPECT_EQ(s.first[0].output, "cu_seqlens_k");
        EXPECT_EQ(s.first[0].col, 1);
        const auto at = s.minimal_case.find("seq_len_delta=");
        ASSERT_NE(at, std::string::npos);
        const int64_t delta = std::stoll(s.minimal_case.substr(at + 14));
        EXPECT_GT(delta, 0);
        EXPECT_EQ(s.differing, 1) << s.to_text();  // one row: only cu_seqlens_k[1] lacks the delta
        EXPECT_EQ(s.first[0].expected - s.first[0].actual, delta);
        EXPECT_TRUE(s.behaves_like.empty()) << s.to_text();
        EXPECT_NE(s.to_text().find("cu_seqlens_k[1] (out): expected"), std::string::npos) << s.to_text();
        // the pool shrank too: one page, and its padding entry made live (a candidate of gen/shrink.hpp)
        EXPECT_NE(s.minimal_case.find("v2p=[0, 1]"), std::string::npos) << s.minimal_case;
      });
}

// ---- kv_indices_inplace --------------------------------------------------------------------------------
void my_kv_indices(const KvIndicesInplaceArgs& a, bool rebind) {
  const int64_t n = a.kv_indptr.data[a.batch_size];
  std::vector<int32_t> fresh(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t t = a.kv_indices.data[i];
    const int64_t d = t < 0 ? 0
                            : std::max<int64_t>(a.v2p.data[t / a.page_size] * a.page_size * a.multiplier + t % a.page_size, 0);
    (rebind ? fresh[static_cast<std::size_t>(i)] : a.kv_indices.data[i]) = static_cast<int32_t>(d);
  }
}

TEST(HarnessRoutes, KvIndicesInplace) {
  harness_test::check_good_and_planted(
      harness::check_kv_indices_inplace, my_kv_indices, {.cases = 150, .seed = 8}, {.cases = 100, .seed = 8},
      // shrunk to one id that moves
      {.kind = "mismatch", .named = {"b05_rebind_fresh"}, .only = true, .lanes = 1, .output = "kv_indices", .col = 0},
      [](const harness::Report&, const harness::Report& r) {
        EXPECT_NE(r.first[0].actual, r.first[0].expected);
        // the bound buffer kept its virtual id: the lane's value is the id it held before the call
        EXPECT_NE(r.minimal_case.find("(before=[" + std::to_string(r.first[0].actual) + "])"), std::string::npos)
            << r.minimal_case;
      });
}

TEST(HarnessRoutes, StaleTailWriterIsCaughtOutsideTheLiveIds) {
  const auto r = harness::check_kv_indices_inplace(
      [](const KvIndicesInplaceArgs& a) {
        my_kv_indices(a, false);
        for (int64_t i = a.kv_indptr.data[a.batch_size]; i < a.kv_indices.size; ++i) a.kv_indices.data[i] = 0;
      },
      Options{.cases = 100, .seed = 8});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  ASSERT_FALSE(r.first.empty());
  EXPECT_EQ(r.first[0].actual, 0);
  EXPECT_EQ(r.first[0].expected, (int64_t{1} << 31) - 1);  // the first stale id, which must stay
}

}  // namespace
