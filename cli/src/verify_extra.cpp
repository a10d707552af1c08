#include "verify_extra.hpp"

namespace kvaddr::cli {

namespace {
CheckResult skipped(const std::string& name, const std::string& why) {
  CheckResult r;
  r.name = name;
  r.passed = true;
  r.skipped = true;
  r.detail = why;
  return r;
}
}  // namespace

void append_extra_checks(const VerifyOptions&, std::vector<CheckResult>& results) {
#ifndef KVADDR_WITH_PROOFS
  results.push_back(skipped("proofs", "skipped: built without Z3 (libz3-dev)"));
#endif
#ifndef KVADDR_WITH_PROPS
  results.push_back(skipped("props", "skipped: built without RapidCheck (librapidcheck-dev)"));
#endif
#ifndef KVADDR_WITH_KERNELS
  results.push_back(skipped("gpu.differential", "skipped: built without CUDA (nvcc not found)"));
#endif
}

}  // namespace kvaddr::cli
