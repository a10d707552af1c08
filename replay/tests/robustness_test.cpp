// Hostile inputs to replay and the .npy reader: deep nesting, invalid UTF-8, unreadable paths
// (directories, FIFOs, /proc/self/mem), paths outside the replay directory, strict .npy headers,
// and the error hierarchy (every error a kvaddr::Error).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/example.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"
#include "text.hpp"

namespace kvaddr::replay {
namespace {

using test_support::fresh_dir;
using test_support::slurp;
using test_support::has;
using test_support::npy_image;

using json = nlohmann::json;
const std::filesystem::path kNpy = std::filesystem::path(KVADDR_REPLAY_DATA_DIR) / "npy";



void spit(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}


// The example's manifest with call 0's input `ids` renamed to `name`.
std::string manifest_with_ids(const std::filesystem::path& dir, const std::string& name) {
  json m = json::parse(slurp(dir / "manifest.json"));
  m["calls"][0]["inputs"]["ids"] = name;
  return m.dump();
}

// ---- manifest robustness ---------------------------------------------------------------------
TEST(ReplayRobust, DeepNestingIsAReportErrorNotACrash) {
  const std::string open(100000, '['), close(100000, ']');
  std::string deep_object;
  for (int i = 0; i < 100000; ++i) deep_object += "{\"a\":";
  deep_object += "1" + std::string(100000, '}');
  for (const std::string& text :
       {R"({"version": )" + open + close + R"(, "calls": []})",
        R"({"calls": [{"route": "token_translate", "scalars": {"page_size": )" + open + close + "}}]}",
        R"({"calls": [{"route": "token_translate", "outputs": {"out": )" + deep_object + "}}]}"}) {
    const ReplayReport r = replay_manifest(text, ".");
    EXPECT_TRUE(has(r.error, "nested deeper than 32 levels")) << r.error.substr(0, 200);
    EXPECT_LT(r.error.size(), 400u);  // the nested value is never written out
    EXPECT_TRUE(json::accept(to_json(r)));
  }
  // 32 levels (the manifest object and 31 arrays) are still read; 33 are not.
  const std::string ok = R"({"version": )" + std::string(31, '[') + std::string(31, ']') + R"(, "calls": []})";
  EXPECT_TRUE(has(replay_manifest(ok, ".").error, "unsupported manifest version a JSON array"));
  const std::string over = R"({"version": )" + std::string(32, '[') + std::string(32, ']') + R"(, "calls": []})";
  EXPECT_TRUE(has(replay_manifest(over, ".").error, "depth 33: nested deeper than 32 levels"));
}

TEST(ReplayRobust, VersionMustBeTheInteger1AndKeysAreUnique) {
  EXPECT_TRUE(replay_manifest(R"({"version": 1, "calls": []})", ".").ok());
  EXPECT_TRUE(replay_manifest(R"({"version": 2, "calls": []})", ".").ok());
  for (const char* v : {"1.0", "true", "\"1\"", "3", "0", "18446744073709551617"}) {
    const ReplayReport r = replay_manifest(std::string(R"({"version": )") + v + R"(, "calls": []})", ".");
    EXPECT_TRUE(has(r.error, "unsupported manifest version")) << v << ": " << r.error;
  }
  EXPECT_TRUE(has(replay_manifest(R"({"calls": [], "calls": []})", ".").error, "repeated key"));
  const ReplayReport dup = replay_manifest(R"({"calls": [{"route": "x", "scalars": {"a": 1, "a": 2}}]})", ".");
  EXPECT_TRUE(has(dup.error, "manifest.json = depth 4: repeated key in one object")) << dup.error;
  EXPECT_FALSE(has(dup.error, "\"a\"")) << dup.error;  // the key itself is not quoted
  // The same key in two different objects is fine.
  EXPECT_EQ(replay_manifest(R"({"calls": [{"route": "x"}, {"route": "x"}]})", ".").calls.size(), 2u);
}

TEST(ReplayRobust, InvalidUtf8CostsOneCallNotTheReport) {
  const auto d = fresh_dir("utf8");
  write_example(d);
  json m = json::parse(slurp(d / "manifest.json"));
  m["calls"][0]["name"] = "NAME_MARK";
  m["calls"][1]["inputs"]["ids"] = "FILE_MARK";
  std::string text = m.dump();
  text.replace(text.find("NAME_MARK"), 9, "bad\xff\xfe name");
  text.replace(text.find("FILE_MARK"), 9, "c02\xc3.npy");
  const ReplayReport r = replay_manifest(text, d);
  ASSERT_EQ(r.calls.size(), 16u) << r.error;
  EXPECT_EQ(r.calls[0].name, "bad\xEF\xBF\xBD\xEF\xBF\xBD name");
  EXPECT_EQ(r.calls[0].status, CallStatus::equal);
  EXPECT_EQ(r.calls[1].status, CallStatus::error);
  EXPECT_TRUE(has(r.calls[1].error, "missing file")) << r.calls[1].error;
  EXPECT_EQ(r.count(CallStatus::equal), 13u);
  const json j = json::parse(to_json(r));
  EXPECT_EQ(j["summary"]["calls"], 16);
  // A byte-flipped .npy header: the call errs, its message is printable, the report stays JSON.
  std::string npy = slurp(d / "c01.ids.npy");
  npy[npy.find("<i8") + 1] = '\xff';
  spit(d / "c01.ids.npy", npy);
  const ReplayReport flipped = replay_dir(d);
  ASSERT_EQ(flipped.calls.size(), 16u);
  EXPECT_TRUE(has(flipped.calls[0].error, "unsupported descr of 3 bytes")) << flipped.calls[0].error;
  EXPECT_EQ(flipped.calls[0].error_kind, "format");
  EXPECT_TRUE(json::accept(to_json(flipped)));
  std::filesystem::remove_all(d);
}

TEST(ReplayRobust, NonUtf8DirectoryNameKeepsEveryCall) {
  const auto d = fresh_dir(std::string("dir\xff\xfe"));
  write_example(d);
  const ReplayReport r = replay_dir(d);
  EXPECT_EQ(r.calls.size(), 16u);
  EXPECT_EQ(r.count(CallStatus::equal), 14u);
  const json j = json::parse(to_json(r));
  EXPECT_EQ(j["summary"]["equal"], 14);
  EXPECT_TRUE(has(j["dir"].get<std::string>(), "dir\xEF\xBF\xBD\xEF\xBF\xBD"));
  EXPECT_TRUE(has(to_text(r), "16 calls: 14 equal"));
  std::filesystem::remove_all(d);
}

TEST(ReplayRobust, HandBuiltReportWithInvalidBytesStillDumps) {
  ReplayReport r;
  r.dir = "x\xff";
  r.error = "e\xc3";
  EXPECT_TRUE(json::accept(to_json(r)));
}

TEST(ReplayRobust, UnreadableInputsAreCallErrors) {
  const auto d = fresh_dir("unreadable");
  write_example(d);
  std::filesystem::create_directory(d / "sub");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  for (const auto& [name, expect] : std::vector<std::pair<std::string, std::string>>{
           {"sub", "not a regular file"}, {"fifo", "not a regular file"}, {"nothing.npy", "missing file"}}) {
    const ReplayReport r = replay_manifest(manifest_with_ids(d, name), d);
    ASSERT_EQ(r.calls.size(), 16u) << name;
    EXPECT_TRUE(has(r.calls[0].error, expect)) << name << ": " << r.calls[0].error;
    EXPECT_EQ(r.calls[1].status, CallStatus::equal);
  }
  const ReplayReport mem = replay_manifest(manifest_with_ids(d, "/proc/self/mem"), d, {.allow_outside = true, .search = {}});
  EXPECT_EQ(mem.calls[0].status, CallStatus::error);
  EXPECT_EQ(mem.calls.size(), 16u);
  // manifest.json itself a directory or a FIFO: a report error, no hang.
  const auto e = fresh_dir("manifest_kinds");
  std::filesystem::create_directory(e / "manifest.json");
  EXPECT_TRUE(has(replay_dir(e).error, "not a regular file"));
  std::filesystem::remove(e / "manifest.json");
  ASSERT_EQ(::mkfifo((e / "manifest.json").c_str(), 0600), 0);
  EXPECT_TRUE(has(replay_dir(e).error, "not a regular file"));
  std::filesystem::remove_all(d);
  std::filesystem::remove_all(e);
}

// ---- confinement to DIR ----------------------------------------------------------------------
TEST(ReplayRobust, ReadsStayInsideDirUnlessAllowed) {
  const auto root = fresh_dir("confine");
  const auto d = root / "dir";
  write_example(d);
  std::filesystem::copy_file(d / "c01.ids.npy", root / "outside.npy");
  std::filesystem::create_directory_symlink(root, d / "up");
  std::filesystem::create_symlink(root / "outside.npy", d / "link_out.npy");
  std::filesystem::create_symlink(root / "gone.npy", d / "dangling.npy");
  std::filesystem::create_symlink(d / "c01.ids.npy", d / "link_in.npy");
  const std::string outside_abs = (root / "outside.npy").string(), missing_abs = (root / "missing.npy").string();
  std::vector<std::string> messages;
  for (const std::string& name : {std::string("../outside.npy"), std::string("../missing.npy"), outside_abs, missing_abs,
                                  std::string("up/outside.npy"), std::string("up/missing.npy"),
                                  std::string("link_out.npy"), std::string("dangling.npy")}) {
    const ReplayReport r = replay_manifest(manifest_with_ids(d, name), d);
    ASSERT_EQ(r.calls.size(), 16u);
    EXPECT_EQ(r.calls[0].status, CallStatus::error) << name;
    std::string msg = r.calls[0].error;
    msg.replace(msg.find(name), name.size(), "NAME");  // the message differs only by the name itself
    messages.push_back(msg);
    EXPECT_TRUE(has(msg, "not a file inside the replay directory")) << name << ": " << msg;
  }
  for (const auto& msg : messages) EXPECT_EQ(msg, messages[0]);
  // Inside DIR: a plain name, "./", and a symbolic link that stays inside are read.
  for (const std::string name : {"c01.ids.npy", "./c01.ids.npy", "link_in.npy"}) {
    EXPECT_EQ(replay_manifest(manifest_with_ids(d, name), d).calls[0].status, CallStatus::equal) << name;
  }
  // The explicit option reads outside paths.
  for (const std::string& name : {std::string("../outside.npy"), outside_abs, std::string("link_out.npy")}) {
    EXPECT_EQ(replay_manifest(manifest_with_ids(d, name), d, {.allow_outside = true, .search = {}}).calls[0].status, CallStatus::equal) << name;
  }
  // An embedded NUL is rejected whatever the option.
  for (bool allow : {false, true}) {
    const ReplayReport r = replay_manifest(manifest_with_ids(d, std::string("c01.ids.npy\0x", 13)), d, {.allow_outside = allow, .search = {}});
    EXPECT_TRUE(has(r.calls[0].error, "embedded NUL")) << r.calls[0].error;
  }
  std::filesystem::remove_all(root);
}

// ---- .npy reader: header first, strict dictionary, allow-listed descr ------------------------

std::string npy_error(const std::string& bytes) {
  try {
    parse_npy(bytes);
  } catch (const NpyError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::format);
    return e.what();
  }
  return "<nothing thrown>";
}

TEST(NpyStrict, DescrAllowList) {
  const std::string eight(8, '\0');
  for (const char* d : {"|i8", "<i08", "<i8 ", "=i8", "<i", "<c16", "<U4", "|O", "<i16", "<i1", "|i4", "<b1"}) {
    const std::string e = npy_error(npy_image(std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': (1,)}", eight));
    EXPECT_TRUE(has(e, "unsupported descr")) << d << ": " << e;
  }
  for (std::string_view d : kNpyDescrs) {
    const std::size_t item = static_cast<std::size_t>(d[2] - '0');
    EXPECT_NO_THROW(parse_npy(npy_image("{'descr': '" + std::string(d) + "', 'fortran_order': False, 'shape': (2,)}",
                                    std::string(2 * item, '\0'))))
        << d;
  }
}

TEST(NpyStrict, EachKeyExactlyOnce) {
  const std::string eight(8, '\0');
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '<i8', 'descr': '<i8', 'fortran_order': False, 'shape': (1,)}", eight)),
                  "key 'descr' appears twice"));
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}", eight)),
                  "key 'shape' appears twice"));
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '<i8', 'fortran_order': False}", eight)), "needs 'descr'"));
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (01,)}", eight)), "leading zero"));
  EXPECT_NO_THROW(parse_npy(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (0,)}")));
  EXPECT_NO_THROW(parse_npy(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (10,)}", std::string(80, '\0'))));
}

TEST(NpyStrict, RankAndSizeBounds) {
  std::string dims64, dims65;
  for (int i = 0; i < 64; ++i) dims64 += "1,";
  dims65 = dims64 + "1,";
  const std::string eight(8, '\0');
  EXPECT_NO_THROW(parse_npy(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (" + dims64 + ")}", eight)));
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (" + dims65 + ")}", eight)),
                  "more than 64 dimensions"));
  // int64 bounds: 2^63 - 1 elements of one byte fit the product, their 8-byte size does not.
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775807,)}")),
                  "data truncated"));
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (9223372036854775807,)}")),
                  "shape (9223372036854775807,): its byte size overflows int64"));
  EXPECT_TRUE(has(npy_error(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (9223372036854775808,)}")),
                  "does not fit int64"));
  // Version and header length bounds.
  std::string v1 = npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (1,)}", eight);
  v1[7] = 1;
  EXPECT_TRUE(has(npy_error(v1), "version 1.1"));
}

TEST(NpyStrict, HeaderIsCheckedBeforeTheData) {
  // A sparse 3 GiB file whose header declares one element: rejected from the sizes alone.
  const auto d = fresh_dir("sparse");
  const auto big = d / "big.npy";
  spit(big, npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (1,)}", std::string(8, '\0')));
  std::filesystem::resize_file(big, std::uint64_t{3} << 30);
  try {
    read_npy(big);
    ADD_FAILURE() << "no error";
  } catch (const NpyError& e) {
    EXPECT_TRUE(has(e.what(), "big.npy")) << e.what();
    EXPECT_TRUE(has(e.what(), "trailing bytes")) << e.what();
  }
  spit(big, std::string(1 << 20, 'x'));
  std::filesystem::resize_file(big, std::uint64_t{3} << 30);
  EXPECT_THROW(read_npy(big), NpyError);
  std::filesystem::remove_all(d);
}

TEST(NpyStrict, ErrorsAreKvaddrErrors) {
  const auto d = fresh_dir("kinds");
  ASSERT_EQ(::mkfifo((d / "fifo.npy").c_str(), 0600), 0);
  for (const auto& p : {d, d / "fifo.npy", d / "missing.npy", std::filesystem::path("/proc/self/mem")}) {
    try {
      read_npy(p);
      ADD_FAILURE() << p;
    } catch (const kvaddr::Error& e) {
      EXPECT_TRUE(e.kind() == ErrorKind::io || e.kind() == ErrorKind::format) << p << ": " << e.what();
    }
  }
  EXPECT_THROW(read_npy(d), IoError);
  EXPECT_THROW(read_npy(std::string("a\0b.npy", 7)), IoError);
  const NpyError e("f.npy", "bad magic");
  const FormatError& base = e;
  EXPECT_STREQ(base.what(), ".npy = f.npy: bad magic");
  std::filesystem::remove_all(d);
}

}  // namespace
}  // namespace kvaddr::replay

// detail::valid_utf8 (every text read from a recording goes through it): valid runs copied as they are, each byte
// that does not start a valid sequence replaced by U+FFFD on its own (hand-computed).
TEST(ValidUtf8, CopiesValidRunsAndReplacesEachInvalidByte) {
  using kvaddr::replay::detail::valid_utf8;
  const std::string r = "\xEF\xBF\xBD";  // U+FFFD
  EXPECT_EQ(valid_utf8(""), "");
  EXPECT_EQ(valid_utf8("abc"), "abc");
  EXPECT_EQ(valid_utf8("a\xC3\xA9" "b\xE2\x82\xAC\xF0\x9F\x98\x80"), "a\xC3\xA9" "b\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(valid_utf8("\xFF" "ab"), r + "ab");                        // first byte
  EXPECT_EQ(valid_utf8("ab\xFF"), "ab" + r);                           // last byte
  EXPECT_EQ(valid_utf8("a\xC0\x80" "b"), "a" + r + r + "b");          // overlong lead, then a lone continuation
  EXPECT_EQ(valid_utf8("x\xE2\x82"), "x" + r + r);                    // a sequence cut at the end
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), r + r + r);                  // a surrogate (U+D800)
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), r + r + r + r);         // past U+10FFFF
  EXPECT_EQ(valid_utf8("\xC3\xA9\xFF\xC3\xA9"), "\xC3\xA9" + r + "\xC3\xA9");  // runs on both sides
  EXPECT_EQ(valid_utf8(std::string_view("a\0b", 3)), std::string("a\0b", 3));  // NUL is valid UTF-8
}
