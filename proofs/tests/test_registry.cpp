// Every obligation must end in its expected verdict: a proof that stops holding, or a bug variant
// that stops being refuted, fails here. Default domains (RunOptions{}: dcp_size in {1, 2, 4, 8}).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine.hpp"  // proofs/src: sweep(), dcp_sweep()
#include "kvaddr/model/errors.hpp"
#include "kvaddr/proofs/registry.hpp"

namespace {
using kvaddr::proofs::ObligationInfo;
using kvaddr::proofs::Verdict;

class Obligation : public ::testing::TestWithParam<std::string> {};

TEST_P(Obligation, EndsInItsExpectedVerdict) {
  const auto r = kvaddr::proofs::run_one(GetParam());
  RecordProperty("seconds", std::to_string(r.seconds));
  EXPECT_NE(r.verdict, Verdict::unknown) << r.name << ": " << r.counterexample;
  EXPECT_EQ(r.verdict, r.expected) << r.name << " (" << r.seconds << " s): " << r.counterexample;
  if (r.verdict == Verdict::refuted) {
    EXPECT_NE(r.counterexample.find("failed:"), std::string::npos) << r.counterexample;
  }
}

std::vector<std::string> names() {
  std::vector<std::string> v;
  for (const auto& o : kvaddr::proofs::obligations()) v.push_back(o.name);
  return v;
}

std::string sanitize(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(Proofs, Obligation, ::testing::ValuesIn(names()), sanitize);

TEST(Registry, NamesAreUniqueAndStatementsComplete) {
  std::set<std::string> seen;
  for (const ObligationInfo& o : kvaddr::proofs::obligations()) {
    EXPECT_TRUE(seen.insert(o.name).second) << o.name;
    EXPECT_FALSE(o.spec.empty()) << o.name;
    EXPECT_FALSE(o.preconditions.empty()) << o.name;
    EXPECT_FALSE(o.conclusion.empty()) << o.name;
    EXPECT_FALSE(o.domain.empty()) << o.name;
    EXPECT_NE(o.expected, Verdict::unknown) << o.name;
  }
}

TEST(Registry, OnlySelectsByNameAndPrefix) {
  kvaddr::proofs::RunOptions opt;
  opt.only = {"I3", "I9"};
  const auto r = kvaddr::proofs::run_all(opt);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].name, "I3");
  EXPECT_EQ(r[1].name, "I9.nonneg_div_kind");  // prefix selection
  EXPECT_THROW(kvaddr::proofs::run_one("no.such.obligation"), kvaddr::InvalidArgument);
  const std::string json = kvaddr::proofs::to_json(r);
  EXPECT_NE(json.find("\"total_seconds\""), std::string::npos);
  EXPECT_NE(json.find("\"verdict\": \"proved\""), std::string::npos);
}

}  // namespace

// ---- sweeps (engine.hpp): the DCP domain and how a sweep reports its values ----------------------

namespace {
using kvaddr::proofs::Outcome;

TEST(Sweep, DcpDomainReducedAndFull) {
  EXPECT_EQ(kvaddr::proofs::dcp_sweep(false), (std::vector<std::int64_t>{1, 2, 4, 8}));
  const auto full = kvaddr::proofs::dcp_sweep(true);
  std::vector<std::int64_t> want;
  for (std::int64_t d = 1; d <= 16; ++d) want.push_back(d);
  want.push_back(32);
  want.push_back(64);
  EXPECT_EQ(full, want);
  EXPECT_EQ(full.back(), kvaddr::proofs::kMaxDcpSize);  // every swept value lies in the queries' domain
  EXPECT_NE(kvaddr::proofs::describe_dcp_sweep(true), kvaddr::proofs::describe_dcp_sweep(false));
}

TEST(Sweep, NamesEveryUnknownValueAndStopsAtTheFirstRefutation) {
  int calls = 0;
  const auto unknown_at_3_and_5 = [&](std::int64_t v) {
    ++calls;
    Outcome o;
    o.queries = 1;
    if (v == 3 || v == 5) {
      o.verdict = Verdict::unknown;
      o.text = "q" + std::to_string(v) + " (timeout)";
    }
    return o;
  };
  const Outcome u = kvaddr::proofs::sweep({1, 2, 3, 4, 5, 6}, unknown_at_3_and_5);
  EXPECT_EQ(u.verdict, Verdict::unknown);
  EXPECT_EQ(u.queries, 6);
  EXPECT_EQ(u.text, "q3 (timeout); unknown at 2 of 6 sweep values: 3, 5");

  calls = 0;
  const Outcome r = kvaddr::proofs::sweep({1, 2, 3, 4}, [&](std::int64_t v) {
    ++calls;
    Outcome o;
    if (v == 2) {
      o.verdict = Verdict::refuted;
      o.text = "failed: x";
    }
    return o;
  });
  EXPECT_EQ(r.verdict, Verdict::refuted);
  EXPECT_EQ(r.text, "failed: x");  // a refutation is reported alone
  EXPECT_EQ(calls, 2);

  const Outcome p = kvaddr::proofs::sweep({1, 2}, [](std::int64_t) { return Outcome{}; });
  EXPECT_EQ(p.verdict, Verdict::proved);
  EXPECT_TRUE(p.text.empty());
}
}  // namespace
