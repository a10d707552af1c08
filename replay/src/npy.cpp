// .npy reader / writer (see npy.hpp). The header is a Python dict literal; only the subset numpy
// writes for plain dtypes is accepted: string keys, string / bool / int-tuple values.
#include "kvaddr/replay/npy.hpp"

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace kvaddr::replay {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// A header larger than this is rejected (numpy itself refuses headers over 10000 bytes by default).
constexpr std::size_t kMaxHeader = 1u << 20;

[[noreturn]] void fail(const std::string& what) { throw NpyError(what); }

std::uint64_t le_uint(std::string_view b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

// ---- header dict parser ------------------------------------------------------------------------
struct HeaderValue {
  enum class Kind { string, boolean, tuple } kind = Kind::string;
  std::string text;
  bool flag = false;
  std::vector<std::int64_t> ints;
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}

  std::vector<std::pair<std::string, HeaderValue>> parse_dict() {
    std::vector<std::pair<std::string, HeaderValue>> out;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') {
        ++i_;
        break;
      }
      std::string key = parse_string();
      expect(':');
      HeaderValue v = parse_value();
      out.emplace_back(std::move(key), std::move(v));
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      break;
    }
    skip_ws();
    if (i_ != s_.size()) fail("header: unexpected text after the dictionary");
    return out;
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) fail(std::string("header: expected '") + c + "' at offset " + std::to_string(i_));
    ++i_;
  }
  std::string parse_string() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') fail("header: expected a quoted string at offset " + std::to_string(i_));
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\') fail("header: escapes in strings are not supported");
      out.push_back(s_[i_++]);
    }
    if (i_ >= s_.size()) fail("header: unterminated string");
    ++i_;
    return out;
  }
  std::int64_t parse_int() {
    skip_ws();
    std::size_t start = i_;
    std::uint64_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      const auto digit = static_cast<std::uint64_t>(s_[i_] - '0');
      if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - digit) / 10) {
        fail("header: shape entry does not fit int64");
      }
      v = v * 10 + digit;
      ++i_;
    }
    if (i_ == start) fail("header: expected a non-negative integer at offset " + std::to_string(start));
    if (peek() == 'L') ++i_;  // Python 2 long suffix written by old numpy
    return static_cast<std::int64_t>(v);
  }
  HeaderValue parse_value() {
    skip_ws();
    HeaderValue v;
    const char c = peek();
    if (c == '\'' || c == '"') {
      v.kind = HeaderValue::Kind::string;
      v.text = parse_string();
    } else if (s_.substr(i_, 4) == "True") {
      v.kind = HeaderValue::Kind::boolean;
      v.flag = true;
      i_ += 4;
    } else if (s_.substr(i_, 5) == "False") {
      v.kind = HeaderValue::Kind::boolean;
      v.flag = false;
      i_ += 5;
    } else if (c == '(') {
      v.kind = HeaderValue::Kind::tuple;
      ++i_;
      while (true) {
        skip_ws();
        if (peek() == ')') {
          ++i_;
          break;
        }
        v.ints.push_back(parse_int());
        skip_ws();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(')');
        break;
      }
    } else {
      fail("header: unsupported value at offset " + std::to_string(i_) + " (structured dtypes are not supported)");
    }
    return v;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// descr -> (dtype, item size, big-endian?)
struct DescrInfo {
  NpyDtype dtype = NpyDtype::other;
  std::size_t item = 0;  // 0 when unknown
  bool big_endian = false;
};
DescrInfo describe(const std::string& d) {
  DescrInfo info;
  if (d.size() < 3) return info;
  const char order = d[0];
  const char kind = d[1];
  const std::string digits = d.substr(2);
  if (order != '<' && order != '>' && order != '=' && order != '|') return info;
  std::size_t item = 0;
  for (char ch : digits) {
    if (ch < '0' || ch > '9' || item > 1024) return info;
    item = item * 10 + static_cast<std::size_t>(ch - '0');
  }
  info.item = item;
  info.big_endian = (order == '>');
  if (kind == 'i' && item == 4) info.dtype = NpyDtype::int32;
  if (kind == 'i' && item == 8) info.dtype = NpyDtype::int64;
  return info;
}

std::int64_t checked_product(const std::vector<std::int64_t>& shape, std::size_t item) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) fail("header: negative dimension");
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) fail("header: shape product overflows int64");
    n *= d;
  }
  if (item != 0 && n > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(item)) {
    fail("header: data size overflows int64");
  }
  return n;
}

std::string shape_tuple(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

std::string_view to_string(NpyDtype d) noexcept {
  switch (d) {
    case NpyDtype::int32: return "int32";
    case NpyDtype::int64: return "int64";
    case NpyDtype::other: return "other";
  }
  return "other";
}

std::int64_t NpyArray::size() const noexcept {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;  // validated at parse time not to overflow
  return n;
}

std::string NpyArray::shape_string() const { return shape_tuple(shape); }

NpyArray parse_npy(std::string_view b) {
  if (b.size() < 10 || b.substr(0, 6) != kMagic) fail("not a .npy file (bad magic)");
  const auto major = static_cast<unsigned char>(b[6]);
  std::size_t len_bytes = 0;
  if (major == 1) {
    len_bytes = 2;
  } else if (major == 2 || major == 3) {
    len_bytes = 4;
  } else {
    fail("unsupported .npy format version " + std::to_string(major));
  }
  const std::size_t prefix = 8 + len_bytes;
  if (b.size() < prefix) fail("truncated .npy header");
  const std::uint64_t hlen = le_uint(b, 8, len_bytes);
  if (hlen > kMaxHeader) fail("header length " + std::to_string(hlen) + " is too large");
  if (b.size() - prefix < hlen) fail("truncated .npy header");
  const std::string_view header = b.substr(prefix, static_cast<std::size_t>(hlen));

  NpyArray a;
  bool have_descr = false, have_order = false, have_shape = false;
  for (auto& [key, v] : HeaderParser(header).parse_dict()) {
    if (key == "descr") {
      if (v.kind != HeaderValue::Kind::string) fail("header: 'descr' must be a string");
      a.descr = v.text;
      have_descr = true;
    } else if (key == "fortran_order") {
      if (v.kind != HeaderValue::Kind::boolean) fail("header: 'fortran_order' must be True or False");
      a.fortran_order = v.flag;
      have_order = true;
    } else if (key == "shape") {
      if (v.kind != HeaderValue::Kind::tuple) fail("header: 'shape' must be a tuple");
      a.shape = v.ints;
      have_shape = true;
    } else {
      fail("header: unknown key '" + key + "'");
    }
  }
  if (!have_descr || !have_order || !have_shape) fail("header: needs 'descr', 'fortran_order' and 'shape'");

  const DescrInfo info = describe(a.descr);
  a.dtype = info.dtype;
  const std::int64_t n = checked_product(a.shape, info.item);
  const std::size_t data_at = prefix + static_cast<std::size_t>(hlen);
  const std::size_t have = b.size() - data_at;
  if (a.dtype == NpyDtype::other) return a;  // other dtypes: descr and shape are reported, data is not read
  const auto need = static_cast<std::uint64_t>(n) * info.item;
  if (have < need) fail("data truncated: " + std::to_string(have) + " bytes for " + std::to_string(need));
  if (have > need) fail("trailing bytes after the data: " + std::to_string(have) + " bytes for " + std::to_string(need));

  a.values.resize(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < a.values.size(); ++k) {
    std::array<unsigned char, 8> raw{};
    std::memcpy(raw.data(), b.data() + data_at + k * info.item, info.item);
    std::uint64_t u = 0;
    for (std::size_t i = 0; i < info.item; ++i) {
      const std::size_t src = info.big_endian ? info.item - 1 - i : i;
      u |= static_cast<std::uint64_t>(raw[src]) << (8 * i);
    }
    if (info.item == 4) {
      a.values[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(u));
    } else {
      a.values[k] = static_cast<std::int64_t>(u);
    }
  }
  return a;
}

NpyArray read_npy(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail("missing file " + path.string());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open " + path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail("cannot read " + path.string());
  try {
    return parse_npy(bytes);
  } catch (const NpyError& e) {
    fail(path.filename().string() + ": " + e.what());
  }
}

std::string format_npy(NpyDtype dtype, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& values) {
  if (dtype == NpyDtype::other) fail("format_npy: only int32 and int64 are written");
  const std::size_t item = dtype == NpyDtype::int32 ? 4 : 8;
  const std::int64_t n = checked_product(shape, item);
  if (static_cast<std::uint64_t>(n) != values.size()) {
    fail("format_npy: " + std::to_string(values.size()) + " values for shape " + shape_tuple(shape));
  }
  std::string dict = std::string("{'descr': '") + (item == 4 ? "<i4" : "<i8") +
                     "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
  // magic(6) + version(2) + len(2) + dict + padding + '\n' is a multiple of 64.
  std::size_t total = 10 + dict.size() + 1;
  const std::size_t pad = (64 - total % 64) % 64;
  dict.append(pad, ' ');
  dict.push_back('\n');
  if (dict.size() > 0xffff) fail("format_npy: header too long for format 1.0");
  std::string out(kMagic);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>((dict.size() >> 8) & 0xff));
  out += dict;
  out.reserve(out.size() + values.size() * item);
  for (std::int64_t v : values) {
    if (item == 4 && (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())) {
      fail("format_npy: value " + std::to_string(v) + " does not fit int32");
    }
    const auto u = static_cast<std::uint64_t>(v);
    for (std::size_t i = 0; i < item; ++i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
  }
  return out;
}

void write_npy(const std::filesystem::path& path, NpyDtype dtype, const std::vector<std::int64_t>& shape,
               const std::vector<std::int64_t>& values) {
  const std::string bytes = format_npy(dtype, shape, values);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail("cannot create " + path.string());
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail("cannot write " + path.string());
}

}  // namespace kvaddr::replay
