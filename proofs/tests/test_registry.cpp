// Every obligation must end in its expected verdict: a proof that stops holding, or a bug variant
// that stops being refuted, fails here. Reduced ps sweep (RunOptions{} default).
#include <gtest/gtest.h>

#include <set>
#include <string>

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
  EXPECT_THROW(kvaddr::proofs::run_one("no.such.obligation"), std::invalid_argument);
  const std::string json = kvaddr::proofs::to_json(r);
  EXPECT_NE(json.find("\"total_seconds\""), std::string::npos);
  EXPECT_NE(json.find("\"verdict\": \"proved\""), std::string::npos);
}

}  // namespace
