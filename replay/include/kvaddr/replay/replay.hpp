#pragma once
// Replay of recorded kernel calls (docs/replay.md). A directory holds `manifest.json` and one
// .npy file per array of each call: every input, each output buffer as it was before the call
// and as the kernel left it. Each call is re-run through kvaddr's host route (translate/) on the
// recorded "before" buffers, under the variant the call claims, and the whole output buffer is
// compared with the recorded "after" one, lane by lane (so lanes that must stay untouched are
// checked too). Every other variant the route accepts is run as well, to say which named bug
// variant, if any, the recorded output matches exactly. Under a variant whose rows spill into
// other rows' lanes (grid_spill, B10, E01 on canonical_page_table / read_table), lanes that several
// rows store to with different values race on the device: each such lane accepts every value
// stored to it ("matches up to a race", CallStatus::race for the claimed variant, docs/replay.md).
//
// replay_dir never throws: a broken or unreadable manifest is a report-level error, a broken call
// (missing or unreadable file, a file outside DIR, wrong dtype or rank, shapes that disagree with
// each other or with the scalars, unknown route, variant or key) is a per-call error, and the
// other calls are still checked. Every string of a report is valid UTF-8, whatever bytes the
// manifest, the .npy files or the directory name held.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/races.hpp"

namespace kvaddr::replay {

enum class CallStatus {
  equal,    // the recorded outputs equal the claimed variant's outputs on every lane
  differs,  // at least one lane differs (see diffs)
  error,    // the call could not be checked (see error)
  // The claimed variant's grid writes some lanes from several rows with different values (a race
  // on the device); every contested lane holds one of its possible values and every other lane
  // equals the claimed variant's output (see races).
  race,
};
std::string_view to_string(CallStatus s) noexcept;  // "equal", "differs", "error", "race"

// RaceWrite (one store to a lane several programs write): kvaddr/replay/races.hpp.

struct LaneDiff {
  std::string output;                // output array name, e.g. "out", "page_table"
  std::int64_t flat = 0;             // C-order element index
  std::vector<std::int64_t> index;   // multi-dimensional index (one entry per dimension)
  std::int64_t expected = 0;         // what the claimed variant writes
  std::int64_t recorded = 0;         // what the recorded kernel left
  // "" for a lane of the output itself; "guard before" / "guard after" for a lane of a guard
  // region of a sliced output (flat is then relative to the output's first lane: -1 is the guard
  // lane just before it, and index is {flat}); "guard column" for a lane of an output with a row
  // stride that lies between the row's width and its stride (index is {row, column}, column >= width);
  // "past width" for a lane of a 2-D output at a column at or past its "presented" visible width.
  std::string region;
  // A contested lane (a race under the claimed variant): every store the grid makes to it, in the
  // host's row order; the recorded value is none of their values. Empty for an ordinary lane.
  std::vector<RaceWrite> writes;
};

// A lane that a variant's grid writes from several rows with different values.
struct RaceCell {
  std::string output;
  std::int64_t flat = 0;              // as LaneDiff::flat
  std::vector<std::int64_t> index;    // as LaneDiff::index
  std::string region;                 // as LaneDiff::region ("" or "guard column")
  std::vector<RaceWrite> writes;      // every store to the lane, in the host's row order
  std::vector<std::int64_t> possible; // their distinct values, ascending
  std::int64_t recorded = 0;          // what the recorded kernel left
  bool recorded_possible = false;     // recorded is one of `possible`
};

// The race of one variant on one call: the lanes its grid writes from several rows with different
// values. consistent: the recording is one of the variant's possible outputs (every contested lane
// holds one of its possible values, every other lane equals the variant's output): the recording
// "matches the variant up to a race".
struct Race {
  std::string variant;
  bool consistent = false;
  std::int64_t cells_contested = 0;
  std::vector<RaceCell> cells;        // the first contested lanes (at most kMaxDiffs)
};

// A behaviour inferred from the differing lanes of a call and confirmed by re-execution (issue 33):
// the parametrised variant reproduces every recorded lane of the call.
struct Inferred {
  std::string variant;       // claimable spelling, e.g. "grid_spill@4"
  std::string description;   // one line with its parameters, e.g. "spills past max_pages = 2 up to column 4"
  std::int64_t lanes_explained = 0;    // the differing lanes it reproduces (all of them)
  std::int64_t stores_unrecorded = 0;  // its stores past every recorded lane (not observable in the recording)
};

struct CallReport {
  std::size_t position = 0;                  // index in the manifest's "calls" array
  std::string name;                          // the call's "name" (or "call <position>")
  std::string route;                         // as written in the manifest
  std::string variant = "production";        // claimed variant
  CallStatus status = CallStatus::error;
  std::string error;                         // status == error: what is wrong with the call
  std::int64_t lanes_checked = 0;            // output elements compared
  // True when the expected outputs were also recomputed by the independent reference model
  // (model/, token-granular routes under production) and agreed with the host route.
  bool model_checked = false;
  std::int64_t lanes_differing = 0;          // differing elements, all outputs together
  std::vector<LaneDiff> diffs;               // the first differing lanes (at most kMaxDiffs)
  // Variants (production included) that reproduce the recorded output: exactly, or up to a race
  // (the variant's grid races on this call and the recording is one of its possible outputs; such
  // a variant also has an entry in races). When status == differs, these explain the recording
  // ("matches variant b10_...").
  std::vector<std::string> matching_variants;
  // The races of the claimed variant (consistent or not) and of every matching variant whose grid
  // writes some lane from several rows with different values; empty when no such write exists.
  std::vector<Race> races;
  // Production-contract preconditions the recorded call breaks (translate/preconditions.hpp), each
  // naming its row and numbers: the variants above then say what the kernel did with such a call.
  std::vector<std::string> broken_preconditions;
  // The "behaves like" search ran out of its budget (SearchBudget) after this many candidates:
  // matching_variants then lists only what was found before it stopped.
  std::optional<std::int64_t> search_stopped_after;
  // status == error: the kind of the error (kvaddr::ErrorKind's names: "io" for a missing or
  // unreadable file or one outside DIR, "format" for a malformed .npy image, "invalid_argument" for
  // a call the manifest states wrongly, ...).
  std::string error_kind;
  // The claimed variant raised on the recorded inputs (production's Overflow on an int32 output that
  // wrapped, a spill past the buffer): the call is a difference to explain (status differs, nothing
  // compared against the claim), and this is the route's message.
  std::string claim_raises;
  // When no catalogue variant reproduces a differing call: the inferred behaviours, each confirmed on
  // every recorded lane, or why none is ("not explained within the bound ...").
  std::vector<Inferred> inferred;
  std::string not_explained;
};

struct ReplayReport {
  std::filesystem::path dir;
  std::string error;  // manifest-level problem (missing/unparsable manifest.json); calls is then empty
  std::string error_kind;  // its kind, as CallReport::error_kind ("io" when manifest.json cannot be read)
  std::vector<CallReport> calls;

  std::size_t count(CallStatus s) const noexcept;
  bool ok() const noexcept;  // no manifest error and every call equal or race
};

inline constexpr std::size_t kMaxDiffs = 8;

// The work the "behaves like" search may spend on one call: it tries at most max_candidates
// variants and starts no new one after max_seconds of wall clock; when either ends it, the call
// reports "search stopped after N candidates" (CallReport::search_stopped_after).
inline constexpr std::int64_t kDefaultSearchCandidates = 4096;
inline constexpr double kDefaultSearchSeconds = 5.0;
struct SearchBudget {
  std::int64_t max_candidates = kDefaultSearchCandidates;
  double max_seconds = kDefaultSearchSeconds;
};

struct ReplayOptions {
  // By default a manifest may only name files inside DIR (no absolute path, no "..", no symbolic
  // link resolving outside DIR), manifest.json included; true lifts that confinement.
  bool allow_outside = false;
  SearchBudget search;
};

// The files of a replay directory under the rules replay_dir reads them with (Python's
// kvaddr.assert_replay reads through these): manifest.json (confined to DIR like every file unless
// options.allow_outside, at most 64 MiB, parsed under replay's limits and returned as compact JSON
// text), and the .npy file a manifest names. Throw kvaddr::IoError (missing, unreadable, outside
// DIR) or kvaddr::FormatError (malformed JSON or .npy image; the text never quotes the file).
std::string read_manifest(const std::filesystem::path& dir, const ReplayOptions& options = {});
NpyArray read_dir_npy(const std::filesystem::path& dir, const std::string& name, const ReplayOptions& options = {});
// The values of one input as replay reads them from its manifest entry (JSON text: a file name, a slice
// {"file", "offset", "size"} or a strided view {"file", "offset", "shape", "strides"}), int32 or int64,
// 1-D or 2-D, widened to int64 in `values` (dtype says which). The error of the entry (IoError,
// FormatError, InvalidArgument) is the kind replay reports for it.
NpyArray read_dir_input(const std::filesystem::path& dir, const std::string& entry, const ReplayOptions& options = {});

// Replay every call of DIR/manifest.json.
ReplayReport replay_dir(const std::filesystem::path& dir, const ReplayOptions& options = {});
// Replay the calls of manifest.json text whose .npy paths are relative to `dir`.
ReplayReport replay_manifest(std::string_view manifest_text, const std::filesystem::path& dir,
                             const ReplayOptions& options = {});

// {"dir", "ok", "error"?, "error_kind"?, "summary": {"calls", "equal", "differs", "error", "race"?}, "calls": [{"position",
//  "name", "route", "variant", "status", "error"?, "error_kind"?, "lanes_checked", "model_checked", "lanes_differing",
//  "search_stopped_after"?, "diffs": [{"output",
//  "flat", "index", "expected", "recorded", "region"?, "writes"?}], "matching_variants": [...],
//  "broken_preconditions"?, "races"?: [{"variant", "consistent", "cells_contested", "cells": [{"output", "flat",
//  "index", "region"?, "writes": [{"row", "value"}], "possible", "recorded", "recorded_possible"}]}]}]}
// ("race" in the summary, "writes", "races" only when present / non-zero.)
// Returned as JSON text (indent 2), always valid UTF-8.
std::string to_json(const ReplayReport& report);
// One block per call, then a summary line; suitable for a terminal.
std::string to_text(const ReplayReport& report);
// Suggested process exit status: 0 if ok(), 1 otherwise.
int exit_code(const ReplayReport& report) noexcept;

}  // namespace kvaddr::replay
