// Fuzz target: the manifest parser and the replay driver. The input is manifest.json text,
// replayed against the committed example directory (whose .npy files the seeds name). replay
// never throws; its JSON report must parse back and carry as many calls as the summary says.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kvaddr/replay/replay.hpp"

#ifndef KVADDR_FUZZ_REPLAY_DIR
#error "KVADDR_FUZZ_REPLAY_DIR must name the example directory"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kvaddr::replay;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ReplayReport r = replay_manifest(text, KVADDR_FUZZ_REPLAY_DIR);
  const nlohmann::json j = nlohmann::json::parse(to_json(r));  // throws (and fails the run) if not JSON
  if (j["summary"]["calls"].get<std::size_t>() != r.calls.size() || (!r.error.empty() && !r.calls.empty())) {
    std::fprintf(stderr, "fuzz_manifest: inconsistent report\n");
    std::abort();
  }
  (void)to_text(r);
  return 0;
}
