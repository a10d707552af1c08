#include "slice.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "call.hpp"
#include "manifest.hpp"

namespace kvaddr::replay::detail {
namespace {

std::int64_t non_negative(const nlohmann::json& e, const std::string& label, const char* key) {
  if (!e.contains(key)) bad(fmt::format("{}: a slice needs \"{}\"", label, key));
  const nlohmann::json& v = e.at(key);
  if (!v.is_number_integer()) bad(fmt::format("{}: {} must be an integer, got {}", label, key, describe_value(v)));
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    bad(fmt::format("{}: {} = {} does not fit int64", label, key, describe_value(v)));
  }
  const auto x = v.get<std::int64_t>();
  if (x < 0) bad(fmt::format("{}: {} = {} is negative", label, key, x));
  return x;
}

}  // namespace

Slice read_slice(const nlohmann::json& e, const std::string& label, const std::vector<std::int64_t>& parent_shape,
                 bool allow_shape) {
  if (parent_shape.size() != 1) {
    bad(fmt::format("{}: the parent array of a slice must be 1-D, got {}-D", label, parent_shape.size()));
  }
  const std::int64_t parent = parent_shape[0];
  Slice s;
  s.offset = non_negative(e, label, "offset");
  s.size = non_negative(e, label, "size");
  if (s.offset > parent || s.size > parent - s.offset) {
    bad(fmt::format("{}: offset {} + size {} is past the parent's {} elements", label, s.offset, s.size, parent));
  }
  s.shape = {s.size};
  if (e.contains("shape")) {
    if (!allow_shape) bad(label + ": \"shape\" is only for outputs; an input slice is 1-D");
    const nlohmann::json& sh = e.at("shape");
    if (!sh.is_array() || sh.empty() || sh.size() > 2) bad(label + ": shape must be a list of 1 or 2 integers");
    s.shape.clear();
    std::int64_t product = 1;
    for (const auto& d : sh) {
      if (!d.is_number_integer() || d.get<std::int64_t>() < 0 ||
          (d.is_number_unsigned() && d.get<std::uint64_t>() > static_cast<std::uint64_t>(parent))) {
        bad(fmt::format("{}: shape entry {} is not a size of this parent", label, describe_value(d)));
      }
      s.shape.push_back(d.get<std::int64_t>());
      product = s.shape.back() == 0 ? 0 : (product > parent / s.shape.back() ? parent + 1 : product * s.shape.back());
    }
    if (product != s.size) bad(fmt::format("{}: shape has {} elements but size is {}", label, product, s.size));
  }
  return s;
}

RowStride read_row_stride(const nlohmann::json& o, const std::string& label) {
  for (const char* k : {"offset", "size", "shape"})
    if (!o.contains(k)) bad(fmt::format("{}: a row_stride needs \"{}\"", label, k));
  const nlohmann::json& sh = o.at("shape");
  const nlohmann::json& st = o.at("row_stride");
  if (!sh.is_array() || sh.size() != 2 || !sh[0].is_number_integer() || !sh[1].is_number_integer() ||
      sh[0].get<std::int64_t>() < 0 || sh[1].get<std::int64_t>() < 0) {
    bad(label + ": with a row_stride, shape must be [rows, columns] (2 non-negative integers)");
  }
  if (!st.is_number_integer() || (st.is_number_unsigned() && st.get<std::uint64_t>() > (std::uint64_t{1} << 40))) {
    bad(fmt::format("{}: row_stride must be an integer, got {}", label, describe_value(st)));
  }
  const RowStride t{sh[0].get<std::int64_t>(), sh[1].get<std::int64_t>(), st.get<std::int64_t>()};
  if (t.stride < 1 || t.stride < t.cols) {
    bad(fmt::format("{}: row_stride = {} is below the table's {} columns (or below 1)", label, t.stride, t.cols));
  }
  return t;
}

void check_row_stride_size(const RowStride& t, std::int64_t size, const std::string& label) {
  if (t.rows == 0 && size != 0) bad(fmt::format("{}: size = {} but the table has 0 rows", label, size));
  if (t.rows > 0 && (size / t.rows != t.stride || size % t.rows != 0)) {
    bad(fmt::format("{}: size = {} but rows * row_stride = {} * {}", label, size, t.rows, t.stride));
  }
}

Slice read_strided(const nlohmann::json& e, const std::string& label, const std::vector<std::int64_t>& parent_shape) {
  if (parent_shape.size() != 1) {
    bad(fmt::format("{}: the parent array of a strided input must be 1-D, got {}-D", label, parent_shape.size()));
  }
  if (e.contains("size")) bad(label + ": a strided input gives \"shape\" and \"strides\", not \"size\"");
  const std::int64_t parent = parent_shape[0];
  Slice s;
  s.offset = e.contains("offset") ? non_negative(e, label, "offset") : 0;
  const auto ints = [&](const char* key) {
    if (!e.contains(key)) bad(fmt::format("{}: a strided input needs \"{}\"", label, key));
    const nlohmann::json& a = e.at(key);
    if (!a.is_array() || a.empty() || a.size() > 2) bad(fmt::format("{}: {} must be a list of 1 or 2 integers", label, key));
    std::vector<std::int64_t> out;
    for (const auto& d : a) {
      if (!d.is_number_integer() || (d.is_number_unsigned() && d.get<std::uint64_t>() > (std::uint64_t{1} << 62)) ||
          d.get<std::int64_t>() < 0) {
        bad(fmt::format("{}: {} entry {} is not a non-negative integer below 2^62", label, key, describe_value(d)));
      }
      out.push_back(d.get<std::int64_t>());
    }
    return out;
  };
  s.shape = ints("shape");
  s.strides = ints("strides");
  if (s.strides.size() != s.shape.size()) {
    bad(fmt::format("{}: strides has {} entries but shape {}", label, s.strides.size(), s.shape.size()));
  }
  // The element count (0 when a dimension is 0: then nothing is read, whatever the other sizes).
  const std::int64_t cap = std::max(parent, kMaxStridedView);
  std::int64_t count = 1;
  for (std::int64_t d : s.shape) count = d == 0 || count == 0 ? 0 : (count > cap / d ? cap + 1 : count * d);
  if (count > cap) {
    bad(fmt::format("{}: a strided view of shape ({}) holds more than {} elements (the parent's {} or 2^24)", label,
                    fmt::join(s.shape, ", "), cap, parent));
  }
  s.size = count;
  if (count > 0) {  // the last element read: offset + sum (shape_d - 1) * strides_d, inside the parent
    std::int64_t last = s.offset;
    for (std::size_t d = 0; d < s.shape.size(); ++d) {
      std::int64_t step = 0;
      if (__builtin_mul_overflow(s.shape[d] - 1, s.strides[d], &step) || __builtin_add_overflow(last, step, &last)) {
        last = std::numeric_limits<std::int64_t>::max();
        break;
      }
    }
    if (last >= parent) {
      bad(fmt::format("{}: the strided view reads element {} of a parent of {} elements", label, last, parent));
    }
  }
  return s;
}

std::vector<std::int64_t> slice_values(const std::vector<std::int64_t>& parent, const Slice& s) {
  if (s.strides.empty()) return {parent.begin() + s.offset, parent.begin() + s.offset + s.size};
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(s.size));
  const std::int64_t rows = s.shape.size() == 2 ? s.shape[0] : 1;
  const std::int64_t cols = s.shape.back();
  const std::int64_t row_step = s.shape.size() == 2 ? s.strides[0] : 0;
  const std::int64_t col_step = s.strides.back();
  if (s.size == 0) return out;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) out.push_back(parent[static_cast<std::size_t>(s.offset + r * row_step + c * col_step)]);
  return out;
}

void compare_lanes(const std::string& name, const I64& shape, std::int64_t row_stride, const I64& expected,
                   const I64& recorded, const LaneWrites* writes, CallReport& r, std::int64_t width) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    ++r.lanes_checked;
    const bool contested = writes != nullptr && i < writes->size() && possible_values((*writes)[i]).size() >= 2;
    if (contested) {
      const I64 possible = possible_values((*writes)[i]);
      if (std::binary_search(possible.begin(), possible.end(), recorded[i])) continue;
    } else if (expected[i] == recorded[i]) {
      continue;
    }
    ++r.lanes_differing;
    if (r.diffs.size() >= kMaxDiffs) continue;
    LaneDiff d;
    d.output = name;
    d.flat = static_cast<std::int64_t>(i);
    LanePlace place = place_of(shape, row_stride, d.flat, width);
    d.index = std::move(place.index);
    d.region = std::move(place.region);
    d.expected = expected[i];
    d.recorded = recorded[i];
    if (contested) d.writes = (*writes)[i];
    r.diffs.push_back(std::move(d));
  }
}

void compare_guards(const std::string& name, const I64& before, const I64& after, std::int64_t offset, std::int64_t size,
                    CallReport& r) {
  const auto parent = static_cast<std::int64_t>(before.size());
  for (std::int64_t i = 0; i < parent; ++i) {
    if (i == offset) i = offset + size;
    if (i >= parent) break;
    ++r.lanes_checked;
    const auto k = static_cast<std::size_t>(i);
    if (before[k] == after[k]) continue;
    ++r.lanes_differing;
    if (r.diffs.size() >= kMaxDiffs) continue;
    LaneDiff d;
    d.output = name;
    d.flat = i - offset;
    d.index = {d.flat};
    d.expected = before[k];
    d.recorded = after[k];
    d.region = i < offset ? "guard before" : "guard after";
    r.diffs.push_back(std::move(d));
  }
}

bool guards_intact(const I64& before, const I64& after, std::int64_t offset, std::int64_t size) {
  if (before.empty()) return true;
  return std::equal(before.begin(), before.begin() + offset, after.begin()) &&
         std::equal(before.begin() + offset + size, before.end(), after.begin() + offset + size);
}

}  // namespace kvaddr::replay::detail
