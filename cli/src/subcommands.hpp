#pragma once
// Internal to cli/: the subcommands other than verify.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace kvaddr::cli {

struct TranslateOptions {
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  std::string v2p;
  std::string route = "token_translate";
  std::string variant = "production";
  std::int64_t dcp_size = 1;
  std::int64_t dcp_rank = 0;
  std::int64_t out_width = -1;
  bool int32_out = false;
  bool mamba_clamp = false;
  bool json = false;
  std::string ids_list;
  std::vector<std::string> ids;
};

// Parse a comma/whitespace separated list of int64; `what` names the argument in errors.
std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what);
// A list given inline, or the contents of a file when `text` names an existing file.
std::vector<std::int64_t> parse_list_or_file(const std::string& text, const std::string& what);

int run_translate(const TranslateOptions& options, std::ostream& out);

// prove / props / diff / bench: present when their area was built.
void register_extra_subcommands(CLI::App& app);
int run_extra_subcommands(CLI::App& app, std::ostream& out, std::ostream& err);

}  // namespace kvaddr::cli
