#pragma once
// Shared by the replay tests: an empty recording directory and a replay of a manifest of calls
// written into it.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/replay.hpp"

namespace kvaddr::replay::test_support {

// <temp>/<prefix><name>, emptied and created afresh.
inline std::filesystem::path fresh_dir(const std::string& prefix, const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / (prefix + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// Writes {"calls": calls} as d/manifest.json and replays d.
inline ReplayReport replay_calls(const std::filesystem::path& d, const std::vector<nlohmann::json>& calls) {
  std::ofstream(d / "manifest.json") << nlohmann::json{{"calls", calls}}.dump(2);
  return replay_dir(d);
}

}  // namespace kvaddr::replay::test_support
