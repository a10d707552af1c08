// The C++ harness on the routes it builds from their spec's field list: swa_translate, dcp_read_translate,
// transfer_ids, mamba_translate, full_prefill_table and eager_funnel. Host kernels written from the spec
// pass; planted catalogue bugs are caught with their first differing lane, shrunk and named. The expected and
// actual values of that lane are recomputed here from the reported minimal case.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"
#include "planted.hpp"
#include "kvaddr/model/errors.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using harness::Report;
using std::int32_t;
using std::int64_t;
using harness_test::names;

using harness_test::kernel_id;
using harness_test::list_in;
using harness_test::scalar_in;


// ---- swa_translate -----------------------------------------------------------------------------------
void my_swa(const SwaTranslateArgs<int64_t>& a, bool clamp) {
  for (int64_t i = 0; i < a.ids.size; ++i) {
    const int64_t t = a.ids.data[i];
    const int64_t raw = t < 0 ? 0 : a.swa_v2p.data[t / a.page_size] * a.page_size * a.swa_multiplier + t % a.page_size;
    a.out.data[i] = clamp ? std::max<int64_t>(raw, 0) : raw;
  }
}

TEST(HarnessSpecRoutes, SwaTranslateAndItsTombstoneClamp) {
  int64_t seen = 0;  // each call's output lanes plus its two 64-lane guards
  const auto ok = harness::check_swa_translate(
      [&seen](const auto& a) {
        seen += a.out.size + 128;
        my_swa(a, true);
      },
      Options{.cases = 200, .seed = 11});
  EXPECT_TRUE(ok.ok) << ok.to_text();
  EXPECT_EQ(ok.lanes, seen);
  // every drawn case is admitted but those kvaddr.check presents with the ids inside a longer out at an offset
  EXPECT_EQ(harness_test::rejected_layouts(Route::swa_translate, 11, 200), 14);
  EXPECT_EQ(ok.rejected, 14);
  EXPECT_EQ(ok.rejections, (std::map<std::string, int64_t>{{"InvalidArgument(out)", 14}}));
  EXPECT_EQ(ok.cases, 186);
  const auto r = harness::check_swa_translate([](const auto& a) { my_swa(a, false); }, Options{.cases = 100, .seed = 11});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_EQ(r.behaves_like, std::vector<std::string>{"b11_swa_no_clamp"}) << r.to_text();
  EXPECT_EQ(r.differing, 1) << r.to_text();  // one id on a tombstoned page
  ASSERT_EQ(r.first.size(), 1U);
  EXPECT_EQ(r.first[0].output, "out");
  EXPECT_EQ(r.first[0].region, "out");
  EXPECT_EQ(r.first[0].col, 0);
  const std::vector<int64_t> ids = list_in(r.minimal_case, "ids"), tab = list_in(r.minimal_case, "swa_v2p");
  const int64_t ps = scalar_in(r.minimal_case, "page_size"), m = scalar_in(r.minimal_case, "swa_multiplier");
  ASSERT_EQ(ids.size(), 1U) << r.minimal_case;
  EXPECT_EQ(m, 1) << r.minimal_case;  // the multiplier shrank to 1
  EXPECT_EQ(tab[static_cast<std::size_t>(ids[0] / ps)], -1) << r.minimal_case;
  EXPECT_EQ(r.first[0].expected, 0);
  EXPECT_EQ(r.first[0].actual, -ps + ids[0] % ps);
}

// An out wider than the ids holds them at an offset (kvaddr.check's partial overlap): validation rejects the call,
// so a kernel is never handed an out with lanes past its ids; out == ids (offset 0) is admitted and run.
TEST(HarnessSpecRoutes, SwaTranslateIdsInsideALongerOutAreRejectedNotRun) {
  int64_t wider = 0, same = 0, calls = 0;
  const auto r = harness::check_swa_translate(
      [&](const SwaTranslateArgs<int64_t>& a) {
        ++calls;
        wider += a.out.size > a.ids.size ? 1 : 0;
        same += a.out.data == a.ids.data ? 1 : 0;
        my_swa(a, true);
      },
      Options{.cases = 100, .seed = 11});
  EXPECT_TRUE(r.ok) << r.to_text();
  EXPECT_EQ(wider, 0);
  EXPECT_GT(same, 0);
  EXPECT_EQ(r.rejected, harness_test::rejected_layouts(Route::swa_translate, 11, 100));
  EXPECT_GT(r.rejected, 0);
  EXPECT_EQ(calls + r.rejected, 100);
}

// ---- dcp_read_translate ------------------------------------------------------------------------------
void my_dcp_read(const DcpReadTranslateArgs& a, bool translate) {
  for (int64_t i = 0; i < a.ids.size; ++i) {
    const int64_t w = a.ids.data[i];
    const int64_t t = w < 0 ? -1 : w / a.dcp_size;
    a.out.data[i] = translate ? kernel_id(a.v2p.data, a.page_size, a.multiplier, t) : std::max<int64_t>(t, 0);
  }
}

TEST(HarnessSpecRoutes, DcpReadTranslateCollapsedButUntranslated) {
  harness_test::check_good_and_planted(
      harness::check_dcp_read_translate, [](const auto& a, bool planted) { my_dcp_read(a, !planted); },
      {.cases = 200, .seed = 12}, {.cases = 50, .seed = 12},
      {.kind = "mismatch", .named = {"b14_dcp_untranslated"}, .only = true, .lanes = 1},
      [](const harness::Report& ok, const harness::Report& r) {
        EXPECT_EQ(harness_test::rejected_layouts(Route::dcp_read_translate, 12, 200), 16);
        EXPECT_EQ(ok.cases, 184);  // the others: ids inside a longer out (kvaddr.check's rejected overlap)
        EXPECT_EQ(ok.rejected, 16);
        EXPECT_EQ(r.first[0].col, 0);
        const std::vector<int64_t> ids = list_in(r.minimal_case, "ids"), v2p = list_in(r.minimal_case, "v2p");
        const int64_t ps = scalar_in(r.minimal_case, "page_size"), m = scalar_in(r.minimal_case, "multiplier");
        const int64_t dcp = scalar_in(r.minimal_case, "dcp_size");
        ASSERT_EQ(ids.size(), 1U) << r.minimal_case;
        EXPECT_EQ(dcp, 1) << r.minimal_case;  // the collapse is not what differs: dcp_size shrank to 1
        EXPECT_EQ(r.first[0].expected, kernel_id(v2p.data(), ps, m, ids[0]));
        EXPECT_EQ(r.first[0].actual, ids[0]);
      });
}

TEST(HarnessSpecRoutes, DcpReadRaisingKernelShrinksToTheSmallestRaisingBatch) {
  const auto r = harness::check_dcp_read_translate(
      [](const DcpReadTranslateArgs& a) {
        if (a.ids.size > 3) throw std::runtime_error("too many ids");
        my_dcp_read(a, true);
      },
      Options{.cases = 20, .seed = 12});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "raised");
  EXPECT_EQ(r.detail, "too many ids");
  EXPECT_TRUE(r.behaves_like.empty());
  EXPECT_EQ(list_in(r.minimal_case, "ids").size(), 4U) << r.minimal_case;
  EXPECT_NE(r.minimal_case.find("out 4 lanes"), std::string::npos) << r.minimal_case;  // the tail shrank away
}

// ---- transfer_ids ------------------------------------------------------------------------------------
void my_transfer(const TransferIdsArgs& a, bool physical) {
  for (int64_t i = 0; i < a.ids.size; ++i) {
    const int64_t t = a.ids.data[i];
    a.out.data[i] = physical ? kernel_id(a.v2p.data, a.page_size, 1, t) : std::max<int64_t>(t, 0);
  }
}

TEST(HarnessSpecRoutes, TransferIdsVirtualAsPhysical) {
  harness_test::check_good_and_planted(
      harness::check_transfer_ids, [](const auto& a, bool planted) { my_transfer(a, !planted); },
      {.cases = 200, .seed = 13}, {.cases = 50, .seed = 13},
      {.named = {"b16_virtual_as_physical"}, .only = true, .lanes = 1},
      [](const harness::Report& ok, const harness::Report& r) {
        EXPECT_EQ(harness_test::rejected_layouts(Route::transfer_ids, 13, 200), 11);
        EXPECT_EQ(ok.cases, 189);  // the others: ids inside a longer out (kvaddr.check's rejected overlap)
        EXPECT_EQ(ok.rejected, 11);
        const std::vector<int64_t> ids = list_in(r.minimal_case, "ids"), v2p = list_in(r.minimal_case, "v2p");
        const int64_t ps = scalar_in(r.minimal_case, "page_size");
        ASSERT_EQ(ids.size(), 1U) << r.minimal_case;
        EXPECT_EQ(r.first[0].expected, kernel_id(v2p.data(), ps, 1, ids[0]));
        EXPECT_EQ(r.first[0].actual, std::max<int64_t>(ids[0], 0));
        EXPECT_NE(r.first[0].expected, r.first[0].actual);
      });
}

TEST(HarnessSpecRoutes, TransferIdsWriterBeforeTheOutputIsOutOfBounds) {
  const auto r = harness::check_transfer_ids(
      [](const TransferIdsArgs& a) {
        my_transfer(a, true);
        a.out.data[-1] = 777;  // lands in the guard before the buffer
      },
      Options{.cases = 10, .seed = 13});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "out_of_bounds");
  EXPECT_EQ(r.case_index, 0);
  ASSERT_EQ(r.first.size(), 1U);
  EXPECT_EQ(r.first[0].region, "guard_before");
  EXPECT_EQ(r.first[0].col, -1);
  EXPECT_EQ(r.first[0].actual, 777);
  EXPECT_NE(r.first[0].expected, 777);
  EXPECT_TRUE(r.behaves_like.empty());
  EXPECT_EQ(list_in(r.minimal_case, "ids").size(), 1U) << r.minimal_case;  // any case does: one id is left
}

// Two passes over the ids: the physical page first, the offset from a second read of the ids. Right on
// separate buffers; with out == ids (which the contract admits) the second read sees the page.
void my_transfer_two_pass(const TransferIdsArgs& a) {
  const int64_t ps = a.page_size;
  for (int64_t i = 0; i < a.ids.size; ++i) {
    const int64_t t = a.ids.data[i];
    a.out.data[i] = t < 0 ? -1 : a.v2p.data[t / ps];
  }
  for (int64_t i = 0; i < a.ids.size; ++i) {
    const int64_t t = a.ids.data[i], p = a.out.data[i];
    a.out.data[i] = p < 0 ? 0 : std::max<int64_t>(p * ps + t % ps, 0);
  }
}

TEST(HarnessSpecRoutes, TransferIdsTwoPassKernelFailsOnlyWhereOutAliasesIds) {
  int64_t aliased = 0, calls = 0;
  const auto r = harness::check_transfer_ids(
      [&](const TransferIdsArgs& a) {
        ++calls;
        aliased += static_cast<const void*>(a.out.data) == static_cast<const void*>(a.ids.data) ? 1 : 0;
        my_transfer_two_pass(a);
      },
      Options{.cases = 200, .seed = 13});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_GT(aliased, 0);
  EXPECT_LT(aliased, calls);
  EXPECT_TRUE(r.behaves_like.empty()) << r.to_text();
  EXPECT_EQ(scalar_in(r.minimal_case, "alias_out_ids"), 1) << r.minimal_case;
  const std::vector<int64_t> ids = list_in(r.minimal_case, "ids"), v2p = list_in(r.minimal_case, "v2p");
  ASSERT_EQ(ids.size(), 1U) << r.minimal_case;
  EXPECT_EQ(list_in(r.minimal_case, "before"), ids) << r.minimal_case;  // the one buffer held the ids
  const int64_t ps = scalar_in(r.minimal_case, "page_size");
  const int64_t page = v2p[static_cast<std::size_t>(ids[0] / ps)];
  ASSERT_EQ(r.first.size(), 1U) << r.to_text();
  EXPECT_EQ(r.first[0].expected, kernel_id(v2p.data(), ps, 1, ids[0]));
  EXPECT_EQ(r.first[0].actual, std::max<int64_t>(page * ps + page % ps, 0));
  // the same kernel over separate buffers only: the cases without the alias pass
  int64_t separate = 0;
  const auto s = harness::check_transfer_ids(
      [&](const TransferIdsArgs& a) {
        if (static_cast<const void*>(a.out.data) == static_cast<const void*>(a.ids.data)) {
          for (int64_t i = 0; i < a.ids.size; ++i) a.out.data[i] = kernel_id(a.v2p.data, a.page_size, 1, a.ids.data[i]);
          return;
        }
        ++separate;
        my_transfer_two_pass(a);
      },
      Options{.cases = 200, .seed = 13});
  EXPECT_TRUE(s.ok) << s.to_text();
  EXPECT_GT(separate, 100);
}

// ---- mamba_translate ---------------------------------------------------------------------------------
void my_mamba(const MambaTranslateArgs& a, bool bound) {
  for (int64_t i = 0; i < a.slots.size; ++i) {
    const int64_t v = a.slots.data[i];
    if (a.clamp) {
      a.out.data[i] = static_cast<int32_t>(v < 0 ? 0 : (bound ? std::max<int64_t>(a.v2p.data[v], 0) : a.v2p.data[v]));
    } else {
      a.out.data[i] = static_cast<int32_t>(a.v2p.data[v]);
    }
  }
}

TEST(HarnessSpecRoutes, MambaTranslateAndTheClampBound) {
  int64_t seen = 0, clamped = 0;
  const auto ok = harness::check_mamba_translate(
      [&](const auto& a) {
        seen += a.out.size + 128;
        clamped += a.clamp ? 1 : 0;
        my_mamba(a, true);
      },
      Options{.cases = 200, .seed = 14});
  EXPECT_TRUE(ok.ok) << ok.to_text();
  EXPECT_EQ(ok.lanes, seen);
  EXPECT_GT(clamped, 50);  // both forms of the gather are drawn
  EXPECT_LT(clamped, 150);
  // no padding slot is drawn where the contract would reject it; the rejected cases are the partially overlapping
  // adjacent layouts (slots | out or v2p | out sharing an int64 element)
  EXPECT_EQ(harness_test::rejected_layouts(Route::mamba_translate, 14, 200), 6);
  EXPECT_EQ(ok.rejected, 6);
  EXPECT_EQ(ok.cases, 194);
  const auto r = harness::check_mamba_translate([](const auto& a) { my_mamba(a, false); }, Options{.cases = 100, .seed = 14});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_TRUE(r.behaves_like.empty()) << r.to_text();  // mamba_translate accepts no catalogue variant
  ASSERT_EQ(r.first.size(), 1U) << r.to_text();
  EXPECT_EQ(r.first[0].expected, 0);
  EXPECT_EQ(r.first[0].actual, -1);  // the tombstone leaks through the unbounded clamp
  EXPECT_EQ(scalar_in(r.minimal_case, "clamp"), 1);
  const std::vector<int64_t> slots = list_in(r.minimal_case, "slots"), v2p = list_in(r.minimal_case, "v2p");
  ASSERT_EQ(slots.size(), 1U) << r.minimal_case;
  EXPECT_EQ(v2p[static_cast<std::size_t>(slots[0])], -1) << r.minimal_case;
  // a claimed variant the route does not accept is an argument error
  try {
    (void)harness::check_mamba_translate([](const auto& a) { my_mamba(a, true); },
                                         Options{.cases = 1, .variant = Variant::b17_doc_formula});
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "variant");
    EXPECT_EQ(e.value(), "b17_doc_formula");
  }
}

// ---- full_prefill_table ------------------------------------------------------------------------------
void my_full_prefill(const FullPrefillTableArgs& a, bool remap) {
  const int64_t ps = a.page_size;
  for (int64_t b = 0; b < a.req_pool_indices.size; ++b) {
    const int64_t n = std::min((a.seq_lens.data[b] + ps - 1) / ps, a.max_pages);
    const int32_t* row = a.req_to_token.data + a.req_pool_indices.data[b] * a.req_to_token.row_stride;
    for (int64_t c = 0; c < n; ++c) {
      const int64_t tok = row[c * ps];
      const int64_t page = tok < 0 ? 0 : tok / ps;
      a.out.data[b * a.out.row_stride + c] =
          static_cast<int32_t>(remap ? std::max<int64_t>(a.v2p.data[page] * a.multiplier, 0) : page);
    }
  }
}

TEST(HarnessSpecRoutes, FullPrefillTableWithoutTheRemap) {
  harness_test::check_good_and_planted(
      harness::check_full_prefill_table, [](const auto& a, bool planted) { my_full_prefill(a, !planted); },
      {.cases = 150, .seed = 15}, {.cases = 100, .seed = 15},
      // one row, one page
      {.kind = "mismatch", .named = {"b04_prefill_no_remap"}, .lanes = 1, .output = "out"},
      [](const harness::Report& ok, const harness::Report& r) {
        EXPECT_GE(ok.cases, 140);
        EXPECT_TRUE(r.first[0].matrix);
        EXPECT_EQ(r.first[0].row, 0);
        EXPECT_EQ(r.first[0].col, 0);
        const std::vector<int64_t> v2p = list_in(r.minimal_case, "v2p");
        EXPECT_EQ(scalar_in(r.minimal_case, "multiplier"), 1) << r.minimal_case;
        EXPECT_EQ(list_in(r.minimal_case, "seq_lens").size(), 1U) << r.minimal_case;
        // the page read is page `actual` (no remap); production writes its physical page
        ASSERT_GE(r.first[0].actual, 0);
        ASSERT_LT(r.first[0].actual, static_cast<int64_t>(v2p.size()));
        EXPECT_EQ(r.first[0].expected, std::max<int64_t>(v2p[static_cast<std::size_t>(r.first[0].actual)], 0));
      });
}

// ---- eager_funnel ------------------------------------------------------------------------------------
void my_eager(const EagerFunnelArgs& a) {
  const int64_t ps = a.page_size;
  for (int64_t r = 0; r < a.page_table.rows; ++r)
    for (int64_t c = 0; c < a.page_table.cols; ++c) {
      const int64_t tok = a.page_table.data[r * a.page_table.row_stride + c];
      a.out.data[r * a.out.row_stride + c] = kernel_id(a.v2p.data, ps, a.multiplier, tok) / ps;
    }
}

TEST(HarnessSpecRoutes, EagerFunnelPassesAndItsRank2CrashIsNamed) {
  int64_t seen = 0, padded = 0;
  const auto ok = harness::check_eager_funnel(
      [&](const EagerFunnelArgs& a) {
        seen += a.out.rows * a.out.row_stride + 128;  // the whole output, padding columns included
        padded += a.page_table.row_stride > a.page_table.cols ? 1 : 0;
        my_eager(a);
      },
      Options{.cases = 200, .seed = 16});
  EXPECT_TRUE(ok.ok) << ok.to_text();
  EXPECT_EQ(ok.lanes, seen);
  EXPECT_GT(padded, 20);  // strided page_table inputs are drawn
  // the rejected ones: page_table as rows [1, rows] of out (kvaddr.check's partial overlap)
  EXPECT_EQ(harness_test::rejected_layouts(Route::eager_funnel, 16, 200), 10);
  EXPECT_EQ(ok.rejected, 10);
  EXPECT_EQ(ok.cases, 190);
  const auto r = harness::check_eager_funnel(
      [](const EagerFunnelArgs& a) {
        if (a.page_size == 1) throw std::invalid_argument("index_select(): index must be 1-D");
        my_eager(a);
      },
      Options{.cases = 100, .seed = 16});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "raised");
  EXPECT_EQ(r.detail, "index_select(): index must be 1-D");
  EXPECT_EQ(r.behaves_like, std::vector<std::string>{"b02_rank2_index_select"}) << r.to_text();
  EXPECT_EQ(scalar_in(r.minimal_case, "page_size"), 1);
  EXPECT_NE(r.minimal_case.find("page_table [1, 1] (row stride 1)"), std::string::npos) << r.minimal_case;
  EXPECT_NE(r.to_text().find("behaves like b02_rank2_index_select"), std::string::npos) << r.to_text();
}

TEST(HarnessSpecRoutes, EagerFunnelWithoutTheDivisionIsCaughtPerLane) {
  const auto r = harness::check_eager_funnel(
      [](const EagerFunnelArgs& a) {
        my_eager(a);
        for (int64_t row = 0; row < a.page_table.rows; ++row)
          for (int64_t c = 0; c < a.page_table.cols; ++c) a.out.data[row * a.out.row_stride + c] *= a.page_size;
      },
      Options{.cases = 100, .seed = 16});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_TRUE(r.behaves_like.empty()) << r.to_text();
  ASSERT_EQ(r.first.size(), 1U) << r.to_text();  // one row, one column
  EXPECT_EQ(r.first[0].row, 0);
  EXPECT_EQ(r.first[0].col, 0);
  const int64_t ps = scalar_in(r.minimal_case, "page_size");
  EXPECT_GT(ps, 1);
  EXPECT_EQ(r.first[0].actual, r.first[0].expected * ps);
  EXPECT_NE(r.minimal_case.find("page_table [1, 1] (row stride 1)"), std::string::npos) << r.minimal_case;
}

TEST(HarnessSpecRoutes, EagerFunnelWriterOverTheRowStrideIsOutOfBounds) {
  const auto r = harness::check_eager_funnel(
      [](const EagerFunnelArgs& a) {
        my_eager(a);
        for (int64_t row = 0; row < a.out.rows; ++row)
          for (int64_t c = a.out.cols; c < a.out.row_stride; ++c) a.out.data[row * a.out.row_stride + c] = 0;
      },
      Options{.cases = 100, .seed = 16});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "out_of_bounds");
  ASSERT_EQ(r.first.size(), 1U) << r.to_text();  // one row, one column, one padding column
  EXPECT_EQ(r.first[0].region, "past_width");
  EXPECT_EQ(r.first[0].row, 0);
  EXPECT_EQ(r.first[0].col, 1);
  EXPECT_EQ(r.first[0].actual, 0);
  EXPECT_NE(r.minimal_case.find("[1, 2] (visible width 1)"), std::string::npos) << r.minimal_case;
}

TEST(HarnessSpecRoutes, Int32OutForms) {
  int64_t seen = 0;
  const auto ok = harness::check_token_translate_i32(
      [&seen](const TokenTranslateArgs<int32_t>& a) {
        seen += a.out.size + 128;
        for (int64_t i = 0; i < a.ids.size; ++i)
          a.out.data[i] = static_cast<int32_t>(kernel_id(a.v2p.data, a.page_size, a.multiplier, a.ids.data[i]));
      },
      Options{.cases = 200, .seed = 17});
  EXPECT_TRUE(ok.ok) << ok.to_text();
  // every drawn case runs: in the contract, or past int32 (kernel ids >= 2^31), where the int32 cast wraps
  EXPECT_EQ(ok.cases + ok.rejected, 200);
  EXPECT_GT(ok.overflow.cases, 0);
  EXPECT_EQ(ok.overflow.cases, ok.rejected);
  EXPECT_EQ(ok.rejections.at("Overflow(out)"), ok.rejected) << ok.to_text();
  EXPECT_EQ(ok.overflow.behaves_like_wrap, ok.overflow.cases);
  EXPECT_EQ(ok.overflow.variant, "int32_wrap");
  EXPECT_EQ(ok.lanes + ok.overflow.lanes, seen);
  const auto r = harness::check_token_translate_i32(
      [](const TokenTranslateArgs<int32_t>& a) {  // the docstring formula: no v2p gather
        for (int64_t i = 0; i < a.ids.size; ++i) {
          const int64_t t = a.ids.data[i];
          a.out.data[i] = static_cast<int32_t>(t < 0 ? 0 : (t / a.page_size) * a.page_size * a.multiplier + t % a.page_size);
        }
      },
      Options{.cases = 50, .seed = 17});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.route, "token_translate");
  EXPECT_TRUE(names(r, "b17_doc_formula")) << r.to_text();
  ASSERT_EQ(r.first.size(), 1U) << r.to_text();
  const std::vector<int64_t> ids = list_in(r.minimal_case, "ids"), v2p = list_in(r.minimal_case, "v2p");
  const int64_t ps = scalar_in(r.minimal_case, "page_size"), m = scalar_in(r.minimal_case, "multiplier");
  ASSERT_EQ(ids.size(), 1U) << r.minimal_case;
  EXPECT_EQ(r.first[0].expected, kernel_id(v2p.data(), ps, m, ids[0]));
  EXPECT_EQ(r.first[0].actual, (ids[0] / ps) * ps * m + ids[0] % ps);
  const auto w = harness::check_swa_translate_i32(
      [](const SwaTranslateArgs<int32_t>& a) {
        for (int64_t i = 0; i < a.ids.size; ++i)
          a.out.data[i] = static_cast<int32_t>(kernel_id(a.swa_v2p.data, a.page_size, a.swa_multiplier, a.ids.data[i]));
      },
      Options{.cases = 100, .seed = 17});
  EXPECT_TRUE(w.ok) << w.to_text();
  EXPECT_EQ(w.cases, 100);
}

// Every route of the route list has its check by enumerator; a kernel that writes nothing fails each one,
// the route's host route passes it.
TEST(HarnessSpecRoutes, EveryRouteIsCheckedByItsEnumerator) {
  int checked = 0;
  for_each_route([&](auto spec) {
    using S = decltype(spec);
    const auto r = harness::check<S::id>([](const typename S::Args&) {}, Options{.cases = 20, .seed = 1});
    EXPECT_FALSE(r.ok) << S::name;
    EXPECT_EQ(r.kind, "mismatch") << S::name;
    EXPECT_EQ(r.route, S::name);
    EXPECT_GT(r.differing, 0) << S::name;
    // The route's own host route passes its check.
    const auto h = harness::check<S::id>([](const typename S::Args& a) { S::run(a); }, Options{.cases = 20, .seed = 1});
    EXPECT_TRUE(h.ok) << S::name << ": " << h.to_text();
    EXPECT_EQ(h.cases + h.rejected, 20) << S::name;
    EXPECT_GT(h.cases, 0) << S::name;
    ++checked;
  });
  EXPECT_EQ(checked, kRouteCount);
}

TEST(HarnessSpecRoutes, CheckByRouteEnumeratorIsTheNamedCheck) {
  const auto a = harness::check<Route::transfer_ids>([](const TransferIdsArgs& x) { my_transfer(x, false); },
                                                     Options{.cases = 50, .seed = 13});
  const auto b = harness::check_transfer_ids([](const TransferIdsArgs& x) { my_transfer(x, false); },
                                             Options{.cases = 50, .seed = 13});
  EXPECT_EQ(a.to_text(), b.to_text());
  EXPECT_FALSE(a.ok);
  const auto w = harness::check<Route::swa_translate>([](const auto& x) { my_swa(x, true); }, Options{.cases = 20});
  EXPECT_TRUE(w.ok) << w.to_text();
  EXPECT_EQ(w.route, "swa_translate");
}

}  // namespace
