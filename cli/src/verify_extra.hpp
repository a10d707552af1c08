#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"

namespace kvaddr::cli {
// Runs one check, times it and names it (also as the progress phase); a check that throws fails
// with what it raised.
CheckResult timed(const std::string& name, const std::function<CheckResult()>& body);
// Progress of the run in flight (VerifyOptions::progress): a phase, its share done and the item.
void step(const std::string& phase, std::int64_t done, std::int64_t total, const std::string& item);

// Checks of the optional areas (proofs, props, GPU): each appends its rows, or one skipped row.
void append_extra_checks(const VerifyOptions& options, std::vector<CheckResult>& results);
}  // namespace kvaddr::cli
