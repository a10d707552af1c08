#pragma once
// Strict argument parsing for the command line: integers that reject anything but an exact
// in-range decimal (no saturation, no wrap, no trailing text), and arrays given inline, as a text
// file of numbers or as a .npy file. Every error is a kvaddr::InvalidArgument naming the option
// (e.g. "--page-size") and the text the user gave.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace kvaddr::cli {

// Largest number of output lanes an option may ask for (checked before anything is allocated).
inline constexpr std::int64_t kMaxLanes = std::int64_t{1} << 26;

// Parse `text` as a decimal integer in [lo, hi]; InvalidArgument(option, text) otherwise.
std::int64_t parse_int(const std::string& text, const std::string& option, std::int64_t lo, std::int64_t hi);
std::uint64_t parse_uint(const std::string& text, const std::string& option);

// Registers an integer option whose value is parsed strictly into `target`; the help shows the
// range and the default (the value `target` holds now).
template <class T>
CLI::Option* int_option(CLI::App* app, const std::string& flag, T& target, const std::string& help,
                        std::int64_t lo = std::numeric_limits<T>::min(),
                        std::int64_t hi = static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
  auto* o = app->add_option_function<std::string>(
      flag, [&target, flag, lo, hi](const std::string& s) { target = static_cast<T>(parse_int(s, flag, lo, hi)); },
      help);
  o->type_name("INT");
  o->default_str(std::to_string(target));
  return o;
}
// The same for a uint64 seed: the full 0 .. 2^64-1 range, a leading '-' is rejected.
CLI::Option* seed_option(CLI::App* app, std::uint64_t& target, const std::string& help);

// A parsed array: `shape` is {n} for a list and {rows, cols} for a matrix.
struct Array {
  std::vector<std::int64_t> values;
  std::vector<std::int64_t> shape;
  std::int64_t rows() const { return shape.size() == 2 ? shape[0] : 1; }
  std::int64_t cols() const { return shape.empty() ? 0 : shape.back(); }
};

// True when `text` can only be an inline list: digits, signs, ',', ';' and white space.
bool looks_like_list(const std::string& text);

// An inline list ("1,2,-1"; rows separated by ';' for a matrix), a text file of numbers (rows on
// separate lines) or a .npy file. A path that does not exist says "file not found"; one that
// cannot be read says "cannot read". `option` names the argument in every error.
Array load_array(const std::string& text, const std::string& option, bool matrix);

// Each name of `only` (an --only option) must match one of `known`; otherwise InvalidArgument
// naming `option` and the name, listing the known ones. An --only that matches nothing is an
// error, never an empty result.
void require_known(const std::vector<std::string>& only, const std::vector<std::string>& known,
                   const std::string& option,
                   const std::function<bool(const std::string& known, const std::string& given)>& match);
bool same_name(const std::string& known, const std::string& given);
// `given` is `known` or a dotted prefix of it ("I8" matches "I8.x").
bool name_or_prefix(const std::string& known, const std::string& given);

// Parse a comma/whitespace separated list of int64; `what` names the argument in errors.
std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what);

}  // namespace kvaddr::cli
