#pragma once
// Private to the pybind11 module: kvaddr._core.name_case, the naming of kvaddr.check's failing case by the engine
// every front end uses (kvaddr/harness/naming.hpp name_case: the candidates, the plain and grown forms, the races
// of spilling rows, kvaddr/replay/races.hpp). The host reference of each candidate is computed here, from the
// case's arrays, by the route's host binding (route_bindings.hpp) under that variant; one program's part of a page
// table (the race split) is the same call on the batch rows' slices. Only a case with no such form (an adjacent or
// aliased layout, python/kvaddr/harness.py) hands in its own reference.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/harness/naming.hpp"
#include "arrays.hpp"
#include "errors.hpp"
#include "route_bindings.hpp"

namespace kvaddr::python {

using Flat = std::vector<std::int64_t>;
using harness::NamingCase;

// The lanes of an integer numpy array `a` (argument `name`), in C order.
inline Flat lanes_of(py::handle a, const std::string& name) {
  const py::array arr = as_ndarray(a, name.c_str());
  const char kind = arr.dtype().kind();
  if (kind != 'i' && kind != 'u') throw InvalidArgument(name, dtype_name(arr), "must be an integer array");
  if (kind == 'u' && arr.itemsize() == 8) {  // a uint64 lane past int64 would wrap in the cast below
    const auto u = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    for (py::ssize_t i = 0; i < u.size(); ++i)
      if (u.data()[i] > static_cast<std::uint64_t>(INT64_MAX))
        throw InvalidArgument(name, std::to_string(u.data()[i]), "lanes must fit int64");
  }
  const auto c = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
  return Flat(c.data(), c.data() + c.size());
}

// One form of the case as Python hands it: every output's buffer before the call and as the kernel left it.
struct PyForm {
  std::vector<py::array> before;
  NamingCase::Bufs before_lanes, actual;
  replay::RowSplit split{};
};

inline PyForm py_form(const std::vector<std::string>& names, const py::dict& before, const py::dict& actual,
                      const char* before_arg, const char* actual_arg) {
  PyForm f;
  if (before.size() != names.size() || actual.size() != names.size())
    throw InvalidArgument(actual_arg, std::to_string(actual.size()) + " buffers",
                          "needs exactly the outputs of `outputs` (" + std::to_string(names.size()) + ")");
  for (const std::string& k : names) {
    if (!before.contains(k)) throw InvalidArgument(before_arg, k, "missing output");
    if (!actual.contains(k)) throw InvalidArgument(actual_arg, k, "missing output");
    const py::array b = as_ndarray(before[k.c_str()], before_arg);
    const py::array a = as_ndarray(actual[k.c_str()], actual_arg);
    if (shape_of(a) != shape_of(b))
      throw InvalidArgument(std::string(actual_arg) + "['" + k + "']", py::str(py::cast(shape_of(a))),
                            "must have the shape of the output before the call " + std::string(py::str(py::cast(shape_of(b)))));
    f.before.push_back(b);
    f.before_lanes.push_back(lanes_of(b, before_arg));
    f.actual.push_back(lanes_of(a, actual_arg));
  }
  return f;
}

// Calls the route's binding with `kw`; a kvaddr.Error it raises comes back as a kvaddr::Error (the route rejects
// the call under that variant), anything else passes on.
inline void call_rejecting(const py::object& fn, const py::dict& kw) {
  try {
    fn(**kw);
  } catch (py::error_already_set& e) {
    if (e.matches(g_exc.error)) throw InvalidState("variant", "host reference", std::string(py::str(e.value())));
    throw;
  }
}

// A reference result that is not the case's outputs: not a rejection (which name_case takes as "no match") but
// the caller's error, raised as the InvalidArgument it carries once the naming has stopped.
struct BadReference {
  InvalidArgument error;
};

// The host reference of one case as Python hands it: the route's binding called by keyword (the inputs, None ones
// left out, the scalars, the variant, each output under its own parameter where the route has one, decode_metadata's
// and kv_indices_inplace's, else as `out`), or the front end's `reference(variant, form)` for a layout with no C++
// form. Validates the route, the claimed variant, the argument names and the reference before anything runs.
struct HostCall {
  Route route;
  Variant claimed;
  py::object fn, reference;
  std::vector<std::string> names, params;
  bool variants = false;

  HostCall(py::module_& m, const std::string& route_name, const std::string& claimed_name, const py::dict& inputs,
           const py::dict& scalars, const py::dict& outputs, const py::object& ref)
      : route(parse_route(route_name)), claimed(parse_variant(claimed_name)), reference(ref) {
    if (outputs.empty()) throw InvalidArgument("outputs", "{}", "needs at least one output buffer");
    if (!reference.is_none() && !PyCallable_Check(reference.ptr()))
      throw InvalidArgument("reference", type_name(reference), "must be None or a callable (variant, form) -> dict");
    for (const auto& item : outputs) names.push_back(py::str(item.first));
    for (const auto& [p, field] : route_parameters(route)) params.push_back(p);
    for (const auto& item : inputs) {
      const std::string k = py::str(item.first);
      if (!has_param(k)) throw InvalidArgument("inputs", k, "not a parameter of " + route_name);
      if (!item.second.is_none()) (void)lanes_of(item.second, "inputs['" + k + "']");  // an integer array or None
    }
    for (const auto& item : scalars) {
      const std::string k = py::str(item.first);
      if (!has_param(k)) throw InvalidArgument("scalars", k, "not a parameter of " + route_name);
      if (!PyIndex_Check(item.second.ptr()))  // an int, a bool or a numpy integer
        throw InvalidArgument("scalars['" + k + "']", type_name(item.second), "must be an integer or a bool");
    }
    for (const auto& item : outputs) (void)lanes_of(item.second, "outputs['" + std::string(py::str(item.first)) + "']");
    fn = m.attr(route_name.c_str());
    variants = has_param("variant");
  }
  bool has_param(const std::string& p) const { return std::find(params.begin(), params.end(), p) != params.end(); }

  // Every output after the route ran under v on `outs` (written in place), with the inputs `ins` and scalars `sc`;
  // throws kvaddr::Error where the route (or the reference, answering None) rejects the call. `form` "part": one
  // program's part of the race split, always the route's binding (the split runs on the case's arrays).
  NamingCase::Bufs run(Variant v, const char* form, const py::dict& ins, const py::dict& sc,
                       const std::vector<py::array>& outs) const {
    NamingCase::Bufs bufs;
    const std::string variant(to_string(v, route));
    if (!reference.is_none() && std::string_view(form) != "part") {
      const py::object got = reference(variant, form);
      if (got.is_none()) throw InvalidState("variant", variant, "the reference rejects the call");
      if (!py::isinstance<py::dict>(got))
        throw BadReference{InvalidArgument("reference", type_name(got), "must return a dict of the outputs or None")};
      const py::dict d = got.cast<py::dict>();
      for (const std::string& k : names) {
        if (!d.contains(k)) throw BadReference{InvalidArgument("reference", k, "the reference's result misses this output")};
        try {
          bufs.push_back(lanes_of(d[k.c_str()], "reference"));
        } catch (const InvalidArgument& e) {
          throw BadReference{e};
        }
      }
      return bufs;
    }
    if (!variants && v != Variant::production) throw InvalidArgument("variant", variant, "the route has no variants");
    py::dict kw;
    for (const auto& item : ins)
      if (!item.second.is_none()) kw[item.first] = item.second;
    for (const auto& item : sc) kw[item.first] = item.second;
    if (variants) kw["variant"] = variant;
    for (std::size_t j = 0; j < names.size(); ++j) kw[has_param(names[j]) ? names[j].c_str() : "out"] = outs[j];
    call_rejecting(fn, kw);
    for (std::size_t j = 0; j < outs.size(); ++j) bufs.push_back(lanes_of(outs[j], names[j]));
    return bufs;
  }
  // The same on fresh copies of the buffers `before`.
  NamingCase::Bufs run_on_copies(Variant v, const char* form, const py::dict& ins, const py::dict& sc,
                                 const std::vector<py::array>& before) const {
    std::vector<py::array> outs;
    for (const py::array& b : before) outs.emplace_back(b.attr("copy")());
    return run(v, form, ins, sc, outs);
  }
};

// Runs `f` and raises a BadReference's error.
template <class F>
std::vector<std::string> names_of(Route route, const F& f) {
  std::vector<std::string> out;
  try {
    for (Variant v : f()) out.emplace_back(to_string(v, route));
  } catch (const BadReference& e) {
    throw e.error;
  }
  return out;
}

inline std::vector<std::string> crash_names_py(py::module_& m, const std::string& route_name, const std::string& claimed_name,
                                               const py::dict& inputs, const py::dict& scalars, const py::dict& outputs,
                                               const py::object& reference) {
  const HostCall host(m, route_name, claimed_name, inputs, scalars, outputs, reference);
  std::vector<py::array> before;
  for (const std::string& k : host.names) before.push_back(as_ndarray(outputs[k.c_str()], "outputs"));
  return names_of(host.route, [&] {
    return harness::name_crash(host.route, host.claimed,
                               [&](Variant v) { return host.run_on_copies(v, "plain", inputs, scalars, before); });
  });
}

inline std::vector<std::string> name_case_py(py::module_& m, const std::string& route_name, const std::string& claimed_name,
                                             const py::dict& inputs, const py::dict& scalars, const py::dict& outputs,
                                             const py::dict& actual, bool plain, const py::object& grown,
                                             const py::object& reference) {
  const HostCall host(m, route_name, claimed_name, inputs, scalars, outputs, reference);
  const std::vector<std::string>& names = host.names;
  PyForm forms[2] = {py_form(names, outputs, actual, "outputs", "actual"), {}};
  bool has_grown = false;
  if (!grown.is_none()) {
    if (!py::isinstance<py::tuple>(grown) || py::len(grown) != 2 || !py::isinstance<py::dict>(grown[py::int_(0)]) ||
        !py::isinstance<py::dict>(grown[py::int_(1)]))
      throw InvalidArgument("grown", type_name(grown), "must be None or a tuple (outputs before, actual) of two dicts");
    forms[1] = py_form(names, grown[py::int_(0)].cast<py::dict>(), grown[py::int_(1)].cast<py::dict>(), "grown[0]", "grown[1]");
    has_grown = true;
  }
  NamingCase nc;
  nc.run = [&](Variant v, harness::NamingForm form) {
    const bool p = form == harness::NamingForm::plain;
    return host.run_on_copies(v, p ? "plain" : "grown", inputs, scalars, forms[p ? 0 : 1].before);
  };

  // The race split of a page table (one 2-D output, its batch in req_pool_indices / seq_lens).
  const bool table = names.size() == 1 && forms[0].before[0].ndim() == 2 && inputs.contains("req_pool_indices") &&
                     inputs.contains("seq_lens") && scalars.contains("page_size");
  bool long_rows = false;
  if (table) {
    const Flat lens = lanes_of(inputs["seq_lens"], "inputs['seq_lens']");
    const std::int64_t batch = static_cast<std::int64_t>(py::len(inputs["req_pool_indices"]));
    const std::int64_t delta = scalars.contains("seq_len_delta") ? scalars["seq_len_delta"].cast<std::int64_t>() : 0;
    const std::int64_t stride = forms[0].before[0].shape(1);
    const Flat own(lens.begin(), lens.begin() + std::min<std::int64_t>(batch, static_cast<std::int64_t>(lens.size())));
    long_rows = replay::rows_leave_their_own(own, delta, scalars["page_size"].cast<std::int64_t>(), stride);
    const bool zero_tail = scalars.contains("zero_tail") && scalars["zero_tail"].cast<bool>();
    for (int k = 0; k < 2; ++k)
      if (!forms[k].before.empty()) forms[k].split = {batch, forms[k].before[0].shape(0), stride, zero_tail};
  }
  // Form k as the engine sees it (the split set above).
  const auto engine_form = [&](int k) {
    NamingCase::Form f;
    f.before = forms[k].before_lanes;
    f.actual = forms[k].actual;
    if (long_rows) f.split = forms[k].split;
    return f;
  };
  if (plain) nc.plain = engine_form(0);
  if (has_grown) nc.grown = engine_form(1);
  if (long_rows) {
    nc.part = [&](Variant v, harness::NamingForm form, std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill,
                  const Flat& prefill) {
      const py::array& before = forms[form == harness::NamingForm::plain ? 0 : 1].before[0];
      py::array_t<std::int64_t> wide(std::vector<py::ssize_t>{before.shape(0), before.shape(1)});
      std::copy(prefill.begin(), prefill.end(), wide.mutable_data());
      const py::array buf = wide.attr("astype")(before.dtype());
      const auto rows_from = [](const py::object& a, std::int64_t lo, std::optional<std::int64_t> hi) -> py::object {
        return a[py::reinterpret_steal<py::object>(PySlice_New(py::int_(lo).ptr(), hi ? py::int_(*hi).ptr() : Py_None, Py_None))];
      };
      py::dict ins;
      for (const auto& item : inputs) ins[item.first] = item.second;
      ins["req_pool_indices"] = rows_from(py::object(inputs["req_pool_indices"]), b0, b1);
      ins["seq_lens"] = rows_from(py::object(inputs["seq_lens"]), b0, b1);
      if (has(v, Behaviour::e10_batch_index_rows) && b1 > b0 && inputs.contains("req_to_token"))
        ins["req_to_token"] = rows_from(py::object(inputs["req_to_token"]), b0, std::nullopt);  // E10 reads row b for batch lane b
      py::dict sc;
      for (const auto& item : scalars) sc[item.first] = item.second;
      if (sc.contains("zero_tail")) sc["zero_tail"] = fill;
      (void)host.run(v, "part", ins, sc, {py::array(rows_from(buf, row0, std::nullopt))});
      return lanes_of(buf, names[0]);
    };
  }
  return names_of(host.route, [&] { return harness::name_case(host.route, host.claimed, nc); });
}

inline void def_naming(py::module_& m) {
  m.def("crash_names",
        [m](const std::string& route, const std::string& claimed, const py::dict& inputs, const py::dict& scalars,
            const py::dict& outputs, const py::object& reference) mutable {
          return crash_names_py(m, route, claimed, inputs, scalars, outputs, reference);
        },
        py::arg("route"), py::arg("claimed"), py::kw_only(), py::arg("inputs"), py::arg("scalars"), py::arg("outputs"),
        py::arg("reference") = py::none(),
        "The names of a kernel that raised (kvaddr/harness/naming.hpp name_crash, the C++ harness's): the crash "
        "variants of `route` without `claimed` whose host reference rejects the case (arguments as name_case's; "
        "the reference runs here on copies of `outputs` unless `reference(variant, 'plain')` is given).");
  m.def("name_case",
        [m](const std::string& route, const std::string& claimed, const py::dict& inputs, const py::dict& scalars,
            const py::dict& outputs, const py::dict& actual, bool plain, const py::object& grown,
            const py::object& reference) mutable {
          return name_case_py(m, route, claimed, inputs, scalars, outputs, actual, plain, grown, reference);
        },
        py::arg("route"), py::arg("claimed"), py::kw_only(), py::arg("inputs"), py::arg("scalars"), py::arg("outputs"),
        py::arg("actual"), py::arg("plain") = true, py::arg("grown") = py::none(), py::arg("reference") = py::none(),
        "The catalogue variants of `route` (without `claimed`) whose host reference reproduces a failing case "
        "(kvaddr/harness/naming.hpp name_case, the C++ harness's and replay's race rule): `inputs` / `scalars` by "
        "the route's parameter names (None inputs left out), `outputs` every output buffer before the call and "
        "`actual` as the kernel left it, by name. The reference runs here, under each candidate, on copies of "
        "`outputs` (the plain form, tried when `plain`) and of grown[0] (the grown form: (outputs before, actual) "
        "with every 2-D output grown by its after-guard rows); a page table's racing rows match when the kernel's "
        "table is one of the outputs they can leave. `reference(variant, form)` (an adjacent or aliased layout "
        "only) replaces the route call: a dict of the outputs, or None where the route rejects the call.");
}

}  // namespace kvaddr::python
