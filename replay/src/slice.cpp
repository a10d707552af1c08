#include "slice.hpp"

#include <fmt/format.h>

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
  if (e.contains("stride")) {
    if (allow_shape) bad(label + ": \"stride\" is only for inputs");
    s.stride = non_negative(e, label, "stride");
  }
  if (s.stride == 1 && (s.offset > parent || s.size > parent - s.offset)) {
    bad(fmt::format("{}: offset {} + size {} is past the parent's {} elements", label, s.offset, s.size, parent));
  }
  if (s.stride != 1 && s.size > 0 &&
      (s.offset >= parent || (s.stride > 0 && s.size - 1 > (parent - 1 - s.offset) / s.stride))) {
    bad(fmt::format("{}: offset {} + (size {} - 1) * stride {} is past the parent's {} elements", label, s.offset,
                    s.size, s.stride, parent));
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

std::vector<std::int64_t> slice_values(const std::vector<std::int64_t>& parent, const Slice& s) {
  if (s.stride == 1) return {parent.begin() + s.offset, parent.begin() + s.offset + s.size};
  std::vector<std::int64_t> v(static_cast<std::size_t>(s.size));
  for (std::int64_t i = 0; i < s.size; ++i) v[static_cast<std::size_t>(i)] = parent[static_cast<std::size_t>(s.offset + i * s.stride)];
  return v;
}

void compare_lanes(const std::string& name, const I64& shape, std::int64_t row_stride, const I64& expected,
                   const I64& recorded, const LaneWrites* writes, CallReport& r) {
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
    LanePlace place = place_of(shape, row_stride, d.flat);
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
