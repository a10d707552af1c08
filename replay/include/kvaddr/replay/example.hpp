#pragma once
// The recorded example shipped under tests/data/replay/example: one call per route of spec
// §4.1-4.13 on one small pool, produced by kvaddr's own host routes, plus calls that
// deliberately carry a bug variant's output while claiming production (so a replay report says
// "matches variant ..."). Deterministic: writing it twice gives identical bytes.
#include <cstdint>
#include <filesystem>

namespace kvaddr::replay {

// Writes manifest.json and the .npy files into `dir` (created if needed; existing files with the
// same names are overwritten).
void write_example(const std::filesystem::path& dir);

// The recordings of the upstream call modes shipped under tests/data/replay/modes (format version 2):
// static pools (no v2p) on flashmla_block_table, canonical_page_table, read_table, full_prefill_table and
// decode_metadata, decode_metadata's canonical-source mode (src_is_kernel_page_table) and its token-level
// full -> SWA slot map, plus four calls that carry a bug's output (or a wrong lane) while claiming production.
void write_modes_example(const std::filesystem::path& dir);

// The recorded example of the inferred behaviours shipped under tests/data/replay/inferred (issue 33,
// docs/variants.md): one call per behaviour (grid_spill@2, era_d_read_table, int32_lengths,
// full_width_page_table, swa_no_padding_guard, stride_ignored(ids), stride0(ids)), each claiming production,
// its outputs written by the host routes under that behaviour. Deterministic.
void write_inferred_example(const std::filesystem::path& dir);

// A large recording for the bounded "behaves like" search (docs/replay.md): one read_table call of
// `rows` rows x 16 columns at page size 1 whose every row has 20 pages (so the spilling variants
// spill), a v2p of `pages` entries, and a recorded table that no variant reproduces. 2047 rows and
// 16384 pages make about 0.4 MB; 131072 pages about 1.3 MB. InvalidArgument outside 1 <= rows <= 2^20,
// 1 <= pages <= 2^24.
void write_large_example(const std::filesystem::path& dir, std::int64_t rows, std::int64_t pages);

}  // namespace kvaddr::replay
