// Cases past an int32 precondition in the C++ harness (OverflowPolicy): table entries v2p[p] * M >= 2^31 in the
// int32 tables, kernel ids >= 2^31 in the int32 form of token_translate, decode prefix sums past 2^31 - 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "kvaddr/harness/check.hpp"
#include "kvaddr/model/errors.hpp"

namespace {
using namespace kvaddr;
using harness::Options;
using harness::OverflowPolicy;
using harness::Report;

template <class S>
harness::KernelOf<S::id> host_route(Variant v, int* calls = nullptr) {
  return [v, calls](const typename S::Args& a) {
    if (calls != nullptr) ++*calls;
    auto b = a;
    b.variant = v;
    S::run(b);
  };
}
using ReadTable = RouteSpec<Route::read_table>;
using Decode = RouteSpec<Route::decode_metadata>;

TEST(HarnessOverflow, AWrappingKernelBehavesLikeInt32WrapOnEveryOverflowCase) {
  const Report r = harness::check_read_table(host_route<ReadTable>(Variant::int32_wrap),
                                             Options{.cases = 60, .seed = 3, .overflow_fraction = 1.0});
  EXPECT_TRUE(r.ok) << r.to_text();
  EXPECT_GT(r.overflow.cases, 10) << r.to_text();
  EXPECT_EQ(r.overflow.behaves_like_wrap, r.overflow.cases);
  EXPECT_EQ(r.overflow.raised + r.overflow.differs, 0);
  EXPECT_GT(r.overflow.lanes, 0);
  EXPECT_EQ(r.overflow.variant, "int32_wrap");
  EXPECT_EQ(r.rejections.at("Overflow(out)"), r.overflow.cases) << r.to_text();
  EXPECT_EQ(r.cases + r.rejected, 60);
  EXPECT_NE(r.to_text().find(std::to_string(r.overflow.cases) + " cases past an int32 precondition"), std::string::npos)
      << r.to_text();
}

TEST(HarnessOverflow, ObserveCountsARaisingKernelWithoutFailing) {
  const Report r = harness::check_read_table(host_route<ReadTable>(Variant::production),
                                             Options{.cases = 60, .seed = 3, .overflow_fraction = 1.0});
  EXPECT_TRUE(r.ok) << r.to_text();
  EXPECT_GT(r.overflow.cases, 10);
  EXPECT_EQ(r.overflow.raised, r.overflow.cases);  // production's own Overflow, thrown by the kernel
  EXPECT_EQ(r.overflow.behaves_like_wrap, 0);
  EXPECT_NE(r.overflow.first.find("raised"), std::string::npos) << r.overflow.first;
  EXPECT_NE(r.overflow.first.find("out"), std::string::npos) << r.overflow.first;
}

TEST(HarnessOverflow, WrapMakesADifferingOverflowCaseAFailure) {
  const Report r = harness::check_read_table(host_route<ReadTable>(Variant::production),
                                             Options{.cases = 60, .seed = 3, .overflow = OverflowPolicy::wrap,
                                                     .overflow_fraction = 1.0});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "raised");
  EXPECT_EQ(r.variant, "int32_wrap");
  EXPECT_NE(r.detail.find("out"), std::string::npos) << r.detail;
  EXPECT_NE(r.to_text().find("compared with variant int32_wrap"), std::string::npos) << r.to_text();
  // the same kernel passes where no case is past int32
  EXPECT_TRUE(harness::check_read_table(host_route<ReadTable>(Variant::production),
                                        Options{.cases = 60, .seed = 3, .overflow = OverflowPolicy::wrap,
                                                .overflow_fraction = 0.0})
                  .ok);
}

TEST(HarnessOverflow, SkipRunsNoOverflowCase) {
  int calls = 0;
  const Report r = harness::check_read_table(host_route<ReadTable>(Variant::production, &calls),
                                             Options{.cases = 60, .seed = 3, .overflow = OverflowPolicy::skip,
                                                     .overflow_fraction = 1.0});
  EXPECT_TRUE(r.ok) << r.to_text();
  EXPECT_EQ(r.overflow.cases, 0);
  EXPECT_GT(r.rejected, 10);
  EXPECT_EQ(calls, r.cases);  // the kernel ran on the in-contract cases only
}

TEST(HarnessOverflow, FractionZeroDrawsNoOverflowCaseAndDefaultDrawsSome) {
  const auto none = harness::check_read_table(host_route<ReadTable>(Variant::int32_wrap),
                                              Options{.cases = 100, .seed = 4, .overflow_fraction = 0.0});
  EXPECT_EQ(none.overflow.cases, 0);
  EXPECT_EQ(none.rejections.count("Overflow(out)"), 0U);
  const auto some = harness::check_read_table(host_route<ReadTable>(Variant::int32_wrap), Options{.cases = 100, .seed = 4});
  EXPECT_GT(some.overflow.cases, 0);
  EXPECT_LT(some.overflow.cases, 30);
  EXPECT_EQ(some.overflow.behaves_like_wrap, some.overflow.cases);
  // the draws themselves do not depend on the fraction: the in-contract cases are the same
  EXPECT_EQ(none.cases, some.cases + some.overflow.cases);
}

// A decode kernel that saturates the prefix sums cu_seqlens_k at 2^31 - 1 instead of wrapping them: wrap mode
// catches it at a prefix-sum lane and shrinks it to two rows.
void saturating_decode(const DecodeMetadataArgs& a) {
  auto b = a;
  b.variant = Variant::int32_wrap;
  translate::decode_metadata(b);
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < a.seq_lens.size; ++i) {
    sum = std::min<std::int64_t>(sum + a.seq_lens.data[i] + a.seq_len_delta, std::numeric_limits<std::int32_t>::max());
    a.cu_seqlens_k.data[i + 1] = static_cast<std::int32_t>(sum);
  }
}

TEST(HarnessOverflow, SaturatedPrefixSumsFailUnderWrapAndAreShrunk) {
  const Report r = harness::check_decode_metadata(
      saturating_decode, Options{.cases = 100, .seed = 5, .overflow = OverflowPolicy::wrap, .overflow_fraction = 1.0});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, "mismatch");
  EXPECT_EQ(r.variant, "int32_wrap");
  ASSERT_FALSE(r.first.empty());
  EXPECT_EQ(r.first[0].output, "cu_seqlens_k");
  EXPECT_EQ(r.first[0].actual, std::numeric_limits<std::int32_t>::max());
  EXPECT_LT(r.first[0].expected, 0);  // the wrapped sum
  EXPECT_NE(r.minimal_case.find("cu_seqlens_k 3 lanes"), std::string::npos) << r.minimal_case;  // two rows
  // observe counts it without failing
  const Report o = harness::check_decode_metadata(saturating_decode,
                                                  Options{.cases = 100, .seed = 5, .overflow_fraction = 1.0});
  EXPECT_TRUE(o.ok) << o.to_text();
  EXPECT_GT(o.overflow.differs, 0);
  EXPECT_NE(o.overflow.first.find("cu_seqlens_k"), std::string::npos) << o.overflow.first;
}

TEST(HarnessOverflow, RoutesWithoutAWrapVariantDrawNoOverflowCases) {
  const Report r = harness::check_swa_translate_i32(
      [](const SwaTranslateArgs<std::int32_t>& a) { RouteSpec<Route::swa_translate>::run(a); },
      Options{.cases = 50, .seed = 1, .overflow_fraction = 1.0});
  EXPECT_TRUE(r.ok) << r.to_text();
  EXPECT_EQ(r.overflow.cases, 0);
  EXPECT_EQ(r.cases, 50);
}

}  // namespace
