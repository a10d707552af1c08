#pragma once
// Shared by the harness test suites: a host kernel written from the spec is checked as written, where it must
// pass, and then with its planted bug, where the check must fail as the test says.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"

namespace kvaddr::harness_test {

// How the planted kernel's check fails: its kind ("" for any) and the variants the report names as behaving
// like the kernel (all of `named`; with `only`, exactly those).
struct Failure {
  std::string kind;
  std::vector<std::string> named;
  bool only = false;
};

// Whether the report names variant v among those the kernel behaves like.
inline bool names(const harness::Report& r, const std::string& v) {
  return std::find(r.behaves_like.begin(), r.behaves_like.end(), v) != r.behaves_like.end();
}

// The test's further assertions on the good kernel's report and the planted kernel's.
using Then = std::function<void(const harness::Report& good, const harness::Report& planted)>;

// check(good, good_options) must pass; check(planted, planted_options) must fail as `failure` says, and then
// `then` runs on both reports. `check` is one of harness::check_*; the kernels are callables over its Args.
template <class Check, class Good, class Planted>
void check_good_and_planted(Check check, Good good, const harness::Options& good_options, Planted planted,
                            const harness::Options& planted_options, const Failure& failure, const Then& then = {}) {
  const harness::Report ok = check(good, good_options);
  EXPECT_TRUE(ok.ok) << ok.to_text();
  const harness::Report r = check(planted, planted_options);
  ASSERT_FALSE(r.ok);
  if (!failure.kind.empty()) EXPECT_EQ(r.kind, failure.kind);
  if (failure.only) {
    EXPECT_EQ(r.behaves_like, failure.named) << r.to_text();
  } else {
    for (const std::string& v : failure.named) EXPECT_TRUE(names(r, v)) << r.to_text();
  }
  if (then) then(ok, r);
}

}  // namespace kvaddr::harness_test
