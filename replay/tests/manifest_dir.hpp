#pragma once
// Shared by the replay tests: an empty recording directory, a replay of a manifest of calls
// written into it, and the check of one reported lane difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::replay::test_support {

// <temp>/<prefix><name>, emptied and created afresh.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / (prefix + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// <temp>/kvaddr_<suite>_<test>_<name> for the running test ('/' of parameterised names as '_'), emptied and
// created afresh: one folder per test and name, so tests that ctest runs in parallel never share one.
inline std::filesystem::path fresh_dir(const std::string& name) {
  std::string prefix = "kvaddr_";
  if (const auto* t = ::testing::UnitTest::GetInstance()->current_test_info()) {
    prefix += std::string(t->test_suite_name()) + "_" + t->name() + "_";
    for (char& c : prefix)
      if (c == '/') c = '_';
  }
  return fresh_dir(prefix, name);
}

// Whether `text` contains `part`; whether `v` holds `s`.
inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
inline bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

inline constexpr std::int64_t kTwo31 = std::int64_t{1} << 31;

// A version-1.0 .npy image around a hand-written header dictionary and raw data.
inline std::string npy_image(const std::string& dict, const std::string& data = "") {
  const std::string h = dict + "\n";
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(h.size() & 0xff));
  out.push_back(static_cast<char>(h.size() >> 8));
  return out + h + data;
}

// A file's bytes.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `regenerated` holds exactly the files of `committed` (a committed recording), byte for byte.
inline void expect_same_files(const std::filesystem::path& committed, const std::filesystem::path& regenerated) {
  std::set<std::string> a, b;
  for (const auto& e : std::filesystem::directory_iterator(committed)) a.insert(e.path().filename().string());
  for (const auto& e : std::filesystem::directory_iterator(regenerated)) b.insert(e.path().filename().string());
  EXPECT_EQ(a, b);
  for (const auto& name : b) EXPECT_EQ(slurp(committed / name), slurp(regenerated / name)) << name;
}

// Writes {"calls": calls} as d/manifest.json and replays d.
inline ReplayReport replay_calls(const std::filesystem::path& d, const std::vector<nlohmann::json>& calls,
                                 const ReplayOptions& options = {}) {
  std::ofstream(d / "manifest.json") << nlohmann::json{{"calls", calls}}.dump(2);
  return replay_dir(d, options);
}

// The candidates of the behaves-like search of `route` (every accepted set of its behaviours): what a
// search that finds nothing and is not stopped spends of the call's budget.
inline std::int64_t search_candidates(Route route) {
  Variant all = Variant::production;
  for (int i = 0; i < kBehaviourCount; ++i)  // the launch-size behaviours are left out of the search (kLaunchSizeBits)
    if (behaviour_in_route(route, static_cast<Behaviour>(i)) && (Variant::of(static_cast<Behaviour>(i)).bits & kLaunchSizeBits) == 0)
      all = all | Variant::of(static_cast<Behaviour>(i));
  return static_cast<std::int64_t>(accepted_subsets(route, all).size());
}

// Whether the lane difference `d` is at `index`, with the claimed variant's value `expected` and the
// recorded value `recorded`.
inline ::testing::AssertionResult lane_diff_is(const LaneDiff& d, const std::vector<std::int64_t>& index,
                                               std::int64_t expected, std::int64_t recorded) {
  if (d.index == index && d.expected == expected && d.recorded == recorded) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure() << d.output << " lane {";
  for (std::size_t i = 0; i < d.index.size(); ++i) failure << (i ? ", " : "") << d.index[i];
  failure << "}: expected " << d.expected << ", recorded " << d.recorded << "; wanted {";
  for (std::size_t i = 0; i < index.size(); ++i) failure << (i ? ", " : "") << index[i];
  return failure << "}: expected " << expected << ", recorded " << recorded;
}

}  // namespace kvaddr::replay::test_support
