// The .npy reader / writer against files written by numpy (tests/data/replay/npy, made by
// make_fixtures.py there), and against hand-broken images.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>

#include "kvaddr/replay/npy.hpp"
#include "manifest_dir.hpp"

namespace kvaddr::replay {
namespace {

using test_support::slurp;
using test_support::npy_image;

const std::filesystem::path kDir = std::filesystem::path(KVADDR_REPLAY_DATA_DIR) / "npy";


template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const kvaddr::Error& e) {
    return e.what();
  }
  return "<nothing thrown>";
}

TEST(Npy, ReadsNumpyInt64Vector) {
  const NpyArray a = read_npy(kDir / "i8_1d.npy");
  EXPECT_EQ(a.descr, "<i8");
  EXPECT_EQ(a.dtype, NpyDtype::int64);
  EXPECT_FALSE(a.fortran_order);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{5}));
  EXPECT_EQ(a.values, (std::vector<std::int64_t>{0, -1, std::int64_t{1} << 40, std::numeric_limits<std::int64_t>::min(),
                                                 std::numeric_limits<std::int64_t>::max()}));
  EXPECT_EQ(a.shape_string(), "(5,)");
}

TEST(Npy, ReadsNumpyInt32Matrix) {
  const NpyArray a = read_npy(kDir / "i4_2d.npy");
  EXPECT_EQ(a.dtype, NpyDtype::int32);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a.values, (std::vector<std::int64_t>{1, -2, 3, std::numeric_limits<std::int32_t>::max(),
                                                 std::numeric_limits<std::int32_t>::min(), 0}));
  EXPECT_EQ(a.shape_string(), "(2, 3)");
}

TEST(Npy, ReadsScalarEmptyVersion2AndBigEndian) {
  const NpyArray s = read_npy(kDir / "i8_scalar.npy");
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.size(), 1);
  EXPECT_EQ(s.values, (std::vector<std::int64_t>{7}));
  const NpyArray e = read_npy(kDir / "i4_empty.npy");
  EXPECT_EQ(e.shape, (std::vector<std::int64_t>{0, 3}));
  EXPECT_TRUE(e.values.empty());
  const NpyArray v2 = read_npy(kDir / "i4_v2.npy");
  EXPECT_EQ(v2.values, (std::vector<std::int64_t>{5, 6, 7}));
  const NpyArray be = read_npy(kDir / "i8_big_endian.npy");
  EXPECT_EQ(be.descr, ">i8");
  EXPECT_EQ(be.dtype, NpyDtype::int64);
  EXPECT_EQ(be.values, (std::vector<std::int64_t>{1, -2, 300}));
}

TEST(Npy, KeepsOtherDtypesForTheCaller) {
  const NpyArray f = read_npy(kDir / "f4_1d.npy");
  EXPECT_EQ(f.descr, "<f4");
  EXPECT_EQ(f.dtype, NpyDtype::other);
  EXPECT_TRUE(f.values.empty());
  EXPECT_EQ(read_npy(kDir / "u8_1d.npy").dtype, NpyDtype::other);
}

// numpy stores a Fortran-ordered array column by column; the reader hands back the same array in C order and says
// how the file was written.
TEST(Npy, FortranOrderIsReadAsTheSameArrayInCOrder) {
  const NpyArray fo = read_npy(kDir / "i4_fortran.npy");  // numpy's [[0, 1, 2], [3, 4, 5]], Fortran order
  EXPECT_TRUE(fo.fortran_order);
  EXPECT_EQ(fo.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(fo.values, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5}));
  // Rank 3: element (i, j, k) = 6i + 2j + k of shape (2, 3, 2), stored with i fastest.
  std::string data;
  for (const std::int64_t v : {0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11}) data.append(reinterpret_cast<const char*>(&v), 8);
  const NpyArray r3 = parse_npy(npy_image("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3, 2), }", data));
  EXPECT_EQ(r3.values, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  // Rank 1 and an empty array in Fortran order keep their values; a C-order image is read as written.
  EXPECT_EQ(parse_npy(npy_image("{'descr': '<i8', 'fortran_order': True, 'shape': (2,), }", data.substr(0, 16))).values,
            (std::vector<std::int64_t>{0, 6}));
  EXPECT_TRUE(parse_npy(npy_image("{'descr': '<i8', 'fortran_order': True, 'shape': (0, 4), }")).values.empty());
  EXPECT_EQ(parse_npy(npy_image("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3, 2), }", data)).values,
            (std::vector<std::int64_t>{0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11}));
}

TEST(Npy, WriterReproducesNumpyBytes) {
  for (const char* name : {"i8_1d.npy", "i4_2d.npy", "i8_scalar.npy", "i4_empty.npy"}) {
    const std::string bytes = slurp(kDir / name);
    const NpyArray a = parse_npy(bytes);
    EXPECT_EQ(format_npy(a.dtype, a.shape, a.values), bytes) << name;
  }
}

TEST(Npy, WriteThenReadRoundTrips) {
  const auto path = std::filesystem::temp_directory_path() / "kvaddr_npy_roundtrip.npy";
  write_npy(path, NpyDtype::int32, {2, 2}, {1, -1, 5, 9});
  const NpyArray a = read_npy(path);
  EXPECT_EQ(a.dtype, NpyDtype::int32);
  EXPECT_EQ(a.values, (std::vector<std::int64_t>{1, -1, 5, 9}));
  std::filesystem::remove(path);
}

TEST(Npy, WriterRejectsValuesThatDoNotFitAndShapeMismatch) {
  EXPECT_NE(error_of([] { format_npy(NpyDtype::int32, {1}, {std::int64_t{1} << 31}); }).find("does not fit int32"),
            std::string::npos);
  EXPECT_NE(error_of([] { format_npy(NpyDtype::int64, {3}, {1, 2}); }).find("2 values for shape (3,)"),
            std::string::npos);
  EXPECT_NE(error_of([] { format_npy(NpyDtype::other, {1}, {1}); }).find("only int32 and int64"), std::string::npos);
}

TEST(Npy, MalformedImagesAreErrorsNotCrashes) {
  const std::string good = slurp(kDir / "i8_1d.npy");
  EXPECT_NE(error_of([] { read_npy(kDir / "no_such_file.npy"); }).find("missing file"), std::string::npos);
  EXPECT_NE(error_of([] { parse_npy(""); }).find("bad magic"), std::string::npos);
  EXPECT_NE(error_of([] { parse_npy("NOTNUMPYATALL"); }).find("bad magic"), std::string::npos);
  std::string v9 = good;
  v9[6] = 9;
  EXPECT_NE(error_of([&] { parse_npy(v9); }).find("version 9"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_npy(good.substr(0, 40)); }).find("truncated .npy header"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_npy(good.substr(0, good.size() - 3)); }).find("data truncated"), std::string::npos);
  EXPECT_NE(error_of([&] { parse_npy(good + "x"); }).find("trailing bytes"), std::string::npos);
  // A header length far past the file.
  std::string huge = good;
  huge[8] = '\xff';
  huge[9] = '\xff';
  EXPECT_NE(error_of([&] { parse_npy(huge); }).find("truncated .npy header"), std::string::npos);
}


// A malformed header dictionary and the part of the error that names the problem.
struct MalformedHeader {
  const char* name;
  const char* dict;
  const char* message;
};
const MalformedHeader kMalformedHeaders[] = {
    {"MissingFortranOrder", "{'descr': '<i8', 'shape': (1,), }", "needs 'descr'"},
    {"IntegerValue", "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unsupported value"},
    {"UnknownKey", "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), 'x': True}", "unknown key of 1 bytes"},
    {"NegativeDimension", "{'descr': '<i8', 'fortran_order': False, 'shape': (-1,)}", "non-negative integer"},
    {"ElementCountOverflows", "{'descr': '<i8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
     "overflows"},
    {"DimensionPastInt64", "{'descr': '<i8', 'fortran_order': False, 'shape': (99999999999999999999,)}",
     "does not fit int64"},
    {"UnclosedTuple", "{'descr': '<i8', 'fortran_order': False, 'shape': (1,", "header"},
    {"StructuredDtype", "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,)}", "structured"},
    // A huge declared shape with no data: rejected by the size check, nothing is allocated.
    {"HugeShapeWithoutData", "{'descr': '<i8', 'fortran_order': False, 'shape': (1000000000000,)}", "data truncated"},
};

void PrintTo(const MalformedHeader& m, std::ostream* os) { *os << m.dict; }

class NpyMalformedHeader : public ::testing::TestWithParam<MalformedHeader> {};

TEST_P(NpyMalformedHeader, IsAnErrorNamingTheProblem) {
  const MalformedHeader& m = GetParam();
  const std::string error = error_of([&] { parse_npy(npy_image(m.dict)); });
  EXPECT_NE(error.find(m.message), std::string::npos) << m.dict << ": " << error;
}

INSTANTIATE_TEST_SUITE_P(Npy, NpyMalformedHeader, ::testing::ValuesIn(kMalformedHeaders),
                         [](const ::testing::TestParamInfo<MalformedHeader>& p) { return std::string(p.param.name); });

TEST(Npy, HandWrittenHeaderWithDoubleQuotesParses) {
  // Well-formed hand-written header (double quotes, no trailing comma).
  std::string data(8, '\0');
  data[0] = 42;
  const NpyArray a = parse_npy(npy_image("{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (1,)}", data));
  EXPECT_EQ(a.values, (std::vector<std::int64_t>{42}));
}

}  // namespace
}  // namespace kvaddr::replay
