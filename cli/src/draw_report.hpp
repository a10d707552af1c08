#pragma once
// Pictures of other commands' reports (draw/ stays independent of them): the kill matrix of a
// zoo report, the differing lanes of replay calls and of a differential mismatch.
#include <filesystem>
#include <string>

#include "kvaddr/draw/draw.hpp"
#include "subcommands.hpp"

#ifdef KVADDR_WITH_ZOO
#include "kvaddr/zoo/zoo.hpp"
#endif
#ifdef KVADDR_WITH_REPLAY
#include "kvaddr/replay/replay.hpp"
#endif
#ifdef KVADDR_WITH_KERNELS
#include "kvaddr/kernels/diff.hpp"
#endif

namespace kvaddr::cli {

// What made a picture, as the comment every SVG of the CLI carries at its top: one JSON object
// {"command": ["kvaddr", arguments...], "inputs": {...}}. XML comments cannot hold "--", so a "-"
// that follows a "-" is written \u002d (a JSON escape: any JSON reader gives the text back).
std::string provenance(const Context& ctx, const nlohmann::json& inputs);
// `svg` with that comment after its XML declaration.
std::string with_provenance(const std::string& svg, const Context& ctx, const nlohmann::json& inputs);

// Writes `svg` to `path` (InvalidArgument "--svg" with "cannot write" on failure).
void write_svg_file(const std::filesystem::path& path, const std::string& svg);
// Creates `dir` when missing; InvalidArgument naming `option` when it cannot.
void make_svg_dir(const std::filesystem::path& dir, const std::string& option);

#ifdef KVADDR_WITH_ZOO
draw::Matrix kill_matrix(const zoo::ZooReport& report);
#endif
#ifdef KVADDR_WITH_REPLAY
// One SVG per differing call (DIR/call-<position>.svg): its first differing lanes, recorded vs
// expected. Returns the number of files written.
int replay_pictures(const replay::ReplayReport& report, const std::filesystem::path& dir, const Context& ctx);
#endif
#ifdef KVADDR_WITH_KERNELS
// DIR/first-mismatch.svg when the report has a mismatch; returns the number of files written.
int diff_pictures(const gpu::DiffReport& report, const std::filesystem::path& dir, const Context& ctx);
#endif

}  // namespace kvaddr::cli
