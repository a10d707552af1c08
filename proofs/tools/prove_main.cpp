// Stand-alone runner of the proof registry (the CLI's `kvaddr prove` calls the same API):
//   kvaddr_prove_tool [--full] [--json] [--timeout-ms N] [--only NAME]...
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <string>

#include "kvaddr/proofs/registry.hpp"

int main(int argc, char** argv) {
  kvaddr::proofs::RunOptions opt;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--full") {
      opt.full_sweep = true;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--only" && i + 1 < argc) {
      opt.only.emplace_back(argv[++i]);
    } else if (a == "--timeout-ms" && i + 1 < argc) {
      opt.timeout_ms = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--markdown") {
      // The docs/proofs.md tables: one row and one paragraph per obligation, from the registry.
      const auto results = kvaddr::proofs::run_all(opt);
      const auto& infos = kvaddr::proofs::obligations();
      std::cout << "| obligation | spec | expected | verdict | seconds | domain |\n|---|---|---|---|---|---|\n";
      for (const auto& r : results) {
        for (const auto& info : infos) {
          if (info.name != r.name) continue;
          std::cout << "| `" << r.name << "` | " << info.spec << " | " << kvaddr::proofs::to_string(r.expected) << " | "
                    << kvaddr::proofs::to_string(r.verdict) << " | " << std::fixed << std::setprecision(2)
                    << r.seconds << " | " << r.domain << " |\n";
        }
      }
      std::cout << "\n";
      for (const auto& r : results) {
        for (const auto& info : infos) {
          if (info.name != r.name) continue;
          std::cout << "**`" << r.name << "`** (" << info.spec << "). Given " << info.preconditions << ": " << info.conclusion
                    << ". Domain: " << r.domain << ". Expected " << kvaddr::proofs::to_string(r.expected) << ".";
          if (r.verdict == kvaddr::proofs::Verdict::refuted) std::cout << " Counterexample: `" << r.counterexample << "`";
          std::cout << "\n\n";
        }
      }
      return 0;
    } else if (a == "--list") {
      for (const auto& o : kvaddr::proofs::obligations()) {
        std::cout << o.name << "  [" << kvaddr::proofs::to_string(o.expected) << "]  " << o.spec << '\n';
      }
      return 0;
    } else {
      std::cerr << "usage: kvaddr_prove_tool [--full] [--json] [--timeout-ms N] [--only NAME]... | --list | --markdown\n";
      return 2;
    }
  }
  const auto results = kvaddr::proofs::run_all(opt);
  std::cout << (json ? kvaddr::proofs::to_json(results) + "\n" : kvaddr::proofs::to_text(results));
  for (const auto& r : results) {
    if (!r.as_expected()) return 1;
  }
  return 0;
}
