#pragma once
// Parsing of manifest.json text into a JSON value through kvaddr's one reader of untrusted JSON
// (kvaddr/replay/json.hpp): its depth and size limits, no repeated keys, error texts that are
// short, printable ASCII and never contain a nested value.
#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/json.hpp"

namespace kvaddr::replay::detail {

inline constexpr std::size_t kMaxManifestBytes = kMaxJsonBytes;

// read_json(text, "manifest.json"): FormatError("manifest.json", ...) for text that is not JSON,
// nests deeper than kMaxJsonDepth, or repeats a key in one object.
nlohmann::json parse_manifest(std::string_view text);

// A short description of a JSON value for error texts: scalars as written (cut to 40 bytes),
// objects and arrays by type only.
std::string describe_value(const nlohmann::json& v);

}  // namespace kvaddr::replay::detail
