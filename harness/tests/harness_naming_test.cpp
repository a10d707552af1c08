// The variants a failing case may be named by (kvaddr/harness/naming.hpp), exactly; python/tests/test_naming.py
// asserts the same lists through kvaddr._core.naming_variants (kvaddr.check's naming tries the same ones).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kvaddr/harness/naming.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {
using namespace kvaddr;

std::vector<std::string> names(Route r, Variant claimed) {
  std::vector<std::string> out;
  for (Variant v : harness::naming_variants(r, claimed)) out.emplace_back(to_string(v, r));
  return out;
}

TEST(HarnessNaming, TheListOfBothHarnesses) {
  // production first where it is not claimed; int32_lane_offsets never (it equals production on a host)
  EXPECT_EQ(names(Route::token_translate, Variant::production),
            (std::vector<std::string>{"b17_doc_formula", "e03_int32_offset", "int32_wrap"}));
  EXPECT_EQ(names(Route::write_loc, Variant::production),
            (std::vector<std::string>{"b06_stale_tail", "e02_minus_one_sentinel", "e03_int32_offset"}));
  EXPECT_EQ(names(Route::write_loc, Variant::b06_stale_tail),
            (std::vector<std::string>{"production", "e02_minus_one_sentinel", "e03_int32_offset"}));
  // the route's registered composites last, unless claimed
  const std::vector<std::string> decode{"b09_no_padding_guard", "era_b_unclamped", "e10_batch_index_rows", "int32_wrap",
                                        "int32_lengths", "full_width_page_table", "swa_no_padding_guard",
                                        "era_d_read_table", "pr33046_as_written"};
  EXPECT_EQ(names(Route::decode_metadata, Variant::production), decode);
  std::vector<std::string> claimed_composite{"production"};
  claimed_composite.insert(claimed_composite.end(), decode.begin(), decode.end() - 1);
  EXPECT_EQ(names(Route::decode_metadata, Variant::pr33046_as_written), claimed_composite);
  EXPECT_EQ(names(Route::mamba_translate, Variant::production), std::vector<std::string>{});
}

TEST(HarnessNaming, TheCrashVariants) {
  const auto crash = [](Route r, Variant claimed) {
    std::vector<std::string> out;
    for (Variant v : harness::crash_variants(r, claimed)) out.emplace_back(to_string(v, r));
    return out;
  };
  EXPECT_EQ(crash(Route::eager_funnel, Variant::production), std::vector<std::string>{"b02_rank2_index_select"});
  EXPECT_EQ(crash(Route::eager_funnel, Variant::b02_rank2_index_select), std::vector<std::string>{});
  EXPECT_EQ(crash(Route::token_translate, Variant::production), std::vector<std::string>{});
}

// name_outputs: which forms are tried, in which order, and a rejecting form counts as no match. `reproduces`
// records every call, so the test also asserts which forms were run. python/tests/test_naming.py asserts the same
// through kvaddr._core.name_case (a reference callback that records its calls).
TEST(HarnessNaming, NameOutputsTriesTheFormsItIsGiven) {
  using harness::NamingForm;
  const Route r = Route::token_translate;  // naming list: b17_doc_formula, e03_int32_offset, int32_wrap
  std::vector<std::string> calls;
  const auto run = [&](bool plain, bool grown, auto matches) {
    calls.clear();
    std::vector<std::string> out;
    const auto reproduces = [&](Variant v, NamingForm f) {
      const std::string name(to_string(v, r));
      calls.push_back(name + (f == NamingForm::plain ? "/plain" : "/grown"));
      return matches(name, f);
    };
    for (Variant v : harness::name_outputs(r, Variant::production, plain, grown, reproduces))
      out.emplace_back(to_string(v, r));
    return out;
  };
  const auto e03_plain_int32_grown = [](const std::string& n, NamingForm f) {
    return (n == "e03_int32_offset" && f == NamingForm::plain) || (n == "int32_wrap" && f == NamingForm::grown);
  };
  // neither form: nothing runs
  EXPECT_EQ(run(false, false, e03_plain_int32_grown), std::vector<std::string>{});
  EXPECT_EQ(calls, std::vector<std::string>{});
  // plain only: the grown form is never run
  EXPECT_EQ(run(true, false, e03_plain_int32_grown), std::vector<std::string>{"e03_int32_offset"});
  EXPECT_EQ(calls, (std::vector<std::string>{"b17_doc_formula/plain", "e03_int32_offset/plain", "int32_wrap/plain"}));
  // grown only
  EXPECT_EQ(run(false, true, e03_plain_int32_grown), std::vector<std::string>{"int32_wrap"});
  EXPECT_EQ(calls, (std::vector<std::string>{"b17_doc_formula/grown", "e03_int32_offset/grown", "int32_wrap/grown"}));
  // both: a variant matching on the plain form is not run on the grown one
  EXPECT_EQ(run(true, true, e03_plain_int32_grown), (std::vector<std::string>{"e03_int32_offset", "int32_wrap"}));
  EXPECT_EQ(calls, (std::vector<std::string>{"b17_doc_formula/plain", "b17_doc_formula/grown", "e03_int32_offset/plain",
                                             "int32_wrap/plain", "int32_wrap/grown"}));
  // the claimed variant is never tried
  calls.clear();
  std::vector<std::string> claimed_e03;
  for (Variant v : harness::name_outputs(r, Variant::e03_int32_offset, true, false, [&](Variant v, NamingForm) {
         calls.emplace_back(to_string(v, r));
         return true;
       }))
    claimed_e03.emplace_back(to_string(v, r));
  EXPECT_EQ(claimed_e03, (std::vector<std::string>{"production", "b17_doc_formula", "int32_wrap"}));
  EXPECT_EQ(calls, claimed_e03);
}

// name_case's grown form, one rule for every front end: each 2-D output grows by the whole rows of its after-guard,
// every other output stays as drawn, and the form exists where one output grows. A 1-D output (guard 2) beside a
// [1, 2] output (guard 4: 2 rows); int32_wrap stores 5 into the first guard row of the 2-D output, every other
// variant leaves the buffers as they were. python/tests/test_naming.py asserts the same through kvaddr.check
// (decode_metadata: two 1-D outputs beside its page table), where the old Python rule grew nothing.
TEST(HarnessNaming, TheGrownFormGrowsEach2DOutputBesideThe1DOnes) {
  const Route r = Route::token_translate;  // naming list: b17_doc_formula, e03_int32_offset, int32_wrap
  std::vector<std::vector<std::size_t>> sizes;  // the buffer sizes of each reference run
  harness::NamingCase c;
  c.run = [&](Variant v, const harness::NamingCase::Bufs& before) {
    sizes.push_back({before[0].size(), before[1].size()});
    harness::NamingCase::Bufs out = before;
    if (v == Variant::int32_wrap && out[1].size() > 2) out[1][2] = out[1][3] = 5;
    return out;
  };
  const auto names = [&](std::int64_t guard2d, std::int64_t row) {
    sizes.clear();
    const std::vector<std::int64_t> g2(static_cast<std::size_t>(guard2d), -7);
    std::vector<std::int64_t> before2 = g2, after2 = g2;
    before2.insert(before2.end(), {0, 0});
    after2.insert(after2.end(), {0, 0});
    before2.insert(before2.end(), g2.begin(), g2.end());
    after2.insert(after2.end(), g2.begin(), g2.end());
    for (std::size_t i = 2; i < 4 && i < 2 + g2.size(); ++i) after2[g2.size() + i] = row;  // the after-guard's first lanes
    c.outputs = {{0, 2, {-7, -7, 1, -7, -7}, {-7, -7, 1, -7, -7}}, {2, guard2d, before2, after2}};
    std::vector<std::string> out;
    for (Variant v : harness::name_case(r, Variant::production, c)) out.emplace_back(to_string(v, r));
    return out;
  };
  // the 2-D output's first guard row holds 5: named on the grown form (the 1-D output as drawn, the 2-D one 2 rows more)
  EXPECT_EQ(names(4, 5), std::vector<std::string>{"int32_wrap"});
  EXPECT_EQ(sizes.back(), (std::vector<std::size_t>{1, 6}));
  // a guard of 1 lane holds no row of 2: no grown form, and the changed guard fails the plain one
  EXPECT_EQ(names(1, 5), std::vector<std::string>{});
  EXPECT_EQ(sizes.size(), 1u);  // the claim's run only
  // the guard as it was: the buffers are the claim's, nothing to name
  EXPECT_EQ(names(4, -7), std::vector<std::string>{});
  EXPECT_EQ(sizes.size(), 1u);
}

}  // namespace
