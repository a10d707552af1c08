#pragma once
// Private to the pybind11 module: kvaddr's exception classes in Python and the translator that
// turns every C++ exception leaving a binding into one of them. Python sees kvaddr.Error and its
// subclasses only (InvalidArgument, OutOfRange, Overflow, BufferTooSmall, InvalidState,
// IoError, FormatError); text that is not UTF-8 is decoded with replacement characters.
#include <pybind11/pybind11.h>

#include <exception>
#include <new>
#include <string>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::python {

namespace py = pybind11;

// ---- exceptions ------------------------------------------------------------------------------
struct ExceptionTypes {
  PyObject* error = nullptr;
  PyObject* invalid_argument = nullptr;
  PyObject* out_of_range = nullptr;
  PyObject* overflow = nullptr;
  PyObject* buffer_too_small = nullptr;
  PyObject* invalid_state = nullptr;
  PyObject* io_error = nullptr;
  PyObject* format_error = nullptr;
};
inline ExceptionTypes g_exc;  // module-lifetime references (the module keeps them alive)

// kvaddr.Error's subclasses: the Python name, the docstring, the slot of g_exc that holds the class,
// and the Python builtin it also derives from.
struct ErrorSubclass {
  const char* name;
  const char* doc;
  PyObject* ExceptionTypes::*slot;
  PyObject* const* builtin;
};
inline const ErrorSubclass kErrorSubclasses[] = {
    {"InvalidArgument", "A scalar, dtype or layout outside the contract.", &ExceptionTypes::invalid_argument,
     &PyExc_ValueError},
    {"OutOfRange", "An index or id past the table it addresses.", &ExceptionTypes::out_of_range, &PyExc_IndexError},
    {"Overflow", "A value that does not fit its integer type.", &ExceptionTypes::overflow, &PyExc_OverflowError},
    {"BufferTooSmall", "An output or input buffer smaller than the route needs.", &ExceptionTypes::buffer_too_small,
     &PyExc_ValueError},
    {"InvalidState", "A state-machine precondition does not hold.", &ExceptionTypes::invalid_state,
     &PyExc_RuntimeError},
    {"IoError", "A file that cannot be opened or read.", &ExceptionTypes::io_error, &PyExc_OSError},
    {"FormatError", "A file (.npy, manifest) that does not follow its format.", &ExceptionTypes::format_error,
     &PyExc_ValueError},
};

inline PyObject* new_exception(py::module_& m, const char* name, const char* doc, py::tuple bases) {
  const std::string qualified = std::string("kvaddr.") + name;
  PyObject* t = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (t == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(t));  // steals nothing: add_object increments
  return t;
}

inline PyObject* type_of(ErrorKind k) {
  switch (k) {
    case ErrorKind::invalid_argument: return g_exc.invalid_argument;
    case ErrorKind::out_of_range: return g_exc.out_of_range;
    case ErrorKind::overflow: return g_exc.overflow;
    case ErrorKind::buffer_too_small: return g_exc.buffer_too_small;
    case ErrorKind::invalid_state: return g_exc.invalid_state;
    case ErrorKind::io: return g_exc.io_error;
    case ErrorKind::format: return g_exc.format_error;
  }
  return g_exc.error;
}

// Raises an instance of `type` with the given fields (argument / value / reason may be empty).
inline void raise_typed(PyObject* type, const std::string& what, const std::string& kind, const std::string& argument,
                 const std::string& value, const std::string& reason) {
  auto text = [](const std::string& t) {
    return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(t.data(), static_cast<py::ssize_t>(t.size()), "replace"));
  };
  const py::str msg = text(what);
  py::object inst = py::reinterpret_steal<py::object>(PyObject_CallOneArg(type, msg.ptr()));
  if (!inst) return;  // the call itself set a Python error
  inst.attr("kind") = text(kind);
  inst.attr("argument") = text(argument);
  inst.attr("value") = text(value);
  inst.attr("reason") = text(reason);
  PyErr_SetObject(type, inst.ptr());
}

inline void raise_python(const Error& e) {
  raise_typed(type_of(e.kind()), e.what(), std::string(to_string(e.kind())), e.argument(), e.value(), e.reason());
}

// Creates the exception classes on `m` and registers the translator.
inline void register_exceptions(py::module_& m) {
  g_exc.error = new_exception(m, "Error", "Base of every kvaddr error; str(e) is '<argument> = <value>: <reason>'.",
                              py::make_tuple(py::handle(PyExc_Exception)));
  for (const ErrorSubclass& c : kErrorSubclasses)
    g_exc.*c.slot = new_exception(m, c.name, c.doc, py::make_tuple(py::handle(g_exc.error), py::handle(*c.builtin)));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kvaddr::Error& e) {
      raise_python(e);
    } catch (const py::builtin_exception&) {
      throw;  // pybind11's own (StopIteration, cast errors of the binding layer): its translator
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::bad_alloc&) {
      raise_typed(g_exc.error, "allocation failed (out of memory)", "resource", "memory", "", "allocation failed");
    } catch (const std::exception& e) {
      // Anything else from the library (a JSON or filesystem error) is still a kvaddr.Error.
      raise_typed(g_exc.error, e.what(), "error", "", "", e.what());
    }
  });

}

}  // namespace kvaddr::python
