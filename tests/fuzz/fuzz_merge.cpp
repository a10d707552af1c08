// Fuzz target: `kvaddr merge`. The input is up to 8 shard reports separated by 0x1e bytes (the seeds
// are real --shard reports of diff, props, the lifecycle campaign, prove and zoo). Each is read
// through replay::read_json (the one depth and size limit), then merged. Every rejection must be a
// kvaddr::Error; anything else escaping (a JSON type error, a crash, a sanitizer report) fails the run,
// and a merged report must dump and parse back.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/json.hpp"
#include "shard.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> texts(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0x1e) {
      if (texts.size() == 8) break;
      texts.emplace_back();
    } else {
      texts.back().push_back(static_cast<char>(data[i]));
    }
  }
  std::vector<nlohmann::json> docs;
  std::vector<std::string> names;
  try {
    for (std::size_t k = 0; k < texts.size(); ++k) {
      names.push_back("shard" + std::to_string(k) + ".json");
      docs.push_back(kvaddr::replay::read_json(texts[k], names.back()));
    }
    const nlohmann::json merged = kvaddr::cli::merge_reports(docs, names);
    const std::string text = merged.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)kvaddr::cli::report_passed(merged);
    if (nlohmann::json::parse(text, nullptr, false).is_discarded()) {
      std::fprintf(stderr, "fuzz_merge: the merged report does not parse back\n");
      std::abort();
    }
  } catch (const kvaddr::Error&) {
  }
  return 0;
}
