#pragma once
#include <vector>

#include "kvaddr/cli/app.hpp"

namespace kvaddr::cli {
// Checks of the optional areas (proofs, props, GPU): each appends its rows, or one skipped row.
void append_extra_checks(const VerifyOptions& options, std::vector<CheckResult>& results);
}  // namespace kvaddr::cli
