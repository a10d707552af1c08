#pragma once
// Typed errors of every public kvaddr entry point. Each names the argument it rejects and the
// offending value, so that a caller (C++, the CLI, or a Python test) sees exactly what was wrong.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvaddr {

enum class ErrorKind {
  invalid_argument,  // a scalar outside its documented domain (ps = 0, M = 0, negative size, bad flag)
  out_of_range,      // an index or id past the table it addresses
  overflow,          // an arithmetic product that does not fit its type (int64 geometry, int32 output)
  buffer_too_small,  // an output or input buffer smaller than the route needs
  invalid_state,     // a state-machine precondition (double free, duplicate ids, unbound page)
  io,                // a file that cannot be opened or read (missing, not a regular file, read error)
  format,            // bytes that do not follow their file format (.npy header, manifest JSON)
};

std::string_view to_string(ErrorKind kind) noexcept;

// Base of every kvaddr error: what() reads "<argument> = <value>: <reason>".
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string argument, std::string value, std::string reason);
  ErrorKind kind() const noexcept { return kind_; }
  const std::string& argument() const noexcept { return argument_; }
  const std::string& value() const noexcept { return value_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  ErrorKind kind_;
  std::string argument_;
  std::string value_;
  std::string reason_;
};

// An Error of one fixed kind: each kind is its own type (the aliases below), so that a caller
// catches the kind it expects.
template <ErrorKind K>
class ErrorOf : public Error {
 public:
  ErrorOf(std::string argument, std::string value, std::string reason)
      : Error(K, std::move(argument), std::move(value), std::move(reason)) {}
};
using InvalidArgument = ErrorOf<ErrorKind::invalid_argument>;
using OutOfRange = ErrorOf<ErrorKind::out_of_range>;
using Overflow = ErrorOf<ErrorKind::overflow>;
using BufferTooSmall = ErrorOf<ErrorKind::buffer_too_small>;
using InvalidState = ErrorOf<ErrorKind::invalid_state>;
// A file that cannot be opened or read: `argument` names the file's role, `value` the path.
using IoError = ErrorOf<ErrorKind::io>;
// Bytes that do not follow their format (.npy image, manifest JSON): `argument` names the file
// or field, `value` the offending text (shortened; never a whole nested value).
using FormatError = ErrorOf<ErrorKind::format>;

// ---- small validation helpers shared by every entry point ---------------------------------
// require(cond, ...) throws InvalidArgument; the other helpers pick the matching kind.
void require(bool condition, std::string_view argument, std::int64_t value, std::string_view reason);
void require_range(bool condition, std::string_view argument, std::int64_t value, std::string_view reason);
void require_size(bool condition, std::string_view argument, std::int64_t value, std::string_view reason);

// Checked int64 arithmetic: throws Overflow naming `argument` instead of wrapping.
std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view argument);
std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view argument);

// Narrow an int64 to int32, throwing Overflow naming `argument` when it does not fit.
std::int32_t checked_narrow32(std::int64_t v, std::string_view argument);

}  // namespace kvaddr
