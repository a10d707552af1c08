#pragma once
// Private to the pybind11 module: numpy arrays and Python values as the views and scalars of kvaddr's
// route arguments (docs/python.md, "Conventions"). Inputs are C-contiguous arrays of the contract's
// dtype (int64 inputs that widen also take int32, copied); outputs are writeable arrays of exactly
// the contract's dtype, or fresh arrays of a checked size. Every rejection is a kvaddr.InvalidArgument
// (or OutOfRange for a size) naming the argument.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::python {

namespace py = pybind11;
using std::int32_t;
using std::int64_t;

// The route bindings' scalar parameters, stricter than pybind11's int64_t / bool: a bool is no integer (True as
// page_size was taken as 1), and a flag is a bool (True / False or numpy.bool_), not None, 0.5 or 7 (pybind11's
// bool converts those silently). Anything else fails overload resolution: pybind11's TypeError, as for a string.
struct StrictInt {
  int64_t v = 0;
  operator int64_t() const { return v; }
};
struct StrictBool {
  bool v = false;
  operator bool() const { return v; }
};
inline bool is_numpy_bool(py::handle h) {
  const std::string_view t = Py_TYPE(h.ptr())->tp_name;
  return t == "numpy.bool_" || t == "numpy.bool";
}

// ---- numpy argument handling -----------------------------------------------------------------
inline std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }
inline std::string dtype_name(const py::array& a) { return py::str(a.dtype()); }

inline py::array as_ndarray(py::handle obj, const char* name) {
  if (!py::isinstance<py::array>(obj)) {
    throw InvalidArgument(name, type_name(obj), "expected a numpy.ndarray");
  }
  return py::reinterpret_borrow<py::array>(obj);
}

inline void check_layout(const py::array& a, const char* name, int min_ndim, int max_ndim) {
  const auto nd = static_cast<int>(a.ndim());
  if (nd < min_ndim || nd > max_ndim) {
    const std::string want = min_ndim == max_ndim ? std::to_string(min_ndim) + "-D"
                                                  : std::to_string(min_ndim) + "-D to " + std::to_string(max_ndim) + "-D";
    throw InvalidArgument(name, "ndim " + std::to_string(nd), "expected a " + want + " array");
  }
  if (!(a.flags() & py::array::c_style)) {
    throw InvalidArgument(name, "non-contiguous array", "must be C-contiguous (use np.ascontiguousarray)");
  }
  // read and written through int32_t* / int64_t*: data off its element alignment would be undefined behaviour
  if (!(a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_)) {
    throw InvalidArgument(name, "misaligned array",
                          "its data must be aligned to its element size (numpy's flags.aligned; copy it with np.array)");
  }
}

template <class T>
bool is_dtype(const py::array& a) {
  return py::isinstance<py::array_t<T>>(a);
}

inline std::vector<int64_t> shape_of(const py::array& a) {
  std::vector<int64_t> s;
  for (py::ssize_t d = 0; d < a.ndim(); ++d) s.push_back(static_cast<int64_t>(a.shape(d)));
  return s;
}

// A read-only input, viewed as T. `widen` (T = int64 only) also accepts int32 and copies.
template <class T>
struct In {
  bool present = false;
  py::array keep;
  std::vector<T> copy;
  const T* ptr = nullptr;
  int64_t size = 0;
  std::vector<int64_t> shape;
  int64_t before = 0;  // parent elements before the view (see parent_before)
  Vec<const T> vec() const { return present ? Vec<const T>{ptr, size, before, 0} : Vec<const T>{}; }
  Mat<const T> mat() const {
    if (!present) return {};
    return {ptr, shape[0], shape[1], shape[1], 1};
  }
  int64_t at(int64_t i) const { return static_cast<int64_t>(ptr[i]); }
};

// The parent elements before a 1-D view whose base is a C-contiguous 1-D array of its dtype holding
// the whole view (anything else is a standalone buffer). Elements after it are never exposed: no
// variant loads past the table's end, and an id past it stays an OutOfRange.
template <class T>
void parent_before(In<T>& in) {
  const py::object base = in.keep.attr("base");
  if (in.keep.ndim() != 1 || !py::isinstance<py::array>(base)) return;
  const auto parent = py::reinterpret_borrow<py::array>(base);
  if (parent.ndim() != 1 || !(parent.flags() & py::array::c_style) || !is_dtype<T>(parent)) return;
  const auto lo = reinterpret_cast<std::uintptr_t>(parent.data());
  const auto at = reinterpret_cast<std::uintptr_t>(in.ptr);
  const auto n = static_cast<int64_t>(parent.size());
  if (at < lo || (at - lo) % sizeof(T) != 0) return;
  const auto off = static_cast<int64_t>((at - lo) / sizeof(T));
  if (off <= n && in.size <= n - off) in.before = off;
}

template <class T>
In<T> input(py::handle obj, const char* name, int min_ndim, int max_ndim, bool widen = false, bool optional = false) {
  In<T> in;
  if (obj.is_none()) {
    if (optional) return in;
    throw InvalidArgument(name, "None", "required array");
  }
  in.keep = as_ndarray(obj, name);
  check_layout(in.keep, name, min_ndim, max_ndim);
  in.present = true;
  in.shape = shape_of(in.keep);
  in.size = static_cast<int64_t>(in.keep.size());
  if (is_dtype<T>(in.keep)) {
    in.ptr = static_cast<const T*>(in.keep.data());
    parent_before(in);
    return in;
  }
  if constexpr (std::is_same_v<T, int64_t>) {
    if (widen && is_dtype<int32_t>(in.keep)) {
      const auto* src = static_cast<const int32_t*>(in.keep.data());
      in.copy.assign(src, src + in.size);
      in.ptr = in.copy.data();
      return in;
    }
  }
  const std::string want = std::is_same_v<T, int32_t> ? "int32" : (widen ? "int64 (or int32)" : "int64");
  throw InvalidArgument(name, dtype_name(in.keep), "dtype must be " + want);
}

// A writable output of exactly dtype T (in place), returned to the caller as the same object.
template <class T>
struct Out {
  py::array arr;
  T* ptr = nullptr;
  int64_t size = 0;
  std::vector<int64_t> shape;
  Vec<T> vec() { return {ptr, size}; }
  Mat<T> mat() { return {ptr, shape[0], shape[1], shape[1], 1}; }
};

template <class T>
Out<T> output(const py::array& a, const char* name, int min_ndim, int max_ndim) {
  Out<T> o;
  o.arr = a;
  check_layout(a, name, min_ndim, max_ndim);
  if (!is_dtype<T>(a)) {
    throw InvalidArgument(name, dtype_name(a), std::string("dtype must be ") + (sizeof(T) == 4 ? "int32" : "int64"));
  }
  if (!a.writeable()) throw InvalidArgument(name, "read-only array", "output must be writeable");
  o.ptr = static_cast<T*>(o.arr.mutable_data());
  o.size = static_cast<int64_t>(a.size());
  o.shape = shape_of(a);
  return o;
}

// Sizes of fresh outputs are checked before anything is allocated: every dimension in
// [0, kMaxDim] and the whole array at most kMaxFreshBytes. A size outside that raises a typed
// error naming the argument the size came from (out_width, max_pages, ...), never MemoryError or
// numpy's ValueError.
inline constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kMaxFreshBytes = int64_t{1} << 32;

inline void check_dim(int64_t v, const char* name) {
  require(v >= 0, name, v, "a size must be >= 0");
  require_range(v <= kMaxDim, name, v, "a size must be <= " + std::to_string(kMaxDim));
}

template <class T>
py::array fresh(const std::vector<int64_t>& shape, T fill, const char* size_name) {
  int64_t elems = 1;
  for (int64_t d : shape) {
    check_dim(d, size_name);
    elems = checked_mul(elems, d, size_name);
  }
  require_range(elems <= kMaxFreshBytes / static_cast<int64_t>(sizeof(T)), size_name, elems,
                "a fresh output of " + std::to_string(elems) + " elements exceeds the " +
                    std::to_string(kMaxFreshBytes) + "-byte limit (pass out=)");
  std::vector<py::ssize_t> s(shape.begin(), shape.end());
  py::array_t<T> a(s);
  T* p = a.mutable_data();
  for (py::ssize_t i = 0; i < a.size(); ++i) p[i] = fill;
  return a;
}

// The given out, or a fresh array of `shape` filled with `fill`; `size_name` names the argument
// the shape came from (default: `name`).
template <class T>
Out<T> output_or_fresh(py::handle obj, const char* name, const std::vector<int64_t>& shape, T fill, int min_ndim,
                       int max_ndim, const char* size_name = nullptr) {
  if (obj.is_none()) return output<T>(fresh<T>(shape, fill, size_name ? size_name : name), name, min_ndim, max_ndim);
  return output<T>(as_ndarray(obj, name), name, min_ndim, max_ndim);
}

// A v2p table for the scalar formulas: an int64 ndarray, or any Python sequence of ints.
inline std::vector<int64_t> table_arg(py::handle obj, const char* name) {
  if (py::isinstance<py::array>(obj)) {
    const In<int64_t> in = input<int64_t>(obj, name, 1, 1);
    return std::vector<int64_t>(in.ptr, in.ptr + in.size);
  }
  if (!py::isinstance<py::sequence>(obj) || py::isinstance<py::str>(obj)) {
    throw InvalidArgument(name, type_name(obj), "expected an int64 numpy array or a sequence of ints");
  }
  std::vector<int64_t> v;
  for (py::handle h : py::reinterpret_borrow<py::sequence>(obj)) {
    try {
      v.push_back(h.cast<int64_t>());
    } catch (const py::cast_error&) {
      throw InvalidArgument(name, type_name(h), "entries must be ints that fit int64");
    }
  }
  return v;
}

inline int64_t max_pages_of(const In<int64_t>& lens, int64_t ps, int64_t delta) {
  int64_t m = 0;
  for (int64_t b = 0; b < lens.size; ++b) {
    const int64_t len = checked_add(lens.at(b), delta, "seq_lens");
    if (len > 0) m = std::max(m, checked_add(len, ps - 1, "seq_lens") / ps);
  }
  return m;
}

}  // namespace kvaddr::python

namespace pybind11::detail {
template <>
struct type_caster<kvaddr::python::StrictInt> {
  PYBIND11_TYPE_CASTER(kvaddr::python::StrictInt, const_name("int"));
  bool load(handle src, bool convert) {
    if (!src || PyBool_Check(src.ptr()) || kvaddr::python::is_numpy_bool(src)) return false;
    make_caster<std::int64_t> inner;
    if (!inner.load(src, convert)) return false;
    value.v = cast_op<std::int64_t>(inner);
    return true;
  }
  static handle cast(kvaddr::python::StrictInt s, return_value_policy, handle) { return PyLong_FromLongLong(s.v); }
};
template <>
struct type_caster<kvaddr::python::StrictBool> {
  PYBIND11_TYPE_CASTER(kvaddr::python::StrictBool, const_name("bool"));
  bool load(handle src, bool) {
    if (!src) return false;
    if (src.ptr() == Py_True || src.ptr() == Py_False) {
      value.v = src.ptr() == Py_True;
      return true;
    }
    if (!kvaddr::python::is_numpy_bool(src)) return false;
    const int truth = PyObject_IsTrue(src.ptr());
    if (truth < 0) {
      PyErr_Clear();
      return false;
    }
    value.v = truth == 1;
    return true;
  }
  static handle cast(kvaddr::python::StrictBool b, return_value_policy, handle) {
    return handle(b.v ? Py_True : Py_False).inc_ref();
  }
};
}  // namespace pybind11::detail
