#include <iostream>
#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return kvaddr::cli::run(args, std::cout, std::cerr);
}
