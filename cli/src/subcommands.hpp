#pragma once
// Internal to cli/: the subcommands and what they share (output streams, JSON mode, progress).
#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kvaddr/translate/variant.hpp"

namespace kvaddr::cli {

// What every subcommand writes to, and how.
struct Context {
  std::ostream& out;
  std::ostream& err;
  bool json = false;      // --json anywhere on the line
  bool progress = false;  // stderr is a terminal and --quiet was not given
  const std::vector<std::string>* line = nullptr;  // the command line after the program name (pictures record it)
};

// Adds "schema": "kvaddr.<name>/1" to a JSON document (an object; anything else is wrapped in
// {"schema", "<key>": value}). Every JSON document the CLI prints goes through this.
nlohmann::json with_schema(nlohmann::json doc, const std::string& name, const std::string& key = "items");

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
  // table routes
  std::string req_to_token, rows, seq_lens, kv_start_idx, page_table;
  std::int64_t max_pages = -1;  // -1: ceil(max(seq_lens) / page_size)
  std::int64_t seq_len_delta = 0;
  std::int64_t fill = -1;
  bool zero_tail = false;
  // kv_indices_inplace
  std::string kv_indices, kv_indptr, src;
  std::int64_t batch_size = -1;  // -1: len(kv_indptr) - 1
};

CLI::App* register_translate(CLI::App& app, TranslateOptions& o);
// The route options of translate (shared with `draw route`).
void add_translate_options(CLI::App* sub, TranslateOptions& o);
void check_translate_options(const TranslateOptions& o, const std::vector<std::string>& given);

// An output buffer as a route left it.
struct Output {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> values;
};
// Runs the route of `o` under `variant`; `ids` receives the parsed ids, `fill` the initial value
// of every output lane of a table route (nullopt for the per-id routes, which write every lane).
std::vector<Output> compute_outputs(const TranslateOptions& o, Variant variant, std::vector<std::int64_t>* ids,
                                    std::optional<std::int64_t>* fill);
// `given` lists the options the user gave (long names, "id" for positional ids).
int run_translate(const TranslateOptions& options, const std::vector<std::string>& given, std::ostream& out);

// The names `--only` accepts: the kill matrix's rows (zoo, draw zoo), the proof obligations
// (prove, draw proofs; dotted prefixes too).
#ifdef KVADDR_WITH_ZOO
std::vector<std::string> zoo_row_names();
#endif
#ifdef KVADDR_WITH_PROOFS
std::vector<std::string> obligation_names();
#endif

// A group of subcommands registered on one application, with the option values they bind. The
// group is owned beside the application (CommandLine, app.hpp) that parses many lines: reset() puts
// every bound value back at its default before each line (CLI11's App::clear() empties the parse
// results, not the bound variables); run() runs the parsed subcommand of the group.
class Subcommands {
 public:
  virtual ~Subcommands() = default;
  virtual void reset() = 0;
  // The exit status of the subcommand the line named. When it named none of the group, draw's
  // returns -1 and the optional areas' (tried last) says "no subcommand ran" and returns 2.
  virtual int run(const Context& ctx) = 0;
};

// draw and the optional areas' subcommands (each registered only when its area was built).
std::unique_ptr<Subcommands> register_extra_subcommands(CLI::App& app);
std::unique_ptr<Subcommands> register_draw(CLI::App& app);

}  // namespace kvaddr::cli
