#include "args.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "kvaddr/model/errors.hpp"
#ifdef KVADDR_WITH_REPLAY
#include "kvaddr/replay/npy.hpp"
#endif

namespace kvaddr::cli {

namespace {

template <class T>
bool exact(const std::string& text, T& value) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text[0] == '+') ++first;
  if (first == last) return false;
  auto [ptr, ec] = std::from_chars(first, last, value);
  return ec == std::errc() && ptr == last;
}

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::vector<std::string> split_rows(const std::string& text) {
  std::vector<std::string> rows;
  std::string row;
  for (char c : text) {
    if (c == ';' || c == '\n') {
      rows.push_back(row);
      row.clear();
    } else {
      row.push_back(c);
    }
  }
  rows.push_back(row);
  std::vector<std::string> nonblank;
  for (auto& r : rows) {
    if (r.find_first_not_of(" \t\r,") != std::string::npos) nonblank.push_back(r);
  }
  return nonblank;
}

Array from_text(const std::string& text, const std::string& option, bool matrix) {
  Array a;
  if (!matrix) {
    a.values = parse_int_list(text, option);
    a.shape = {static_cast<std::int64_t>(a.values.size())};
    return a;
  }
  const auto rows = split_rows(text);
  std::int64_t cols = -1;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    auto row = parse_int_list(rows[r], option);
    const auto n = static_cast<std::int64_t>(row.size());
    if (cols >= 0 && n != cols) {
      throw InvalidArgument(option, rows[r],
                            fmt::format("row {} has {} values, row 0 has {} (rows are separated by ';' or new lines)",
                                        r, n, cols));
    }
    cols = n;
    a.values.insert(a.values.end(), row.begin(), row.end());
  }
  a.shape = {static_cast<std::int64_t>(rows.size()), cols < 0 ? 0 : cols};
  return a;
}

// The whole file, through stdio so that a read error (EIO) is told apart from the end of file.
std::string read_text_file(const std::filesystem::path& path, const std::string& text, const std::string& option) {
  constexpr std::size_t kMaxTextBytes = std::size_t{1} << 30;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw IoError(option, text, fmt::format("cannot read: {}", std::strerror(errno)));
  std::string data;
  char chunk[65536];
  for (;;) {
    const auto n = std::fread(chunk, 1, sizeof chunk, f.get());
    data.append(chunk, n);
    if (data.size() > kMaxTextBytes) throw IoError(option, text, "cannot read: larger than 1 GiB");
    if (n < sizeof chunk) break;
  }
  if (std::ferror(f.get()) != 0) throw IoError(option, text, "cannot read: I/O error");
  return data;
}

}  // namespace

std::int64_t parse_int(const std::string& text, const std::string& option, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (!exact(text, v)) {
    bool digits = !text.empty();
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      digits = digits && ((c >= '0' && c <= '9') || (i == 0 && (c == '-' || c == '+')));
    }
    throw InvalidArgument(option, text,
                          digits ? fmt::format("out of range: must be in [{}, {}]", lo, hi) : "not an integer");
  }
  if (v < lo || v > hi) throw InvalidArgument(option, text, fmt::format("out of range: must be in [{}, {}]", lo, hi));
  return v;
}

std::uint64_t parse_uint(const std::string& text, const std::string& option) {
  std::uint64_t v = 0;
  if (!text.empty() && text[0] == '-') {
    throw InvalidArgument(option, text, "must be in [0, 18446744073709551615] (an unsigned 64-bit seed)");
  }
  if (!exact(text, v)) {
    throw InvalidArgument(option, text, "not an integer in [0, 18446744073709551615] (an unsigned 64-bit seed)");
  }
  return v;
}

CLI::Option* seed_option(CLI::App* app, std::uint64_t& target, const std::string& help) {
  auto* o = app->add_option_function<std::string>(
      "--seed", [&target](const std::string& s) { target = parse_uint(s, "--seed"); }, help);
  o->type_name("UINT64");
  o->default_str(std::to_string(target));
  return o;
}

std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what) {
  std::vector<std::int64_t> values;
  std::string token;
  auto flush = [&]() {
    if (token.empty()) return;
    std::int64_t v = 0;
    if (!exact(token, v)) throw InvalidArgument(what, token, "not an int64 integer");
    values.push_back(v);
    token.clear();
  };
  for (char c : text) {
    if (is_separator(c)) {
      flush();
    } else {
      token.push_back(c);
    }
  }
  flush();
  return values;
}

void require_known(const std::vector<std::string>& only, const std::vector<std::string>& known,
                   const std::string& option,
                   const std::function<bool(const std::string&, const std::string&)>& match) {
  for (const auto& name : only) {
    bool found = false;
    for (const auto& k : known) found = found || match(k, name);
    if (!found) {
      throw InvalidArgument(option, name.empty() ? "(empty)" : name,
                            fmt::format("unknown name; one of: {}", fmt::join(known, ", ")));
    }
  }
}

bool same_name(const std::string& known, const std::string& given) { return known == given; }

bool name_or_prefix(const std::string& known, const std::string& given) {
  return known == given ||
         (known.size() > given.size() && known.compare(0, given.size(), given) == 0 && known[given.size()] == '.');
}

bool looks_like_list(const std::string& text) {
  for (char c : text) {
    const bool ok = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == ';' || is_separator(c);
    if (!ok) return false;
  }
  return true;
}

Array load_array(const std::string& text, const std::string& option, bool matrix) {
  if (looks_like_list(text)) return from_text(text, option, matrix);
  namespace fs = std::filesystem;
  const fs::path path(text);
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw IoError(option, text, "file not found");
  if (fs::is_directory(status)) throw IoError(option, text, "cannot read: a directory, not a file");
  if (path.extension() == ".npy") {
#ifdef KVADDR_WITH_REPLAY
    replay::NpyArray npy;
    try {
      npy = replay::read_npy(path);
    } catch (const replay::NpyError& e) {
      throw FormatError(option, text, std::string("not a valid .npy file: ") + e.reason());
    } catch (const IoError& e) {
      throw IoError(option, text, std::string("cannot read: ") + e.reason());
    }
    if (npy.dtype == replay::NpyDtype::other) {
      throw InvalidArgument(option, text, "cannot read: dtype " + npy.descr + " (int32 or int64 expected)");
    }
    const auto want = matrix ? 2 : 1;
    if (npy.ndim() != want) {
      throw InvalidArgument(option, text, fmt::format("shape {} has rank {}, {} expected", npy.shape_string(),
                                                      npy.ndim(), want));
    }
    Array a;
    a.values = std::move(npy.values);
    a.shape = npy.shape;
    return a;
#else
    throw InvalidArgument(option, text, "cannot read .npy files: built without replay/");
#endif
  }
  return from_text(read_text_file(path, text, option), option, matrix);
}

}  // namespace kvaddr::cli
