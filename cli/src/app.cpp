#include "kvaddr/cli/app.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "args.hpp"
#include "kvaddr/model/errors.hpp"
#include "progress.hpp"
#include "shard.hpp"
#include "subcommands.hpp"

#ifndef KVADDR_VERSION
#define KVADDR_VERSION "0.0.0"
#endif

namespace kvaddr::cli {

std::string_view version() noexcept { return KVADDR_VERSION; }

bool FdOutput::drain() {
  const char* p = pbase();
  while (error_ == 0 && p < pptr()) {
    const auto n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = n < 0 ? errno : EIO;
      break;
    }
    p += n;
  }
  setp(buffer_, buffer_ + sizeof buffer_);
  return error_ == 0;
}

FdOutput::int_type FdOutput::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int FdOutput::sync() { return drain() ? 0 : -1; }

nlohmann::json with_schema(nlohmann::json doc, const std::string& name, const std::string& key) {
  if (!doc.is_object()) doc = nlohmann::json{{key, std::move(doc)}};
  doc["schema"] = "kvaddr." + name + "/1";
  return doc;
}

namespace {

std::string pad(const std::string& s, std::size_t w) { return s.size() >= w ? s : s + std::string(w - s.size(), ' '); }

int print_verify(const std::vector<CheckResult>& results, const Context& ctx) {
  bool all = true;
  for (const auto& r : results) all = all && r.passed;
  if (ctx.json) {
    nlohmann::json j;
    j["passed"] = all;
    j["checks"] = nlohmann::json::array();
    for (const auto& r : results) {
      j["checks"].push_back({{"name", r.name}, {"passed", r.passed}, {"skipped", r.skipped}, {"detail", r.detail},
                             {"seconds", r.seconds}});
    }
    ctx.out << with_schema(j, "verify").dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return all ? 0 : 1;
  }
  std::size_t w = 5;
  for (const auto& r : results) w = std::max(w, r.name.size());
  ctx.out << pad("check", w) << "  verdict   seconds  detail\n";
  std::size_t failed = 0, skipped = 0;
  for (const auto& r : results) {
    const char* verdict = r.skipped ? "skipped" : (r.passed ? "pass" : "FAIL");
    ctx.out << pad(r.name, w) << "  " << pad(verdict, 8) << fmt::format("{:8.2f}", r.seconds) << "  " << r.detail
            << "\n";
    failed += r.passed ? 0u : 1u;
    skipped += r.skipped ? 1u : 0u;
  }
  ctx.out << fmt::format("verify: {} checks, {} failed, {} skipped: {}\n", results.size(), failed, skipped,
                         all ? "PASSED" : "FAILED");
  return all ? 0 : 1;
}

// One error: a JSON object on stdout under --json, one line on stderr otherwise; exit status 2.
int fail(const Context& ctx, const std::string& kind, const std::string& message, const std::string& argument = "",
         const std::string& value = "") {
  if (ctx.json) {
    nlohmann::json e{{"kind", kind}, {"message", message}};
    if (!argument.empty()) e["argument"] = argument;
    if (!value.empty()) e["value"] = value;
    ctx.out << with_schema({{"ok", false}, {"error", e}}, "error").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    ctx.err << "kvaddr: " << message << "\n";
  }
  return 2;
}

std::string top_help(const CLI::App& app) {
  std::string s = fmt::format("kvaddr {}: reference model, routes, proofs and checks of KV-cache address translation\n\n"
                              "Usage: kvaddr <subcommand> [options]   (kvaddr <subcommand> --help for its options)\n\n"
                              "Subcommands:\n",
                              version());
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    s += fmt::format("  {:<10} {}\n", sub->get_name(), sub->get_description());
  }
  s += "\nOptions accepted everywhere:\n"
       "  --help, -h     this help (or a subcommand's, with defaults and examples)\n"
       "  --version      print the version\n"
       "  --json         one JSON document on stdout (errors too), with a \"schema\" field (docs/cli-json.md)\n"
       "  --quiet        no progress on stderr (progress is shown only on a terminal)\n"
       "\nExit status: 0 success, 1 a check failed, 2 bad arguments or an error.\n";
  return s;
}

// Every subcommand, nested ones included, takes -h/--help, --json and --quiet.
void add_common_flags(CLI::App& app) {
  for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    sub->set_help_flag("-h,--help", "Print this help (defaults and examples) and exit");
    if (sub->get_option_no_throw("--json") == nullptr) sub->add_flag("--json")->description("Print one JSON document");
    if (sub->get_option_no_throw("--quiet") == nullptr) sub->add_flag("--quiet")->description("No progress on stderr");
    add_common_flags(*sub);
  }
}

// Whether `token` ("--name" or "--name=value") names an option of `sub` or of a nested subcommand.
bool known_option(const CLI::App* sub, const std::string& token) {
  const auto name = token.substr(0, token.find('='));
  if (sub->get_option_no_throw(name) != nullptr || name == "--help" || name == "-h") return true;
  for (const auto* nested : sub->get_subcommands([](const CLI::App*) { return true; })) {
    if (known_option(nested, token)) return true;
  }
  return false;
}

std::vector<std::string> given_options(const CLI::App* sub) {
  std::vector<std::string> given;
  for (const auto* o : sub->get_options()) {
    if (o->count() == 0) continue;
    given.push_back(o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front());
  }
  return given;
}

}  // namespace

// Every subcommand and option registered once, with the values they bind.
struct CommandLine::Impl {
  CLI::App app{"kvaddr"};
  VerifyOptions vopt;
  TranslateOptions topt;
  std::vector<std::string> merge_files;
  CLI::App* verify = nullptr;
  CLI::App* translate = nullptr;
  CLI::App* merge = nullptr;
  std::unique_ptr<Subcommands> extra, draw;

  Impl() {
    app.option_defaults()->always_capture_default();
    app.set_help_flag();  // help is handled in run_line (top level) and by each subcommand
    app.set_help_all_flag();
    verify = app.add_subcommand("verify", "Run every check on embedded defaults and print a verdict table");
    seed_option(verify, vopt.seed, "Seed of the randomised checks");
    verify->add_flag("--quick", vopt.quick, "Smaller budgets (for tests)");
    verify->footer("Example:\n  kvaddr verify            # every check, exit 0 only if all pass\n"
                   "  kvaddr verify --json --seed 7");
    translate = register_translate(app, topt);
    extra = register_extra_subcommands(app);
    draw = register_draw(app);
    merge = register_merge(app, merge_files);
    add_common_flags(app);
  }

  // Every bound value back at its default (the options hold them by reference, so the objects stay
  // where they are) and CLI11's parse results emptied: the next line sees nothing of the last one.
  void reset() {
    vopt = VerifyOptions{};
    topt = TranslateOptions{};
    merge_files.clear();
    extra->reset();
    draw->reset();
    app.clear();
  }

  int run_line(const std::vector<std::string>& line, std::ostream& out, std::ostream& err);
};

// The command line without the final check of the output stream (CommandLine::run adds it).
int CommandLine::Impl::run_line(const std::vector<std::string>& line, std::ostream& out, std::ostream& err) {
  bool json = false, quiet = false;
  for (const auto& a : line) {
    json = json || a == "--json";
    quiet = quiet || a == "--quiet";
  }
  // --json / --quiet may also come before the subcommand.
  std::vector<std::string> args(line.begin(), line.end());
  while (!args.empty() && (args[0] == "--json" || args[0] == "--quiet")) args.erase(args.begin());
  const bool tty = &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
  Context ctx{out, err, json, tty && !quiet, &line};

  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    if (args.empty()) {
      if (json) return fail(ctx, "usage", "no subcommand given (see kvaddr --help)", "subcommand", "");
      err << top_help(app);
      return 2;
    }
    out << top_help(app);
    return 0;
  }
  if (args[0] == "--version" || args[0] == "-V") {
    if (json) {
      out << with_schema({{"version", version()}}, "version").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      out << "kvaddr " << version() << "\n";
    }
    return 0;
  }
  CLI::App* chosen = nullptr;
  try {
    chosen = app.get_subcommand(args[0]);
  } catch (const CLI::OptionNotFound&) {
  }
  if (chosen == nullptr) {
    const bool option = !args[0].empty() && args[0][0] == '-';
    return fail(ctx, "usage",
                fmt::format("unknown {} '{}' (see kvaddr --help)", option ? "option" : "subcommand", args[0]),
                option ? args[0] : "subcommand", args[0]);
  }

  if (const auto nested = chosen->get_subcommands([](const CLI::App*) { return true; }); !nested.empty()) {
    std::string names;
    for (const auto* n : nested) names += (names.empty() ? "" : ", ") + n->get_name();
    const bool help = args.size() > 1 && (args[1] == "--help" || args[1] == "-h");
    if (args.size() < 2 || (!help && args[1].rfind('-', 0) == 0)) {
      return fail(ctx, "usage", fmt::format("kvaddr {} needs a subcommand: {}", args[0], names), "subcommand", "");
    }
    if (!help && chosen->get_subcommands([&](const CLI::App* a) { return a->get_name() == args[1]; }).empty()) {
      return fail(ctx, "usage", fmt::format("unknown subcommand '{}' for kvaddr {} (one of: {})", args[1], args[0], names),
                  "subcommand", args[1]);
    }
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    const CLI::App* shown = chosen;  // the innermost subcommand named on the line
    for (std::size_t i = 1; i < args.size(); ++i) {
      const auto nested = shown->get_subcommands([&](const CLI::App* a) { return a->get_name() == args[i]; });
      if (!nested.empty()) shown = nested.front();
    }
    // The usage line names the whole command ("Usage: kvaddr draw pool [OPTIONS]").
    std::string prefix = "kvaddr";
    std::vector<std::string> parents;
    for (const auto* p = shown->get_parent(); p != nullptr && p != &app; p = p->get_parent()) parents.push_back(p->get_name());
    for (auto it = parents.rbegin(); it != parents.rend(); ++it) prefix += " " + *it;
    out << shown->help(prefix);
    return 0;
  } catch (const CLI::ExtrasError& e) {
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i].size() > 1 && args[i][0] == '-' && !known_option(chosen, args[i]) &&
          !(args[i].size() > 1 && (std::isdigit(static_cast<unsigned char>(args[i][1])) != 0))) {
        return fail(ctx, "usage",
                    fmt::format("unknown option '{}' for kvaddr {} (see kvaddr {} --help)", args[i], args[0], args[0]),
                    args[i], args[i]);
      }
    }
    return fail(ctx, "usage", fmt::format("kvaddr {}: {}", args[0], e.what()));
  } catch (const kvaddr::Error& e) {
    return fail(ctx, std::string(to_string(e.kind())), e.what(), e.argument(), e.value());
  } catch (const CLI::ParseError& e) {
    return fail(ctx, "usage", fmt::format("kvaddr {}: {}", args[0], e.what()));
  }

  try {
    if (verify->parsed()) {
      Heartbeat beat(ctx, "verify");
      vopt.progress = [&beat](const std::string& phase, std::int64_t done, std::int64_t total,
                              const std::string& item) { beat.step(phase, done, total, item); };
      const auto results = run_verify_checks(vopt);
      beat.stop();
      return print_verify(results, ctx);
    }
    if (translate->parsed()) {
      topt.json = json;
      return run_translate(topt, given_options(translate), out);
    }
    if (merge->parsed()) {
      return with_report_file(merge, ctx, [&](const Context& c) { return run_merge(merge_files, c.out); });
    }
    if (auto status = draw->run(ctx); status >= 0) return status;
    return with_report_file(chosen, ctx, [&](const Context& c) { return extra->run(c); });
  } catch (const kvaddr::Error& e) {
    return fail(ctx, std::string(to_string(e.kind())), e.what(), e.argument(), e.value());
  } catch (const std::exception& e) {
    return fail(ctx, "error", e.what());
  }
}

CommandLine::CommandLine() : impl_(std::make_unique<Impl>()) {}
CommandLine::~CommandLine() = default;

int run(const std::vector<std::string>& line, std::ostream& out, std::ostream& err) {
  return CommandLine().run(line, out, err);
}

int CommandLine::run(const std::vector<std::string>& line, std::ostream& out, std::ostream& err) {
  impl_->reset();
  const int status = impl_->run_line(line, out, err);
  // Every subcommand's output ends here: a write that failed (a full disk, /dev/full, a closed
  // pipe) is an error of its own, whatever the subcommand returned, never a truncated document
  // under exit 0 or 1. The one line goes to stderr (stdout is what failed).
  out.flush();
  if (out.fail()) {
    const auto* fd = dynamic_cast<const FdOutput*>(out.rdbuf());
    const int code = fd != nullptr ? fd->error() : 0;
    err << "kvaddr: cannot write output: " << (code != 0 ? std::strerror(code) : "write error") << "\n" << std::flush;
    return 2;
  }
  return status;
}

}  // namespace kvaddr::cli
