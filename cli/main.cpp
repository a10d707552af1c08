#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // stdout through FdOutput: run() checks that the whole output was written (exit 2 otherwise).
  kvaddr::cli::FdOutput stdout_buffer(STDOUT_FILENO);
  std::ostream out(&stdout_buffer);
  return kvaddr::cli::run(args, out, std::cerr);
}
