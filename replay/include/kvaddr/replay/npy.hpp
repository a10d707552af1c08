#pragma once
// A small, bounds-checked reader and writer for NumPy's .npy format (versions 1.0, 2.0 and 3.0),
// limited to what replay needs: integer arrays, C order, any rank. Every malformed file is
// reported as an NpyError naming the problem; no input leads to undefined behaviour.
//
// The reader keeps the dtype as written (`descr`, e.g. "<i4", "<f8"), so that a caller can say
// "wrong dtype" instead of failing to parse; `values` is filled only for int32 / int64 data
// (little- or big-endian; converted to native int64).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kvaddr::replay {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class NpyDtype { int32, int64, other };
std::string_view to_string(NpyDtype d) noexcept;  // "int32", "int64", "other"

struct NpyArray {
  std::string descr;                 // as written in the header, e.g. "<i8"
  NpyDtype dtype = NpyDtype::other;  // int32 / int64 when descr is a 4- or 8-byte signed integer
  bool fortran_order = false;
  std::vector<std::int64_t> shape;   // () for a scalar
  std::vector<std::int64_t> values;  // element values in file order (int32 / int64 only)

  std::int64_t size() const noexcept;  // product of shape (1 for a scalar)
  std::int64_t ndim() const noexcept { return static_cast<std::int64_t>(shape.size()); }
  std::string shape_string() const;  // "(3, 4)", "(5,)", "()"
};

// Parse a complete .npy image. Throws NpyError on: bad magic, unsupported version, truncated or
// oversized header, malformed header dictionary, unknown keys, negative or overflowing shape,
// data size that disagrees with the shape and dtype (truncated or trailing bytes).
NpyArray parse_npy(std::string_view bytes);
// Read and parse a file; NpyError also for a missing or unreadable file.
NpyArray read_npy(const std::filesystem::path& path);

// Serialise an int32 / int64 C-order array exactly as numpy.save does (format 1.0, header padded
// with spaces and '\n' to a multiple of 64 bytes, little-endian data). Values must fit the dtype
// (NpyError otherwise); size(values) must equal the product of shape.
std::string format_npy(NpyDtype dtype, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& values);
void write_npy(const std::filesystem::path& path, NpyDtype dtype, const std::vector<std::int64_t>& shape,
               const std::vector<std::int64_t>& values);

}  // namespace kvaddr::replay
