#pragma once
// Sliced arrays of a manifest call: an input or output that is a window of a larger 1-D parent
// array ("offset" elements of the parent before it, "size" elements in it, the rest after it),
// and the lane-by-lane comparison of outputs, guard regions included.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/replay.hpp"
#include "races.hpp"

namespace kvaddr::replay::detail {

struct Slice {
  std::int64_t offset = 0;            // parent elements before the view
  std::int64_t size = 0;              // elements in the view
  std::vector<std::int64_t> shape;    // the view's shape ({size} unless "shape" is given)
  std::int64_t stride = 1;            // inputs: element i of the view is parent[offset + i * stride]
};

// Reads "offset", "size" and (when allow_shape) an optional "shape" of the entry `e` of array
// `label`, against a parent of shape parent_shape. CallError (the call's error) unless the parent
// is 1-D, offset and size are JSON integers, offset >= 0, size >= 0, offset + size <= the parent's
// size, and a given shape is a list of 1 or 2 non-negative integers whose product is size. An input
// slice may give "stride" (an integer >= 0; the last element offset + (size - 1) * stride must lie in
// the parent): the kernel read the input with that stride (0: every lane reads parent[offset]).
Slice read_slice(const nlohmann::json& e, const std::string& label, const std::vector<std::int64_t>& parent_shape,
                 bool allow_shape);

// The view's values: parent[offset + i * stride] for i < size.
std::vector<std::int64_t> slice_values(const std::vector<std::int64_t>& parent, const Slice& s);

using I64 = std::vector<std::int64_t>;

// Adds one LaneDiff per lane where recorded differs from expected: flat C-order lanes of `shape`, or
// with row_stride > 0 rows of row_stride lanes whose lanes past shape[1] are guard columns (region
// "guard column"). With `writes`, a contested lane (stores of >= 2 different values) differs only
// when the recorded value is none of them, and its LaneDiff lists the stores.
void compare_lanes(const std::string& name, const I64& shape, std::int64_t row_stride, const I64& expected,
                   const I64& recorded, const LaneWrites* writes, CallReport& r);
// The guard lanes of a sliced output (parent lanes outside [offset, offset + size)): no route
// writes there, so a lane whose recorded value changed is a LaneDiff with region "guard before" /
// "guard after" and flat relative to the view (-1 = the lane just before it). No-op without a parent.
void compare_guards(const std::string& name, const I64& before, const I64& after, std::int64_t offset, std::int64_t size,
                    CallReport& r);
// Whether every guard lane kept its "before" value (true without a parent).
bool guards_intact(const I64& before, const I64& after, std::int64_t offset, std::int64_t size);

}  // namespace kvaddr::replay::detail
