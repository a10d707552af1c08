#pragma once
// Shared by the harness test suites: a host kernel written from the spec is checked as written, where it must
// pass, and then with its planted bug, where the check must fail as the test says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kvaddr/harness/check.hpp"

namespace kvaddr::harness_test {

// token_translate's lane over a table (spec §4.1), as a test kernel computes it: padding -> 0, else
// max(table[t / ps] * ps * m + t % ps, 0).
inline std::int64_t kernel_id(const std::int64_t* table, std::int64_t ps, std::int64_t m, std::int64_t t) {
  if (t < 0) return 0;
  return std::max<std::int64_t>(table[t / ps] * ps * m + t % ps, 0);
}

// How the planted kernel's check fails: its kind ("" for any), the variants the report names as behaving
// like the kernel (all of `named`; with `only`, exactly those), how many first differing lanes it lists (-1 for
// any), and the output buffer ("" for any), row and column (-1 for any) of the first.
struct Failure {
  std::string kind = "";
  std::vector<std::string> named = {};
  bool only = false;
  int lanes = -1;
  std::string output = "";
  std::int64_t row = -1;
  std::int64_t col = -1;
};

// How many of cases [0, cases) of `seed` for route r the check presents in a layout validation rejects (an input
// partially overlapping its output, or a partially overlapping adjacent layout: kvaddr.check's case of the same
// seed and index, detail::drawn_case). The check counts them as rejected, not run.
inline std::int64_t rejected_layouts(Route r, std::uint64_t seed, std::int64_t cases, std::int64_t lanes = 4096) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < cases; ++i) {
    n += harness::detail::drawn_case(r, seed, i, lanes).presented.partially_overlaps() ? 1 : 0;
  }
  return n;
}

// "key=N" and "key=[a, b, ...]" of a minimal case's text (std::runtime_error when absent).
inline std::int64_t scalar_in(const std::string& text, const std::string& key) {
  const auto at = text.find(key + "=");
  if (at == std::string::npos) throw std::runtime_error("no " + key + " in: " + text);
  return std::stoll(text.substr(at + key.size() + 1));
}
inline std::vector<std::int64_t> list_in(const std::string& text, const std::string& key) {
  const auto at = text.find(key + "=[");
  if (at == std::string::npos) throw std::runtime_error("no " + key + " list in: " + text);
  std::vector<std::int64_t> v;
  std::size_t i = at + key.size() + 2;
  while (text[i] != ']') {
    std::size_t used = 0;
    v.push_back(std::stoll(text.substr(i), &used));
    i += used;
    if (text[i] == ',') i += 2;
  }
  return v;
}

// Whether the report names variant v among those the kernel behaves like.
inline bool names(const harness::Report& r, const std::string& v) {
  return std::find(r.behaves_like.begin(), r.behaves_like.end(), v) != r.behaves_like.end();
}

// The test's further assertions on the good kernel's report and the planted kernel's.
using Then = std::function<void(const harness::Report& good, const harness::Report& planted)>;

// check(kernel(a, false), good_options) must pass; check(kernel(a, true), planted_options) must fail as
// `failure` says, and then `then` runs on both reports. `check` is one of harness::check_*; `kernel` a
// callable over its Args and a bool, true for the kernel with its planted bug.
template <class Check, class Kernel>
void check_good_and_planted(Check check, Kernel kernel, const harness::Options& good_options,
                            const harness::Options& planted_options, const Failure& failure, const Then& then = {}) {
  const harness::Report ok = check([&](const auto& a) { kernel(a, false); }, good_options);
  EXPECT_TRUE(ok.ok) << ok.to_text();
  const harness::Report r = check([&](const auto& a) { kernel(a, true); }, planted_options);
  ASSERT_FALSE(r.ok);
  if (!failure.kind.empty()) {
    EXPECT_EQ(r.kind, failure.kind);
  }
  if (failure.only) {
    EXPECT_EQ(r.behaves_like, failure.named) << r.to_text();
  } else {
    for (const std::string& v : failure.named) EXPECT_TRUE(names(r, v)) << r.to_text();
  }
  if (failure.lanes >= 0) {
    ASSERT_EQ(r.first.size(), static_cast<std::size_t>(failure.lanes)) << r.to_text();
  }
  if (!failure.output.empty() || failure.row >= 0 || failure.col >= 0) {
    ASSERT_FALSE(r.first.empty()) << r.to_text();
    if (!failure.output.empty()) {
      EXPECT_EQ(r.first[0].output, failure.output);
    }
    if (failure.row >= 0) {
      EXPECT_EQ(r.first[0].row, failure.row);
    }
    if (failure.col >= 0) {
      EXPECT_EQ(r.first[0].col, failure.col);
    }
  }
  if (then) then(ok, r);
}

}  // namespace kvaddr::harness_test
