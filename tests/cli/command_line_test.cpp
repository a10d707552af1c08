// cli::CommandLine: the command line registered once and run on many lines (the fuzz target's way).
// Each line must do what a fresh cli::run does with it: no option value of an earlier line survives.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"
#include "run_cli.hpp"

namespace {

using kvaddr::cli_test::run;
using Line = std::vector<std::string>;

struct Case {
  const char* what;
  Line first;       // sets options away from their defaults
  Line second;      // leaves them at their defaults
  int status;       // of the second line
  std::string out;  // of the second line
};

// Each first line gives options the second does not; with any of them left over the second line's
// output (or status) is another one.
const std::vector<Case> kCases = {
    {"an integer option (--multiplier 3, default 1)",
     {"translate", "--page-size", "2", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids", "1,2,-1"},
     {"translate", "--page-size", "2", "--v2p", "0,5,-1,2,-1", "--ids", "1,2,-1"},
     0,
     "1 -> 1\n2 -> 10\n-1 -> 0\n"},
    {"string options (--route write_loc, default token_translate) and the write_loc options",
     {"translate", "--route", "write_loc", "--page-size", "2", "--v2p", "0,3,-1", "--dcp-size", "2", "--dcp-rank", "1",
      "--out-width", "5", "--ids", "3,4,0"},
     {"translate", "--page-size", "2", "--v2p", "0,3,-1", "--ids", "3,4,0"},
     0,
     "3 -> 7\n4 -> 0\n0 -> 0\n"},
    {"positional ids (a vector option)",
     {"translate", "--page-size", "1", "--v2p", "0,5,-1", "1"},
     {"translate", "--page-size", "1", "--v2p", "0,5,-1", "--ids", "0"},
     0,
     "0 -> 0\n"},
    {"a flag and list options of draw pool (--simulate, --page-size 2, --multiplier 2)",
     {"draw", "pool", "--simulate", "--page-size", "2", "--multiplier", "2"},
     {"draw", "pool", "--v2p", "0,1,-1"},
     0,
     "pool: ps 1, M 1, S = 1; P0 is the sink\n  v0    -> P0    (sink) rows [0,1)\n  v1    -> P1    rows [1,2)\n"
     "  v2    sentinel (-1)\n"},
    {"a line that failed in the parse (--multiplier given twice, after --page-size 4)",
     {"translate", "--page-size", "4", "--multiplier", "2", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids", "1"},
     {"translate", "--page-size", "2", "--v2p", "0,5,-1,2,-1", "--ids", "1,2,-1"},
     0,
     "1 -> 1\n2 -> 10\n-1 -> 0\n"},
};

TEST(CliCommandLine, ASecondLineSeesNoOptionOfTheFirst) {
  for (const auto& c : kCases) {
    kvaddr::cli::CommandLine command_line;
    const auto first = run(command_line, c.first);
    EXPECT_EQ(first.status, run(c.first).status) << c.what;
    const auto second = run(command_line, c.second);
    EXPECT_EQ(second.status, c.status) << c.what << ": " << second.err;
    EXPECT_EQ(second.out, c.out) << c.what;
    EXPECT_EQ(second.err, "") << c.what;
  }
}

// The first lines of the cases above change the second line's outcome when they are not reset:
// without this the test above could pass with lines that ignore each other.
TEST(CliCommandLine, EachFirstLineAloneGivesAnotherOutcome) {
  for (const auto& c : kCases) {
    const auto first = run(c.first);
    EXPECT_TRUE(first.status != c.status || first.out != c.out) << c.what;
  }
}

// Every line of a sequence (successes, usage errors, help, errors of the checks) gives through one
// kept command line the status, stdout and stderr that a fresh cli::run gives.
TEST(CliCommandLine, ASequenceMatchesFreshRunsLineByLine) {
  const std::vector<Line> lines = {
      {"translate", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids", "5,9,13,-1", "--int32",
       "--json"},
      {"translate", "--help"},
      {"translate", "--page-size", "0", "--v2p", "0,-1", "--ids", "1"},
      {"--json", "translate", "--page-size", "1", "--v2p", "0,-1", "--ids", "7"},
      {"nosuch"},
      {"--version"},
      {"draw", "pool", "--v2p", "0,3,-1,1,-1", "--after", "0,1,-1,2,-1", "--page-size", "4", "--json"},
      {"draw", "--help"},
      {"draw", "pool", "--help"},
      {"merge"},
      {"translate", "--page-size", "4", "--v2p", "0,5,-1,2,-1", "--ids", "5,9,13,-1", "--json"},
      {"translate", "--frobnicate"},
      {"translate", "--page-size", "2", "--v2p", "0,3,-1", "--ids", "3,4,0"},
  };
  kvaddr::cli::CommandLine command_line;
  for (const auto& line : lines) {
    const auto kept = run(command_line, line);
    const auto fresh = run(line);
    EXPECT_EQ(kept.status, fresh.status) << line[0] << " " << (line.size() > 1 ? line[1] : "");
    EXPECT_EQ(kept.out, fresh.out) << line[0] << " " << (line.size() > 1 ? line[1] : "");
    EXPECT_EQ(kept.err, fresh.err) << line[0] << " " << (line.size() > 1 ? line[1] : "");
  }
}

}  // namespace
