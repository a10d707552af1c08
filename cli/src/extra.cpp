#include "subcommands.hpp"

namespace kvaddr::cli {

void register_extra_subcommands(CLI::App&) {}

int run_extra_subcommands(CLI::App&, std::ostream&, std::ostream& err) {
  err << "kvaddr: no subcommand ran\n";
  return 2;
}

}  // namespace kvaddr::cli
