// kvaddr_lifecycle: the stateful lifecycle campaign outside ctest.
//   kvaddr_lifecycle                     CI-sized campaign (10^5 steps)
//   kvaddr_lifecycle --long              10^7 steps, reports steps/s
//   kvaddr_lifecycle --steps N --run-length L --seed S --no-swarm --fault NAME --kill-all
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

#include "kvaddr/props/lifecycle.hpp"

namespace plc = kvaddr::props::lifecycle;
namespace lc = kvaddr::model::lifecycle;

// Parses the arguments into `o`; returns 0, or the exit status of a usage error.
int parse(int argc, char** argv, plc::CampaignOptions& o, bool& kill_all) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--long") {
      o.total_steps = 10000000;
    } else if (a == "--steps") {
      o.total_steps = std::stoll(value());
    } else if (a == "--run-length") {
      o.run_length = std::stoll(value());
    } else if (a == "--seed") {
      o.seed = std::stoull(value(), nullptr, 0);
    } else if (a == "--no-swarm") {
      o.swarm = false;
    } else if (a == "--kill-all") {
      kill_all = true;
    } else if (a == "--fault") {
      const auto f = lc::fault_from_string(value());
      if (!f) {
        std::cerr << "unknown fault; known:";
        for (const auto& fi : lc::all_faults()) std::cerr << ' ' << fi.name;
        std::cerr << '\n';
        return 2;
      }
      o.fault = *f;
    } else {
      std::cerr << "usage: kvaddr_lifecycle [--long] [--steps N] [--run-length L] [--seed S] [--no-swarm] "
                   "[--fault NAME] [--kill-all]\n";
      return 2;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  plc::CampaignOptions o;
  bool kill_all = false;
  try {
    if (const int rc = parse(argc, argv, o, kill_all); rc != 0) return rc;
  } catch (const std::exception& e) {
    std::cerr << "kvaddr_lifecycle: bad argument: " << e.what() << '\n';
    return 2;
  }
  try {
    if (kill_all) {
      int survived = 0;
      for (const auto& fi : lc::all_faults()) {
        auto k = o;
        k.fault = fi.fault;
        const auto r = plc::run_campaign(k);
        std::cout << fi.name << " (" << fi.exemplar << "): "
                  << (r.passed() ? "SURVIVED" : "killed after " + std::to_string(r.steps) + " steps by " +
                                                    r.first->describe())
                  << '\n';
        survived += r.passed() ? 1 : 0;
      }
      return survived == 0 ? 0 : 1;
    }
    const auto r = plc::run_campaign(o);
    std::cout << plc::summary(r) << '\n';
    if (!r.passed()) std::cout << r.failure << '\n';
    return (r.passed() == (o.fault == lc::Fault::none)) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "kvaddr_lifecycle: " << e.what() << '\n';
    return 2;
  }
}
