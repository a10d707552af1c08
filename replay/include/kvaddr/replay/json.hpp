#pragma once
// The one reader of untrusted JSON in kvaddr: replay's manifest.json and the shard reports that
// `kvaddr merge` joins both go through it, so they share one depth and one size limit. A document
// deeper than kMaxJsonDepth is refused while it is parsed (a deeply nested value never reaches a
// recursive routine: copy, compare, dump, destroy); larger than kMaxJsonBytes is refused before
// parsing. Error texts are short printable ASCII and never echo the document's bytes.
//
// The header uses nlohmann::json: a target that includes it links nlohmann_json::nlohmann_json.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvaddr::replay {

inline constexpr std::size_t kMaxJsonDepth = 32;
inline constexpr std::size_t kMaxJsonBytes = std::size_t{64} << 20;

// Parses `text`. Throws kvaddr::FormatError(file, ...) for text larger than kMaxJsonBytes, text that
// is not JSON (the reason gives the byte offset, never the bytes), nesting deeper than
// kMaxJsonDepth ("depth 33: nested deeper than 32 levels"), or a key repeated in one object.
// Invalid UTF-8 bytes are read as U+FFFD.
nlohmann::json read_json(std::string_view text, const std::string& file);

// The regular file `path` (at most kMaxJsonBytes, never blocking on a FIFO) through read_json; every
// error (kvaddr::IoError for a missing, unreadable, non-regular or too large file) names `file`.
nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& file);

}  // namespace kvaddr::replay
