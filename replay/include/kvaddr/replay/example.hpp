#pragma once
// The recorded example shipped under tests/data/replay/example: one call per route of spec
// §4.1-4.13 on one small pool, produced by kvaddr's own host routes, plus calls that
// deliberately carry a bug variant's output while claiming production (so a replay report says
// "matches variant ..."). Deterministic: writing it twice gives identical bytes.
#include <filesystem>

namespace kvaddr::replay {

// Writes manifest.json and the .npy files into `dir` (created if needed; existing files with the
// same names are overwritten).
void write_example(const std::filesystem::path& dir);

}  // namespace kvaddr::replay
