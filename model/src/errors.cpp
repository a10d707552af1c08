#include "kvaddr/model/errors.hpp"

#include <limits>

namespace kvaddr {

std::string_view to_string(ErrorKind kind) noexcept {
  switch (kind) {
    case ErrorKind::invalid_argument: return "invalid_argument";
    case ErrorKind::out_of_range: return "out_of_range";
    case ErrorKind::overflow: return "overflow";
    case ErrorKind::buffer_too_small: return "buffer_too_small";
    case ErrorKind::invalid_state: return "invalid_state";
    case ErrorKind::io: return "io";
    case ErrorKind::format: return "format";
  }
  return "unknown";
}

Error::Error(ErrorKind kind, std::string argument, std::string value, std::string reason)
    : std::runtime_error(argument + " = " + value + ": " + reason),
      kind_(kind),
      argument_(std::move(argument)),
      value_(std::move(value)),
      reason_(std::move(reason)) {}

void require(bool condition, std::string_view argument, std::int64_t value, std::string_view reason) {
  if (!condition) throw InvalidArgument(std::string(argument), std::to_string(value), std::string(reason));
}
void require_range(bool condition, std::string_view argument, std::int64_t value, std::string_view reason) {
  if (!condition) throw OutOfRange(std::string(argument), std::to_string(value), std::string(reason));
}
void require_size(bool condition, std::string_view argument, std::int64_t value, std::string_view reason) {
  if (!condition) throw BufferTooSmall(std::string(argument), std::to_string(value), std::string(reason));
}

namespace {
[[noreturn]] void throw_overflow(std::int64_t a, std::string_view op, std::int64_t b, std::string_view argument,
                                 std::string_view what) {
  throw Overflow(std::string(argument), std::to_string(a) + std::string(op) + std::to_string(b), std::string(what));
}
}  // namespace

std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view argument) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw_overflow(a, " * ", b, argument, "product does not fit int64");
  return r;
}
std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view argument) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(a, " + ", b, argument, "sum does not fit int64");
  return r;
}
std::int32_t checked_narrow32(std::int64_t v, std::string_view argument) {
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max()) {
    throw Overflow(std::string(argument), std::to_string(v), "value does not fit an int32 output");
  }
  return static_cast<std::int32_t>(v);
}

}  // namespace kvaddr
