#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"

namespace kvaddr::cli {
// Runs one check, times it and names it; a check that throws fails with what it raised.
CheckResult timed(const std::string& name, const std::function<CheckResult()>& body);

// Checks of the optional areas (proofs, props, GPU): each appends its rows, or one skipped row.
void append_extra_checks(const VerifyOptions& options, std::vector<CheckResult>& results);
}  // namespace kvaddr::cli
