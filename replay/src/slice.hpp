#pragma once
// Sliced arrays of a manifest call: an input or output that is a window of a larger 1-D parent
// array ("offset" elements of the parent before it, "size" elements in it, the rest after it),
// and the lane-by-lane comparison of outputs, guard regions included.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/replay.hpp"
#include "race_report.hpp"

namespace kvaddr::replay::detail {

struct Slice {
  std::int64_t offset = 0;            // parent elements before the view
  std::int64_t size = 0;              // elements in the view
  std::vector<std::int64_t> shape;    // the view's shape ({size} unless "shape" is given)
  // An input presented through element strides (one per dimension of shape; 0 reads one element
  // for the whole dimension): element (i, j) of the view is parent[offset + i * strides[0] + j *
  // strides[1]]. Empty: the view is parent[offset, offset + size) in C order.
  std::vector<std::int64_t> strides;
};

// Whether the view is parent[offset, offset + size) in order: no strides, or one stride of 1 (the
// stride an input was recorded with is then 1; stride_ignored has nothing to ignore).
inline bool contiguous(const Slice& s) { return s.strides.empty() || (s.strides.size() == 1 && s.strides[0] == 1); }

// The most elements a strided view may hold beyond its parent's own size (a stride-0 view of a
// short parent is larger than the file; this bounds the memory a small file can ask for).
inline constexpr std::int64_t kMaxStridedView = std::int64_t{1} << 24;

// Reads "offset", "size" and (when allow_shape) an optional "shape" of the entry `e` of array
// `label`, against a parent of shape parent_shape. CallError (the call's error) unless the parent
// is 1-D, offset and size are JSON integers, offset >= 0, size >= 0, offset + size <= the parent's
// size, and a given shape is a list of 1 or 2 non-negative integers whose product is size. An input
// read with a stride is not a slice but a strided view (read_strided).
Slice read_slice(const nlohmann::json& e, const std::string& label, const std::vector<std::int64_t>& parent_shape,
                 bool allow_shape);

// Reads an input entry {"file", "offset"?, "shape", "strides"} against a 1-D parent of shape
// parent_shape: shape and strides are lists of the same length 1 or 2 of non-negative integers,
// offset (default 0) is non-negative, every element of the view lies inside the parent, and the
// view holds at most max(len(parent), kMaxStridedView) elements. CallError naming `label` otherwise.
Slice read_strided(const nlohmann::json& e, const std::string& label, const std::vector<std::int64_t>& parent_shape);

// A table output with guard columns: {"before", "after", "offset", "size", "shape": [rows, cols],
// "row_stride": stride}; its rows start `stride` lanes apart in the window, lanes [cols, stride) of each
// row are guard columns.
struct RowStride {
  std::int64_t rows = 0, cols = 0, stride = 0;
};
// Reads shape and row_stride of the output entry `o` named `label`: CallError unless offset, size and shape
// are present, shape is [rows, cols] of 2 non-negative integers, and row_stride an integer >= max(1, cols).
RowStride read_row_stride(const nlohmann::json& o, const std::string& label);
// CallError unless the window's `size` lanes are rows * stride (0 for 0 rows).
void check_row_stride_size(const RowStride& t, std::int64_t size, const std::string& label);

// The view's values: parent[offset, offset + size), or gathered through s.strides.
std::vector<std::int64_t> slice_values(const std::vector<std::int64_t>& parent, const Slice& s);

using I64 = std::vector<std::int64_t>;

// Adds one LaneDiff per lane where recorded differs from expected: flat C-order lanes of `shape`, or
// with row_stride > 0 rows of row_stride lanes whose lanes past shape[1] are guard columns (region
// "guard column"). With `writes`, a contested lane (stores of >= 2 different values) differs only
// when the recorded value is none of them, and its LaneDiff lists the stores.
void compare_lanes(const std::string& name, const I64& shape, std::int64_t row_stride, const I64& expected,
                   const I64& recorded, const LaneWrites* writes, CallReport& r, std::int64_t width = 0);
// The guard lanes of a sliced output (parent lanes outside [offset, offset + size)): no route
// writes there, so a lane whose recorded value changed is a LaneDiff with region "guard before" /
// "guard after" and flat relative to the view (-1 = the lane just before it). No-op without a parent.
void compare_guards(const std::string& name, const I64& before, const I64& after, std::int64_t offset, std::int64_t size,
                    CallReport& r);
// Whether every guard lane kept its "before" value (true without a parent).
bool guards_intact(const I64& before, const I64& after, std::int64_t offset, std::int64_t size);

}  // namespace kvaddr::replay::detail
