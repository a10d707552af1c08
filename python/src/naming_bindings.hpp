#pragma once
// Private to the pybind11 module: kvaddr._core.name_case and race_allows, the naming of kvaddr.check's failing case
// and the comparison's race rule by the engine every front end uses (kvaddr/harness/naming.hpp: the decision
// whether the buffers are the claimed variant's, the plain and grown forms, the races of spilling rows,
// kvaddr/replay/races.hpp). The case is handed in as the engine's NamingCase: the outputs with their guarded
// backings, the host reference of each candidate computed here from the case's arrays by the route's host binding
// (route_bindings.hpp) under that variant; one program's part of a page table (the race split) is the same call on
// the batch rows' slices. Only a case with no such form (an adjacent or aliased layout, python/kvaddr/harness.py)
// hands in its own reference.
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
  std::vector<std::string> flags;  // the route's bool fields (their scalars are handed over as bools)
  std::vector<py::array> befores;  // the outputs before the call (their dtypes and row lengths)
  bool variants = false;

  HostCall(py::module_& m, const std::string& route_name, const std::string& claimed_name, const py::dict& inputs,
           const py::dict& scalars, const py::dict& outputs, const py::object& ref)
      : route(parse_route(route_name)), claimed(parse_variant(claimed_name)), reference(ref) {
    if (outputs.empty()) throw InvalidArgument("outputs", "{}", "needs at least one output buffer");
    if (!reference.is_none() && !PyCallable_Check(reference.ptr()))
      throw InvalidArgument("reference", type_name(reference), "must be None or a callable (variant, outputs) -> dict");
    for (const auto& item : outputs) {
      names.push_back(py::str(item.first));
      befores.push_back(as_ndarray(item.second, "outputs"));
    }
    for (const auto& [p, field] : route_parameters(route)) params.push_back(p);
    visit_route(route, [this](auto spec) {
      for (const FieldInfo& f : field_infos<decltype(spec)>())
        if (f.kind == ArgKind::boolean) flags.emplace_back(f.name);
    });
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

  // Output j's buffer holding `lanes` (its dtype; a 2-D output of lanes.size() / row length rows).
  py::array buffer(std::size_t j, const Flat& lanes) const {
    const py::array& b = befores[j];
    py::array_t<std::int64_t> a(static_cast<py::ssize_t>(lanes.size()));
    std::copy(lanes.begin(), lanes.end(), a.mutable_data());
    const py::ssize_t cols = b.ndim() == 2 ? b.shape(1) : 0;
    const py::object shaped = cols > 0 ? a.attr("reshape")(static_cast<py::ssize_t>(lanes.size()) / cols, cols) : py::object(a);
    return shaped.attr("astype")(b.dtype());
  }

  // Every output after the route ran under v on buffers holding `before`, with the inputs `ins` and scalars `sc`;
  // throws kvaddr::Error where the route (or the reference, answering None) rejects the call. `own`: the front
  // end's reference where it gave one (the race split's parts always call the route on the case's arrays).
  NamingCase::Bufs run(Variant v, const py::dict& ins, const py::dict& sc, const NamingCase::Bufs& before,
                       bool own = true) const {
    std::vector<py::array> outs;
    for (std::size_t j = 0; j < before.size(); ++j) outs.push_back(buffer(j, before[j]));
    NamingCase::Bufs bufs;
    const std::string variant(to_string(v, route));
    if (own && !reference.is_none()) {
      py::dict given;
      for (std::size_t j = 0; j < names.size(); ++j) given[names[j].c_str()] = outs[j];
      const py::object got = reference(variant, given);
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
    // a scalar as the binding takes it (an int, a bool, a numpy integer was accepted above): an int for an integer
    // parameter, a bool for a flag (the bindings take no bool as an int and no int as a flag)
    for (const auto& item : sc) {
      const std::string k = py::str(item.first);
      const py::int_ value = py::reinterpret_steal<py::int_>(PyNumber_Index(item.second.ptr()));
      if (!value) throw py::error_already_set();
      if (std::find(flags.begin(), flags.end(), k) != flags.end()) kw[item.first] = py::bool_(PyObject_IsTrue(value.ptr()) == 1);
      else kw[item.first] = value;
    }
    if (variants) kw["variant"] = variant;
    for (std::size_t j = 0; j < names.size(); ++j) kw[has_param(names[j]) ? names[j].c_str() : "out"] = outs[j];
    call_rejecting(fn, kw);
    for (std::size_t j = 0; j < outs.size(); ++j) bufs.push_back(lanes_of(outs[j], names[j]));
    return bufs;
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
  NamingCase::Bufs before;
  for (std::size_t j = 0; j < host.names.size(); ++j) before.push_back(lanes_of(host.befores[j], "outputs"));
  return names_of(host.route, [&] {
    return harness::name_crash(host.route, host.claimed, [&](Variant v) { return host.run(v, inputs, scalars, before); });
  });
}

// The engine's NamingCase of a case as Python hands it: `outputs` before the call, `actual` as the kernel left them,
// `backings` name -> (guarded backing before, after) for the outputs that have one (guard | buffer | guard, 1-D).
// `host` (and the dicts) must outlive the result.
inline NamingCase py_naming_case(const HostCall& host, const py::dict& inputs, const py::dict& scalars,
                                 const py::dict& actual, const py::object& backings) {
  const std::vector<std::string>& names = host.names;
  if (actual.size() != names.size())
    throw InvalidArgument("actual", std::to_string(actual.size()) + " buffers",
                          "needs exactly the outputs of `outputs` (" + std::to_string(names.size()) + ")");
  if (!backings.is_none() && !py::isinstance<py::dict>(backings))
    throw InvalidArgument("backings", type_name(backings), "must be None or a dict name -> (before, after)");
  const py::dict guarded = backings.is_none() ? py::dict() : backings.cast<py::dict>();
  for (const auto& item : guarded)
    if (std::find(names.begin(), names.end(), std::string(py::str(item.first))) == names.end())
      throw InvalidArgument("backings", std::string(py::str(item.first)), "not an output of `outputs`");
  NamingCase nc;
  for (std::size_t j = 0; j < names.size(); ++j) {
    const std::string& k = names[j];
    if (!actual.contains(k)) throw InvalidArgument("actual", k, "missing output");
    const py::array& b = host.befores[j];
    const py::array a = as_ndarray(actual[k.c_str()], "actual");
    if (shape_of(a) != shape_of(b))
      throw InvalidArgument("actual['" + k + "']", py::str(py::cast(shape_of(a))),
                            "must have the shape of the output before the call " + std::string(py::str(py::cast(shape_of(b)))));
    NamingCase::Output o{b.ndim() == 2 ? b.shape(1) : 0, 0, lanes_of(b, "outputs"), lanes_of(a, "actual")};
    if (guarded.contains(k)) {
      const std::string arg = "backings['" + k + "']";
      const py::object pair = guarded[k.c_str()];
      if (!py::isinstance<py::tuple>(pair) || py::len(pair) != 2)
        throw InvalidArgument(arg, type_name(pair), "must be a tuple (backing before, backing after)");
      Flat gb = lanes_of(pair[py::int_(0)], arg), ga = lanes_of(pair[py::int_(1)], arg);
      const auto n = static_cast<std::int64_t>(o.before.size()), size = static_cast<std::int64_t>(gb.size());
      if (ga.size() != gb.size() || size < n || (size - n) % 2 != 0)
        throw InvalidArgument(arg, std::to_string(gb.size()) + " and " + std::to_string(ga.size()) + " lanes",
                              "must be two backings of the same size, the buffer's " + std::to_string(n) +
                                  " lanes with the same guard on each side");
      o.guard = (size - n) / 2;
      o.before = std::move(gb);
      o.after = std::move(ga);
    }
    nc.outputs.push_back(std::move(o));
  }
  nc.run = [&host, &inputs, &scalars](Variant v, const NamingCase::Bufs& before) {
    return host.run(v, inputs, scalars, before);
  };
  // The race split of a page table (one 2-D output, its batch in req_pool_indices / seq_lens).
  if (names.size() == 1 && host.befores[0].ndim() == 2 && inputs.contains("req_pool_indices") &&
      inputs.contains("seq_lens") && scalars.contains("page_size")) {
    const Flat lens = lanes_of(inputs["seq_lens"], "inputs['seq_lens']");
    const auto batch = std::min(static_cast<std::int64_t>(py::len(inputs["req_pool_indices"])), static_cast<std::int64_t>(lens.size()));
    nc.batch = NamingCase::Batch{Flat(lens.begin(), lens.begin() + batch),
                                 scalars.contains("seq_len_delta") ? scalars["seq_len_delta"].cast<std::int64_t>() : 0,
                                 scalars["page_size"].cast<std::int64_t>(),
                                 scalars.contains("zero_tail") && scalars["zero_tail"].cast<bool>()};
    nc.part = [&host, &inputs, &scalars](Variant v, std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill,
                                         const Flat& prefill) {
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
      const auto skip = static_cast<std::ptrdiff_t>(row0 * host.befores[0].shape(1));
      const NamingCase::Bufs after = host.run(v, ins, sc, {Flat(prefill.begin() + skip, prefill.end())}, false);
      Flat out(prefill.begin(), prefill.begin() + skip);
      out.insert(out.end(), after[0].begin(), after[0].end());
      return out;
    };
  }
  return nc;
}

inline std::vector<std::string> name_case_py(py::module_& m, const std::string& route_name, const std::string& claimed_name,
                                             const py::dict& inputs, const py::dict& scalars, const py::dict& outputs,
                                             const py::dict& actual, const py::object& backings,
                                             const py::object& reference) {
  const HostCall host(m, route_name, claimed_name, inputs, scalars, outputs, reference);
  const NamingCase nc = py_naming_case(host, inputs, scalars, actual, backings);
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
        "the reference runs here on copies of `outputs` unless `reference(variant, outputs)` is given).");
  m.def("name_case",
        [m](const std::string& route, const std::string& claimed, const py::dict& inputs, const py::dict& scalars,
            const py::dict& outputs, const py::dict& actual, const py::object& backings,
            const py::object& reference) mutable {
          return name_case_py(m, route, claimed, inputs, scalars, outputs, actual, backings, reference);
        },
        py::arg("route"), py::arg("claimed"), py::kw_only(), py::arg("inputs"), py::arg("scalars"), py::arg("outputs"),
        py::arg("actual"), py::arg("backings") = py::none(), py::arg("reference") = py::none(),
        "The catalogue variants of `route` (without `claimed`) whose host reference reproduces a failing case "
        "(kvaddr/harness/naming.hpp name_case, the C++ harness's engine): `inputs` / `scalars` by the route's "
        "parameter names (None inputs left out), `outputs` every output buffer before the call and `actual` as the "
        "kernel left it, by name; `backings` name -> (guarded backing before, after) (guard | buffer | guard, 1-D) "
        "for the outputs that have one. The engine decides: nothing where `actual` is the claimed variant's and the "
        "guards are intact, else the candidates on the plain form and on the grown one (each 2-D output with a "
        "backing grown by the whole rows of its after-guard); a page table's racing rows match when the kernel's "
        "table is one of the outputs they can leave. `reference(variant, outputs)` (an adjacent or aliased layout "
        "only) replaces the route call on the given output buffers: a dict of the outputs, or None where the route "
        "rejects the call.");
  m.def("races_on", [](const std::string& route, const std::string& variant) {
          return replay::races_on(parse_route(route), parse_variant(variant));
        }, py::arg("route"), py::arg("variant"),
        "Whether the rows of `route` can race under `variant` (kvaddr/replay/races.hpp: a bounded page table under a "
        "spilling variant); the comparison asks race_allows only then.");
  m.def("race_allows",
        [m](const std::string& route, const std::string& claimed, const py::dict& inputs, const py::dict& scalars,
            const py::dict& outputs, const py::dict& actual, const py::object& backings,
            const py::object& reference) mutable {
          if (!replay::races_on(parse_route(route), parse_variant(claimed))) return false;  // no case built
          const HostCall host(m, route, claimed, inputs, scalars, outputs, reference);
          const NamingCase nc = py_naming_case(host, inputs, scalars, actual, backings);
          try {
            return harness::race_allows(host.route, host.claimed, nc);
          } catch (const BadReference& e) {
            throw e.error;
          }
        },
        py::arg("route"), py::arg("claimed"), py::kw_only(), py::arg("inputs"), py::arg("scalars"), py::arg("outputs"),
        py::arg("actual"), py::arg("backings") = py::none(), py::arg("reference") = py::none(),
        "The comparison's race rule (kvaddr/harness/naming.hpp race_allows, the C++ harness's and replay's): whether "
        "`actual` (arguments as name_case's) differs from the claimed variant's host output only as its racing rows "
        "allow: a page table under a spilling claim whose rows store to the same lanes, the guards intact.");
}

}  // namespace kvaddr::python
