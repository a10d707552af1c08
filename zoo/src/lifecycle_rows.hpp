#pragma once
// Private: the lifecycle rows of the kill matrix (issue 14), one per planted model::lifecycle::Fault,
// plus a production row. Columns: proofs (the lifecycle obligations named "<...>.<fault>"),
// properties (many short random histories), stateful (long swarm histories), upstream_grid (the
// exemplar's scripted reproduction), differential / coverage n/a (host-side state machine).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/zoo/zoo.hpp"

namespace kvaddr::zoo::detail {

// Which rows of the matrix run, asked once per candidate row in matrix order: a row named in
// options.only (every row when it is empty) whose position p among those has
// p mod shard_count == shard_index.
class RowPicker {
 public:
  explicit RowPicker(const ZooOptions& options);  // InvalidArgument for a bad shard
  bool operator()(const std::string& name);

 private:
  const ZooOptions& options_;
  std::int64_t position_ = 0;
};

void add_lifecycle_rows(ZooReport& report, const ZooOptions& options, RowPicker& wanted,
                        const std::function<void(const Row&)>& progress);

// The scripted exemplar reproduction: "" when no rule fires, else the first violation.
std::string lifecycle_script(std::string_view fault_name);

// What the planted code of a lifecycle row does ("" for other names).
std::string lifecycle_summary(std::string_view name);

// Runs the named obligations in order until one is refuted (proofs/ builds only): the cell is killed
// by that one, its detail the first line of the counterexample, else survived; seconds is the time
// spent. No names: the cell is n/a with none_detail.
void run_obligations(Cell& cell, const std::vector<std::string>& names, std::string_view none_detail);

// Markdown section: the lifecycle exemplars, what plants each one, and those kvaddr cannot express.
std::string lifecycle_markdown();

}  // namespace kvaddr::zoo::detail
