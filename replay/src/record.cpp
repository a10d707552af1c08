// The one writer of replay directories (kvaddr/replay/record.hpp): the description and the arrays are
// checked completely, every .npy image is formed in memory, and only then is anything created on disk.
#include "kvaddr/replay/record.hpp"

#include <fmt/format.h>

#include <set>
#include <system_error>
#include <utility>

#include "call.hpp"
#include "files.hpp"
#include "loader.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/json.hpp"
#include "kvaddr/translate/validate.hpp"
#include "manifest.hpp"
#include "slice.hpp"
#include "text.hpp"

namespace kvaddr::replay {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void invalid(const std::string& argument, const json& value, const std::string& reason) {
  throw InvalidArgument(argument, detail::describe_value(value), reason);
}

// A plain file name of the directory: letters, digits, '.', '_', '-', not starting with '.'.
bool plain_name(const std::string& s, std::string_view suffix) {
  if (s.size() <= suffix.size() || !s.ends_with(suffix) || s.front() == '.') return false;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                    ch == '_' || ch == '-';
    if (!ok) return false;
  }
  return true;
}

// The object c[k], or an empty object when c has no k (by reference: no temporary to range over).
const json& section(const json& c, const char* k) {
  static const json empty = json::object();
  return c.contains(k) ? c.at(k) : empty;
}

void only_keys(const json& o, const std::set<std::string>& keys, const std::string& where, const std::string& what) {
  for (const auto& [k, v] : o.items())
    if (!keys.count(k)) throw InvalidArgument(where, k, "unknown key of " + what);
}

class Checker {
 public:
  explicit Checker(const RecordedArrays& arrays) : arrays_(arrays) {}

  // The array a file entry names; records that the manifest names it.
  const RecordedArray& file(const json& v, const std::string& where) {
    if (!v.is_string()) invalid(where, v, "must name a .npy file of the recording");
    const std::string name = v.get<std::string>();
    if (!plain_name(name, ".npy")) invalid(where, v, "must be a plain file name NAME.npy (letters, digits, . _ -)");
    const auto it = arrays_.find(name);
    if (it == arrays_.end()) invalid(where, v, "names no array of the recording");
    named_.insert(name);
    return it->second;
  }

  // replay's own slice / stride / row_stride rules (slice.hpp), as kvaddr replay will read the entry `e`.
  template <class F>
  static void as_replay_reads(const json& e, const std::string& where, F&& f) {
    try {
      f();
    } catch (const detail::CallError& err) {
      std::string reason = err.what();
      if (reason.starts_with(where + ": ")) reason.erase(0, where.size() + 2);
      throw InvalidArgument(where, detail::describe_value(e), reason);
    }
  }

  void input(const json& e, const std::string& where) {
    if (e.is_string()) {
      file(e, where);
      return;
    }
    if (!e.is_object() || !e.contains("file")) {
      invalid(where, e, "an input is \"FILE\", {\"file\", \"offset\", \"size\"} or {\"file\", \"offset\"?, \"shape\", \"strides\"}");
    }
    const bool strided = e.contains("strides");
    if (strided) {
      only_keys(e, {"file", "offset", "shape", "strides"}, where, "a strided input {file, offset?, shape, strides}");
    } else {
      only_keys(e, {"file", "offset", "size"}, where, "a sliced input {file, offset, size}");
    }
    const RecordedArray& a = file(e.at("file"), where + ".file");
    as_replay_reads(e, where, [&] {
      if (strided) detail::read_strided(e, where, a.shape);
      else detail::read_slice(e, where, a.shape, false);
    });
  }

  void output(const json& e, const std::string& where) {
    if (!e.is_object() || !e.contains("before") || !e.contains("after")) {
      invalid(where, e, "an output is {\"before\", \"after\"} with optional \"offset\", \"size\", \"shape\", \"row_stride\"");
    }
    only_keys(e, {"before", "after", "offset", "size", "shape", "row_stride"}, where, "an output");
    const RecordedArray& before = file(e.at("before"), where + ".before");
    const RecordedArray& after = file(e.at("after"), where + ".after");
    if (before.dtype != after.dtype) {
      invalid(where, e.at("after"), fmt::format("before is {} but after is {}", to_string(before.dtype), to_string(after.dtype)));
    }
    if (before.shape != after.shape) {
      invalid(where, e.at("after"), fmt::format("before has shape {} but after {}", load::shape_text(before.shape),
                                                load::shape_text(after.shape)));
    }
    const bool sliced = e.contains("offset") || e.contains("size") || e.contains("shape");
    if (!e.contains("row_stride")) {
      if (sliced) as_replay_reads(e, where, [&] { detail::read_slice(e, where, before.shape, true); });
      return;
    }
    as_replay_reads(e, where, [&] {
      const detail::RowStride t = detail::read_row_stride(e, where);
      const detail::Slice window = detail::read_slice(json{{"offset", e.at("offset")}, {"size", e.at("size")}}, where,
                                                      before.shape, false);
      detail::check_row_stride_size(t, window.size, where);
    });
  }

  void call(const json& c, const std::string& where) {
    if (!c.is_object()) invalid(where, c, "a call is a JSON object");
    only_keys(c, {"name", "route", "variant", "era", "flags", "scalars", "inputs", "outputs", "note", "presented"}, where,
              "a call");
    if (!c.contains("route") || !c.at("route").is_string()) invalid(where + ".route", c.value("route", json()), "a call names its route");
    try {
      parse_route(c.at("route").get<std::string>());
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(where + ".route", e.value(), e.reason());
    }
    for (const char* k : {"name", "variant", "era", "note"})
      if (c.contains(k) && !c.at(k).is_string()) invalid(where + "." + k, c.at(k), "must be a string");
    for (const char* k : {"flags", "scalars", "inputs", "outputs", "presented"})
      if (c.contains(k) && !c.at(k).is_object()) invalid(where + "." + k, c.at(k), "must be a JSON object");
    for (const auto& [k, v] : section(c, "scalars").items()) {
      const bool fits = v.is_boolean() || (v.is_number_integer() && !(v.is_number_unsigned() && v.get<std::uint64_t>() >
                                                                          static_cast<std::uint64_t>(INT64_MAX)));
      if (!fits) invalid(where + ".scalars." + k, v, "a scalar is an int64 integer or a boolean");
    }
    for (const auto& [k, v] : section(c, "inputs").items()) input(v, where + ".inputs." + k);
    for (const auto& [k, v] : section(c, "outputs").items()) output(v, where + ".outputs." + k);
  }

  // Every string of a side file that names an array counts as naming it (cxx_case.json's arrays).
  void side_names(const json& v) {
    if (v.is_string() && arrays_.count(v.get<std::string>())) named_.insert(v.get<std::string>());
    if (v.is_structured())
      for (const json& x : v) side_names(x);
  }

  void all_named() const {
    for (const auto& [name, a] : arrays_)
      if (!named_.count(name)) throw InvalidArgument("arrays[" + name + "]", name, "named by no entry of the manifest and no side file");
  }

 private:
  const RecordedArrays& arrays_;
  std::set<std::string> named_;
};

// The .npy image of each array (format_npy, after the checks that name the array).
std::map<std::string, std::string> images(const RecordedArrays& arrays) {
  std::map<std::string, std::string> out;
  for (const auto& [name, a] : arrays) {
    const std::string arg = "arrays[" + name + "]";
    if (!plain_name(name, ".npy")) throw InvalidArgument("arrays", name, "a key is a plain file name NAME.npy");
    if (a.dtype == NpyDtype::other) throw InvalidArgument(arg, "other", "dtype must be int32 or int64");
    std::int64_t n = 1;
    for (std::int64_t d : a.shape) {
      if (d < 0) throw InvalidArgument(arg, load::shape_text(a.shape), "a negative dimension");
      n = checked_mul(n, d, arg);
    }
    if (static_cast<std::uint64_t>(n) != a.values.size()) {
      throw InvalidArgument(arg, load::shape_text(a.shape),
                            fmt::format("the shape holds {} values but {} are given", n, a.values.size()));
    }
    if (a.dtype == NpyDtype::int32)
      for (std::int64_t v : a.values)
        if (v < INT32_MIN || v > INT32_MAX) throw InvalidArgument(arg, std::to_string(v), "does not fit int32");
    out.emplace(name, format_npy(a.dtype, a.shape, a.values));
  }
  return out;
}


}  // namespace

void write_recording(const fs::path& dir, std::string_view description, const RecordedArrays& arrays) {
  const json d = read_json(description, "description");
  if (!d.is_object()) invalid("description", d, "must be a JSON object");
  only_keys(d, {"version", "description", "calls", "side_files", "clear_npy"}, "description", "a recording");
  const json version = d.value("version", json());
  if (!version.is_number_integer() || version.get<std::int64_t>() < 1 || version.get<std::int64_t>() > 2) {
    invalid("version", version, "the manifest's format version is 1 or 2");
  }
  if (d.contains("description") && !d.at("description").is_string()) invalid("description.description", d.at("description"), "must be a string");
  if (d.contains("clear_npy") && !d.at("clear_npy").is_boolean()) invalid("clear_npy", d.at("clear_npy"), "must be true or false");
  const json calls = d.value("calls", json());
  if (!calls.is_array() || calls.empty()) invalid("calls", calls, "a recording holds a non-empty list of calls");
  const json& sides = section(d, "side_files");
  if (!sides.is_object()) invalid("side_files", sides, "must be a JSON object {NAME.json: object}");

  Checker check(arrays);
  for (std::size_t i = 0; i < calls.size(); ++i) check.call(calls[i], fmt::format("calls[{}]", i));
  for (const auto& [name, v] : sides.items()) {
    if (!plain_name(name, ".json") || name == "manifest.json") {
      throw InvalidArgument("side_files", name, "a side file is a plain NAME.json other than manifest.json");
    }
    if (!v.is_object()) invalid("side_files." + name, v, "must be a JSON object");
    check.side_names(v);
  }
  const std::map<std::string, std::string> npy = images(arrays);
  check.all_named();

  json manifest = {{"format", "kvaddr-replay"}, {"version", version}, {"calls", calls}};
  if (d.contains("description")) manifest["description"] = d.at("description");

  // Nothing is written before this point.
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw IoError("dir", detail::valid_utf8(dir.string()), "cannot create the directory" + (ec ? ": " + ec.message() : ""));
  }
  if (d.value("clear_npy", false)) {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".npy" && !fs::remove(it->path(), ec) && ec) break;
    if (ec) throw IoError("dir", detail::valid_utf8(dir.string()), "cannot remove its .npy files: " + ec.message());
  }
  for (const auto& [name, bytes] : npy) detail::write_bytes(dir / name, bytes);
  detail::write_bytes(dir / "manifest.json", manifest.dump(2) + "\n");
  for (const auto& [name, v] : sides.items()) detail::write_bytes(dir / name, v.dump(2) + "\n");
}

}  // namespace kvaddr::replay
