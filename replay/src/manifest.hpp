#pragma once
// Parsing of manifest.json text into a JSON value, with the limits replay relies on: nesting at
// most kMaxManifestDepth deep (checked while parsing, so a deeply nested document never reaches
// a recursive routine), every object free of repeated keys, and error texts that are short,
// printable ASCII and never contain a nested value.
#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvaddr::replay::detail {

inline constexpr std::size_t kMaxManifestDepth = 32;
inline constexpr std::size_t kMaxManifestBytes = std::size_t{64} << 20;

// Throws kvaddr::FormatError("manifest.json", ...) for text that is not JSON, nests deeper than
// kMaxManifestDepth, or repeats a key in one object. Invalid UTF-8 bytes are read as U+FFFD.
nlohmann::json parse_manifest(std::string_view text);

// A short description of a JSON value for error texts: scalars as written (cut to 40 bytes),
// objects and arrays by type only.
std::string describe_value(const nlohmann::json& v);

}  // namespace kvaddr::replay::detail
