#pragma once
// kvaddr.adjacent's arithmetic for Python (kvaddr/harness/adjacent.hpp, the C++ harness's too):
// kvaddr._core.adjacent_layout, adjacent_attribute, adjacent_choose and adjacent_candidates. A member crosses as the tuple
// (name, int32 lanes per element, shape, is an output, visible width or None); Python keeps the array glue.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "kvaddr/harness/adjacent.hpp"
#include "kvaddr/translate/validate.hpp"
#include "arrays.hpp"

namespace kvaddr::python {

namespace py = pybind11;

using AdjacentMemberArg =
    std::tuple<std::string, std::int64_t, std::vector<std::int64_t>, bool, std::optional<std::int64_t>>;

inline std::vector<harness::AdjacentMember> adjacent_members_arg(const std::vector<AdjacentMemberArg>& members) {
  std::vector<harness::AdjacentMember> ms;
  for (const auto& [name, units, shape, output, width] : members) {
    if (width && *width < 0) throw InvalidArgument(name + ".width", std::to_string(*width), "must be >= 0");
    ms.push_back({name, units, shape, output, width.value_or(-1)});
  }
  return ms;
}

inline harness::AdjacentLayoutOf adjacent_layout_arg(const std::vector<AdjacentMemberArg>& members, std::int64_t shared,
                                                     std::int64_t guard) {
  return harness::adjacent_layout(adjacent_members_arg(members), shared, guard);
}

inline py::tuple spans_tuple(const harness::AdjacentLayoutOf& l) {
  py::list spans;
  for (const harness::AdjacentSpan& s : l.spans) spans.append(py::make_tuple(s.name, s.lo, s.hi));
  return py::make_tuple(spans, l.total);
}

inline void bind_adjacent(py::module_& m) {
  m.def("adjacent_layout", [](const std::vector<AdjacentMemberArg>& members, std::int64_t shared, std::int64_t guard) {
    return spans_tuple(adjacent_layout_arg(members, shared, guard));
  }, py::arg("members"), py::arg("shared"), py::arg("guard"),
     "The layout of adjacent members (name, int32 lanes per element, shape, output, width or None) sharing `shared` "
     "int32 lanes, `guard` elements on each side: ([(name, lo, hi)] in int32 lanes, total lanes). InvalidArgument "
     "for a misaligned int64 member or a malformed member.");
  m.def("adjacent_attribute", [](const std::vector<AdjacentMemberArg>& members, std::int64_t shared, std::int64_t guard,
                                 py::handle expected, py::handle actual, std::int64_t limit) {
    if (limit < 0) throw InvalidArgument("limit", std::to_string(limit), "must be >= 0");
    const harness::AdjacentLayoutOf l = adjacent_layout_arg(members, shared, guard);
    const In<std::int32_t> e = input<std::int32_t>(expected, "expected", 1, 1);
    const In<std::int32_t> a = input<std::int32_t>(actual, "actual", 1, 1);
    if (e.size != l.total) throw InvalidArgument("expected", std::to_string(e.size) + " lanes", "the backing has " + std::to_string(l.total));
    const harness::AdjacentAttribution r = harness::adjacent_attribute(l, e.ptr, a.ptr, a.size, static_cast<std::size_t>(limit));
    py::list lanes;
    for (const harness::AdjacentLane& x : r.lanes)
      lanes.append(py::make_tuple(x.name, py::tuple(py::cast(x.index)), x.region, x.expected, x.actual, x.neighbour));
    return py::make_tuple(lanes, r.differing, r.out_of_bounds, py::cast(r.inputs_changed));
  }, py::arg("members"), py::arg("shared"), py::arg("guard"), py::arg("expected"), py::arg("actual"), py::arg("limit") = 8,
     "Two backings (1-D int32) of an adjacent layout compared and every differing lane attributed: ([(name, index, "
     "region, expected, actual, neighbour)], differing output/window/guard elements, whether one lies outside the "
     "outputs' visible lanes, the inputs written away from every output).");
  m.def("adjacent_choose", [](const std::vector<std::tuple<std::vector<std::string>, std::int64_t>>& candidates,
                              std::int64_t k, const std::vector<AdjacentMemberArg>& arrays, std::int64_t guard) -> py::object {
    std::vector<harness::AdjacentCandidate> cs;
    for (const auto& [names, shared] : candidates) cs.push_back({names, shared});
    std::map<std::string, harness::AdjacentMember> by_name;
    for (const harness::AdjacentMember& x : adjacent_members_arg(arrays))
      if (!by_name.emplace(x.name, x).second) throw InvalidArgument("arrays", x.name, "names an array twice");
    const auto c = harness::adjacent_choose(cs, k, by_name, guard);
    if (!c) return py::none();
    return py::make_tuple(py::tuple(py::cast(c->names)), c->shared);
  }, py::arg("candidates"), py::arg("k"), py::arg("arrays"), py::arg("guard"),
     "The first of `candidates` [(names, shared)], from the k-th on (cyclically), that the case's layable `arrays` "
     "(members as for adjacent_layout: present, not strided, not aliased) fit: (names, shared), or None.");
  m.def("adjacent_candidates", [](const std::string& route, StrictBool admitted) {
    py::list out;
    for (const harness::AdjacentCandidate& c : harness::adjacent_candidates(parse_route(route), admitted))
      out.append(py::make_tuple(py::tuple(py::cast(c.names)), c.shared));
    return out;
  }, py::arg("route"), py::arg("admitted") = true,
     "The candidate adjacent layouts of `route` as [(names, shared int32 lanes)], read off its spec: the admitted "
     "(touching) ones, or (admitted=False) the partial overlaps validation rejects.");
}

}  // namespace kvaddr::python
