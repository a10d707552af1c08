#pragma once
// The `kvaddr` command line as a library: run(args) is main() without the process, so tests
// drive every subcommand and read its output and exit status.
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <streambuf>
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
  // Called as the work goes on: the phase ("grid", "proofs", "props", "differential cases", or a
  // check's name), its share done of `total` (total 0: no share) and the item running now. The CLI
  // shows it as progress on a terminal.
  std::function<void(const std::string& phase, std::int64_t done, std::int64_t total, const std::string& item)>
      progress;
};

// The project version ("0.1.0").
std::string_view version() noexcept;

// Every check that exists, on embedded defaults. Never throws: a check that throws fails.
std::vector<CheckResult> run_verify_checks(const VerifyOptions& options);

// The executable's stdout for run(): a buffered stream buffer over a file descriptor that keeps
// the errno of its first failed write, so that run() names why the output could not be written
// ("No space left on device"); after a failure every later write fails too.
class FdOutput : public std::streambuf {
 public:
  explicit FdOutput(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  ~FdOutput() override { sync(); }
  FdOutput(const FdOutput&) = delete;
  FdOutput& operator=(const FdOutput&) = delete;
  int error() const noexcept { return error_; }  // 0 while every write succeeded

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool drain();
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

// Entry point of the executable. Returns the process exit status: 0 only when every check
// passes; 1 when a check fails; 2 on bad arguments or an error (one line on `err`, or with
// --json one {"schema": "kvaddr.error/1", "ok": false, "error": {...}} object on `out`).
// Each call registers every subcommand and option anew: CommandLine().run(args, out, err).
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The command line registered once and run on many lines (the fuzz target runs 10^5): registering
// every subcommand and option costs more than parsing one line. Before each line every option value
// is put back at its default and the last parse's results are cleared, so run() does with a line
// exactly what cli::run does with it. Not for use from two threads at once.
class CommandLine {
 public:
  CommandLine();
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;
  int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvaddr::cli
