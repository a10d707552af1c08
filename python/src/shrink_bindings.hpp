#pragma once
// The shrinker (gen/shrink.hpp) for Python: kvaddr._core.shrink_recipe(route, recipe, still_fails, seconds,
// max_steps) and shrink_candidates(route, recipe). A recipe dict (kvaddr.cases) crosses as a gen::Recipe; the
// entries only Python has travel beside it: the adjacent layout (kvaddr.adjacent) as the flag "adjacent" that
// the candidates clear (its layout put back while the flag holds), a contract unchanged.
// The search runs without the GIL; each call of still_fails takes it. An exception of still_fails (a
// KeyboardInterrupt included) and a pending signal stop the search and propagate.
#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "kvaddr/gen/shrink.hpp"
#include "recipe_bindings.hpp"

namespace kvaddr::python {

namespace py = pybind11;

// A recipe dict as the shrinker takes it, with its Python-only entries.
struct ShrinkInput {
  gen::Recipe recipe;
  py::dict extra;  // key -> the Python object (the adjacent layout, a contract)
};

inline ShrinkInput shrink_input(py::handle h) {
  ShrinkInput in{recipe_arg(h), {}};
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(h)) {
    const std::string key = py::str(k);
    const gen::Recipe& r = in.recipe;
    if (r.ints.count(key) || r.bools.count(key) || r.arrays.count(key)) continue;
    if (v.is_none()) continue;  // in r.absent
    if (key == "adjacent") in.recipe.bools["adjacent"] = true;
    in.extra[py::str(key)] = v;
  }
  return in;
}

// A candidate as a recipe dict: the adjacent layout where its flag still holds (else None), other extras as given.
inline py::dict shrink_output(const gen::Recipe& r, const py::dict& extra) {
  py::dict d = recipe_dict(r);
  if (r.bools.count("adjacent") && !r.bools.at("adjacent")) d["adjacent"] = py::none();
  for (const auto& [k, v] : extra) {
    if (py::str(k).cast<std::string>() == "adjacent" && !r.bools.at("adjacent")) continue;
    d[k] = v;
  }
  return d;
}

// Raised through the C++ search when still_fails raised: the Python error is pending again (PyErr_Restore).
struct PythonRaised {};

inline void bind_shrink(py::module_& m) {
  m.def("shrink_candidates", [](const std::string& route, py::handle recipe) {
    const ShrinkInput in = shrink_input(recipe);
    py::list out;
    for (const gen::Recipe& c : gen::shrink_candidates(route, in.recipe)) out.append(shrink_output(c, in.extra));
    return out;
  }, py::arg("route"), py::arg("recipe"),
     "The shrink candidates of a recipe dict, in the order shrink_recipe tries them (gen/shrink.hpp).");
  m.def("shrink_recipe", [](const std::string& route, py::handle recipe, py::function still_fails, double seconds,
                            std::int64_t max_steps) {
    ShrinkInput in = shrink_input(recipe);
    py::object last = py::none();
    gen::Shrunk s;
    try {
      py::gil_scoped_release unlocked;
      s = gen::shrink_recipe(route, std::move(in.recipe), [&](const gen::Recipe& c) {
        py::gil_scoped_acquire locked;
        if (PyErr_CheckSignals() != 0) throw PythonRaised{};
        try {
          py::object res = still_fails(shrink_output(c, in.extra));
          const int truthy = PyObject_IsTrue(res.ptr());  // -1: its __bool__ raised
          if (truthy < 0) throw py::error_already_set();
          if (truthy == 0) return false;
          last = std::move(res);
          return true;
        } catch (py::error_already_set& e) {
          e.restore();
          throw PythonRaised{};
        }
      }, seconds, max_steps);
    } catch (const PythonRaised&) {
      throw py::error_already_set();
    }
    return py::make_tuple(shrink_output(s.recipe, in.extra), last, s.steps);
  }, py::arg("route"), py::arg("recipe"), py::arg("still_fails"), py::arg("seconds"), py::arg("max_steps") = 5000,
     "Greedy shrinking of a failing recipe dict (gen/shrink.hpp): still_fails(candidate) returns a truthy result "
     "where the candidate still fails, else None. Returns (recipe, the last such result or None, steps).");
}

}  // namespace kvaddr::python
