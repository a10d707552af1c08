#pragma once
// The call being loaded (replay.cpp): its scalars, its input arrays and its outputs' before / after
// buffers from the manifest entry and its .npy files, with the dtype / rank / slice checks, and
// the views the routes read them through.
#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/translate/routes.hpp"
#include "call.hpp"
#include "files.hpp"
#include "manifest.hpp"
#include "slice.hpp"

namespace kvaddr::replay::load {

using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

using detail::bad;

// Which dtypes an array may have. `widen` accepts int32 or int64 and hands the route int64.
enum class Want { i32, i64, widen, i32_or_i64 };

inline std::string want_text(Want w) {
  switch (w) {
    case Want::i32: return "int32";
    case Want::i64: return "int64";
    case Want::widen:
    case Want::i32_or_i64: return "int32 or int64";
  }
  return "?";
}

inline std::string shape_text(const I64& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

struct Arr {
  bool present = false;
  std::string name;
  NpyDtype dtype = NpyDtype::other;
  I64 shape;
  I64 v;  // values, widened to int64 (of the view, for a slice)
  I64 parent;  // a slice: the whole parent array (empty otherwise)
  std::int64_t offset = 0;  // a slice: parent elements before the view
  std::int64_t size() const { return static_cast<std::int64_t>(v.size()); }
  std::int64_t rows() const { return shape.empty() ? 0 : shape[0]; }
  std::int64_t cols() const { return shape.size() < 2 ? 1 : shape[1]; }
  I32 i32() const;  // only for arrays loaded as int32
};

struct Output {
  std::string name;
  NpyDtype dtype = NpyDtype::other;
  I64 shape;
  // Of the view; with a row stride, of the rows' whole span (shape[0] * row_stride lanes, the
  // guard columns included).
  I64 before, after;
  // An output with guard regions: the whole parent arrays (empty otherwise) and the view's offset.
  I64 parent_before, parent_after;
  std::int64_t offset = 0;
  // > 0: a 2-D table whose rows are row_stride lanes apart; lanes [shape[1], row_stride) of each
  // row are guard columns.
  std::int64_t row_stride = 0;
  // > 0: the kernel saw only the first `width` columns of this 2-D table ("presented": {"widths"}); the
  // lanes past them are reported with region "past width".
  std::int64_t width = 0;
  // The lanes of the buffer the route writes: shape[1] for a packed table, row_stride otherwise.
  std::int64_t stride() const { return row_stride > 0 ? row_stride : (shape.size() < 2 ? 1 : shape[1]); }
};

// int32 copy of values that were loaded from an int32 file (so the narrowing is exact).
inline I32 narrow_copy(const I64& v) {
  I32 out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<std::int32_t>(v[i]);
  return out;
}
inline I32 Arr::i32() const { return narrow_copy(v); }

template <class T>
I64 widen(const std::vector<T>& v) {
  return I64(v.begin(), v.end());
}

// Runs the route under one variant on fresh copies of the "before" buffers; returns the outputs
// in the order of CallSpec::outputs. Throws kvaddr::Error when the route rejects the call.
using Runner = std::function<std::vector<I64>(Variant)>;

// ---- the call being loaded -------------------------------------------------------------------
class Call {
 public:
  // `presented`: inputs the claim says the kernel read with another stride than recorded
  // (detail::Presentation, claim.cpp): applied to their values as they are loaded.
  Call(const json& j, std::filesystem::path dir, bool allow_outside, std::vector<detail::Presentation> presented = {})
      : j_(j), dir_(std::move(dir)), allow_outside_(allow_outside), presented_(std::move(presented)) {
    if (!j_.is_object()) bad("a call must be a JSON object");
    for (const auto& [k, v] : j_.items()) {
      static const std::set<std::string> known = {"name", "route", "variant", "era", "flags", "scalars", "inputs",
                                                  "outputs", "note", "presented"};
      if (!known.count(k)) bad("unknown key '" + k + "' in the call");
    }
    // How a harness handed the arrays to the kernel beyond what the entries say (visible widths,
    // aliasing, adjacent slices): read by kvaddr.assert_replay; the host routes read the arrays as given.
    if (j_.contains("presented") && !j_.at("presented").is_object()) bad("'presented' must be a JSON object");
    scalars_ = section("scalars");
    inputs_ = section("inputs");
    outputs_ = section("outputs");
  }

  // ---- scalars ----
  std::optional<std::int64_t> opt_int(const std::string& name) {
    used_scalars_.insert(name);
    if (!scalars_->contains(name)) return std::nullopt;
    const json& v = scalars_->at(name);
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        bad("scalar " + name + " does not fit int64");
      }
      return v.get<std::int64_t>();
    }
    bad("scalar " + name + " must be an integer, got " + detail::describe_value(v));
  }
  std::int64_t integer(const std::string& name, std::optional<std::int64_t> dflt = std::nullopt) {
    auto v = opt_int(name);
    if (v) return *v;
    if (dflt) return *dflt;
    bad("missing scalar " + name);
  }
  bool flag(const std::string& name, bool dflt = false) {
    used_scalars_.insert(name);
    if (!scalars_->contains(name)) return dflt;
    const json& v = scalars_->at(name);
    if (!v.is_boolean()) bad("scalar " + name + " must be true or false, got " + detail::describe_value(v));
    return v.get<bool>();
  }

  // ---- arrays ----
  Arr input(const std::string& name, Want want, int min_rank, int max_rank, bool optional = false) {
    used_inputs_.insert(name);
    if (!inputs_->contains(name)) {
      if (optional) return {};
      bad("missing input " + name);
    }
    Arr a = load(name, inputs_->at(name), want, min_rank, max_rank);
    return a;
  }
  // An output with its before / after buffers; both must have the same dtype and shape.
  // allow_row_stride: the output may be a table with guard columns ("row_stride", docs/replay.md).
  Output output(const std::string& name, Want want, int min_rank, int max_rank, bool allow_row_stride = false) {
    used_outputs_.insert(name);
    if (!outputs_->contains(name)) bad("missing output " + name);
    const json& o = outputs_->at(name);
    if (!o.is_object() || !o.contains("before") || !o.contains("after")) {
      bad("output " + name + " must be {\"before\": FILE, \"after\": FILE}");
    }
    static const std::set<std::string> keys = {"before", "after", "offset", "size", "shape", "row_stride"};
    for (const auto& [k, v] : o.items()) {
      if (!keys.count(k)) bad("unknown key '" + k + "' in output " + name);
    }
    if (!o.at("before").is_string() || !o.at("after").is_string()) bad("output " + name + ": before and after must name .npy files");
    Output out = o.contains("row_stride") ? strided_output(name, o, want, allow_row_stride) : plain_output(name, o, want, min_rank, max_rank);
    out.width = presented_width(name, out.shape);
    return out;
  }

  // "presented": {"widths": {name: W}}: the visible columns of a 2-D output, 1 <= W <= its columns.
  std::int64_t presented_width(const std::string& name, const I64& shape) const {
    if (!j_.contains("presented")) return 0;
    const json& p = j_.at("presented");
    if (!p.contains("widths")) return 0;
    const json& ws = p.at("widths");
    if (!ws.is_object()) bad("presented.widths must be an object {output: columns}");
    if (!ws.contains(name)) return 0;
    const json& w = ws.at(name);
    const std::int64_t cols = shape.size() == 2 ? shape[1] : 0;
    if (!w.is_number_integer() || w.get<std::int64_t>() < 1 || w.get<std::int64_t>() > cols ||
        (w.is_number_unsigned() && w.get<std::uint64_t>() > static_cast<std::uint64_t>(cols))) {
      bad(fmt::format("presented.widths.{} = {}: must be an integer in [1, {}] (the columns of a 2-D output)", name,
                      detail::describe_value(w), cols));
    }
    return w.get<std::int64_t>();
  }

  Output plain_output(const std::string& name, const json& o, Want want, int min_rank, int max_rank) {
    const bool sliced = o.contains("offset") || o.contains("size") || o.contains("shape");
    Arr before = load(name + ".before", o.at("before"), want, min_rank, max_rank, sliced ? &o : nullptr);
    Arr after = load(name + ".after", o.at("after"), want, min_rank, max_rank, sliced ? &o : nullptr);
    if (before.dtype != after.dtype) {
      bad(fmt::format("output {}: before is {} but after is {}", name, to_string(before.dtype), to_string(after.dtype)));
    }
    if (before.shape != after.shape) {
      bad(fmt::format("output {}: before has shape {} but after {}", name, shape_text(before.shape),
                      shape_text(after.shape)));
    }
    if (before.parent.size() != after.parent.size()) {
      bad(fmt::format("output {}: before has {} parent elements but after {}", name, before.parent.size(), after.parent.size()));
    }
    return {name,           before.dtype,   before.shape,   std::move(before.v), std::move(after.v),
            before.parent, after.parent, before.offset};
  }

  // An output {"before", "after", "offset": G, "size": R * S, "shape": [R, C], "row_stride": S}: the
  // table's rows start S lanes apart in the parent, C <= S; lanes [C, S) of each row are guard columns.
  Output strided_output(const std::string& name, const json& o, Want want, bool allow) {
    const std::string label = "output " + name;
    if (!allow) bad(label + ": row_stride is only for the tables of flashmla_block_table, canonical_page_table, "
                            "read_table and full_prefill_table");
    const detail::RowStride t = detail::read_row_stride(o, label);
    const std::int64_t rows = t.rows, cols = t.cols, stride = t.stride;
    json window = {{"offset", o.at("offset")}, {"size", o.at("size")}};
    Arr before = load(name + ".before", o.at("before"), want, 1, 1, &window);
    Arr after = load(name + ".after", o.at("after"), want, 1, 1, &window);
    detail::check_row_stride_size(t, before.size(), label);
    if (before.dtype != after.dtype) {
      bad(fmt::format("output {}: before is {} but after is {}", name, to_string(before.dtype), to_string(after.dtype)));
    }
    if (before.parent.size() != after.parent.size()) {
      bad(fmt::format("output {}: before has {} parent elements but after {}", name, before.parent.size(), after.parent.size()));
    }
    Output out{name, before.dtype, {rows, cols}, std::move(before.v), std::move(after.v),
               before.parent, after.parent, before.offset};
    out.row_stride = stride;
    return out;
  }
  bool has_output(const std::string& name) const { return outputs_->contains(name); }

  // Unknown scalars / arrays are an error: a misspelt name must not silently fall back to a default.
  void check_all_used() const {
    for (const auto& [k, v] : scalars_->items())
      if (!used_scalars_.count(k)) bad("unknown scalar '" + k + "' for this route");
    for (const auto& [k, v] : inputs_->items())
      if (!used_inputs_.count(k)) bad("unknown input '" + k + "' for this route");
    for (const auto& [k, v] : outputs_->items())
      if (!used_outputs_.count(k)) bad("unknown output '" + k + "' for this route");
    for (const auto& pr : presented_) {
      if (applied_.count(pr.input)) continue;
      if (scalars_->contains(pr.input)) bad("claim " + pr.text() + ": " + pr.input + " is a 0-d scalar (it has no stride)");
      bad("claim " + pr.text() + ": " + pr.input + " is not an input of this call");
    }
  }
  // The 1-D inputs loaded so far, and those among them recorded as slices with a stride other than 1.
  const std::vector<std::string>& vector_inputs() const { return vector_inputs_; }
  const std::vector<std::pair<std::string, std::int64_t>>& strided_inputs() const { return strided_inputs_; }

 private:
  // A section of the call, by reference (an absent section reads as an empty object).
  const json* section(const char* key) const {
    static const json empty = json::object();
    if (!j_.contains(key)) return &empty;
    const json& s = j_.at(key);
    if (!s.is_object()) bad(std::string("'") + key + "' must be a JSON object");
    return &s;
  }

  // An array named by a file, or (inputs) by {"file", "offset", "size"}: a slice of a 1-D parent, or
  // {"file", "offset"?, "shape", "strides"}: a strided view of it. `slice` (outputs) is the output's
  // entry holding offset / size / shape for both of its files.
  Arr load(const std::string& label, const json& entry, Want want, int min_rank, int max_rank,
           const json* slice = nullptr) const {
    const json* file = &entry;
    bool strided = false;
    if (!slice && entry.is_object()) {
      strided = entry.contains("strides");
      for (const auto& [k, v] : entry.items()) {
        if (k != "file" && k != "offset" && k != "size" && !(strided && k == "shape") && k != "strides") {
          bad("unknown key '" + k + "' in sliced input " + label);
        }
      }
      if (!entry.contains("file")) bad("sliced input " + label + " needs \"file\"");
      file = &entry.at("file");
      slice = &entry;
    }
    if (!file->is_string()) bad("array " + label + " must name a .npy file");
    NpyArray npy;
    try {
      npy = read_npy(detail::resolve_inside(dir_, file->get<std::string>(), allow_outside_));
    } catch (const kvaddr::Error& e) {
      bad(label + ": " + e.what(), e.kind());
    }
    const bool ok_dtype = (want == Want::i32 && npy.dtype == NpyDtype::int32) ||
                          (want == Want::i64 && npy.dtype == NpyDtype::int64) ||
                          ((want == Want::widen || want == Want::i32_or_i64) && npy.dtype != NpyDtype::other);
    if (!ok_dtype) {
      bad(fmt::format("{}: wrong dtype '{}' ({}), expected {}", label, npy.descr, to_string(npy.dtype), want_text(want)));
    }
    Arr a;
    detail::Slice s;
    s.size = npy.ndim() == 1 ? npy.shape[0] : 0;
    if (slice) {
      s = strided ? detail::read_strided(*slice, label, npy.shape)
                  : detail::read_slice(*slice, label, npy.shape, slice != &entry);
      a.parent = std::move(npy.values);
      a.offset = s.offset;
      npy.values = detail::slice_values(a.parent, s);
      npy.shape = s.shape;
    }
    const bool input = slice == &entry || (!slice && !label.ends_with(".before") && !label.ends_with(".after"));
    if (input) present_as_claimed(label, npy, a, s);
    if (npy.ndim() < min_rank || npy.ndim() > max_rank) {
      bad(fmt::format("{}: wrong shape {}, expected {}", label, shape_text(npy.shape),
                      min_rank == max_rank ? fmt::format("{}-D", min_rank) : fmt::format("{}-D to {}-D", min_rank, max_rank)));
    }
    a.present = true;
    a.name = label;
    a.dtype = npy.dtype;
    a.shape = npy.shape;
    a.v = std::move(npy.values);
    return a;
  }

  // An input's values as the claim says the kernel read them (stride_ignored: packed from the view's first
  // element; stride0: every lane reads it); a strided view is a standalone table (no parent around it).
  // Only a contiguous view has neighbours in the parent that a table route may read (Vec::before).
  void present_as_claimed(const std::string& label, NpyArray& npy, Arr& a, const detail::Slice& s) const {
    const std::vector<std::int64_t> parent = a.parent;  // the recorded parent (empty for a plain file)
    if (!detail::contiguous(s)) {
      a.parent.clear();  // a strided view is read as a standalone table
      a.offset = 0;
    }
    if (npy.ndim() != 1) {
      for (const auto& pr : presented_)
        if (pr.input == label) bad("claim " + pr.text() + ": " + label + " is not a 1-D input");
      return;
    }
    vector_inputs_.push_back(label);
    if (!detail::contiguous(s)) strided_inputs_.emplace_back(label, s.strides[0]);
    for (const auto& pr : presented_) {
      if (pr.input != label) continue;
      applied_.insert(label);
      if (pr.kind == detail::Presentation::packed) {
        if (detail::contiguous(s)) bad("claim " + pr.text() + ": " + label + " is recorded packed (no stride to ignore)");
        if (s.size > static_cast<std::int64_t>(parent.size()) - s.offset) {
          bad("claim " + pr.text() + ": the packed view runs past " + label + "'s parent");
        }
        detail::Slice packed = s;
        packed.strides.clear();
        packed.shape = {s.size};
        npy.values = detail::slice_values(parent, packed);
        a.parent = parent;  // contiguous again: the elements around it are the parent's
        a.offset = s.offset;
      } else {
        for (auto& x : npy.values) x = npy.values.front();
        a.parent.clear();
        a.offset = 0;
      }
    }
  }

  const json& j_;
  std::filesystem::path dir_;
  bool allow_outside_ = false;
  std::vector<detail::Presentation> presented_;
  // What load() learns of the inputs (it is const for the callers; these are its record).
  mutable std::set<std::string> applied_;
  mutable std::vector<std::string> vector_inputs_;
  mutable std::vector<std::pair<std::string, std::int64_t>> strided_inputs_;  // (name, recorded stride)
  const json* scalars_ = nullptr;
  const json* inputs_ = nullptr;
  const json* outputs_ = nullptr;
  std::set<std::string> used_scalars_, used_inputs_, used_outputs_;
};

// ---- small shape helpers ---------------------------------------------------------------------
inline void same_length(const Arr& a, const Arr& b) {
  if (a.present && b.present && a.size() != b.size()) {
    bad(fmt::format("{} has {} entries but {} has {} (one per batch row)", a.name, a.size(), b.name, b.size()));
  }
}
template <class T>
Vec<const T> view(const std::vector<T>& v, bool present = true) {
  if (!present) return {};
  return {v.data(), static_cast<std::int64_t>(v.size())};
}
// A table input as the route sees it: for a slice, a view with the parent's elements before and
// after it (Vec::before / Vec::after), which only the variants that read v2p[-1] ever touch.
inline Vec<const std::int64_t> sview(const Arr& a) {
  if (!a.present) return {};
  if (a.parent.empty()) return view(a.v);
  const auto parent = static_cast<std::int64_t>(a.parent.size());
  return {a.parent.data() + a.offset, a.size(), a.offset, parent - a.offset - a.size()};
}
template <class T>
Mat<const T> cview(const std::vector<T>& v, const I64& shape) {
  const std::int64_t cols = shape.size() < 2 ? 1 : shape[1];
  return {v.data(), shape.empty() ? 0 : shape[0], cols, cols, 1};
}
template <class T>
Mat<T> mview(std::vector<T>& v, const I64& shape) {
  const std::int64_t cols = shape.size() < 2 ? 1 : shape[1];
  return {v.data(), shape.empty() ? 0 : shape[0], cols, cols, 1};
}
template <class T>
Vec<T> mvec_of(std::vector<T>& v) {
  return {v.data(), static_cast<std::int64_t>(v.size())};
}


}  // namespace kvaddr::replay::load
