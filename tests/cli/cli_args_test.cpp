// The command line explains itself: version, help, named errors, JSON errors with a schema,
// strict integer options, arrays from lists / files / .npy, and every route through translate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "args.hpp"
#include "progress.hpp"
#include "kvaddr/cli/app.hpp"
#include "run_cli.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/route_list.hpp"
#ifdef KVADDR_WITH_REPLAY
#include "kvaddr/replay/npy.hpp"
#endif

namespace {

using kvaddr::cli_test::Outcome;
using kvaddr::cli_test::run;

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::filesystem::path temp_dir() {
  auto d = std::filesystem::temp_directory_path() / ("kvaddr_cli_args_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

// ---- version and help ---------------------------------------------------------------------------

TEST(CliHelp, GlobalFlagsMayPrecedeTheSubcommand) {
  auto r = run({"--json", "translate", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids", "5"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["out"], std::vector<std::int64_t>{61});
}

TEST(CliHelp, VersionPlainAndJson) {
  auto r = run({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "kvaddr 0.1.0\n");
  r = run({"--version", "--json"});
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "kvaddr.version/1");
  EXPECT_EQ(j["version"], "0.1.0");
}

TEST(CliHelp, TopLevelListsEverySubcommandOnOneLine) {
  auto r = run({"--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* sub : {"verify", "translate", "draw"}) {
    int lines = 0;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) lines += line.rfind(std::string("  ") + sub + " ", 0) == 0 ? 1 : 0;
    EXPECT_EQ(lines, 1) << sub << "\n" << r.out;
  }
  // No arguments: the same help on stderr and exit 2.
  auto none = run({});
  EXPECT_EQ(none.status, 2);
  EXPECT_TRUE(has(none.err, "Subcommands:"));
}

TEST(CliHelp, EverySubcommandHelpShowsDefaultsAndAnExample) {
  auto top = run({"--help"});
  std::istringstream in(top.out.substr(top.out.find("Subcommands:")));
  std::string line;
  std::getline(in, line);
  int seen = 0;
  while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
    const auto name = line.substr(2, line.find(' ', 2) - 2);
    auto r = run({name, "--help"});
    EXPECT_EQ(r.status, 0) << name;
    EXPECT_TRUE(has(r.out, "Example")) << name << "\n" << r.out;
    ++seen;
  }
  EXPECT_GE(seen, 3);
  auto t = run({"translate", "--help"});
  EXPECT_TRUE(has(t.out, "token_translate")) << t.out;  // the --route default
  EXPECT_TRUE(has(t.out, "ceil(max(seq_lens) / page_size)")) << t.out;
}

// ---- named errors, JSON errors ------------------------------------------------------------------

TEST(CliErrors, UnknownSubcommandAndOptionAreNamed) {
  auto r = run({"frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "unknown subcommand 'frobnicate'")) << r.err;
  r = run({"translate", "--bogus", "1", "--page-size", "1", "--v2p", "0,-1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "unknown option '--bogus'")) << r.err;
  r = run({"--bogus"});
  EXPECT_TRUE(has(r.err, "unknown option '--bogus'")) << r.err;
  r = run({"draw", "nosuch"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "unknown subcommand 'nosuch' for kvaddr draw (one of: pool, route, zoo, proofs)")) << r.err;
  r = run({"draw"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "kvaddr draw needs a subcommand")) << r.err;
  r = run({"draw", "pool", "--bogus"});
  EXPECT_TRUE(has(r.err, "unknown option '--bogus'")) << r.err;
  r = run({"draw", "pool", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "--simulate")) << r.out;  // the nested subcommand's own help
}

TEST(CliErrors, JsonErrorIsAnObjectOnStdout) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"--json"},
           {"--json", "frobnicate"},
           {"frobnicate", "--json"},
           {"translate", "--json", "--bogus"},
           {"translate", "--json", "--page-size", "x", "--v2p", "0,-1"},
           {"translate", "--json", "--page-size", "1", "--v2p", "0,-1", "--ids", "9"}}) {
    auto r = run(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "");
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], "kvaddr.error/1");
    EXPECT_EQ(j["ok"], false);
    EXPECT_TRUE(j["error"]["message"].is_string());
    EXPECT_TRUE(j["error"]["kind"].is_string());
  }
  auto r = run({"translate", "--json", "--page-size", "99999999999999999999", "--v2p", "0,-1"});
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["error"]["argument"], "--page-size");
  EXPECT_EQ(j["error"]["value"], "99999999999999999999");
  EXPECT_EQ(j["error"]["kind"], "invalid_argument");
}

// ---- strict integers: both sides of each boundary -----------------------------------------------

TEST(CliIntegers, ParseIntBoundaries) {
  using kvaddr::cli::parse_int;
  EXPECT_EQ(parse_int("9223372036854775807", "--x", 1, INT64_MAX), INT64_MAX);
  EXPECT_THROW(parse_int("9223372036854775808", "--x", 1, INT64_MAX), kvaddr::InvalidArgument);
  EXPECT_EQ(parse_int("-9223372036854775808", "--x", INT64_MIN, 0), INT64_MIN);
  EXPECT_THROW(parse_int("-9223372036854775809", "--x", INT64_MIN, 0), kvaddr::InvalidArgument);
  EXPECT_EQ(parse_int("1", "--x", 1, 5), 1);
  EXPECT_THROW(parse_int("0", "--x", 1, 5), kvaddr::InvalidArgument);
  EXPECT_EQ(parse_int("5", "--x", 1, 5), 5);
  EXPECT_THROW(parse_int("6", "--x", 1, 5), kvaddr::InvalidArgument);
  EXPECT_EQ(parse_int("+3", "--x", 1, 5), 3);
  for (const char* bad : {"", "3x", "0x10", "1e3", " 3", "3 ", "--3", "+", "-"}) {
    EXPECT_THROW(parse_int(bad, "--x", -10, 10), kvaddr::InvalidArgument) << bad;
  }
  try {
    parse_int("99999999999999999999", "--page-size", 1, INT64_MAX);
    FAIL();
  } catch (const kvaddr::InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "--page-size");
    EXPECT_EQ(e.value(), "99999999999999999999");
    EXPECT_TRUE(has(e.what(), "out of range"));
  }
}

TEST(CliIntegers, SeedIsUnsigned64WithoutWrap) {
  using kvaddr::cli::parse_uint;
  EXPECT_EQ(parse_uint("18446744073709551615", "--seed"), UINT64_MAX);
  EXPECT_THROW(parse_uint("18446744073709551616", "--seed"), kvaddr::InvalidArgument);
  EXPECT_EQ(parse_uint("0", "--seed"), 0u);
  EXPECT_THROW(parse_uint("-1", "--seed"), kvaddr::InvalidArgument);
  auto r = run({"verify", "--seed", "-1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--seed = -1")) << r.err;
}

TEST(CliIntegers, OutWidthBoundsAreCheckedBeforeAllocation) {
  const std::vector<std::string> base{"translate", "--route", "write_loc", "--page-size", "1", "--v2p", "0,5,-1",
                                      "--ids", "1"};
  auto with = [&](const std::string& w) {
    auto a = base;
    a.insert(a.end(), {"--out-width", w});
    return run(a);
  };
  auto r = with("-5");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--out-width = -5")) << r.err;
  r = with("1000000000000");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--out-width = 1000000000000")) << r.err;
  r = with(std::to_string(kvaddr::cli::kMaxLanes + 1));
  EXPECT_EQ(r.status, 2);
  r = with("2");  // 1 id, width 2: t = 1 -> P5 -> 5; lane 1 zero
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1 -> 5\n(lane 1) -> 0\n");
  r = with("0");  // narrower than the ids: the route rejects it
  EXPECT_EQ(r.status, 2);
}

TEST(CliIntegers, PageSizeSaturationIsAnError) {
  auto r = run({"translate", "--page-size", "99999999999999999999", "--v2p", "0,-1", "--ids", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--page-size = 99999999999999999999")) << r.err;
  r = run({"translate", "--page-size", "-99999999999999999999", "--v2p", "0,-1", "--ids", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--page-size = -99999999999999999999")) << r.err;
}

// ---- --only names ----------------------------------------------------------------------------------

#ifdef KVADDR_WITH_PROPS
TEST(CliOnly, PropsRejectsUnknownAndEmptyNames) {
  auto r = run({"props", "--only", "nosuch"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--only = nosuch")) << r.err;
  EXPECT_EQ(run({"props", "--only"}).status, 2);
  EXPECT_EQ(run({"props", "--only", ""}).status, 2);
  r = run({"props", "--only", "token_translate_vs_model", "--cases", "3", "--stateful-runs", "0"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "token_translate_vs_model")) << r.out;
}
#endif
#ifdef KVADDR_WITH_ZOO
TEST(CliOnly, ZooRejectsUnknownNames) {
  auto r = run({"zoo", "--only", "nosuch"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--only = nosuch")) << r.err;
}
#endif

// ---- arrays: lists, files, .npy ----------------------------------------------------------------------

TEST(CliArrays, ListOrPathIsDecidedByItsCharacters) {
  EXPECT_TRUE(kvaddr::cli::looks_like_list("0,5,-1"));
  EXPECT_TRUE(kvaddr::cli::looks_like_list("1 2;3 4"));
  EXPECT_FALSE(kvaddr::cli::looks_like_list("v2p.txt"));
  EXPECT_FALSE(kvaddr::cli::looks_like_list("./12"));
}

TEST(CliArrays, MissingAndUnreadableFilesSaySo) {
  auto r = run({"translate", "--page-size", "4", "--v2p", "no/such/v2p.txt", "--ids", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--v2p = no/such/v2p.txt: file not found")) << r.err;
  const auto dir = temp_dir();
  r = run({"translate", "--page-size", "4", "--v2p", dir.string(), "--ids", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "cannot read")) << r.err;
  const auto bad = dir / "bad.npy";
  std::ofstream(bad) << "not an npy image";
  r = run({"translate", "--page-size", "4", "--v2p", bad.string(), "--ids", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--v2p = " + bad.string() + ": not a valid .npy file: ")) << r.err;
  // A read error (EIO) is not an empty table.
  if (std::filesystem::exists("/proc/self/mem")) {
    r = run({"translate", "--page-size", "4", "--v2p", "/proc/self/mem", "--ids", "1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "--v2p = /proc/self/mem: cannot read")) << r.err;
  }
  const auto text = dir / "v2p.txt";
  std::ofstream(text) << "0\n5\n-1\n2\n-1\n";
  r = run({"translate", "--page-size", "4", "--multiplier", "3", "--v2p", text.string(), "--ids", "5,13"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "5 -> 61\n13 -> 25\n");
  std::filesystem::remove_all(dir);
}

#ifdef KVADDR_WITH_REPLAY
TEST(CliArrays, NpyFilesFeedTableRoutes) {
  const auto dir = temp_dir();
  using kvaddr::replay::NpyDtype;
  kvaddr::replay::write_npy(dir / "v2p.npy", NpyDtype::int64, {3}, {1, 0, -1});
  kvaddr::replay::write_npy(dir / "r2t.npy", NpyDtype::int32, {1, 4}, {0, 1, 2, 3});
  auto r = run({"translate", "--route", "read_table", "--page-size", "2", "--multiplier", "3", "--v2p",
                (dir / "v2p.npy").string(), "--req-to-token", (dir / "r2t.npy").string(), "--seq-lens", "3"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "out (1, 2):\n  3 0\n");
  r = run({"translate", "--route", "read_table", "--page-size", "2", "--v2p", (dir / "r2t.npy").string(),
           "--req-to-token", "0,1", "--seq-lens", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "rank 2, 1 expected")) << r.err;
  std::filesystem::remove_all(dir);
}

// A req_to_token numpy saved in Fortran order ([[0, 1, 2], [3, 4, 5]] column by column, numpy's bytes) is the same
// table as its C-order copy (it was read in file order before: row 0 = [0, 3, 1], a silently wrong table).
TEST(CliArrays, AFortranOrderNpyIsTheSameTable) {
  const auto fortran = std::filesystem::path(KVADDR_TEST_DATA_DIR) / "replay" / "npy" / "i4_fortran.npy";
  auto r = run({"translate", "--route", "read_table", "--page-size", "1", "--v2p", "10,11,12,13,14,15,-1",
                "--req-to-token", fortran.string(), "--seq-lens", "2,3"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "out (2, 3):\n  10 11 -1\n  13 14 15\n");
}
#endif

// ---- translate: every route, route-specific options, the user's id in errors -------------------------

TEST(CliRoutes, OptionsOfOtherRoutesAreErrors) {
  auto r = run({"translate", "--page-size", "4", "--v2p", "0,1,-1", "--dcp-rank", "1", "--ids", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--dcp-rank") && has(r.err, "does not apply to route token_translate")) << r.err;
  r = run({"translate", "--route", "mamba_translate", "--page-size", "4", "--v2p", "0,1,-1", "--ids", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--page-size")) << r.err;
  r = run({"translate", "--route", "read_table", "--page-size", "2", "--v2p", "0,-1", "--seq-lens", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--req-to-token = missing")) << r.err;
}

TEST(CliRoutes, ErrorsNameTheIdTheUserGave) {
  auto r = run({"translate", "--page-size", "1", "--v2p", "0,1,-1", "--ids", "0,1,7"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "id 7 (ids[2])")) << r.err;
}

// `kvaddr translate` with `args` succeeds and prints exactly `text`.
void expect_translate(std::vector<std::string> args, const std::string& text) {
  args.insert(args.begin(), "translate");
  const auto r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, text);
}

TEST(CliRoutes, MambaTransferAndDcpRead) {
  // mamba: int32(v2p[v]); clamp keeps 0 for -1.
  expect_translate({"--route", "mamba_translate", "--v2p", "4,-1,7", "--ids", "0,2,1", "--mamba-clamp"},
                   "0 -> 4\n2 -> 7\n1 -> 0\n");
  // swa_translate: the same formula through the SWA table with M_swa: t = 5 -> page 1 -> P5 -> 5*12 + 1.
  expect_translate({"--route", "swa_translate", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1", "--ids", "5"},
                   "5 -> 61\n");
  // transfer_ids: ps 2, v2p [0,3,-1]: t = 3 -> page 1 -> P3 -> 3*2 + 1 = 7.
  expect_translate({"--route", "transfer_ids", "--page-size", "2", "--v2p", "0,3,-1", "--ids", "3"}, "3 -> 7\n");
  // dcp_read_translate: w / dcp: w = 6, dcp 2 -> t = 3 -> P3, ps 2, M 1 -> 7.
  expect_translate({"--route", "dcp_read_translate", "--page-size", "2", "--dcp-size", "2", "--v2p", "0,3,-1", "--ids", "6"},
                   "6 -> 7\n");
}

TEST(CliRoutes, TableRoutesHandComputed) {
  // ps 2, M 3, v2p [1, 0, -1]; req_to_token row [0, 1, 2, 3], seq_len 3: page entries
  // v2p[0]*3 = 3 and v2p[1]*3 = 0.
  const std::vector<std::string> common{"--page-size", "2", "--multiplier", "3", "--v2p", "1,0,-1",
                                        "--req-to-token", "0,1,2,3", "--seq-lens", "3"};
  for (const char* route : {"read_table", "canonical_page_table", "full_prefill_table", "flashmla_block_table"}) {
    std::vector<std::string> a{"translate", "--route", route};
    a.insert(a.end(), common.begin(), common.end());
    a.insert(a.end(), {"--json"});
    auto r = run(a);
    ASSERT_EQ(r.status, 0) << route << ": " << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], "kvaddr.translate/1");
    EXPECT_EQ(j["shape"], (std::vector<std::int64_t>{1, 2})) << route;
    EXPECT_EQ(j["out"], (std::vector<std::int64_t>{3, 0})) << route;
  }
}

TEST(CliRoutes, DecodeMetadataWritesThreeOutputs) {
  auto r = run({"translate", "--route", "decode_metadata", "--page-size", "2", "--multiplier", "3", "--v2p", "1,0,-1",
                "--req-to-token", "0,1,2,3", "--seq-lens", "3", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outputs"]["page_table"]["values"], (std::vector<std::int64_t>{3, 0}));
  EXPECT_EQ(j["outputs"]["cache_seqlens"]["values"], (std::vector<std::int64_t>{3}));
  EXPECT_EQ(j["outputs"]["cu_seqlens_k"]["values"], (std::vector<std::int64_t>{0, 3}));
}

TEST(CliRoutes, KvIndicesInplaceAndEagerFunnel) {
  // kv_indices [1, 2, 9]: n = indptr[1] = 2 lanes translated (ps 1, M 2, v2p [0, 4, 3, -1]):
  // 1 -> 4*2 = 8, 2 -> 3*2 = 6; lane 2 untouched.
  auto r = run({"translate", "--route", "kv_indices_inplace", "--page-size", "1", "--multiplier", "2", "--v2p",
                "0,4,3,-1", "--kv-indices", "1,2,9", "--kv-indptr", "0,2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "kv_indices (3):\n  8 6 9\n");
  // eager_funnel: page starts [0, 2] with ps 2, M 3, v2p [1, 0, -1] -> [3, 0].
  r = run({"translate", "--route", "eager_funnel", "--page-size", "2", "--multiplier", "3", "--v2p", "1,0,-1", "--ids",
           "0,2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "out (1, 2):\n  3 0\n");
}

TEST(CliRoutes, TableLaneLimitIsCheckedFirst) {
  auto r = run({"translate", "--route", "read_table", "--page-size", "1", "--v2p", "0,-1", "--req-to-token", "0",
                "--seq-lens", "1", "--max-pages", std::to_string(kvaddr::cli::kMaxLanes + 1)});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--max-pages")) << r.err;
}

}  // namespace

namespace {

TEST(CliProgress, HeartbeatDrawsOnlyWhenEnabledAndErasesItsLine) {
  std::ostringstream out, err;
  {
    kvaddr::cli::Context ctx{out, err, false, true};
    kvaddr::cli::Heartbeat beat(ctx, "verify");
    beat.step("grid.read_table", 0, 0);
    beat.tick();
    beat.stop();
  }
  EXPECT_EQ(err.str().rfind("\r\033[Kverify: grid.read_table (0 s)", 0), 0u) << err.str();
  EXPECT_EQ(err.str().substr(err.str().size() - 4), "\r\033[K");
  std::ostringstream quiet;
  {
    kvaddr::cli::Context ctx{out, quiet, false, false};
    kvaddr::cli::Heartbeat beat(ctx, "verify");
    beat.tick();
  }
  EXPECT_EQ(quiet.str(), "");
  EXPECT_EQ(out.str(), "");
}

#ifdef KVADDR_WITH_KERNELS
TEST(CliProgress, NothingOnStderrWhenNotATerminal) {
  auto r = run({"diff", "--host-only", "--cases", "2", "--seed", "3"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.err, "");
}
#endif

}  // namespace

namespace {
// An argument that is not UTF-8 still gives a JSON error document (the bad bytes replaced), exit 2,
// and never an exception out of the JSON writer (found by the CLI fuzz target).
TEST(CliJson, NonUtf8ArgumentGivesAJsonError) {
  const std::string bad = "--pa\xbcge-size";
  auto r = run({"translate", bad, "4", "--json"});
  EXPECT_EQ(r.status, 2);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("ok"), false);
  EXPECT_EQ(j.at("schema").get<std::string>().rfind("kvaddr.error", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\xef\xbf\xbd"), std::string::npos) << r.out;  // U+FFFD in place of 0xBC
  auto ok_value = run({"translate", "--route", "token_translate", "--page-size", "\xff", "--json"});
  EXPECT_EQ(ok_value.status, 2);
  EXPECT_NO_THROW({
    const auto parsed = nlohmann::json::parse(ok_value.out);
    EXPECT_TRUE(parsed.is_object());
  }) << ok_value.out;
}
}  // namespace

// ---- issue 31: --ids from .npy, io errors, progress shares, usage lines, --only that matches nothing ----

namespace {

#ifdef KVADDR_WITH_REPLAY
TEST(CliArrays, IdsTakeANpyFileLikeV2p) {
  const auto dir = temp_dir();
  using kvaddr::replay::NpyDtype;
  kvaddr::replay::write_npy(dir / "ids.npy", NpyDtype::int64, {4}, {5, 9, 13, -1});
  kvaddr::replay::write_npy(dir / "ids2d.npy", NpyDtype::int64, {2, 2}, {5, 9, 13, -1});
  auto r = run({"translate", "--page-size", "4", "--multiplier", "3", "--v2p", "0,5,-1,2,-1", "--ids",
                (dir / "ids.npy").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "5 -> 61\n9 -> 0\n13 -> 25\n-1 -> 0\n");
  r = run({"translate", "--page-size", "4", "--v2p", "0,5,-1,2,-1", "--ids", (dir / "ids2d.npy").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "kvaddr: --ids = " + (dir / "ids2d.npy").string() + ": shape (2, 2) has rank 2, 1 expected\n");
  std::filesystem::remove_all(dir);
}
#endif

TEST(CliArrays, AMissingFileIsAnIoError) {
  for (const char* option : {"--v2p", "--ids"}) {
    std::vector<std::string> args{"translate", "--page-size", "4", "--v2p", "0,5,-1", "--ids", "1", "--json"};
    const auto at = std::find(args.begin(), args.end(), option) - args.begin() + 1;
    args[static_cast<std::size_t>(at)] = "/no/such/dir/table.npy";
    auto r = run(args);
    EXPECT_EQ(r.status, 2) << option;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], "kvaddr.error/1");
    EXPECT_EQ(j["error"]["kind"], "io") << r.out;
    EXPECT_EQ(j["error"]["argument"], option);
    EXPECT_EQ(j["error"]["value"], "/no/such/dir/table.npy");
    EXPECT_EQ(j["error"]["message"], std::string(option) + " = /no/such/dir/table.npy: file not found");
  }
}

TEST(CliProgress, TheLineNamesThePhaseAndItsShare) {
  std::ostringstream out, err;
  kvaddr::cli::Context ctx{out, err, false, false};
  kvaddr::cli::Heartbeat beat(ctx, "verify");
  EXPECT_EQ(beat.status(3.2), "verify: (3 s)");
  beat.step("proofs", 12, 138, "I3.swa_translate");
  EXPECT_EQ(beat.status(41.0), "verify: proofs 12/138, I3.swa_translate (41 s)");
  beat.step("differential cases", 7, 200);
  EXPECT_EQ(beat.status(60.0), "verify: differential cases 7/200 (60 s)");
  beat.step("simulator.compaction_readback", 0, 0);
  EXPECT_EQ(beat.status(61.0), "verify: simulator.compaction_readback (61 s)");
  beat.tick();  // not a terminal: nothing drawn
  EXPECT_EQ(err.str(), "");
}

TEST(CliHelp, SubcommandUsageLinesNameTheProgram) {
  auto r = run({"translate", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "Usage: kvaddr translate [OPTIONS]")) << r.out;
  r = run({"draw", "pool", "--help"});
  EXPECT_TRUE(has(r.out, "Usage: kvaddr draw pool [OPTIONS]")) << r.out;
  r = run({"verify", "--help"});
  EXPECT_TRUE(has(r.out, "Usage: kvaddr verify [OPTIONS]")) << r.out;
}

// `draw zoo|proofs --only` that matches nothing is an error naming the value, never an empty picture.
TEST(CliOnly, DrawRejectsNamesThatMatchNothing) {
#ifdef KVADDR_WITH_ZOO
  auto r = run({"draw", "zoo", "--only", "typo"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("kvaddr: --only = typo: unknown name; one of: production, ", 0), 0u) << r.err;
  r = run({"draw", "zoo", "--only", "production.lifecycle", "--quiet"});  // the lifecycle rows are names too
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "production.lifecycle")) << r.out;
  r = run({"draw", "zoo", "--only", "int32_lane_offsets", "--quiet"});  // and the inferred behaviours' rows
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "int32_lane_offsets")) << r.out;
#endif
#ifdef KVADDR_WITH_PROOFS
  auto p = run({"draw", "proofs", "--only", "typo", "--json"});
  EXPECT_EQ(p.status, 2);
  const auto j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["error"]["argument"], "--only");
  EXPECT_EQ(j["error"]["value"], "typo");
  p = run({"draw", "proofs", "--only", "I1"});  // a dotted prefix matches: a picture with rows
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_TRUE(has(p.out, "I1.algebra")) << p.out;
#endif
}

// verify's progress names each phase with its share; the GPU row says what was compared.
TEST(CliVerify, ProgressSharesAndTheDifferentialRowsSayWhatWasCompared) {
  std::vector<std::string> proofs, props;
  std::int64_t grid_total = 0;
  kvaddr::cli::VerifyOptions o;
  o.quick = true;
  o.progress = [&](const std::string& phase, std::int64_t done, std::int64_t total, const std::string& item) {
    if (phase == "proofs" && total > 0) proofs.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + item);
    if (phase == "props") props.push_back(std::to_string(done) + "/" + std::to_string(total));
    if (phase == "grid") grid_total = total;
  };
  const auto results = kvaddr::cli::run_verify_checks(o);
  EXPECT_EQ(grid_total, static_cast<std::int64_t>(std::size(kvaddr::kAllRoutes)) + 1);
#ifdef KVADDR_WITH_PROOFS
  EXPECT_EQ(proofs, (std::vector<std::string>{"0/2 I1.algebra", "1/2 route.canonical_page_table.b09"}));
#endif
#ifdef KVADDR_WITH_PROPS
  ASSERT_FALSE(props.empty());
  EXPECT_EQ(props.front().substr(0, 2), "0/");
  const auto total = props.front().substr(2);
  EXPECT_EQ(props.back(), std::to_string(std::stoll(total) - 1) + "/" + total);
  EXPECT_EQ(props.size(), static_cast<std::size_t>(std::stoll(total)));
#endif
  std::string host, gpu;
  for (const auto& r : results) {
    if (r.name == "differential.host_vs_model") host = r.detail;
    if (r.name == "gpu.differential") gpu = r.detail;
  }
  EXPECT_FALSE(has(gpu, "0 lanes compared")) << gpu;
#ifdef KVADDR_WITH_KERNELS
  const auto at = host.find(" lanes compared host vs model");
  ASSERT_NE(at, std::string::npos) << host;
  const auto lanes = host.substr(host.rfind(' ', at - 1) + 1, at - host.rfind(' ', at - 1) - 1);
  EXPECT_GT(std::stoll(lanes), 0);
  if (gpu.rfind("skipped: no CUDA GPU (", 0) == 0) {
    EXPECT_TRUE(has(gpu, "): nothing compared GPU vs host; the host routes were compared with the model on " + lanes +
                             " lanes (differential.host_vs_model)"))
        << gpu;
  }
#endif
}

}  // namespace
