#pragma once
// The harness's drawing (gen/recipe.hpp) for Python: kvaddr._core.draw_recipe(route, seed, index, lanes,
// params) -> the recipe as a dict of ints / bools / numpy arrays (None for an absent optional array), and
// kvaddr._core.Rng(seed, index), the case's SplitMix64 with the draws graph mode's redraws and the huge
// cases need (the recipe pieces, integers, random, choice, permutation). python/kvaddr/cases.py uses them;
// kvaddr draws no random number of its own in Python.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kvaddr/gen/recipe.hpp"
#include "kvaddr/harness/check.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"
#include "arrays.hpp"

namespace kvaddr::python {

namespace py = pybind11;

// An integer argument: a Python int or anything with __index__ (numpy integers), not a float.
inline py::int_ index_arg(py::handle h, const std::string& name) {
  if (!py::isinstance<py::float_>(h)) {
    if (PyObject* o = PyNumber_Index(h.ptr())) return py::reinterpret_steal<py::int_>(o);
    PyErr_Clear();
  }
  throw InvalidArgument(name, py::str(py::repr(h)), "must be an integer");
}
inline std::uint64_t key_arg(py::handle h, const std::string& name) {
  const py::int_ v = index_arg(h, name);
  const unsigned long long x = PyLong_AsUnsignedLongLong(v.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw InvalidArgument(name, py::str(py::handle(v)).cast<std::string>(), "must be in [0, 2^64)");
  }
  return x;
}
inline std::int64_t int64_arg(py::handle h, const std::string& name) {
  const py::int_ v = index_arg(h, name);
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow != 0 || PyErr_Occurred()) {
    PyErr_Clear();
    throw InvalidArgument(name, py::str(py::handle(v)).cast<std::string>(), "must fit int64");
  }
  return x;
}

inline gen::RecipeParams params_arg(py::handle params) {
  gen::RecipeParams p;
  if (params.is_none()) return p;
  if (!py::isinstance<py::dict>(params)) throw InvalidArgument("params", py::str(py::repr(params)), "must be a dict or None");
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(params)) {
    if (!py::isinstance<py::str>(k)) throw InvalidArgument("params", py::str(py::repr(k)), "keys must be strings");
    const std::string key = k.cast<std::string>();
    p[key] = int64_arg(v, "params['" + key + "']");
  }
  return p;
}

// {"route", "ids", "table", "multiplier" (str or None), "extra" [(name, default)], "page_size", "out32"}
inline gen::IdShape id_shape_arg(py::handle h) {
  if (!py::isinstance<py::dict>(h)) throw InvalidArgument("id_shape", py::str(py::repr(h)), "must be a dict");
  const auto d = py::reinterpret_borrow<py::dict>(h);
  for (const char* k : {"route", "ids", "table", "multiplier", "extra", "page_size", "out32"})
    if (!d.contains(k)) throw InvalidArgument("id_shape", k, "missing key");
  gen::IdShape s;
  try {
    s.route = d["route"].cast<std::string>();
    s.ids = d["ids"].cast<std::string>();
    s.table = d["table"].cast<std::string>();
    s.multiplier = d["multiplier"].is_none() ? "" : d["multiplier"].cast<std::string>();
    const py::object extra = d["extra"];
    if (!(py::isinstance<py::list>(extra) || py::isinstance<py::tuple>(extra)))
      throw InvalidArgument("id_shape['extra']", py::str(py::repr(extra)), "must be a list of (name, default) pairs");
    for (py::handle e : extra) {
      if (!(py::isinstance<py::tuple>(e) || py::isinstance<py::list>(e)) || py::len(e) != 2 ||
          !py::isinstance<py::str>(py::reinterpret_borrow<py::sequence>(e)[0]))
        throw InvalidArgument("id_shape['extra']", py::str(py::repr(e)), "entries are (name, default) pairs");
      const auto t = py::reinterpret_borrow<py::sequence>(e);
      s.extra.emplace_back(t[0].cast<std::string>(), int64_arg(t[1], "id_shape['extra']"));
    }
    s.page_size = d["page_size"].cast<bool>();
    s.out32 = d["out32"].cast<bool>();
  } catch (const py::cast_error&) {
    throw InvalidArgument("id_shape", py::str(py::repr(h)), "fields of the wrong type");
  }
  return s;
}

template <class T, class V>
py::array to_numpy(const V& values, const std::vector<std::int64_t>& shape) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::array_t<T> a(dims);
  T* out = a.mutable_data();
  const std::size_t n = values.size();
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {  // four an iteration (graph mode's redraws narrow their req_to_token here)
    out[i] = static_cast<T>(values[i]);
    out[i + 1] = static_cast<T>(values[i + 1]);
    out[i + 2] = static_cast<T>(values[i + 2]);
    out[i + 3] = static_cast<T>(values[i + 3]);
  }
  for (; i < n; ++i) out[i] = static_cast<T>(values[i]);
  return a;
}

// A vector as a numpy array without a copy: the array's memory is the vector's, freed with the array.
template <class T>
py::array moved_to_numpy(std::vector<T>&& values, const std::vector<std::int64_t>& shape) {
  auto owned = std::make_unique<std::vector<T>>(std::move(values));
  T* data = owned->data();
  py::capsule free_it(owned.get(), [](void* p) { delete static_cast<std::vector<T>*>(p); });
  owned.release();  // the capsule owns it now
  return py::array_t<T>(std::vector<py::ssize_t>(shape.begin(), shape.end()), data, free_it);
}

// The recipe as kvaddr.cases takes it: ints, bools, numpy arrays (moved out of `r` when it is an rvalue: the int64
// ones and the packed int32 ones; an int32 array in `values` is narrowed into a new array), None for an absent
// optional array.
template <class R>
py::dict recipe_dict(R&& r) {
  constexpr bool moved = !std::is_lvalue_reference_v<R>;
  py::dict d;
  for (const auto& [k, v] : r.ints) d[py::str(k)] = py::int_(v);
  for (const auto& [k, v] : r.bools) d[py::str(k)] = py::bool_(v);
  for (auto& [k, a] : r.arrays) {
    const auto packed = r.packed.find(k);
    if constexpr (moved)
      if (packed != r.packed.end()) {
        d[py::str(k)] = moved_to_numpy(std::move(packed->second), a.shape);
        continue;
      }
    if (packed != r.packed.end()) d[py::str(k)] = to_numpy<std::int32_t>(packed->second, a.shape);
    else if (a.int32) d[py::str(k)] = to_numpy<std::int32_t>(a.values, a.shape);
    else if constexpr (moved) d[py::str(k)] = moved_to_numpy(std::move(a.values), a.shape);
    else d[py::str(k)] = to_numpy<std::int64_t>(a.values, a.shape);
  }
  for (const auto& k : r.absent) d[py::str(k)] = py::none();
  return d;
}

// A recipe dict (kvaddr.cases) as a gen::Recipe: bools, integers, int32 / int64 arrays of 1 or 2 dimensions, None
// (an absent array); other entries (the adjacent layout, a contract) are Python's and left out.
inline gen::Recipe recipe_arg(py::handle h) {
  if (!py::isinstance<py::dict>(h)) throw InvalidArgument("recipe", py::str(py::repr(h)), "must be a dict");
  gen::Recipe r;
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(h)) {
    const std::string key = py::str(k);
    const std::string type = py::str(py::type::handle_of(v).attr("__name__"));
    if (v.is_none()) {
      r.absent.push_back(key);
    } else if (type == "bool" || type == "bool_") {
      r.bools[key] = py::cast<bool>(py::bool_(py::reinterpret_borrow<py::object>(v)));
    } else if (py::isinstance<py::array>(v)) {
      const auto a = py::reinterpret_borrow<py::array>(v);
      const bool i32 = is_dtype<std::int32_t>(a);
      const In<std::int64_t> in = input<std::int64_t>(v, ("recipe['" + key + "']").c_str(), 1, 2, true);
      r.arrays[key] = gen::RecipeArray{std::vector<std::int64_t>(in.ptr, in.ptr + in.size), in.shape, i32};
    } else if (py::isinstance<py::int_>(v) || type.rfind("int", 0) == 0) {
      r.ints[key] = int64_arg(v, "recipe['" + key + "']");
    }
  }
  return r;
}

inline py::dict draw_recipe_py(gen::SplitMix64& rng, const std::string& route, py::handle lanes, py::handle params,
                               py::handle id_shape) {
  const std::int64_t n = int64_arg(lanes, "lanes");
  const gen::RecipeParams p = params_arg(params);
  if (!id_shape.is_none()) return recipe_dict(gen::draw_id_recipe(id_shape_arg(id_shape), rng, n, p));
  return recipe_dict(gen::draw_recipe_packed(parse_route(route), rng, n, p));
}

inline constexpr std::int64_t kMaxDrawn = std::int64_t{1} << 28;  // elements of one integers / random / permutation

// numpy's shape argument: None (a scalar), an int, or a tuple of ints.
inline std::vector<std::int64_t> size_arg(py::handle size) {
  std::vector<std::int64_t> shape;
  if (py::isinstance<py::tuple>(size) || py::isinstance<py::list>(size)) {
    for (py::handle h : size) shape.push_back(int64_arg(h, "size"));
  } else {
    shape.push_back(int64_arg(size, "size"));
  }
  if (shape.size() > 32)  // numpy's own limit on dimensions
    throw InvalidArgument("size", py::str(py::repr(size)), "at most 32 dimensions");
  std::int64_t n = 1;
  for (std::int64_t s : shape) {
    if (s < 0 || s > kMaxDrawn || n > kMaxDrawn / std::max<std::int64_t>(s, 1))
      throw InvalidArgument("size", py::str(py::repr(size)), "dimensions must be >= 0 with at most 2^28 elements");
    n *= s;
  }
  return shape;
}
inline std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return n;
}

inline void bind_recipes(py::module_& m) {
  using gen::SplitMix64;
  m.def("draw_recipe", [](const std::string& route, py::handle seed, py::handle index, py::handle lanes,
                          py::handle params, py::handle id_shape) {
    SplitMix64 rng = gen::recipe_rng(key_arg(seed, "seed"), key_arg(index, "index"));
    return draw_recipe_py(rng, route, lanes, params, id_shape);
  }, py::arg("route"), py::arg("seed"), py::arg("index"), py::arg("lanes") = 4096, py::arg("params") = py::none(),
     py::arg("id_shape") = py::none(),
     "Case `index` of `seed` for `route` as a recipe dict (gen/recipe.hpp): the case the C++ harness draws for the "
     "same arguments. id_shape: a per-id route's shape given by hand (a route the list does not hold).");
  m.def("harness_drawn_case", [](const std::string& route, py::handle seed, py::handle index, py::handle lanes) {
    const std::int64_t i = int64_arg(index, "index"), n = int64_arg(lanes, "lanes");
    const harness::detail::DrawnCase c = harness::detail::drawn_case(parse_route(route), key_arg(seed, "seed"), i, n);
    py::dict arrays, befores, presented;
    for (const auto& [k, v] : c.arrays) arrays[py::str(k)] = to_numpy<std::int64_t>(v, {static_cast<std::int64_t>(v.size())});
    for (const auto& [k, v] : c.befores) befores[py::str(k)] = to_numpy<std::int64_t>(v, {static_cast<std::int64_t>(v.size())});
    const auto& p = c.presented;
    presented["adjacent"] = py::cast(p.adjacent);
    presented["shared"] = p.shared;
    presented["req_to_token_stride"] = p.req_to_token_stride;
    presented["alias"] = p.alias.empty() ? py::object(py::none()) : py::object(py::str(p.alias));
    presented["alias_offset"] = p.alias_offset;
    presented["packed"] = py::cast(p.packed);
    py::dict d;
    d["arrays"] = arrays;
    d["befores"] = befores;
    d["scalars"] = py::cast(c.scalars);
    d["presented"] = presented;
    return d;
  }, py::arg("route"), py::arg("seed"), py::arg("index"), py::arg("lanes") = 4096,
     "Case `index` of `seed` as the C++ harness draws and presents it (kvaddr::harness::detail::drawn_case): "
     "{'arrays', 'befores' (flat int64), 'scalars', 'presented': {'adjacent' (argument names in backing order), 'shared', "
     "'req_to_token_stride' (0: none), 'alias' (or None), 'alias_offset', 'packed' (1-D inputs presented packed)}}.");
  m.def("redraw_recipe", [](const std::string& route, py::handle recipe, gen::SplitMix64& rng) {
    return recipe_dict(gen::redraw_recipe(parse_route(route), recipe_arg(recipe), rng));
  }, py::arg("route"), py::arg("recipe"), py::arg("rng"),
     "Graph mode's later case: `recipe` with new values at its shapes and scalars, drawn from `rng` (a dict of the "
     "recipe's bools, integers and arrays; gen::redraw_recipe).");
  m.def("recipe_routes", [] {
    std::vector<std::string> v;
    for (Route r : gen::recipe_routes()) v.emplace_back(to_string(r));
    return v;
  }, "The routes draw_recipe draws, in list order.");
  m.def("recipe_constants", [] {
    py::dict d;
    d["odd_page_sizes"] = std::vector<std::int64_t>(std::begin(gen::kOddPageSizes), std::end(gen::kOddPageSizes));
    d["pow2_page_sizes"] = std::vector<std::int64_t>(std::begin(gen::kPow2PageSizes), std::end(gen::kPow2PageSizes));
    d["multipliers"] = std::vector<std::int64_t>(std::begin(gen::kMultipliers), std::end(gen::kMultipliers));
    d["adjacent_admitted"] = gen::kAdjacentAdmitted;
    d["adjacent_rejected"] = gen::kAdjacentRejected;
    return d;
  }, "The value lists and shares the recipes draw from.");
  m.def("fit_token_values", [](const std::string& route, py::handle ids_o, py::handle v2p_o, py::handle dcp) {
    const auto ids_in = input<std::int64_t>(ids_o, "ids", 1, 1);
    const auto v2p_in = input<std::int64_t>(v2p_o, "v2p", 1, 1);
    std::vector<std::int64_t> ids(ids_in.ptr, ids_in.ptr + ids_in.size), v2p(v2p_in.ptr, v2p_in.ptr + v2p_in.size);
    gen::fit_token_values(route, ids, v2p, int64_arg(dcp, "dcp_size"));
    return py::make_tuple(to_numpy<std::int64_t>(ids, {ids_in.size}), to_numpy<std::int64_t>(v2p, {v2p_in.size}));
  }, py::arg("route"), py::arg("ids"), py::arg("v2p"), py::arg("dcp_size") = 1,
     "(ids, v2p) of a per-id case as `route` takes them (new arrays; gen::fit_token_values).");

  py::class_<SplitMix64>(m, "Rng", "The SplitMix64 stream of case `index` of `seed` (gen/rng.hpp recipe_rng).")
      .def(py::init([](py::handle seed, py::handle index) {
             return gen::recipe_rng(key_arg(seed, "seed"), key_arg(index, "index"));
           }), py::arg("seed"), py::arg("index"))
      .def("recipe", [](SplitMix64& r, const std::string& route, py::handle lanes, py::handle params, py::handle shape) {
        return draw_recipe_py(r, route, lanes, params, shape);
      }, py::arg("route"), py::arg("lanes"), py::arg("params") = py::none(), py::arg("id_shape") = py::none())
      .def("integers", [](SplitMix64& r, py::handle lo_o, py::handle hi_o, py::handle size) -> py::object {
        const std::int64_t lo = int64_arg(lo_o, "lo"), hi = int64_arg(hi_o, "hi");
        if (hi <= lo) throw InvalidArgument("hi", std::to_string(hi), "must be > lo = " + std::to_string(lo));
        if (size.is_none()) return py::int_(r.between(lo, hi - 1));
        const auto shape = size_arg(size);
        std::vector<std::int64_t> v(static_cast<std::size_t>(elements(shape)));
        for (auto& x : v) x = r.between(lo, hi - 1);
        return to_numpy<std::int64_t>(v, shape);
      }, py::arg("lo"), py::arg("hi"), py::arg("size") = py::none(), "Uniform in [lo, hi) (numpy's integers).")
      .def("random", [](SplitMix64& r, py::handle size) -> py::object {
        if (size.is_none()) return py::float_(r.unit());
        const auto shape = size_arg(size);
        std::vector<double> v(static_cast<std::size_t>(elements(shape)));
        for (auto& x : v) x = r.unit();
        return to_numpy<double>(v, shape);
      }, py::arg("size") = py::none(), "Uniform in [0, 1).")
      .def("choice", [](SplitMix64& r, const py::sequence& xs) -> py::object {
        const Py_ssize_t n = PySequence_Size(xs.ptr());  // (a range past Py_ssize_t: OverflowError, typed below)
        if (n < 0) {
          PyErr_Clear();
          throw InvalidArgument("values", type_name(xs), "a sequence whose length fits Py_ssize_t");
        }
        if (n == 0) throw InvalidArgument("choice", "[]", "needs a non-empty sequence");
        return xs[static_cast<std::size_t>(r.between(0, static_cast<std::int64_t>(n) - 1))];
      }, py::arg("values"), "One element of a non-empty sequence.")
      .def("permutation", [](SplitMix64& r, py::handle n_o) {
        const std::int64_t n = int64_arg(n_o, "n");
        if (n < 0 || n > kMaxDrawn) throw InvalidArgument("n", std::to_string(n), "must be in [0, 2^28]");
        std::vector<std::int64_t> v(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i);
        gen::shuffle(r, v.begin(), n);
        return to_numpy<std::int64_t>(v, {n});
      }, py::arg("n"), "A random permutation of range(n).")
      .def("v2p", [](SplitMix64& r, std::int64_t num_pages, StrictBool big, std::int64_t scale) {
        const auto v = gen::draw_v2p(r, num_pages, big, scale);
        return to_numpy<std::int64_t>(v, {static_cast<std::int64_t>(v.size())});
      }, py::arg("num_pages"), py::arg("big") = false, py::arg("scale") = 1, "gen::draw_v2p: int64 [num_pages + 1].")
      .def("ids", [](SplitMix64& r, std::int64_t n, std::int64_t num_pages, std::int64_t ps, double pad) {
        return to_numpy<std::int64_t>(gen::draw_ids(r, n, num_pages, ps, pad), {n});
      }, py::arg("n"), py::arg("num_pages"), py::arg("page_size"), py::arg("pad") = 0.05, "gen::draw_ids: int64 [n].")
      .def("page_major_rows", [](SplitMix64& r, std::int64_t rows, std::int64_t cols, std::int64_t ps,
                                 std::int64_t num_pages, double padding) {
        return to_numpy<std::int32_t>(gen::page_major_rows(r, rows, cols, ps, num_pages, padding), {rows, cols});
      }, py::arg("rows"), py::arg("cols"), py::arg("page_size"), py::arg("num_pages"), py::arg("padding"),
         "gen::page_major_rows: req_to_token int32 [rows, cols].");
}

}  // namespace kvaddr::python
