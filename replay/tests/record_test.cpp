// replay's one recording writer (kvaddr/replay/record.hpp): the checks of the arrays that only a C++ caller
// can get wrong (values past int32, a value count that is not the shape's, dtype "other"), each on both sides
// of its boundary, nothing written when one fails, and a recording that kvaddr replay reads back equal.
// The entry forms' rules are tested through the Python binding (python/tests/test_record_writer.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/record.hpp"
#include "kvaddr/replay/replay.hpp"
#include "manifest_dir.hpp"
#include "recorder.hpp"

namespace {
using namespace kvaddr;
using namespace kvaddr::replay;
using nlohmann::json;
namespace fs = std::filesystem;

const std::string kDescription =
    json{{"version", 2},
         {"calls",
          {{{"route", "token_translate"},
            {"scalars", {{"page_size", 1}}},
            {"inputs", {{"ids", "ids.npy"}, {"v2p", "v2p.npy"}}},
            {"outputs", {{"out", {{"before", "b.npy"}, {"after", "a.npy"}}}}}}}}}
        .dump();

RecordedArrays arrays(NpyDtype out_dtype = NpyDtype::int32, std::int64_t v2p1 = 5) {
  return {{"ids.npy", {NpyDtype::int64, {2}, {0, 1}}},
          {"v2p.npy", {NpyDtype::int64, {2}, {3, v2p1}}},
          {"b.npy", {out_dtype, {2}, {-1, -1}}},
          {"a.npy", {out_dtype, {2}, {3, v2p1}}}};
}

template <class E>
void expect_refused(const RecordedArrays& a, const std::string& argument, const std::string& reason) {
  const fs::path d = fs::temp_directory_path() / "kvaddr_record_test_refused";
  fs::remove_all(d);
  try {
    write_recording(d, kDescription, a);
    ADD_FAILURE() << "accepted; expected " << argument;
  } catch (const E& e) {
    EXPECT_EQ(e.argument(), argument);
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(d));
}

TEST(Record, AValidRecordingReplaysEqual) {
  const fs::path d = test_support::fresh_dir("kvaddr_record_test_", "ok");
  write_recording(d, kDescription, arrays());
  EXPECT_EQ(read_npy(d / "a.npy").descr, "<i4");
  const ReplayReport r = replay_dir(d);
  ASSERT_EQ(r.calls.size(), 1U);
  EXPECT_EQ(r.calls[0].status, CallStatus::equal);
  fs::remove_all(d);
}

// kvaddr's own example recorder keeps one array per file name: a second save under a name already kept is
// InvalidState naming the file, and the first array stays (it used to be replaced silently).
TEST(Record, RecorderRefusesASecondArrayUnderTheSameName) {
  const fs::path d = test_support::fresh_dir("kvaddr_record_test_", "recorder");
  detail::Recorder rec(d);
  EXPECT_EQ(rec.save64("v2p.npy", {2}, {3, 5}), "v2p.npy");
  try {
    rec.save64("v2p.npy", {2}, {7, 7});
    ADD_FAILURE() << "a second v2p.npy was accepted";
  } catch (const InvalidState& e) {
    EXPECT_EQ(e.argument(), "file");
    EXPECT_EQ(e.value(), "v2p.npy");
  }
  rec.add(json{{"route", "token_translate"},
               {"scalars", {{"page_size", 1}}},
               {"inputs", {{"ids", rec.save64("ids.npy", {2}, {0, 1})}, {"v2p", "v2p.npy"}}},
               {"outputs", {{"out", rec.out<std::int32_t>("c", "out", {2}, {-1, -1}, {3, 5})}}}});
  rec.finish("recorder test", 2);
  EXPECT_EQ(replay_dir(d).calls.at(0).status, CallStatus::equal);  // v2p.npy holds the first {3, 5}
  fs::remove_all(d);
}

TEST(Record, Int32ValuesMustFit) {
  const fs::path d = test_support::fresh_dir("kvaddr_record_test_", "max");
  write_recording(d, kDescription, arrays(NpyDtype::int32, INT32_MAX));  // the largest int32: written
  EXPECT_EQ(read_npy(d / "a.npy").values[1], INT32_MAX);
  fs::remove_all(d);
  expect_refused<InvalidArgument>(arrays(NpyDtype::int32, std::int64_t{INT32_MAX} + 1), "arrays[a.npy]",
                                  "does not fit int32");
}

TEST(Record, ValuesMustFillTheShape) {
  RecordedArrays a = arrays();
  a["ids.npy"].shape = {3};
  expect_refused<InvalidArgument>(a, "arrays[ids.npy]", "the shape holds 3 values but 2 are given");
  a["ids.npy"].shape = {1, 2};  // 2 values in (1, 2): accepted
  const fs::path d = test_support::fresh_dir("kvaddr_record_test_", "shape");
  write_recording(d, kDescription, a);
  EXPECT_EQ(read_npy(d / "ids.npy").shape, (std::vector<std::int64_t>{1, 2}));
  fs::remove_all(d);
}

TEST(Record, DtypeOtherIsRefused) {
  RecordedArrays a = arrays();
  a["ids.npy"].dtype = NpyDtype::other;
  expect_refused<InvalidArgument>(a, "arrays[ids.npy]", "dtype must be int32 or int64");
}

TEST(Record, DescriptionThatIsNotJsonIsAFormatError) {
  EXPECT_THROW(write_recording(fs::temp_directory_path() / "kvaddr_record_test_nojson", "{calls:", arrays()), FormatError);
  EXPECT_FALSE(fs::exists(fs::temp_directory_path() / "kvaddr_record_test_nojson"));
}

}  // namespace
