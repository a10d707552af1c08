#include "text.hpp"

#include <cstdint>

namespace kvaddr::replay::detail {

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    cp = b0 & 0x0Fu;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    cp = b0 & 0x07u;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0u) != 0x80u) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}
}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t run = 0;  // the first byte of the valid run not yet copied: copied whole at each invalid byte
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out.append(s.substr(run, i - run));
      out += "\xEF\xBF\xBD";
      run = ++i;
    } else {
      i += n;
    }
  }
  out.append(s.substr(run));
  return out;
}

std::string snippet(std::string_view s, std::size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  const std::size_t n = s.size() < max ? s.size() : max;
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

}  // namespace kvaddr::replay::detail
