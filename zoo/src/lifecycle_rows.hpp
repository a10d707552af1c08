#pragma once
// Private: the lifecycle rows of the kill matrix (issue 14), one per planted model::lifecycle::Fault,
// plus a production row. Columns: proofs (the lifecycle obligations named "<...>.<fault>"),
// properties (many short random histories), stateful (long swarm histories), upstream_grid (the
// exemplar's scripted reproduction), differential / coverage n/a (host-side state machine).
#include <functional>
#include <string>

#include "kvaddr/zoo/zoo.hpp"

namespace kvaddr::zoo::detail {

void add_lifecycle_rows(ZooReport& report, const ZooOptions& options, const std::function<void(const Row&)>& progress);

// The scripted exemplar reproduction: "" when no rule fires, else the first violation.
std::string lifecycle_script(std::string_view fault_name);

// What the planted code of a lifecycle row does ("" for other names).
std::string lifecycle_summary(std::string_view name);

// Markdown section: the lifecycle exemplars, what plants each one, and those kvaddr cannot express.
std::string lifecycle_markdown();

}  // namespace kvaddr::zoo::detail
