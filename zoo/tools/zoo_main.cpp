// kvaddr_zoo_tool [--json] [--mutants] [--markdown] [--quick] [--mutant-cases N]: the bug zoo
// without the CLI. --mutant-cases raises the property budget per mutant (a deeper check that no
// mutant classified equivalent is killed: it would be reported as a stale classification).
#include <cstdlib>
#include <iostream>
#include <string_view>

#include "kvaddr/zoo/zoo.hpp"

int main(int argc, char** argv) {
  bool json = false, mutants = false, markdown = false, quick = false;
  int mutant_cases = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--mutant-cases" && i + 1 < argc) mutant_cases = std::atoi(argv[++i]);
    else if (a == "--json") json = true;
    else if (a == "--mutants") mutants = true;
    else if (a == "--markdown") markdown = true;
    else if (a == "--quick") quick = true;
    else {
      std::cerr << "usage: kvaddr_zoo_tool [--json] [--mutants] [--markdown] [--quick] [--mutant-cases N]\n";
      return 2;
    }
  }
  kvaddr::zoo::ZooOptions zo;
  zo.progress = &std::cerr;
  if (quick) {
    zo.property_cases = 100;
    zo.stateful_runs = 10;
    zo.pool_cases = 100;
  }
  const auto rep = kvaddr::zoo::run_zoo(zo);
  kvaddr::zoo::MutationReport mr;
  if (mutants) {
    kvaddr::zoo::MutantOptions mo;
    mo.progress = &std::cerr;
    if (mutant_cases > 0) mo.property_cases = mutant_cases;
    mr = kvaddr::zoo::run_mutants(mo);
  }
  if (markdown) {
    std::cout << kvaddr::zoo::to_markdown(rep, mutants ? &mr : nullptr);
  } else if (json) {
    std::cout << kvaddr::zoo::to_json(rep) << '\n';
    if (mutants) std::cout << kvaddr::zoo::to_json(mr) << '\n';
  } else {
    std::cout << kvaddr::zoo::to_text(rep);
    if (mutants) std::cout << kvaddr::zoo::to_text(mr);
  }
  return rep.production_false_alarms == 0 ? 0 : 1;
}
