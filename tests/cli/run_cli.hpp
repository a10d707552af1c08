#pragma once
// Runs the `kvaddr` command line in-process (kvaddr::cli::run, or a kept cli::CommandLine) and keeps its exit
// status, stdout and stderr.
#include <sstream>
#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"

namespace kvaddr::cli_test {

struct Outcome {
  int status;
  std::string out;
  std::string err;
};

inline Outcome run(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = kvaddr::cli::run(args, out, err);
  return {status, out.str(), err.str()};
}

// The same line through a command line registered once and kept (cli::CommandLine).
inline Outcome run(kvaddr::cli::CommandLine& command_line, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = command_line.run(args, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace kvaddr::cli_test
