// The C++ harness on host-memory kernels written from the spec: correct ones pass, planted ones are
// caught, shrunk and named (exact report contents).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "kvaddr/harness/check.hpp"
#include "planted.hpp"
#include "kvaddr/model/errors.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using std::int64_t;
using harness_test::kernel_id;

void my_translate(const TokenTranslateArgs<int64_t>& a) {
  for (int64_t i = 0; i < a.ids.size; ++i)
    a.out.data[i] = kernel_id(a.v2p.data, a.page_size, a.multiplier, a.ids.data[i]);
}

TEST(Harness, CorrectTranslatePasses) {
  const auto r = harness::check_token_translate(my_translate, Options{.cases = 150, .seed = 3});
  EXPECT_TRUE(r.ok) << r.to_text();
  EXPECT_EQ(r.cases + r.rejected, 150);
  EXPECT_GT(r.lanes, r.cases * 128);  // buffers plus both 64-lane guards
}

TEST(Harness, DocFormulaIsNamedB17) {
  const auto r = harness::check_token_translate(
      [](const TokenTranslateArgs<int64_t>& a) {
        for (int64_t i = 0; i < a.ids.size; ++i) {
          const int64_t t = a.ids.data[i];
          a.out.data[i] = t < 0 ? 0 : (t / a.page_size) * a.page_size * a.multiplier + t % a.page_size;
        }
      },
      Options{.cases = 50, .seed = 1});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_NE(std::find(r.behaves_like.begin(), r.behaves_like.end(), "b17_doc_formula"), r.behaves_like.end())
      << r.to_text();
  EXPECT_EQ(r.differing, 1) << r.to_text();  // shrunk to one id
  ASSERT_EQ(r.first.size(), 1U);
  EXPECT_EQ(r.first[0].region, "out");
}

TEST(Harness, WriteJustPastTheOutputIsOutOfBounds) {
  const auto r = harness::check_token_translate(
      [](const TokenTranslateArgs<int64_t>& a) {
        my_translate(a);
        a.out.data[a.out.size] = 12345;  // lands in the guard after the buffer
      },
      Options{.cases = 10, .seed = 1});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "out_of_bounds");
  ASSERT_EQ(r.first.size(), 1U);
  EXPECT_EQ(r.first[0].region, "guard_after");
  EXPECT_EQ(r.first[0].col, 0);
  EXPECT_EQ(r.first[0].actual, 12345);
  EXPECT_TRUE(r.behaves_like.empty());
}

TEST(Harness, RaisingKernelShrinksToTheSmallestRaisingBatch) {
  const auto r = harness::check_token_translate(
      [](const TokenTranslateArgs<int64_t>& a) {
        if (a.ids.size > 3) throw std::runtime_error("too many ids");
        my_translate(a);
      },
      Options{.cases = 10, .seed = 1});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "raised");
  EXPECT_EQ(r.detail, "too many ids");
  EXPECT_NE(r.minimal_case.find("out 4 lanes"), std::string::npos) << r.minimal_case;
}

void my_write_loc(const WriteLocArgs& a, bool clear_tail) {
  for (int64_t i = 0; i < a.loc.size; ++i) {
    const int64_t loc = a.loc.data[i];
    const bool keep = loc > 0 && loc % a.dcp_size == a.dcp_rank;
    a.out.data[i] = keep ? kernel_id(a.v2p.data, a.page_size, a.multiplier, loc / a.dcp_size) : 0;
  }
  if (clear_tail)
    for (int64_t i = a.loc.size; i < a.out.size; ++i) a.out.data[i] = 0;
}

TEST(Harness, WriteLocWithAndWithoutTheTailClear) {
  harness_test::check_good_and_planted(
      harness::check_write_loc, [](const WriteLocArgs& a, bool planted) { my_write_loc(a, !planted); },
      {.cases = 150, .seed = 2}, {.cases = 50, .seed = 2},
      {.named = {"b06_stale_tail"}, .only = true}, [](const harness::Report&, const harness::Report& r) {
        EXPECT_EQ(r.differing, 1) << r.to_text();  // one stale lane after one loc
        EXPECT_EQ(r.first[0].col, 1);
        EXPECT_EQ(r.first[0].expected, 0);
      });
}

void my_read_table(const ReadTableArgs& a, bool bound) {
  const int64_t ps = a.page_size;
  for (int64_t b = 0; b < a.row_ids.size; ++b) {
    const int64_t n = (a.seq_lens.data[b] + a.seq_len_delta + ps - 1) / ps;
    // The unbounded version stops 8 columns past max_pages so that it stays inside the harness's
    // 64-lane guard (an in-process writer further out would corrupt the test's own heap).
    const int64_t live = bound ? std::min(n, a.max_pages) : std::min(n, a.max_pages + 8);
    const int32_t* row = a.req_to_token.data + a.row_ids.data[b] * a.req_to_token.row_stride;
    for (int64_t c = 0; c < live; ++c) {
      const int64_t tok = row[c * ps];
      const int64_t page = tok < 0 ? 0 : tok / ps;
      a.out.data[b * a.out.row_stride + c] = static_cast<int32_t>(std::max<int64_t>(a.v2p.data[page] * a.multiplier, 0));
    }
    if (a.zero_tail)
      for (int64_t c = std::min(n, a.max_pages); c < a.max_pages; ++c) a.out.data[b * a.out.row_stride + c] = 0;
  }
  if (a.zero_tail)
    for (int64_t r = a.row_ids.size; r < a.out.rows; ++r)
      for (int64_t c = 0; c < a.max_pages; ++c) a.out.data[r * a.out.row_stride + c] = 0;
}

TEST(Harness, ReadTableAndItsMaxPagesBound) {
  harness_test::check_good_and_planted(
      harness::check_read_table, [](const ReadTableArgs& a, bool planted) { my_read_table(a, !planted); },
      {.cases = 150, .seed = 4}, {.cases = 300, .seed = 4},
      {.named = {"b10_no_max_pages_bound"}});
}

TEST(Harness, DeviceMemoryNeedsCudaAndAGpu) {
  try {
    const auto r = harness::check_token_translate(
        [](const TokenTranslateArgs<int64_t>&) {}, Options{.cases = 1, .memory = harness::Memory::device});
    EXPECT_FALSE(r.ok);  // a GPU is present: the kernel that writes nothing is caught
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "memory");
    EXPECT_EQ(e.value(), "device");
  }
}

}  // namespace
