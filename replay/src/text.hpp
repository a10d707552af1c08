#pragma once
// Text helpers of replay/: every string that reaches a report or an error message is valid UTF-8
// and bounded, whatever bytes the manifest, a .npy header or a directory name held.
#include <cstddef>
#include <string>
#include <string_view>

namespace kvaddr::replay::detail {

// `s` with every invalid UTF-8 sequence (stray continuation byte, truncated or overlong sequence,
// surrogate, code point past U+10FFFF) replaced by U+FFFD; valid text is returned unchanged.
std::string valid_utf8(std::string_view s);

// A short ASCII rendering of untrusted bytes for an error message: printable ASCII kept, every
// other byte written as \xNN, cut after `max` input bytes with "...".
std::string snippet(std::string_view s, std::size_t max = 40);

}  // namespace kvaddr::replay::detail
