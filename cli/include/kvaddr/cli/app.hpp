#pragma once
// The `kvaddr` command line as a library: run(args) is main() without the process, so tests
// drive every subcommand and read its output and exit status.
#include <cstdint>
#include <functional>
#include <ostream>
#include <string_view>
#include <string>
#include <vector>

namespace kvaddr::cli {

// One row of `kvaddr verify`: a named check, whether it passed, and what it found.
// A skipped check (its area was not built, or no GPU) passes and says why in `detail`.
struct CheckResult {
  std::string name;
  bool passed = false;
  bool skipped = false;
  std::string detail;
  double seconds = 0.0;
};

struct VerifyOptions {
  std::uint64_t seed = 20260829;  // embedded default
  bool quick = false;             // smaller budgets (used by the test suite)
  // Called with each check's name before it runs (the CLI shows it as progress on a terminal).
  std::function<void(const std::string&)> progress;
};

// The project version ("0.1.0").
std::string_view version() noexcept;

// Every check that exists, on embedded defaults. Never throws: a check that throws fails.
std::vector<CheckResult> run_verify_checks(const VerifyOptions& options);

// Entry point of the executable. Returns the process exit status: 0 only when every check
// passes; 1 when a check fails; 2 on bad arguments or an error (one line on `err`, or with
// --json one {"schema": "kvaddr.error/1", "ok": false, "error": {...}} object on `out`).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace kvaddr::cli
