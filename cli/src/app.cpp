#include "kvaddr/cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvaddr/model/errors.hpp"
#include "subcommands.hpp"

namespace kvaddr::cli {

namespace {

std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

int print_verify(const std::vector<CheckResult>& results, bool json, std::ostream& out) {
  bool all = true;
  for (const auto& r : results) all = all && r.passed;
  if (json) {
    nlohmann::json j;
    j["passed"] = all;
    j["checks"] = nlohmann::json::array();
    for (const auto& r : results) {
      j["checks"].push_back({{"name", r.name}, {"passed", r.passed}, {"skipped", r.skipped}, {"detail", r.detail},
                             {"seconds", r.seconds}});
    }
    out << j.dump(2) << "\n";
  } else {
    std::size_t w = 5;
    for (const auto& r : results) w = std::max(w, r.name.size());
    out << pad("check", w) << "  verdict   seconds  detail\n";
    for (const auto& r : results) {
      const char* verdict = r.skipped ? "skipped" : (r.passed ? "pass" : "FAIL");
      out << pad(r.name, w) << "  " << pad(verdict, 8) << fmt::format("{:8.2f}", r.seconds) << "  " << r.detail
          << "\n";
    }
    std::size_t failed = 0, skipped = 0;
    for (const auto& r : results) {
      failed += r.passed ? 0u : 1u;
      skipped += r.skipped ? 1u : 0u;
    }
    out << fmt::format("verify: {} checks, {} failed, {} skipped: {}\n", results.size(), failed, skipped,
                       all ? "PASSED" : "FAILED");
  }
  return all ? 0 : 1;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"kvaddr: reference model, routes, proofs and checks of KV-cache address translation"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Expand all help");

  // verify ---------------------------------------------------------------------------------
  auto* verify = app.add_subcommand("verify", "Run every check on embedded defaults and print a verdict table");
  bool verify_json = false;
  VerifyOptions vopt;
  verify->add_flag("--json", verify_json, "Print one JSON object");
  verify->add_option("--seed", vopt.seed, "Seed of the randomised checks");
  verify->add_flag("--quick", vopt.quick, "Smaller budgets (for tests)");

  // translate ------------------------------------------------------------------------------
  TranslateOptions topt;
  auto* translate = app.add_subcommand("translate", "Translate ids through one route for a given geometry and table");
  translate->add_option("--page-size", topt.page_size, "Page size ps (>= 1)")->required();
  translate->add_option("--multiplier", topt.multiplier, "Multiplier M (>= 1); M_swa for swa_translate");
  translate->add_option("--v2p", topt.v2p, "v2p table as stored (comma list, or a file of numbers); "
                                           "include the trailing -1 sentinel row")
      ->required();
  translate->add_option("--route", topt.route, "Route: token_translate, swa_translate, write_loc, mamba_translate, "
                                               "dcp_read_translate, transfer_ids, eager_funnel");
  translate->add_option("--variant", topt.variant, "production or a bug variant accepted by the route");
  translate->add_option("--dcp-size", topt.dcp_size, "DCP size (write_loc, dcp_read_translate)");
  translate->add_option("--dcp-rank", topt.dcp_rank, "DCP rank (write_loc)");
  translate->add_option("--out-width", topt.out_width, "write_loc output width (>= number of ids)");
  translate->add_flag("--int32", topt.int32_out, "Write an int32 output (token_translate, swa_translate)");
  translate->add_flag("--mamba-clamp", topt.mamba_clamp, "Clamp mamba_translate at 0 (spec Q3)");
  translate->add_flag("--json", topt.json, "Print one JSON object");
  translate->add_option("--ids", topt.ids_list, "Ids as a comma list (use for negative ids)");
  translate->add_option("id", topt.ids, "Ids to translate (positional)");

  register_extra_subcommands(app);

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "kvaddr: " << e.what() << "\n";
    return 2;
  }

  try {
    if (verify->parsed()) return print_verify(run_verify_checks(vopt), verify_json, out);
    if (translate->parsed()) return run_translate(topt, out);
    return run_extra_subcommands(app, out, err);
  } catch (const kvaddr::Error& e) {
    err << "kvaddr: " << e.what() << "\n";
    return 2;
  } catch (const CLI::Error& e) {
    err << "kvaddr: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "kvaddr: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace kvaddr::cli
