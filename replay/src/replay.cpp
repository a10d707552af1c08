// Replay of recorded kernel calls: manifest parsing, per-route loading of the .npy arrays, the
// lane-by-lane comparison and the variant search. See replay.hpp and docs/replay.md.
#include "kvaddr/replay/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/translate/preconditions.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"
#include "behaves_like.hpp"
#include "call.hpp"
#include "files.hpp"
#include "manifest.hpp"
#include "races.hpp"
#include "slice.hpp"

namespace kvaddr::replay {
namespace {

using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

using detail::bad;

// Which dtypes an array may have. `widen` accepts int32 or int64 and hands the route int64.
enum class Want { i32, i64, widen, i32_or_i64 };

std::string want_text(Want w) {
  switch (w) {
    case Want::i32: return "int32";
    case Want::i64: return "int64";
    case Want::widen:
    case Want::i32_or_i64: return "int32 or int64";
  }
  return "?";
}

std::string shape_text(const I64& shape) {
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
  // The lanes of the buffer the route writes: shape[1] for a packed table, row_stride otherwise.
  std::int64_t stride() const { return row_stride > 0 ? row_stride : (shape.size() < 2 ? 1 : shape[1]); }
};

// int32 copy of values that were loaded from an int32 file (so the narrowing is exact).
I32 narrow_copy(const I64& v) {
  I32 out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<std::int32_t>(v[i]);
  return out;
}
I32 Arr::i32() const { return narrow_copy(v); }

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
  Call(const json& j, std::filesystem::path dir, bool allow_outside)
      : j_(j), dir_(std::move(dir)), allow_outside_(allow_outside) {
    if (!j_.is_object()) bad("a call must be a JSON object");
    for (const auto& [k, v] : j_.items()) {
      static const std::set<std::string> known = {"name", "route", "variant", "era", "flags", "scalars", "inputs",
                                                  "outputs", "note"};
      if (!known.count(k)) bad("unknown key '" + k + "' in the call");
    }
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
    if (o.contains("row_stride")) return strided_output(name, o, want, allow_row_stride);
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
    for (const char* k : {"offset", "size", "shape"})
      if (!o.contains(k)) bad(fmt::format("{}: a row_stride needs \"{}\"", label, k));
    const json& sh = o.at("shape");
    const json& st = o.at("row_stride");
    if (!sh.is_array() || sh.size() != 2 || !sh[0].is_number_integer() || !sh[1].is_number_integer() ||
        sh[0].get<std::int64_t>() < 0 || sh[1].get<std::int64_t>() < 0) {
      bad(label + ": with a row_stride, shape must be [rows, columns] (2 non-negative integers)");
    }
    if (!st.is_number_integer() || (st.is_number_unsigned() && st.get<std::uint64_t>() > (std::uint64_t{1} << 40))) {
      bad(fmt::format("{}: row_stride must be an integer, got {}", label, detail::describe_value(st)));
    }
    const std::int64_t rows = sh[0].get<std::int64_t>(), cols = sh[1].get<std::int64_t>();
    const std::int64_t stride = st.get<std::int64_t>();
    if (stride < 1 || stride < cols) {
      bad(fmt::format("{}: row_stride = {} is below the table's {} columns (or below 1)", label, stride, cols));
    }
    json window = {{"offset", o.at("offset")}, {"size", o.at("size")}};
    Arr before = load(name + ".before", o.at("before"), want, 1, 1, &window);
    Arr after = load(name + ".after", o.at("after"), want, 1, 1, &window);
    if (rows > 0 && before.size() / rows != stride) {
      bad(fmt::format("{}: size = {} but rows * row_stride = {} * {}", label, before.size(), rows, stride));
    }
    if (rows == 0 && before.size() != 0) bad(fmt::format("{}: size = {} but the table has 0 rows", label, before.size()));
    if (rows > 0 && before.size() % rows != 0) {
      bad(fmt::format("{}: size = {} but rows * row_stride = {} * {}", label, before.size(), rows, stride));
    }
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
  }

 private:
  // A section of the call, by reference (an absent section reads as an empty object).
  const json* section(const char* key) const {
    static const json empty = json::object();
    if (!j_.contains(key)) return &empty;
    const json& s = j_.at(key);
    if (!s.is_object()) bad(std::string("'") + key + "' must be a JSON object");
    return &s;
  }

  // An array named by a file, or (inputs) by {"file", "offset", "size"}: a slice of a 1-D parent.
  // `slice` (outputs) is the output's entry holding offset / size / shape for both of its files.
  Arr load(const std::string& label, const json& entry, Want want, int min_rank, int max_rank,
           const json* slice = nullptr) const {
    const json* file = &entry;
    if (!slice && entry.is_object()) {
      for (const auto& [k, v] : entry.items()) {
        if (k != "file" && k != "offset" && k != "size") bad("unknown key '" + k + "' in sliced input " + label);
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
      bad(label + ": " + e.what());
    }
    if (npy.fortran_order && npy.ndim() > 1) bad(label + ": Fortran order; arrays must be C order");
    const bool ok_dtype = (want == Want::i32 && npy.dtype == NpyDtype::int32) ||
                          (want == Want::i64 && npy.dtype == NpyDtype::int64) ||
                          ((want == Want::widen || want == Want::i32_or_i64) && npy.dtype != NpyDtype::other);
    if (!ok_dtype) {
      bad(fmt::format("{}: wrong dtype '{}' ({}), expected {}", label, npy.descr, to_string(npy.dtype), want_text(want)));
    }
    Arr a;
    if (slice) {
      const detail::Slice s = detail::read_slice(*slice, label, npy.shape, slice != &entry);
      a.parent = std::move(npy.values);
      a.offset = s.offset;
      npy.values = detail::slice_values(a.parent, s);
      npy.shape = s.shape;
    }
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

  const json& j_;
  std::filesystem::path dir_;
  bool allow_outside_ = false;
  const json* scalars_ = nullptr;
  const json* inputs_ = nullptr;
  const json* outputs_ = nullptr;
  std::set<std::string> used_scalars_, used_inputs_, used_outputs_;
};

// ---- small shape helpers ---------------------------------------------------------------------
void same_length(const Arr& a, const Arr& b) {
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
Vec<const std::int64_t> sview(const Arr& a) {
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

struct Prepared {
  std::vector<Output> outputs;
  Runner run;
  // Optional: the reference model's (model/) production outputs, independent of translate/.
  std::function<std::vector<I64>()> model;
  // Optional: the production preconditions the call breaks (translate/preconditions.hpp).
  std::function<std::vector<std::string>()> preconditions;
  // Optional: every store of the variant's grid to each lane of each output, per writing program
  // (races.hpp); nullopt when the stores cannot be split by program on this call.
  std::function<std::optional<std::vector<detail::LaneWrites>>(Variant)> writes;
};

// The most buffer lanes the split of a call's stores by program may copy (parts x runs x lanes);
// a larger call is compared in the host's row order only.
constexpr double kMaxRaceLanes = 1u << 28;

// Whether a variant writes past a row's own columns, so that rows can store to the same lane.
bool spills(Variant v) {
  return has(v, Behaviour::grid_spill) || has(v, Behaviour::b10_no_max_pages_bound) ||
         has(v, Behaviour::e01_no_column_bound);
}

using detail::Claim;

// ---- per-route preparation -------------------------------------------------------------------
// Token-granular routes over (ids, table) with an int32 / int64 out.
Prepared prep_token(Call& c, Route route) {
  const char* ids_name = route == Route::mamba_translate ? "slots" : "ids";
  const char* table_name = route == Route::swa_translate ? "swa_v2p" : "v2p";
  Arr ids = c.input(ids_name, Want::widen, 1, 2);
  Arr table = c.input(table_name, Want::i64, 1, 1);
  const bool out_any = route == Route::token_translate || route == Route::swa_translate;
  const bool out32 = route == Route::mamba_translate;
  Output out = c.output("out", out_any ? Want::i32_or_i64 : (out32 ? Want::i32 : Want::i64), 1, 2);
  if (static_cast<std::int64_t>(out.before.size()) < ids.size()) {
    bad(fmt::format("out has {} lanes but {} has {}", out.before.size(), ids.name, ids.size()));
  }
  std::int64_t ps = 1, mult = 1, dcp = 1;
  bool clamp = false;
  if (route == Route::mamba_translate) {
    clamp = c.flag("clamp");
  } else {
    ps = c.integer("page_size");
    if (route == Route::token_translate || route == Route::dcp_read_translate) mult = c.integer("multiplier", 1);
    if (route == Route::swa_translate) mult = c.integer("swa_multiplier", 1);
    if (route == Route::dcp_read_translate) dcp = c.integer("dcp_size", 1);
  }
  const bool o32 = out.dtype == NpyDtype::int32;
  Prepared p;
  p.outputs.push_back(out);
  p.model = [route, ids = ids.v, table = table.v, before = out.before, ps, mult, dcp, clamp] {
    namespace m = kvaddr::model;
    I64 o = before;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::int64_t t = ids[i];
      switch (route) {
        case Route::token_translate: o[i] = m::kernel_id(table, ps, mult, m::VirtualToken(t)).value; break;
        case Route::swa_translate: o[i] = m::swa_id(table, ps, mult, m::VirtualToken(t)).value; break;
        case Route::mamba_translate: o[i] = m::mamba_slot(table, t, clamp); break;
        case Route::dcp_read_translate:
          o[i] = t < 0 ? 0 : m::kernel_id(table, ps, mult, m::VirtualToken(m::floor_div(t, dcp))).value;
          break;
        case Route::transfer_ids: o[i] = m::phys(table, ps, m::VirtualToken(t)).value; break;
        case Route::flashmla_block_table:
        case Route::canonical_page_table:
        case Route::read_table:
        case Route::decode_metadata:
        case Route::eager_funnel:
        case Route::kv_indices_inplace:
        case Route::write_loc:
        case Route::full_prefill_table: break;  // not token routes: prep_token is never called for them
      }
    }
    return std::vector<I64>{o};
  };
  p.run = [route, ids = ids.v, table = table, before = out.before, o32, ps, mult, dcp, clamp](Variant v) {
    I64 o64 = before;
    I32 o32buf = o32 ? narrow_copy(before) : I32(before.size());
    switch (route) {
      case Route::token_translate:
        if (o32) translate::token_translate<std::int32_t>({view(ids), sview(table), ps, mult, mvec_of(o32buf), v});
        else translate::token_translate<std::int64_t>({view(ids), sview(table), ps, mult, mvec_of(o64), v});
        break;
      case Route::swa_translate:
        if (o32) translate::swa_translate<std::int32_t>({view(ids), sview(table), ps, mult, mvec_of(o32buf), v});
        else translate::swa_translate<std::int64_t>({view(ids), sview(table), ps, mult, mvec_of(o64), v});
        break;
      case Route::mamba_translate:
        translate::mamba_translate({view(ids), sview(table), clamp, mvec_of(o32buf)});
        break;
      case Route::dcp_read_translate:
        translate::dcp_read_translate({view(ids), sview(table), ps, mult, dcp, mvec_of(o64), v});
        break;
      case Route::transfer_ids:
        translate::transfer_ids({view(ids), sview(table), ps, mvec_of(o64), v});
        break;
      case Route::flashmla_block_table:
      case Route::canonical_page_table:
      case Route::read_table:
      case Route::decode_metadata:
      case Route::eager_funnel:
      case Route::kv_indices_inplace:
      case Route::write_loc:
      case Route::full_prefill_table: bad("internal: not a token route");
    }
    return std::vector<I64>{o32 ? widen(o32buf) : o64};
  };
  return p;
}

Prepared prep_write_loc(Call& c) {
  Arr loc = c.input("loc", Want::widen, 1, 1);
  Arr v2p = c.input("v2p", Want::i64, 1, 1);
  Output out = c.output("out", Want::i64, 1, 1);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  const std::int64_t dcp_size = c.integer("dcp_size", 1);
  const std::int64_t dcp_rank = c.integer("dcp_rank", 0);
  const auto width = static_cast<std::int64_t>(out.before.size());
  if (auto w = c.opt_int("out_width"); w && *w != width) {
    bad(fmt::format("scalar out_width = {} but out has {} lanes", *w, width));
  }
  if (width < loc.size()) bad(fmt::format("out has {} lanes but loc has {} (out_width >= N)", width, loc.size()));
  Prepared p;
  p.outputs.push_back(out);
  p.model = [loc = loc.v, v2p = v2p.v, width, ps, mult, dcp_size, dcp_rank] {
    std::vector<kvaddr::model::WidenedWriteLoc> w;
    for (std::int64_t x : loc) w.emplace_back(x);
    return std::vector<I64>{kvaddr::model::write_loc_lanes(v2p, ps, mult, dcp_size, dcp_rank, w, width)};
  };
  p.run = [loc = loc.v, v2p = v2p, before = out.before, ps, mult, dcp_size, dcp_rank](Variant v) {
    I64 o = before;
    translate::write_loc({view(loc), sview(v2p), ps, mult, dcp_size, dcp_rank, mvec_of(o), v});
    return std::vector<I64>{o};
  };
  return p;
}

Prepared prep_kv_indices(Call& c) {
  Output kv = c.output("kv_indices", Want::i32, 1, 1);
  Arr indptr = c.input("kv_indptr", Want::i32, 1, 1);
  Arr src = c.input("src", Want::i32, 1, 1, true);
  Arr v2p = c.input("v2p", Want::i64, 1, 1);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  const std::int64_t bs = c.integer("batch_size", indptr.size() - 1);
  if (bs < 0 || bs + 1 > indptr.size()) {
    bad(fmt::format("scalar batch_size = {} but kv_indptr has {} entries (needs batch_size + 1)", bs, indptr.size()));
  }
  Prepared p;
  p.outputs.push_back(kv);
  p.run = [before = kv.before, indptr = indptr.i32(), src = src.i32(), has_src = src.present, v2p = v2p, bs, ps,
           mult](Variant v) {
    I32 o = narrow_copy(before);
    translate::kv_indices_inplace({mvec_of(o), view(indptr), bs, view(src, has_src), sview(v2p), ps, mult, v});
    return std::vector<I64>{widen(o)};
  };
  return p;
}

// flashmla_block_table, canonical_page_table, read_table, full_prefill_table: one int32 table.
Prepared prep_table(Call& c, Route route, const Claim& claim) {
  Arr r2t = c.input("req_to_token", Want::i32, 2, 2);
  Arr rows = c.input("req_pool_indices", Want::widen, 1, 1);
  const char* lens_name = route == Route::flashmla_block_table ? "page_kernel_lens" : "seq_lens";
  Arr lens = c.input(lens_name, Want::widen, 1, 1);
  same_length(rows, lens);
  Arr start;
  if (route == Route::flashmla_block_table) {
    start = c.input("kv_start_idx", Want::widen, 1, 1, true);
    same_length(rows, start);
  }
  Arr v2p = c.input("v2p", Want::i64, 1, 1, route == Route::flashmla_block_table);
  const char* out_name = route == Route::flashmla_block_table ? "kv_indices" : "out";
  Output out = c.output(out_name, Want::i32, 2, 2, true);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  std::int64_t max_pages = 0, delta = 0;
  bool zero_tail = false;
  if (route != Route::flashmla_block_table) max_pages = c.integer("max_pages");
  if (route == Route::read_table) {
    delta = c.integer("seq_len_delta", 0);
    zero_tail = c.flag("zero_tail", claim.zero_tail.value_or(false));
    if (claim.zero_tail && *claim.zero_tail != zero_tail) bad("flags.tail_policy disagrees with scalar zero_tail");
  }
  if (max_pages > out.shape[1]) {
    bad(fmt::format("scalar max_pages = {} but {} has {} columns", max_pages, out.name, out.shape[1]));
  }
  if (out.shape[0] < rows.size()) {
    bad(fmt::format("{} has {} rows but the batch has {}", out.name, out.shape[0], rows.size()));
  }
  Prepared p;
  p.outputs.push_back(out);
  // The route on batch rows [b0, b1), writing the table from row `row0` on (a view of the rows
  // [row0, R) of the buffer `o`): the whole call is (0, 0, B). With a row stride, canonical_page_table
  // and read_table see rows of row_stride columns (their columns are bounded by max_pages, never by
  // the table's width), so a spill reaches the guard columns of the last row as on the device.
  const bool wide_rows = out.row_stride > 0 && (route == Route::canonical_page_table || route == Route::read_table);
  const std::int64_t stride = out.stride();
  auto part = [route, r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, lens = lens.v, start = start.v,
               has_start = start.present, v2p = v2p, table_rows = out.shape[0],
               table_cols = wide_rows ? stride : out.shape[1], stride, ps, mult, max_pages,
               delta](Variant v, I32& o, std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill_tail) {
    // E10 reads row b of req_to_token for batch lane b: a part starting at lane b0 sees it from row b0.
    const std::int64_t r2t_row0 = has(v, Behaviour::e10_batch_index_rows) && b1 > b0 ? b0 : 0;
    const std::int64_t r2t_cols = r2t_shape.size() < 2 ? 1 : r2t_shape[1];
    if (r2t_row0 > r2t_shape[0]) throw OutOfRange("req_to_token", std::to_string(r2t_row0), "row past the table");
    const Mat<const std::int32_t> R{r2t.data() + r2t_row0 * r2t_cols, r2t_shape[0] - r2t_row0, r2t_cols, r2t_cols, 1};
    const Mat<std::int32_t> O{o.data() + row0 * stride, table_rows - row0, table_cols, stride, 1};
    const auto lanes = [b0, b1](const I64& x, bool present = true) -> Vec<const std::int64_t> {
      if (!present) return {};
      return {x.data() + b0, b1 - b0};
    };
    switch (route) {
      case Route::flashmla_block_table:
        translate::flashmla_block_table({R, lanes(rows), lanes(lens), lanes(start, has_start), sview(v2p), ps, mult, O, v});
        break;
      case Route::canonical_page_table:
        translate::canonical_page_table({R, lanes(rows), lanes(lens), sview(v2p), ps, mult, max_pages, O, v});
        break;
      case Route::read_table:
        translate::read_table({R, lanes(rows), lanes(lens), delta, max_pages, sview(v2p), ps, mult, O, fill_tail, v});
        break;
      case Route::full_prefill_table:
        translate::full_prefill_table({R, lanes(rows), lanes(lens), sview(v2p), ps, mult, max_pages, O, v});
        break;
      case Route::token_translate:
      case Route::decode_metadata:
      case Route::eager_funnel:
      case Route::kv_indices_inplace:
      case Route::write_loc:
      case Route::swa_translate:
      case Route::mamba_translate:
      case Route::dcp_read_translate:
      case Route::transfer_ids: bad("internal: not a table route");
    }
  };
  const std::int64_t batch = rows.size();
  p.run = [part, before = out.before, batch, zero_tail](Variant v) {
    I32 o = narrow_copy(before);
    part(v, o, 0, 0, batch, zero_tail);
    return std::vector<I64>{widen(o)};
  };
  if (route == Route::canonical_page_table || route == Route::read_table) {
    // Each batch row is one program of the grid (its column blocks never store to the same lane);
    // read_table's zero_tail fill of the padded rows [B, R) is another.
    p.writes = [part, before = out.before, batch, zero_tail, stride, table_rows = out.shape[0], lens = lens.v, delta,
                ps](Variant v) -> std::optional<std::vector<detail::LaneWrites>> {
      // A row stores outside its own row only when it has more pages than lanes per row: without
      // such a row no two programs share a lane, and the split is not needed.
      const bool any_long = std::any_of(lens.begin(), lens.end(), [&](std::int64_t len) {
        std::int64_t kv = 0;
        if (__builtin_add_overflow(len, delta, &kv) || kv < 0 || ps < 1) return true;  // the route decides
        return kv / ps + (kv % ps != 0 ? 1 : 0) > stride;
      });
      if (!any_long) return std::nullopt;
      // Each part runs twice over the whole buffer (four times with zero_tail): a bound on the work.
      const auto parts = static_cast<double>(batch + 1) * (zero_tail ? 4 : 2);
      if (parts * static_cast<double>(before.size()) > kMaxRaceLanes) return std::nullopt;
      const auto run_part = [&](std::int64_t row0, std::int64_t b0, std::int64_t b1, bool zt) {
        return detail::stored_lanes(before, [&](const I64& prefill) {
          I32 o = narrow_copy(prefill);
          part(v, o, row0, b0, b1, zt);
          return widen(o);
        });
      };
      detail::LaneWrites w(before.size());
      try {
        for (std::int64_t b = 0; b < batch; ++b) {
          auto stored = run_part(b, b, b + 1, zero_tail);
          if (zero_tail) {
            // A one-row part also fills rows [b + 1, R) as its padded rows: take the row's own lanes
            // from this run and its spill into later rows from a run without the fill.
            const auto spill = run_part(b, b, b + 1, false);
            for (std::size_t i = 0; i < stored.size(); ++i) {
              const auto own_row = static_cast<std::int64_t>(i) / stride == b;
              if (!own_row) stored[i] = spill[i];
            }
          }
          detail::add_writes(w, stored, b);
        }
        if (zero_tail && batch < table_rows) detail::add_writes(w, run_part(batch, batch, batch, true), -1);
        // The parts in the host's order must give the whole call's output, or the split is wrong.
        I32 o = narrow_copy(before);
        part(v, o, 0, 0, batch, zero_tail);
        if (detail::last_write_wins(before, w) != widen(o)) return std::nullopt;
      } catch (const kvaddr::Error&) {
        return std::nullopt;
      }
      return std::vector<detail::LaneWrites>{std::move(w)};
    };
  }
  if (route == Route::canonical_page_table || route == Route::read_table) {
    p.preconditions = [route, r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, lens = lens.v, v2p = v2p.v, ps,
                       mult, max_pages, delta] {
      const auto R = cview(r2t, r2t_shape);
      if (route == Route::canonical_page_table) {
        return broken_preconditions(
            CanonicalPageTableArgs{R, view(rows), view(lens), view(v2p), ps, mult, max_pages, {}, Variant::production});
      }
      ReadTableArgs a;
      a.req_to_token = R;
      a.row_ids = view(rows);
      a.seq_lens = view(lens);
      a.seq_len_delta = delta;
      a.max_pages = max_pages;
      a.v2p = view(v2p);
      a.page_size = ps;
      a.multiplier = mult;
      return broken_preconditions(a);
    };
  }
  return p;
}

Prepared prep_eager_funnel(Call& c) {
  Arr table = c.input("page_table", Want::i64, 2, 2);
  Arr v2p = c.input("v2p", Want::i64, 1, 1);
  Output out = c.output("out", Want::i64, 2, 2);
  if (out.shape != table.shape) {
    bad(fmt::format("out has shape {} but page_table {}", shape_text(out.shape), shape_text(table.shape)));
  }
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  Prepared p;
  p.outputs.push_back(out);
  p.run = [table = table.v, shape = table.shape, v2p = v2p, before = out.before, ps, mult](Variant v) {
    I64 o = before;
    translate::eager_funnel({cview(table, shape), sview(v2p), ps, mult, mview(o, shape), v});
    return std::vector<I64>{o};
  };
  return p;
}

Prepared prep_decode(Call& c) {
  const bool skip = c.flag("skip_page_table");
  Arr seq = c.input("seq_lens", Want::widen, 1, 1);
  Arr v2p = c.input("v2p", Want::i64, 1, 1, true);
  Arr kpt = c.input("kernel_page_table", Want::i32, 2, 2, true);
  Arr swa = c.input("swa_v2p", Want::i64, 1, 1, true);
  const bool needs_r2t = !skip && (!kpt.present || swa.present);
  Arr r2t = c.input("req_to_token", Want::i32, 2, 2, !needs_r2t);
  Arr rows = c.input("req_pool_indices", Want::widen, 1, 1, !needs_r2t);
  same_length(seq, rows);
  const std::int64_t max_seq_pages = c.integer("max_seq_pages");
  const std::int64_t delta = c.integer("seq_len_delta", 0);
  const std::int64_t ps = c.integer("page_size");
  const std::int64_t mult = c.integer("multiplier", 1);
  const std::int64_t swa_mult = c.integer("swa_multiplier", 1);
  Prepared p;
  p.outputs.push_back(c.output("cache_seqlens", Want::i32, 1, 1));
  p.outputs.push_back(c.output("cu_seqlens_k", Want::i32, 1, 1));
  const bool has_pt = !skip || c.has_output("page_table");
  const std::size_t pt_idx = p.outputs.size();
  if (has_pt) p.outputs.push_back(c.output("page_table", Want::i32, 2, 2));
  const bool has_swa_pt = swa.present || c.has_output("swa_page_table");
  const std::size_t swa_idx = p.outputs.size();
  if (has_swa_pt) {
    if (!swa.present) bad("output swa_page_table needs input swa_v2p");
    p.outputs.push_back(c.output("swa_page_table", Want::i32, 2, 2));
  }
  for (std::size_t k : {pt_idx, swa_idx}) {
    if (k < p.outputs.size() && p.outputs[k].shape[1] < max_seq_pages) {
      bad(fmt::format("scalar max_seq_pages = {} but {} has {} columns", max_seq_pages, p.outputs[k].name,
                      p.outputs[k].shape[1]));
    }
  }
  std::vector<I64> shapes, befores;
  for (const auto& o : p.outputs) {
    shapes.push_back(o.shape);
    befores.push_back(o.before);
  }
  p.run = [seq = seq.v, r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, has_rows = rows.present, v2p = v2p,
           kpt = kpt.i32(), kpt_shape = kpt.shape, has_kpt = kpt.present, swa = swa,
           shapes, befores, has_pt, has_swa_pt, pt_idx, swa_idx, skip, max_seq_pages, delta, ps, mult,
           swa_mult](Variant v) {
    std::vector<I32> bufs;
    for (const auto& b : befores) bufs.push_back(narrow_copy(b));
    DecodeMetadataArgs a;
    a.seq_lens = view(seq);
    if (!r2t_shape.empty()) a.req_to_token = cview(r2t, r2t_shape);
    a.req_pool_indices = view(rows, has_rows);
    a.max_seq_pages = max_seq_pages;
    a.seq_len_delta = delta;
    a.page_size = ps;
    a.v2p = sview(v2p);
    a.multiplier = mult;
    if (has_kpt) a.kernel_page_table = cview(kpt, kpt_shape);
    a.skip_page_table = skip;
    a.cache_seqlens = mvec_of(bufs[0]);
    a.cu_seqlens_k = mvec_of(bufs[1]);
    if (has_pt) a.page_table = mview(bufs[pt_idx], shapes[pt_idx]);
    a.swa_v2p = sview(swa);
    a.swa_multiplier = swa_mult;
    if (has_swa_pt) a.swa_page_table = mview(bufs[swa_idx], shapes[swa_idx]);
    a.variant = v;
    translate::decode_metadata(a);
    std::vector<I64> outs;
    for (const auto& b : bufs) outs.push_back(widen(b));
    return outs;
  };
  // Called after the claimed variant's run, so the shapes are valid.
  p.preconditions = [seq = seq.v, r2t = r2t.i32(), r2t_shape = r2t.shape, rows = rows.v, has_rows = rows.present,
                     v2p = v2p.v, has_v2p = v2p.present, has_kpt = kpt.present, max_seq_pages, delta, ps] {
    static const std::int32_t kpt_marker = 0;  // a present kernel_page_table only switches the padding check off
    DecodeMetadataArgs a;
    a.seq_lens = view(seq);
    if (!r2t_shape.empty()) a.req_to_token = cview(r2t, r2t_shape);
    a.req_pool_indices = view(rows, has_rows);
    a.max_seq_pages = max_seq_pages;
    a.seq_len_delta = delta;
    a.page_size = ps;
    a.v2p = view(v2p, has_v2p);
    if (has_kpt) a.kernel_page_table = {&kpt_marker, 1, 1, 1, 1};
    return broken_preconditions(a);
  };
  return p;
}

// Lane-by-lane comparison of one output, its guard regions included; `writes` (optional) are the
// variant's stores per lane, so that a contested lane accepts each of its possible values.
void compare(const Output& o, const I64& expected, const detail::LaneWrites* writes, CallReport& r) {
  detail::compare_lanes(o.name, o.shape, o.row_stride, expected, o.after, writes, r);
  detail::compare_guards(o.name, o.parent_before, o.parent_after, o.offset, static_cast<std::int64_t>(o.before.size()), r);
}

bool guards_intact(const Output& o) {
  return detail::guards_intact(o.parent_before, o.parent_after, o.offset, static_cast<std::int64_t>(o.before.size()));
}

// The race of variant v on this call: nullopt unless v spills, its stores can be split by row and
// some lane is stored with >= 2 different values. `host` is v's output in the host's order.
std::optional<Race> race_for(const Prepared& p, Route route, Variant v, const std::vector<I64>& host,
                             std::optional<std::vector<detail::LaneWrites>>& writes) {
  writes.reset();
  if (!p.writes || !spills(v)) return std::nullopt;
  writes = p.writes(v);
  if (!writes || writes->size() != p.outputs.size() || host.size() != p.outputs.size()) return std::nullopt;
  std::vector<detail::RacedOutput> raced;
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    const Output& o = p.outputs[k];
    raced.push_back({&o.name, &o.shape, o.row_stride, &o.after, &host[k], &(*writes)[k], guards_intact(o)});
  }
  return detail::race_of(std::string(to_string(v, route)), raced);
}

bool equal_outputs(const std::vector<Output>& outs, const std::vector<I64>& got) {
  if (got.size() != outs.size()) return false;
  for (std::size_t k = 0; k < outs.size(); ++k)
    if (got[k] != outs[k].after || !guards_intact(outs[k])) return false;
  return true;
}

}  // namespace

namespace detail {
void check_call(const json& call, const std::filesystem::path& dir, bool allow_outside, CallReport& r) {
  if (!call.is_object()) bad("a call must be a JSON object");
  if (call.contains("name")) {
    if (!call.at("name").is_string()) bad("'name' must be a string");
    r.name = call.at("name").get<std::string>();
  }
  if (!call.contains("route") || !call.at("route").is_string()) bad("missing 'route' (a spec route name)");
  r.route = call.at("route").get<std::string>();
  if (call.contains("variant") && call.at("variant").is_string()) r.variant = call.at("variant").get<std::string>();
  Route route{};
  try {
    route = parse_route(r.route);
  } catch (const kvaddr::Error&) {
    bad("unknown route '" + r.route + "' (expected a spec §4.1-4.13 route name)");
  }
  const Claim claim = detail::read_claim(call, route);
  r.variant = std::string(to_string(claim.variant, route));
  detail::check_era(call);
  Call c(call, dir, allow_outside);
  Prepared p;
  switch (route) {
    case Route::token_translate:
    case Route::swa_translate:
    case Route::mamba_translate:
    case Route::dcp_read_translate:
    case Route::transfer_ids: p = prep_token(c, route); break;
    case Route::write_loc: p = prep_write_loc(c); break;
    case Route::kv_indices_inplace: p = prep_kv_indices(c); break;
    case Route::flashmla_block_table:
    case Route::canonical_page_table:
    case Route::read_table:
    case Route::full_prefill_table: p = prep_table(c, route, claim); break;
    case Route::eager_funnel: p = prep_eager_funnel(c); break;
    case Route::decode_metadata: p = prep_decode(c); break;
  }
  c.check_all_used();

  std::vector<I64> expected;
  try {
    expected = p.run(claim.variant);
  } catch (const kvaddr::Error& e) {
    bad(std::string("the reference route rejects this call: ") + e.what());
  }
  // The host route and the independent model must agree on production (a kvaddr defect otherwise).
  if (p.model && claim.variant == Variant::production) {
    std::vector<I64> model;
    try {
      model = p.model();
    } catch (const kvaddr::Error& e) {
      bad(std::string("kvaddr internal disagreement: the host route accepts this call but the model rejects it: ") +
          e.what());
    }
    for (std::size_t k = 0; k < model.size(); ++k) {
      for (std::size_t i = 0; i < model[k].size(); ++i) {
        if (model[k][i] != expected[k][i]) {
          bad(fmt::format("kvaddr internal disagreement at {} lane {}: host route {}, model {}", p.outputs[k].name, i,
                          expected[k][i], model[k][i]));
        }
      }
    }
    r.model_checked = true;
  }
  // A claimed variant whose rows race: a contested lane accepts each of its possible values.
  std::optional<std::vector<detail::LaneWrites>> claimed_writes;
  std::optional<Race> claimed_race = race_for(p, route, claim.variant, expected, claimed_writes);
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    compare(p.outputs[k], expected[k], claimed_race ? &(*claimed_writes)[k] : nullptr, r);
  }
  r.status = r.lanes_differing != 0 ? CallStatus::differs : (claimed_race ? CallStatus::race : CallStatus::equal);

  std::vector<Race> races;  // of the variants tried, in search order
  const auto matching = smallest_matching(route, [&](Variant v) {
    if (v == claim.variant) return r.status != CallStatus::differs;
    try {
      const std::vector<I64> got = p.run(v);
      std::optional<std::vector<detail::LaneWrites>> writes;
      if (std::optional<Race> race = race_for(p, route, v, got, writes)) {
        const bool consistent = race->consistent;
        races.push_back(std::move(*race));
        return consistent;
      }
      return equal_outputs(p.outputs, got);
    } catch (const kvaddr::Error&) {
      return false;  // this variant cannot produce the recording (e.g. it reads outside a table)
    }
  });
  r.matching_variants = variant_names(route, matching);
  if (claimed_race) r.races.push_back(std::move(*claimed_race));
  for (Race& race : races) {
    const bool matched = std::find(r.matching_variants.begin(), r.matching_variants.end(), race.variant) !=
                         r.matching_variants.end();
    if (matched && race.variant != r.variant) r.races.push_back(std::move(race));
  }
  if (p.preconditions) r.broken_preconditions = p.preconditions();
}

}  // namespace detail

}  // namespace kvaddr::replay
