// Fuzz target: the command line's argument parsing. The input is split into arguments at '\n'
// bytes; the first byte picks the subcommand among the fast ones (translate, replay, an unknown
// name, a help flag), so that parsing, option validation and the integer list parser are
// exercised without starting the long checks (verify, prove, zoo, props, diff, bench). The line
// runs through one cli::CommandLine kept for the whole process (registering every option is most
// of cli::run's time per input); it must return 0, 1 or 2 and never throw. One input in 8 (its size
// a multiple of 8) also runs through a fresh cli::run and must give the same status, stdout and
// stderr (replay excepted: its search is bounded by wall-clock time): a value a line left behind in
// the kept command line would show there. parse_int_list must return values or throw a kvaddr::Error.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"
#include "kvaddr/model/errors.hpp"
#include "args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kFirst[] = {"translate", "replay", "nosuch", "--help", "translate", "translate"};
  static const char* const kSlow[] = {"verify", "prove", "zoo", "props", "diff", "bench"};
  std::vector<std::string> args{kFirst[data[0] % 6]};
  std::string all(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string cur;
  for (char c : all) {
    if (c == '\n') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  args.push_back(cur);
  for (const auto& a : args) {
    for (const char* slow : kSlow) {
      if (a == slow) return 0;
    }
  }
  static kvaddr::cli::CommandLine command_line;
  std::ostringstream out, err;
  const int status = command_line.run(args, out, err);
  if (status < 0 || status > 2) {
    std::fprintf(stderr, "fuzz_cli: exit status %d\n", status);
    std::abort();
  }
  if (size % 8 == 0 && args[0] != "replay") {
    std::ostringstream fresh_out, fresh_err;
    const int fresh = kvaddr::cli::run(args, fresh_out, fresh_err);
    if (fresh != status || out.str() != fresh_out.str() || err.str() != fresh_err.str()) {
      std::fprintf(stderr, "fuzz_cli: the kept command line gave status %d, a fresh one %d\nkept: %s%s\nfresh: %s%s\n",
                   status, fresh, out.str().c_str(), err.str().c_str(), fresh_out.str().c_str(), fresh_err.str().c_str());
      std::abort();
    }
  }
  try {
    (void)kvaddr::cli::parse_int_list(all, "fuzz");
  } catch (const kvaddr::Error&) {
  }
  return 0;
}
