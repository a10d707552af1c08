// Output that cannot be written is an error of its own (issue 36): every subcommand of the real
// `kvaddr` executable, its stdout on /dev/full, exits 2 with one line on stderr naming the failure,
// never 0 or 1 with a truncated document. Also the same check in-process (FdOutput over /dev/full).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kvaddr/cli/app.hpp"

extern char** environ;

namespace {

constexpr const char* kFull = "/dev/full";
constexpr const char* kNoSpace = "kvaddr: cannot write output: No space left on device\n";

struct Process {
  int status = -1;  // exit status, or -1 when it did not exit normally
  std::string err;
};

// Runs the kvaddr executable with `args`, stdout on `out_path`, stderr captured.
Process run_binary(const std::vector<std::string>& args, const char* out_path) {
  const std::string err_path =
      (std::filesystem::temp_directory_path() / ("kvaddr_cli_output_" + std::to_string(::getpid()) + ".err")).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path, O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> line{KVADDR_CLI_BINARY};
  line.insert(line.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : line) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  Process p;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    p.err = std::string("spawn failed: ") + std::strerror(rc);
    return p;
  }
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  p.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  std::ifstream in(err_path);
  std::stringstream text;
  text << in.rdbuf();
  p.err = text.str();
  std::filesystem::remove(err_path);
  return p;
}

bool have_dev_full() { return std::filesystem::exists(kFull); }

std::string data(const std::string& rel) { return std::string(KVADDR_TEST_DATA_DIR) + "/" + rel; }

// Every subcommand (and the top-level flags), each with output it would print successfully.
std::vector<std::vector<std::string>> command_lines() {
  std::vector<std::vector<std::string>> lines{
      {"--version"},
      {"--version", "--json"},
      {"--help"},
      {"translate", "--help"},
      {"translate", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids", "5,9,-1"},
      {"translate", "--page-size", "4", "--v2p", "0,5,-1,2,-1", "--ids", "5", "--json"},
      {"translate", "--page-size", "0", "--v2p", "0,-1", "--ids", "1", "--json"},  // the error document itself
      {"draw", "pool", "--page-size", "4", "--v2p", "0,3,-1,1,-1", "--after", "0,1,-1,2,-1"},
      {"draw", "route", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids", "5,9"},
      {"verify", "--quick", "--json"},
  };
#ifdef KVADDR_WITH_PROOFS
  lines.push_back({"prove", "--list"});
  lines.push_back({"prove", "--only", "I1.algebra"});
  lines.push_back({"draw", "proofs", "--only", "I1.algebra"});
#endif
#ifdef KVADDR_WITH_PROPS
  lines.push_back({"props", "--only", "token_translate_vs_model", "--cases", "3", "--stateful-runs", "0"});
#endif
#ifdef KVADDR_WITH_KERNELS
  lines.push_back({"diff", "--host-only", "--cases", "2", "--seed", "3"});
  lines.push_back({"bench"});
#endif
#ifdef KVADDR_WITH_ZOO
  lines.push_back({"zoo", "--markdown", "--only", "b10_no_max_pages_bound"});  // one variant row: 0.04 s, not 9
#endif
#ifdef KVADDR_WITH_REPLAY
  lines.push_back({"replay", data("replay/example"), "--json"});
#endif
  return lines;
}

TEST(CliOutput, EverySubcommandOnAFullDeviceExitsTwoNamingTheFailure) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this machine";
  for (const auto& args : command_lines()) {
    std::string shown;
    for (const auto& a : args) shown += " " + a;
    // The same line with stdout on /dev/null succeeds (exit 0, or 1 where a shipped example has a
    // planted bug, or 2 for the deliberate error document): the failure below is the write alone.
    const auto ok = run_binary(args, "/dev/null");
    EXPECT_NE(ok.status, -1) << shown;
    const auto r = run_binary(args, kFull);
    EXPECT_EQ(r.status, 2) << "kvaddr" << shown << "\n" << r.err;
    EXPECT_EQ(r.err, kNoSpace) << "kvaddr" << shown;
  }
}

#ifdef KVADDR_WITH_PROPS
TEST(CliOutput, MergeOnAFullDeviceExitsTwo) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this machine";
  const auto shard = std::filesystem::temp_directory_path() / ("kvaddr_cli_output_" + std::to_string(::getpid()) + ".json");
  {
    std::ostringstream out, err;
    ASSERT_EQ(kvaddr::cli::run({"props", "--only", "token_translate_vs_model", "--cases", "3", "--stateful-runs", "0",
                                "--shard", "0/1", "--json"},
                               out, err),
              0)
        << err.str();
    std::ofstream(shard) << out.str();
  }
  EXPECT_EQ(run_binary({"merge", shard.string()}, "/dev/null").status, 0);
  const auto r = run_binary({"merge", shard.string()}, kFull);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, kNoSpace);
  std::filesystem::remove(shard);
}
#endif

// In-process: run() over FdOutput on /dev/full says the same (the executable's main path).
TEST(CliOutput, FdOutputKeepsTheErrnoOfTheFailedWrite) {
  if (!have_dev_full()) GTEST_SKIP() << "no /dev/full on this machine";
  const int fd = ::open(kFull, O_WRONLY);
  ASSERT_GE(fd, 0);
  {
    kvaddr::cli::FdOutput buffer(fd);
    std::ostream out(&buffer);
    std::ostringstream err;
    EXPECT_EQ(kvaddr::cli::run({"--version"}, out, err), 2);
    EXPECT_EQ(err.str(), kNoSpace);
    EXPECT_EQ(buffer.error(), ENOSPC);
  }
  ::close(fd);
  // The same stream buffer on a writable file: every byte arrives, exit 0, nothing on stderr.
  const auto path = std::filesystem::temp_directory_path() / ("kvaddr_cli_output_" + std::to_string(::getpid()));
  const int ok = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(ok, 0);
  {
    kvaddr::cli::FdOutput buffer(ok);
    std::ostream out(&buffer);
    std::ostringstream err;
    EXPECT_EQ(kvaddr::cli::run({"--version"}, out, err), 0);
    EXPECT_EQ(err.str(), "");
    EXPECT_EQ(buffer.error(), 0);
  }
  ::close(ok);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "kvaddr " + std::string(kvaddr::cli::version()) + "\n");
  std::filesystem::remove(path);
}

// A stream that failed without an errno (a stringstream put into a bad state) still exits 2.
TEST(CliOutput, AFailedStreamWithoutErrnoSaysWriteError) {
  std::ostringstream out, err;
  out.setstate(std::ios::badbit);
  EXPECT_EQ(kvaddr::cli::run({"--version"}, out, err), 2);
  EXPECT_EQ(err.str(), "kvaddr: cannot write output: write error\n");
}

}  // namespace
