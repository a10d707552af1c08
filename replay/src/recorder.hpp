#pragma once
// kvaddr's own recordings (example.cpp: the recorded example; example_inferred.cpp: one call per inferred
// behaviour), every "after" buffer computed by the host routes: the calls and arrays are collected here and
// written by finish() through replay's one recording writer (kvaddr/replay/record.hpp).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kvaddr/replay/record.hpp"
#include "kvaddr/translate/contracts.hpp"

namespace kvaddr::replay::detail {

using json = nlohmann::json;
using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

template <class T>
inline I64 wide(const std::vector<T>& v) {
  return I64(v.begin(), v.end());
}

class Recorder {
 public:
  explicit Recorder(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // Keeps the array `file` for finish(); returns its name for the manifest's entry. A second array under the
  // same name is InvalidState (it would silently replace the first one's bytes in the recording).
  std::string save(const std::string& file, NpyDtype dtype, const I64& shape, const I64& values) {
    if (!arrays_.emplace(file, RecordedArray{dtype, shape, values}).second) {
      throw InvalidState("file", file, "saved twice in one recording (each array needs its own file name)");
    }
    return file;
  }
  std::string save64(const std::string& file, const I64& shape, const I64& v) { return save(file, NpyDtype::int64, shape, v); }
  std::string save32(const std::string& file, const I64& shape, const I32& v) { return save(file, NpyDtype::int32, shape, wide(v)); }

  // An output pair "<tag>.<name>.before.npy" / ".after.npy".
  template <class T>
  json out(const std::string& tag, const std::string& name, const I64& shape, const std::vector<T>& before,
           const std::vector<T>& after) {
    const NpyDtype dt = sizeof(T) == 4 ? NpyDtype::int32 : NpyDtype::int64;
    return {{"before", save(tag + "." + name + ".before.npy", dt, shape, wide(before))},
            {"after", save(tag + "." + name + ".after.npy", dt, shape, wide(after))}};
  }

  void add(json call) { calls_.push_back(std::move(call)); }

  // Writes the directory (write_recording: everything checked before anything is written).
  void finish(const std::string& description, int version = 1) {
    write_recording(dir_, json{{"version", version}, {"description", description}, {"calls", calls_}}.dump(), arrays_);
  }

 private:
  std::filesystem::path dir_;
  json calls_ = json::array();
  RecordedArrays arrays_;
};

// Records the call of an id route: `call` holds its name, route, era and scalars; its inputs are the int64 `ids`
// (saved as <tag>.<input>.npy in `shape`) and the table `table_name` (file `table_file`); its output "out" is
// `before` and what run(ids, out) writes over a copy of it, shaped as the ids when as long, else one row.
template <class T, class Run>
void add_id_call(Recorder& rec, json call, const std::string& tag, const std::string& input, const I64& shape,
                 const I64& ids, const std::string& table_name, const std::string& table_file,
                 const std::vector<T>& before, Run run) {
  std::vector<T> after = before;
  run(cvec(ids), mvec(after));
  const I64 out_shape = before.size() == ids.size() ? shape : I64{static_cast<std::int64_t>(before.size())};
  call["inputs"] = {{input, rec.save64(tag + "." + input + ".npy", shape, ids)}, {table_name, table_file}};
  call["outputs"] = {{"out", rec.out(tag, "out", out_shape, before, after)}};
  rec.add(std::move(call));
}

// Records the call of a table route: `call` holds its name, route, era, flags, scalars and inputs; its output
// `output` is a [rows, cols] int32 buffer of `fill` and what run(out) writes over a copy of it.
template <class Run>
void add_table_call(Recorder& rec, json call, const std::string& tag, const std::string& output, std::int64_t rows,
                    std::int64_t cols, std::int32_t fill, Run run) {
  const I32 before(static_cast<std::size_t>(rows * cols), fill);
  I32 after = before;
  run(mmat(after, rows, cols));
  call["outputs"] = {{output, rec.out(tag, output, {rows, cols}, before, after)}};
  rec.add(std::move(call));
}

}  // namespace kvaddr::replay::detail
