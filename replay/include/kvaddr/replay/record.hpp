#pragma once
// The one writer of replay directories (docs/replay.md, "Writing a recording"): kvaddr's own example
// recordings (replay/src/recorder.hpp), the C++ harness's failing cases (harness/src/record.inc) and
// kvaddr.check's failing cases (python/kvaddr/record.py, through kvaddr._core.write_recording) all hand it
// a description of the calls and the arrays their entries name; it checks both completely and only then
// writes manifest.json, one .npy per array and the side files (harness.json, cxx_case.json).
//
// The description is JSON text:
//   {"version": 1 | 2,                       the manifest's format version
//    "description": "...",                   optional: the manifest's description
//    "calls": [CALL, ...],                   at least one call, as the manifest holds it
//    "side_files": {"NAME.json": {...}},     optional: JSON objects written beside the manifest
//    "clear_npy": true | false}              optional (false): remove the directory's .npy files first
// A CALL has the manifest's keys (route, name, variant, era, flags, scalars, inputs, outputs, note,
// presented); every array entry takes one of the manifest's forms, its files named by keys of `arrays`:
//   input   "FILE"                                          the array itself
//           {"file", "offset", "size"}                      a slice of a 1-D parent (a guarded table)
//           {"file", "offset"?, "shape", "strides"}         a strided view of a 1-D backing
//   output  {"before", "after"}                             the buffer before and after the call
//           {"before", "after", "offset", "size", "shape"?} its window in a 1-D parent (guards, or the
//                                                           shared allocation of an adjacent layout)
//           ... plus "row_stride"                           a table with guard columns
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/replay/npy.hpp"

namespace kvaddr::replay {

// One array of a recording: int32 or int64 values in C order.
struct RecordedArray {
  NpyDtype dtype = NpyDtype::int64;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> values;
};

// File name ("NAME.npy") -> array.
using RecordedArrays = std::map<std::string, RecordedArray>;

// Writes the recording into `dir` (created with its parents). Before anything is written it checks:
// the description's keys and types; each call's keys, a known "route", integer or boolean scalars;
// each entry's form (an unknown key or form names it); every file name a plain "NAME.npy" that is a
// key of `arrays`; a slice or strided view inside its 1-D parent (replay's own slice rules); an
// output's before and after of one dtype and shape; each array of dtype int32 / int64, values
// fitting it, as many values as its shape holds; every array named by the manifest or a side file.
// Errors: kvaddr::FormatError("description", ...) for text that is not JSON; InvalidArgument naming
// the argument (e.g. "calls[0].inputs.ids", "arrays[in.ids.npy]") for the rest; kvaddr::IoError
// naming the path when the directory or a file cannot be created or written.
void write_recording(const std::filesystem::path& dir, std::string_view description, const RecordedArrays& arrays);

}  // namespace kvaddr::replay
