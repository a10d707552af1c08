// draw/: exact text renderings of small hand-made cases, validation at its boundaries, and SVG
// documents that escape what they show. (tests/cli/check_svg.py parses every SVG with an XML parser.)
#include <gtest/gtest.h>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/model/errors.hpp"

namespace {

using namespace kvaddr::draw;

TEST(DrawPool, TextShowsPagesRowsTombstoneSentinelAndMoves) {
  // ps 4, M 2 (S 8): v1 -> P3 owns rows [24,28) and [28,32); v2 is a tombstone, v4 the sentinel.
  PoolState before{"full", 4, 2, {0, 3, -1, 1, -1}, 0};
  PoolState after{"full", 4, 2, {0, 1, -1, 2, -1}, 0};
  EXPECT_EQ(pool_text({before}, {after}),
            "full: ps 4, M 2, S = 8; P0 is the sink\n"
            "  v0    -> P0    (sink) rows [0,4) [4,8)\n"
            "  v1    -> P3    rows [24,28) [28,32)   moves P3 -> P1\n"
            "  v2    tombstone -> sink row 0\n"
            "  v3    -> P1    rows [8,12) [12,16)   moves P1 -> P2\n"
            "  v4    sentinel (-1)\n");
}

TEST(DrawPool, ValidationBoundaries) {
  PoolState s{"p", 1, 1, {0, -1}, 0};
  EXPECT_NO_THROW(validate(s));
  s.page_size = 0;
  EXPECT_THROW(validate(s), kvaddr::InvalidArgument);
  s.page_size = 1;
  s.multiplier = 0;
  EXPECT_THROW(validate(s), kvaddr::InvalidArgument);
  s.multiplier = 1;
  s.v2p = {0, -2};
  EXPECT_THROW(validate(s), kvaddr::OutOfRange);
  s.v2p = {0, 3, -1};
  s.num_pages = 4;
  EXPECT_NO_THROW(validate(s));
  s.num_pages = 3;  // P3 is past 3 pages
  EXPECT_THROW(validate(s), kvaddr::OutOfRange);
  s.num_pages = 0;
  s.v2p.assign(kMaxPages, -1);
  EXPECT_NO_THROW(validate(s));
  s.v2p.push_back(-1);
  EXPECT_THROW(validate(s), kvaddr::BufferTooSmall);
  s.v2p.clear();
  EXPECT_THROW(validate(s), kvaddr::BufferTooSmall);
  // After-states must pair with the before-states.
  PoolState ok{"p", 1, 1, {0, -1}, 0};
  EXPECT_THROW(pool_svg({ok}, {ok, ok}), kvaddr::BufferTooSmall);
}

TEST(DrawTable, TextMarksDifferingAndUntouchedLanes) {
  TableView t;
  t.title = "t";
  t.rows = 1;
  t.cols = 3;
  t.got = {3, 7, -1};
  t.expected = {3, 0, -1};
  t.before = {-1, -1, -1};  // lane 2 untouched by the reference
  EXPECT_EQ(table_text(t), "t\n  route | reference   (*: differs, .: untouched by the reference)\n"
                           "    0:   3  *7 .-1 |   3  *0 .-1\n");
}

TEST(DrawTable, ValidationBoundaries) {
  TableView t;
  t.rows = 2;
  t.cols = 2;
  t.got.assign(4, 0);
  t.expected.assign(4, 0);
  EXPECT_NO_THROW(validate(t));
  t.got.pop_back();
  EXPECT_THROW(validate(t), kvaddr::BufferTooSmall);
  t.got.push_back(0);
  t.before.assign(3, 0);
  EXPECT_THROW(validate(t), kvaddr::BufferTooSmall);
  t.before.clear();
  t.rows = -1;
  EXPECT_THROW(validate(t), kvaddr::InvalidArgument);
  TableView big;
  big.rows = 1;
  big.cols = 1 << 14;
  big.got.assign(1 << 14, 0);
  big.expected = big.got;
  EXPECT_NO_THROW(validate(big));
  big.rows = 2;
  EXPECT_THROW(validate(big), kvaddr::BufferTooSmall);
}

TEST(DrawSvg, EscapesTextAndIsOneDocument) {
  TableView t;
  t.title = "a<b & \"c\"";
  t.cols = 1;
  t.got = {1};
  t.expected = {2};
  const auto svg = table_svg(t);
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_EQ(svg.rfind("<svg", 0), std::string::npos);  // starts with the XML declaration
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(escape(std::string("x\x01y")), "x?y");
}

TEST(DrawMatrix, TextAndShapeCheck) {
  Matrix m{"m", {"production", "b10"}, {"proofs", "grid"}, {"no alarm", "FALSE ALARM", "killed", "survived"}};
  EXPECT_EQ(matrix_text(m), "m\n"
                            "           proofs   grid    \n"
                            "production # no alarm ! FALSE ALARM\n"
                            "b10        # killed ! survived\n");
  m.cells.pop_back();
  EXPECT_THROW(validate(m), kvaddr::BufferTooSmall);
}

TEST(DrawVerdicts, TextFlagsUnexpectedVerdicts) {
  EXPECT_EQ(verdicts_text("v", {{"I1", "proved", "proved"}, {"B09", "refuted", "proved"}}),
            "v\n  ok  I1         expected proved   got proved\n  BAD B09        expected refuted  got proved\n");
}

}  // namespace
