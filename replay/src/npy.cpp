// .npy reader / writer (see npy.hpp). The header is a Python dict literal; only the subset numpy
// writes for plain dtypes is accepted: string keys, string / bool / int-tuple values.
#include "kvaddr/replay/npy.hpp"

#include <array>
#include <cstring>
#include <limits>

#include "files.hpp"
#include "text.hpp"

namespace kvaddr::replay {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// A header larger than this is rejected (numpy itself refuses headers over 10000 bytes by default).
constexpr std::size_t kMaxHeader = 1u << 20;

// numpy's own limit on the number of dimensions.
constexpr std::size_t kMaxRank = 64;

[[noreturn]] void fail(const std::string& what) { throw NpyError("<image>", what); }

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
    parse_items('}', [&] {
      std::string key = parse_string();
      expect(':');
      HeaderValue v = parse_value();
      out.emplace_back(std::move(key), std::move(v));
    });
    skip_ws();
    if (i_ != s_.size()) fail("header: unexpected text after the dictionary");
    return out;
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  // After the opening bracket: items separated by ',' up to `close` (an empty list and a trailing
  // ',' are accepted); consumes `close`.
  template <class Item>
  void parse_items(char close, Item item) {
    while (true) {
      skip_ws();
      if (peek() == close) {
        ++i_;
        return;
      }
      item();
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect(close);
      return;
    }
  }
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
      if (out.size() >= 64) fail("header: string longer than 64 bytes");
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
    if (i_ - start > 1 && s_[start] == '0') fail("header: leading zero in a shape entry at offset " + std::to_string(start));
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
      parse_items(')', [&] {
        if (v.ints.size() >= kMaxRank) fail("header: more than " + std::to_string(kMaxRank) + " dimensions");
        v.ints.push_back(parse_int());
      });
    } else {
      fail("header: unsupported value at offset " + std::to_string(i_) + " (structured dtypes are not supported)");
    }
    return v;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// descr -> (dtype, item size, big-endian?); only the strings of kNpyDescrs are known.
struct DescrInfo {
  NpyDtype dtype = NpyDtype::other;
  std::size_t item = 0;
  bool big_endian = false;
};
DescrInfo describe(const std::string& d) {
  bool known = false;
  for (std::string_view k : kNpyDescrs) known = known || d == k;
  // The text is not echoed (no error shows the bytes of a file): only its length.
  if (!known) fail("header: unsupported descr of " + std::to_string(d.size()) + " bytes (integer, float or bool dtypes only)");
  DescrInfo info;
  info.item = static_cast<std::size_t>(d[2] - '0');
  info.big_endian = d[0] == '>';
  if (d[1] == 'i' && info.item == 4) info.dtype = NpyDtype::int32;
  if (d[1] == 'i' && info.item == 8) info.dtype = NpyDtype::int64;
  return info;
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

std::int64_t checked_product(const std::vector<std::int64_t>& shape, std::size_t item) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) fail("header: negative dimension");
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) {
      fail("header: shape " + shape_tuple(shape) + ": its element count overflows int64");
    }
    n *= d;
  }
  if (item != 0 && n > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(item)) {
    fail("header: shape " + shape_tuple(shape) + ": its byte size overflows int64");
  }
  return n;
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

namespace {

// What the header says: the array without its values, where the data starts and how long it is.
struct Header {
  NpyArray array;
  DescrInfo info;
  std::size_t data_at = 0;
  std::uint64_t data_bytes = 0;
};

// Length of the fixed prefix (magic, version, header length) from the first 8 bytes.
std::size_t prefix_length(std::string_view b) {
  if (b.size() < 8 || b.substr(0, 6) != kMagic) fail("not a .npy file (bad magic)");
  const auto major = static_cast<unsigned char>(b[6]);
  const auto minor = static_cast<unsigned char>(b[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    fail("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  return major == 1 ? 10 : 12;
}

// Header length from the prefix, checked against kMaxHeader and the bytes that follow.
std::size_t header_length(std::string_view prefix, std::uint64_t bytes_after_prefix) {
  const std::uint64_t hlen = le_uint(prefix, 8, prefix.size() - 8);
  if (hlen > kMaxHeader) fail("header length " + std::to_string(hlen) + " is too large");
  if (hlen > bytes_after_prefix) fail("truncated .npy header");
  return static_cast<std::size_t>(hlen);
}

// Parses the dictionary and checks that the data the shape needs is exactly `data_available`.
Header parse_header(std::string_view dict, std::size_t data_at, std::uint64_t data_available) {
  Header h;
  NpyArray& a = h.array;
  bool have_descr = false, have_order = false, have_shape = false;
  for (auto& [key, v] : HeaderParser(dict).parse_dict()) {
    bool* seen = key == "descr" ? &have_descr : key == "fortran_order" ? &have_order : key == "shape" ? &have_shape : nullptr;
    if (seen == nullptr) fail("header: unknown key of " + std::to_string(key.size()) + " bytes (only 'descr', 'fortran_order', 'shape')");
    if (*seen) fail("header: key '" + key + "' appears twice");
    *seen = true;
    if (key == "descr") {
      if (v.kind != HeaderValue::Kind::string) fail("header: 'descr' must be a string");
      a.descr = v.text;
    } else if (key == "fortran_order") {
      if (v.kind != HeaderValue::Kind::boolean) fail("header: 'fortran_order' must be True or False");
      a.fortran_order = v.flag;
    } else {
      if (v.kind != HeaderValue::Kind::tuple) fail("header: 'shape' must be a tuple");
      a.shape = v.ints;
    }
  }
  if (!have_descr || !have_order || !have_shape) fail("header: needs 'descr', 'fortran_order' and 'shape'");
  h.info = describe(a.descr);
  a.dtype = h.info.dtype;
  const std::int64_t n = checked_product(a.shape, h.info.item);
  h.data_at = data_at;
  h.data_bytes = static_cast<std::uint64_t>(n) * h.info.item;
  if (data_available < h.data_bytes) {
    fail("data truncated: " + std::to_string(data_available) + " bytes for " + std::to_string(h.data_bytes));
  }
  if (data_available > h.data_bytes) {
    fail("trailing bytes after the data: " + std::to_string(data_available) + " bytes for " +
         std::to_string(h.data_bytes));
  }
  return h;
}

// The raw data sits at the start of `values`' storage (item bytes per element); widens it to
// native int64 in place, from the last element down so that no source byte is overwritten early.
void decode_in_place(std::vector<std::int64_t>& values, const DescrInfo& info) {
  auto* raw = reinterpret_cast<unsigned char*>(values.data());
  for (std::size_t k = values.size(); k-- > 0;) {
    std::array<unsigned char, 8> b{};
    std::memcpy(b.data(), raw + k * info.item, info.item);
    std::uint64_t u = 0;
    for (std::size_t i = 0; i < info.item; ++i) {
      const std::size_t src = info.big_endian ? info.item - 1 - i : i;
      u |= static_cast<std::uint64_t>(b[src]) << (8 * i);
    }
    values[k] = info.item == 4 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(u)) : static_cast<std::int64_t>(u);
  }
}

// A Fortran-order array's values (the first index fastest) reordered into C order; a C-order array, one of rank
// <= 1 or without values is left as it is.
void to_c_order(NpyArray& a) {
  const std::size_t n = a.shape.size();
  if (!a.fortran_order || n <= 1 || a.values.empty()) return;
  // The file holds element (i_0, ..., i_{n-1}) at F position sum i_k * prod_{j<k} shape_j; walk the F positions in
  // order with the multi-index (i_0 fastest) and its C position sum i_k * prod_{j>k} shape_j kept incrementally.
  std::vector<std::int64_t> c_stride(n, 1);
  for (std::size_t k = n - 1; k-- > 0;) c_stride[k] = c_stride[k + 1] * a.shape[k + 1];
  std::vector<std::int64_t> idx(n, 0), out(a.values.size());
  std::int64_t c = 0;
  for (const std::int64_t v : a.values) {
    out[static_cast<std::size_t>(c)] = v;
    for (std::size_t k = 0; k < n; ++k) {
      if (++idx[k] < a.shape[k]) {
        c += c_stride[k];
        break;
      }
      c -= (idx[k] - 1) * c_stride[k];
      idx[k] = 0;
    }
  }
  a.values = std::move(out);
}

}  // namespace

NpyArray parse_npy(std::string_view b) {
  const std::size_t prefix = prefix_length(b);
  if (b.size() < prefix) fail("truncated .npy header");
  const std::size_t hlen = header_length(b.substr(0, prefix), b.size() - prefix);
  Header h = parse_header(b.substr(prefix, hlen), prefix + hlen, b.size() - prefix - hlen);
  if (h.array.dtype == NpyDtype::other) return h.array;  // other dtypes: descr and shape are reported, data is not read
  h.array.values.resize(h.data_bytes / h.info.item);
  if (h.data_bytes > 0) std::memcpy(h.array.values.data(), b.data() + h.data_at, h.data_bytes);
  decode_in_place(h.array.values, h.info);
  to_c_order(h.array);
  return std::move(h.array);
}

NpyArray read_npy(const std::filesystem::path& path) {
  const detail::InputFile f(path);
  const std::uint64_t size = f.size();
  try {
    std::array<char, 12> pre{};
    const auto first = static_cast<std::size_t>(size < 8 ? size : 8);
    f.read_at(pre.data(), first, 0);
    const std::size_t prefix = prefix_length(std::string_view(pre.data(), first));
    if (size < prefix) fail("truncated .npy header");
    f.read_at(pre.data() + 8, prefix - 8, 8);
    const std::size_t hlen = header_length(std::string_view(pre.data(), prefix), size - prefix);
    std::string dict(hlen, '\0');
    f.read_at(dict.data(), hlen, prefix);
    Header h = parse_header(dict, prefix + hlen, size - prefix - hlen);
    if (h.array.dtype == NpyDtype::other) return std::move(h.array);
    h.array.values.resize(h.data_bytes / h.info.item);
    f.read_at(h.array.values.data(), static_cast<std::size_t>(h.data_bytes), h.data_at);
    decode_in_place(h.array.values, h.info);
    to_c_order(h.array);
    return std::move(h.array);
  } catch (const NpyError& e) {
    throw NpyError(detail::valid_utf8(path.filename().string()), e.reason());
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
  detail::write_bytes(path, format_npy(dtype, shape, values));
}

}  // namespace kvaddr::replay
