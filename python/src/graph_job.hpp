#pragma once
// Private to the pybind11 modules: one draw job of graph mode's fast loop made from its Python arguments and checked
// before anything is drawn, for kvaddr._core.graph_draw (the host draw) and kvaddr._gpu.graph_draw (the device draw).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kvaddr/kernels/graph_draw.hpp"
#include "kvaddr/model/errors.hpp"

namespace kvaddr::python {

// The job (kind, tag, params: at most 4, the rest 0); InvalidArgument naming `kind`, or `params` (shown as the list
// given) where graph_draw::job_error says the job cannot be drawn.
inline graph_draw::Job graph_job(std::int32_t kind, std::int32_t tag, const std::vector<std::int64_t>& params) {
  if (kind < graph_draw::kV2p || kind > graph_draw::kLens) {
    throw InvalidArgument("kind", std::to_string(kind), "must be a graph_draw kind (1..7)");
  }
  if (params.size() > 4) throw InvalidArgument("params", std::to_string(params.size()), "at most 4 parameters");
  graph_draw::Job j;
  j.kind = kind;
  j.tag = tag;
  for (std::size_t i = 0; i < params.size(); ++i) j.p[i] = params[i];
  if (const char* why = graph_draw::job_error(j)) {
    std::string shown = "[";
    for (std::size_t i = 0; i < params.size(); ++i) shown += (i ? ", " : "") + std::to_string(params[i]);
    throw InvalidArgument("params", shown + "]", why);
  }
  return j;
}

}  // namespace kvaddr::python
