#pragma once
// kvaddr.present.stage's host side (the batched eager loop's staging): the layout of a case's backings and their
// twins in one pinned host buffer, the checks, and the copies into it, in one pass of C++ instead of a Python loop
// per array. A backing is one numpy array, or a tuple of arrays of one dtype written back to back (an output between
// its two guards, a v2p table between its guard pages): the pieces are never joined on the host first.
//
// Layout (each slot at a 256-byte multiple, as torch aligns its allocations): the backings whose twin is a copy of
// themselves (S), the backings with a given twin (D), those twins in the same order (D'), then, when there are twins,
// room for a second copy of S (S', filled on the device by kvaddr._gpu.copy_to_device's `head`). Nothing is written
// unless every argument is valid.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::python {

namespace py = pybind11;

struct StageBacking {
  std::vector<py::array> pieces;  // C-contiguous (a copy where the caller's was not), kept alive for the call
  std::vector<std::pair<const void*, std::int64_t>> spans;  // each piece's data and bytes when it was planned
  std::string what;  // the argument it came from (errors)
  py::dtype dtype;
  std::int64_t bytes = 0;
};

inline std::int64_t stage_slot(std::int64_t bytes) { return (bytes + 255) / 256 * 256; }

inline std::string stage_dtype(const py::dtype& d) { return py::cast<std::string>(d.attr("name")); }

inline std::string stage_describe(const StageBacking& b) {
  return stage_dtype(b.dtype) + "[" + std::to_string(b.bytes / b.dtype.itemsize()) + "]";
}

// One backing: an array, or a tuple of arrays of one dtype (its pieces in order; kvaddr.present.stage reads a tuple,
// and only a tuple, as pieces). `what` names it in errors.
inline StageBacking stage_backing(py::handle h, const std::string& what) {
  StageBacking b;
  auto add = [&](py::handle piece, const std::string& name) {
    if (!py::isinstance<py::array>(piece)) {
      throw InvalidArgument(name, std::string(py::str(py::type::handle_of(piece).attr("__name__"))),
                            "a numpy array (or a tuple of them) is required");
    }
    py::array a = py::array::ensure(piece, py::array::c_style);
    if (!a) throw InvalidArgument(name, "an array", "cannot be made C-contiguous");
    const char kind = a.dtype().kind();
    if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f' && kind != 'c') {
      throw InvalidArgument(name, stage_dtype(a.dtype()), "must be a numeric (bool, integer, float or complex) array");
    }
    if (b.pieces.empty()) {
      b.dtype = a.dtype();
    } else if (!a.dtype().is(b.dtype) && !a.dtype().equal(b.dtype)) {
      throw InvalidArgument(name, stage_dtype(a.dtype()),
                            "every piece of a backing has its first piece's dtype " + stage_dtype(b.dtype));
    }
    b.bytes += static_cast<std::int64_t>(a.nbytes());
    b.spans.emplace_back(a.data(), static_cast<std::int64_t>(a.nbytes()));
    b.pieces.push_back(std::move(a));
  };
  b.what = what;
  if (py::isinstance<py::tuple>(h)) {
    const auto seq = py::reinterpret_borrow<py::tuple>(h);
    if (seq.size() == 0) throw InvalidArgument(what, "()", "a backing has at least one piece");
    for (std::size_t j = 0; j < seq.size(); ++j) add(seq[j], what + "[" + std::to_string(j) + "]");
  } else {
    add(h, what);
  }
  return b;
}

struct StagePlan {
  std::vector<StageBacking> arrays;
  std::vector<std::optional<StageBacking>> given;  // a given twin per array (with twins), else none
  bool twins = false;
  std::vector<std::int64_t> at, twin_at;  // byte offsets from the buffer's start
  std::int64_t s = 0, d = 0, total = 0;
};

// twins: None or False (no twins), True (each a copy of its array), or a list with per array None (a copy) or
// its given twin (an array or pieces: the array's dtype and size).
inline StagePlan stage_plan(const py::list& arrays, py::handle twins) {
  StagePlan p;
  const std::size_t n = arrays.size();
  for (std::size_t k = 0; k < n; ++k) p.arrays.push_back(stage_backing(arrays[k], "arrays[" + std::to_string(k) + "]"));
  p.given.resize(n);
  if (twins.is_none() || twins.is(py::bool_(false))) {
    p.twins = false;
  } else if (twins.is(py::bool_(true))) {
    p.twins = true;
  } else if (py::isinstance<py::list>(twins) || py::isinstance<py::tuple>(twins)) {
    p.twins = true;
    const auto seq = py::reinterpret_borrow<py::sequence>(twins);
    if (seq.size() != n) {
      throw InvalidArgument("twins", std::to_string(seq.size()) + " arrays", "one per array: " + std::to_string(n));
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (seq[k].is_none()) continue;
      StageBacking t = stage_backing(seq[k], "twins[" + std::to_string(k) + "]");
      const StageBacking& a = p.arrays[k];
      if (!t.dtype.equal(a.dtype) || t.bytes != a.bytes) {
        throw InvalidArgument("twins[" + std::to_string(k) + "]", stage_describe(t),
                              "a twin has its array's dtype and size: " + stage_describe(a));
      }
      p.given[k] = std::move(t);
    }
  } else {
    throw InvalidArgument("twins", std::string(py::str(py::repr(twins))), "must be None, a bool or a list");
  }
  p.at.assign(n, 0);
  p.twin_at.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    if (p.given[k]) continue;
    p.at[k] = p.s;
    p.s += stage_slot(p.arrays[k].bytes);
  }
  std::int64_t d = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (!p.given[k]) continue;
    p.at[k] = d;
    d += stage_slot(p.arrays[k].bytes);
  }
  p.d = d;
  for (std::size_t k = 0; k < n; ++k) {
    if (p.given[k]) {
      p.twin_at[k] = p.s + d + p.at[k];
      p.at[k] += p.s;
    } else {
      p.twin_at[k] = p.s + 2 * d + p.at[k];
    }
  }
  p.total = std::max<std::int64_t>(p.twins ? 2 * (p.s + d) : p.s, 256);
  return p;
}

// Before any copy, after take() ran Python: every piece still has the memory and size it was planned with (take may
// have resized or replaced an array's data: numpy's resize(refcheck=False)), and none overlaps the bytes
// [lo, hi) about to be written.
inline void stage_check_unchanged(const StageBacking& b, const char* lo, const char* hi) {
  for (std::size_t j = 0; j < b.pieces.size(); ++j) {
    const py::array& a = b.pieces[j];
    const std::string name = b.pieces.size() == 1 ? b.what : b.what + "[" + std::to_string(j) + "]";
    if (a.data() != b.spans[j].first || static_cast<std::int64_t>(a.nbytes()) != b.spans[j].second) {
      throw InvalidArgument(name, std::to_string(b.spans[j].second) + " bytes when planned",
                            "changed (resized or reallocated) while take() ran: nothing was written");
    }
    const char* p = static_cast<const char*>(a.data());
    if (b.spans[j].second > 0 && p < hi && lo < p + b.spans[j].second) {
      throw InvalidArgument("take", "its buffer", "overlaps " + name + ", which is copied into it");
    }
  }
}

inline void stage_copy(char* dst, const StageBacking& b) {
  for (const py::array& a : b.pieces) {
    const auto n = static_cast<std::size_t>(a.nbytes());
    if (n) std::memcpy(dst, a.data(), n);
    dst += n;
  }
}

inline void bind_stage(py::module_& m) {
  m.def("stage_pack", [](py::list arrays, py::handle twins, py::function take) {
    StagePlan p = stage_plan(arrays, twins);
    // take(total) -> (a writable C-contiguous uint8 numpy array, the byte offset to write at)
    const py::object ret = take(p.total);
    if (!py::isinstance<py::tuple>(ret) || py::len(ret) != 2 || !py::isinstance<py::int_>(py::tuple(ret)[1])) {
      throw InvalidArgument("take", std::string(py::str(py::type::handle_of(ret).attr("__name__"))),
                            "must return (buffer, start): a tuple of a uint8 array and an int");
    }
    const auto got = py::reinterpret_borrow<py::tuple>(ret);
    if (!py::isinstance<py::array>(got[0])) throw InvalidArgument("take", "its buffer", "must be a numpy array");
    auto flat = py::reinterpret_borrow<py::array>(got[0]);
    std::int64_t start = 0;
    try {
      start = got[1].cast<std::int64_t>();
    } catch (const py::cast_error&) {
      throw InvalidArgument("take", "start " + std::string(py::str(got[1])), "must fit int64");
    }
    if (!flat.dtype().equal(py::dtype::of<std::uint8_t>()) || flat.ndim() != 1 || !flat.writeable() ||
        !(flat.flags() & py::array::c_style)) {
      throw InvalidArgument("take", "its buffer", "must be a writable contiguous 1-D uint8 array");
    }
    if (start < 0 || start > flat.shape(0) || flat.shape(0) - start < p.total) {
      throw InvalidArgument("take", "start " + std::to_string(start) + " of " + std::to_string(flat.shape(0)) + " bytes",
                            "must leave room for " + std::to_string(p.total));
    }
    char* base = static_cast<char*>(flat.mutable_data()) + start;
    for (std::size_t k = 0; k < p.arrays.size(); ++k) {
      stage_check_unchanged(p.arrays[k], base, base + p.total);
      if (p.given[k]) stage_check_unchanged(*p.given[k], base, base + p.total);
    }
    for (std::size_t k = 0; k < p.arrays.size(); ++k) {
      stage_copy(base + p.at[k], p.arrays[k]);
      if (p.given[k]) stage_copy(base + p.twin_at[k], *p.given[k]);
    }
    py::list sizes(p.arrays.size());
    for (std::size_t k = 0; k < p.arrays.size(); ++k) sizes[k] = py::int_(p.arrays[k].bytes / p.arrays[k].dtype.itemsize());
    return py::make_tuple(py::cast(p.at), p.twins ? py::cast(p.twin_at) : py::none(), p.s, p.d, p.total, sizes);
  }, py::arg("arrays"), py::arg("twins"), py::arg("take"),
     "Lay out host backings `arrays` (each an array, or a tuple of pieces of one dtype written back to back) and "
     "their twins (None / False: none; True: each a copy; a list: per array None or its given twin) in one buffer: "
     "calls take(total bytes) -> (uint8 buffer, start) once, writes every backing and given twin there and returns "
     "(byte offsets of the arrays, of the twins or None, S bytes, D bytes, total, elements of each array) from `start`: S (copies' arrays), D "
     "(arrays with a given twin), D' (those twins), then S' (room for S again). InvalidArgument before anything is "
     "written.");
}

}  // namespace kvaddr::python
