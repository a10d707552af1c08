#pragma once
// A small, bounds-checked reader and writer for NumPy's .npy format (versions 1.0, 2.0 and 3.0),
// limited to what replay needs: integer arrays, any rank, C or Fortran order (values always in C order). Every malformed image is
// reported as an NpyError (a kvaddr::FormatError) naming the problem, every file that cannot be
// opened or read as a kvaddr::IoError; no input leads to undefined behaviour.
//
// The header is read and validated before any data: magic, version, header length (at most
// 1 MiB and inside the file), a dictionary with exactly the keys 'descr', 'fortran_order' and
// 'shape' once each, a descr from a fixed list (kNpyDescrs), at most 64 dimensions, and a shape
// whose byte size fits int64 and equals the data that follows (no truncated or trailing bytes).
// Only then is the data read, straight into the result (memory about 1x the int64 array).
//
// The reader keeps the dtype as written (`descr`, e.g. "<i4", "<f8"), so that a caller can say
// "wrong dtype" instead of failing to parse; `values` is filled only for int32 / int64 data
// (little- or big-endian; converted to native int64).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::replay {

// A malformed .npy image: what() reads ".npy = <file or image>: <reason>".
class NpyError : public FormatError {
 public:
  NpyError(std::string where, std::string reason) : FormatError(".npy", std::move(where), std::move(reason)) {}
};

// The descr strings the reader accepts: signed / unsigned integers of 1, 2, 4, 8 bytes, floats of
// 2, 4, 8 bytes and bool, little- or big-endian ('|' for one-byte types, as numpy writes them).
inline constexpr std::string_view kNpyDescrs[] = {
    "|i1", "|u1", "|b1", "<i2", ">i2", "<u2", ">u2", "<i4", ">i4", "<u4", ">u4", "<i8", ">i8",
    "<u8", ">u8", "<f2", ">f2", "<f4", ">f4", "<f8", ">f8"};

enum class NpyDtype { int32, int64, other };
std::string_view to_string(NpyDtype d) noexcept;  // "int32", "int64", "other"

struct NpyArray {
  std::string descr;                 // as written in the header, e.g. "<i8"
  NpyDtype dtype = NpyDtype::other;  // int32 / int64 when descr is a 4- or 8-byte signed integer
  // How the file stores the array. numpy.save writes a Fortran-contiguous array (a transposed table, a column-major
  // tensor's view) in Fortran order; the reader reorders such values into C order (a second buffer of the array's
  // size), so that `values` means the same array either way.
  bool fortran_order = false;
  std::vector<std::int64_t> shape;   // () for a scalar
  std::vector<std::int64_t> values;  // element values in C order (the last index fastest; int32 / int64 only)

  std::int64_t size() const noexcept;  // product of shape (1 for a scalar)
  std::int64_t ndim() const noexcept { return static_cast<std::int64_t>(shape.size()); }
  std::string shape_string() const;  // "(3, 4)", "(5,)", "()"
};

// Parse a complete .npy image. Throws NpyError on: bad magic, unsupported version, truncated or
// oversized header, malformed header dictionary, unknown, missing or repeated keys, a descr not
// in kNpyDescrs, negative or overflowing shape, data size that disagrees with the shape and dtype
// (truncated or trailing bytes).
NpyArray parse_npy(std::string_view bytes);
// Read and parse a file: the header first, then the data into the result. kvaddr::IoError for a
// missing file, a path that is not a regular file (directory, FIFO, device) or a read error;
// NpyError (naming the file) for a malformed image.
NpyArray read_npy(const std::filesystem::path& path);

// Serialise an int32 / int64 C-order array exactly as numpy.save does (format 1.0, header padded
// with spaces and '\n' to a multiple of 64 bytes, little-endian data). Values must fit the dtype
// (NpyError otherwise); size(values) must equal the product of shape.
std::string format_npy(NpyDtype dtype, const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& values);
void write_npy(const std::filesystem::path& path, NpyDtype dtype, const std::vector<std::int64_t>& shape,
               const std::vector<std::int64_t>& values);

}  // namespace kvaddr::replay
