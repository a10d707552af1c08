#pragma once
// The replay of one manifest call (replay.cpp), used by the manifest-level driver (report.cpp).
#include <filesystem>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/replay.hpp"

namespace kvaddr::replay::detail {

// Fills `r` for one call of the manifest. Throws (any std::exception) when the call cannot be
// checked; the caller turns that into CallStatus::error.
void check_call(const nlohmann::json& call, const std::filesystem::path& dir, bool allow_outside, CallReport& r);

}  // namespace kvaddr::replay::detail
