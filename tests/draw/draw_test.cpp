// draw/: exact text renderings of small hand-made cases, validation at its boundaries, and SVG
// documents that escape what they show. (tests/cli/check_svg.py parses every SVG with an XML parser.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/draw/grid.hpp"
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
  // After-states must pair with the before-states and keep their geometry.
  PoolState ok{"p", 1, 1, {0, -1}, 0};
  EXPECT_THROW(pool_svg({ok}, {ok, ok}), kvaddr::BufferTooSmall);
  EXPECT_NO_THROW(pool_grid({ok}, {ok}));
  PoolState moved = ok;
  moved.page_size = 2;
  EXPECT_THROW(pool_grid({ok}, {moved}), kvaddr::InvalidArgument);
  moved = ok;
  moved.multiplier = 2;
  EXPECT_THROW(pool_grid({ok}, {moved}), kvaddr::InvalidArgument);
}

const GridCell& cell_labelled(const Grid& g, const std::string& label) {
  const auto it = std::find_if(g.cells.begin(), g.cells.end(), [&](const GridCell& c) { return c.label == label; });
  if (it == g.cells.end()) throw std::runtime_error("no cell labelled " + label);
  return *it;
}

void expect_cell(const Grid& g, const std::string& label, double x, double y, double w, double h) {
  const auto& c = cell_labelled(g, label);
  EXPECT_EQ(c.x, x) << label;
  EXPECT_EQ(c.y, y) << label;
  EXPECT_EQ(c.w, w) << label;
  EXPECT_EQ(c.h, h) << label;
}

using Points = std::vector<std::array<double, 2>>;

TEST(DrawGrid, PoolCellsAndArrowsOnTheGrid) {
  // ps 2, M 1: v0 -> P0 (the sink), v1 -> P1, v2 the sentinel. Columns: virtual at x 8 (104 wide),
  // a lane of one track (10 + 6 + 12 = 28), physical at 140 (80 wide), view 0's dense rows at 220.
  // Rows are 20 high from y 54.
  const auto g = pool_grid({{"p", 2, 1, {0, 1, -1}, 0}});
  expect_cell(g, "p: ps 2, M 1, S = ps*M = 2", 8, 4, 300, 22);
  expect_cell(g, "virtual page", 8, 30, 104, 20);
  expect_cell(g, "physical", 140, 30, 80, 20);
  expect_cell(g, "view 0 rows", 220, 30, 88, 20);
  expect_cell(g, "v0 -> P0", 8, 54, 104, 20);
  expect_cell(g, "v1 -> P1", 8, 74, 104, 20);
  expect_cell(g, "v2 sentinel", 8, 94, 104, 20);
  expect_cell(g, "P0 sink", 140, 54, 80, 20);
  expect_cell(g, "P1", 140, 74, 80, 20);
  expect_cell(g, "[0,2)", 220, 54, 88, 20);
  expect_cell(g, "[2,4)", 220, 74, 88, 20);
  EXPECT_EQ(cell_labelled(g, "[2,4)").tooltip, "P1, layer view 0: dense rows [2,4)");
  // Each arrow leaves its row 3 above the middle, enters 3 below it; both share track 0 (x 122).
  ASSERT_EQ(g.arrows.size(), 2u);
  EXPECT_EQ(g.arrows[0].points, (Points{{112, 61}, {122, 61}, {122, 67}, {140, 67}}));
  EXPECT_EQ(g.arrows[1].points, (Points{{112, 81}, {122, 81}, {122, 87}, {140, 87}}));
  EXPECT_EQ(cell_labelled(g, "-> maps to").y, 126);  // the legend, 12 below the last row
  EXPECT_EQ(g.height, 146);
}

TEST(DrawGrid, CrossingArrowsTakeTheirOwnTracksAndMovesRunInTheirLane) {
  // v1 -> P2 and v2 -> P1 cross: their vertical spans meet, so v2's takes track 1.
  PoolState before{"p", 1, 1, {0, 2, 1, -1}, 0};
  PoolState after{"p", 1, 1, {0, 1, -1, -1}, 0};
  const auto g = pool_grid({before}, {after});
  // Lane 1: 10 + 2 * 6 + 12 = 34 wide; physical at 8 + 104 + 34 = 146, dense at 226 .. 314.
  expect_cell(g, "P2", 146, 94, 80, 20);
  ASSERT_GE(g.arrows.size(), 3u);
  EXPECT_EQ(g.arrows[0].points, (Points{{112, 61}, {122, 61}, {122, 67}, {146, 67}}));  // v0 -> P0, track 0
  EXPECT_EQ(g.arrows[1].points, (Points{{112, 81}, {122, 81}, {122, 107}, {146, 107}}));  // v1 -> P2, track 0
  EXPECT_EQ(g.arrows[2].points, (Points{{112, 101}, {128, 101}, {128, 87}, {146, 87}}));  // v2 -> P1, track 1
  // The move v1: P2 -> P1 leaves P2's dense cell (right edge 314) for the physical page after (at
  // 314 + 28 = 342), in the lane between them.
  const auto move = std::find_if(g.arrows.begin(), g.arrows.end(), [](const GridArrow& a) { return a.stroke == "#e65100"; });
  ASSERT_NE(move, g.arrows.end());
  EXPECT_EQ(move->points, (Points{{314, 101}, {324, 101}, {324, 87}, {342, 87}}));
  // The after-state's arrows run right to left, from its virtual pages into its physical ones
  // (right edge 422). Its tombstone v2 (dashed, to the sink) meets v0's span: two tracks, so the
  // lane is 34 wide and the virtual pages start at 456.
  expect_cell(g, "p after", 342, 4, 80 + 34 + 104, 22);
  expect_cell(g, "v1 -> P1", 456, 74, 104, 20);
  EXPECT_EQ(g.arrows.back().points, (Points{{456, 101}, {440, 101}, {440, 67}, {422, 67}}));
  EXPECT_TRUE(g.arrows.back().dashed);
}

// No arrow segment runs through the inside of a cell, and no two labels' boxes meet, on a pool
// with tombstones, aliasing, several sub-pools and a compaction.
TEST(DrawGrid, ArrowsNeverCrossCellsAndLabelsNeverOverlap) {
  PoolState a{"full", 4, 9, {0, 5, -1, 2, -1, 7, 1, -1, 3, -1}, 0};
  PoolState a2{"full", 4, 9, {0, 1, -1, 2, -1, 3, 4, -1, 5, -1}, 0};
  PoolState b{"swa with a long name that does not fit its title", 1, 1, {0, 1, 1, -1, -1}, 0};
  for (const auto& g : {pool_grid({a, b}, {a2, b}), pool_grid({a}), pool_grid({b})}) {
    for (const auto& arrow : g.arrows) {
      for (std::size_t i = 0; i + 1 < arrow.points.size(); ++i) {
        const auto p = arrow.points[i], q = arrow.points[i + 1];
        ASSERT_TRUE(p[0] == q[0] || p[1] == q[1]);  // horizontal or vertical
        for (const auto& c : g.cells) {
          const bool apart = std::max(p[0], q[0]) <= c.x + 0.5 || std::min(p[0], q[0]) >= c.x + c.w - 0.5 ||
                             std::max(p[1], q[1]) <= c.y + 0.5 || std::min(p[1], q[1]) >= c.y + c.h - 0.5;
          ASSERT_TRUE(apart) << "arrow through the cell " << c.label;
        }
      }
    }
    for (std::size_t i = 0; i < g.cells.size(); ++i) {
      const auto& c = g.cells[i];
      ASSERT_LE(label_width(fit_label(c.label, c.w - 2 * kCellPad, c.font), c.font), c.w - 2 * kCellPad);
      for (std::size_t j = i + 1; j < g.cells.size(); ++j) {
        const auto& d = g.cells[j];
        const bool apart = c.x + c.w <= d.x || d.x + d.w <= c.x || c.y + c.h <= d.y || d.y + d.h <= c.y;
        ASSERT_TRUE(apart) << c.label << " / " << d.label;
      }
    }
  }
}

TEST(DrawGrid, LabelsAreCutToTheirCellWithAnEllipsis) {
  const double ch = 11 * kCharEm;  // one character at font size 11
  EXPECT_EQ(fit_label("abcdef", 6 * ch, 11), "abcdef");
  EXPECT_EQ(fit_label("abcdef", 6 * ch - 0.01, 11), "abcd\u2026");
  EXPECT_EQ(fit_label("abcdef", 1 * ch, 11), "\u2026");
  EXPECT_EQ(fit_label("abcdef", 1 * ch - 0.01, 11), "");
  EXPECT_EQ(fit_label("\u00e9t\u00e9s", 2 * ch, 11), "\u00e9\u2026");  // whole UTF-8 characters
  EXPECT_EQ(label_width("\u00e9t\u00e9", 10), 3 * 10 * kCharEm);
}

TEST(DrawGrid, MatrixCellsOnTheGrid) {
  // Row labels 60 wide from x 8; each column as wide as its widest text (at least 48); rows 18 high
  // below a header row at y 30.
  Matrix m{"m", {"a", "b"}, {"x", "a long column header"}, {"killed", "survived", "n/a", "no alarm"}, {}, {}, {}};
  const auto g = matrix_grid(m);
  expect_cell(g, "x", 68, 30, 48, 18);
  // "a long column header": 20 characters at 10 px: 20 * 6.2 + 8 = 132.
  expect_cell(g, "a long column header", 116, 30, 132, 18);
  expect_cell(g, "a", 8, 48, 60, 18);
  expect_cell(g, "survived", 116, 48, 132, 18);
  expect_cell(g, "no alarm", 116, 66, 132, 18);
  EXPECT_EQ(cell_labelled(g, "survived").tooltip, "a x a long column header: survived");
  EXPECT_EQ(cell_labelled(g, "survived").fill, "#ef5350");
  m.tips = {"1", "2", "3", "4"};
  EXPECT_EQ(cell_labelled(matrix_grid(m), "survived").tooltip, "2");
  m.tips.pop_back();
  EXPECT_THROW(validate(m), kvaddr::BufferTooSmall);
  m.tips.clear();
  m.labels = {"k", "s", "", "ok"};
  EXPECT_NO_THROW(validate(m));
  EXPECT_EQ(cell_labelled(matrix_grid(m), "s").fill, "#ef5350");
  m.labels.push_back("");
  EXPECT_THROW(validate(m), kvaddr::BufferTooSmall);
}

TEST(DrawGrid, TableLanesOnTheGrid) {
  // Values at most 3 characters: lanes 40 wide (the minimum), rows 20 high from y 72; the route's
  // lanes from x 48, the reference's 40 after the wider of its grid (2 * 40) and its label.
  TableView t;
  t.title = "t";
  t.rows = 2;
  t.cols = 2;
  t.got = {3, 7, -1, 100};
  t.expected = {3, 0, -1, 101};
  t.got_label = "got";
  t.expected_label = "ref";
  const auto g = table_grid(t);
  expect_cell(g, "2 x 2 lanes, 2 differ", 8, 26, std::ceil(21 * 11 * kCharEm) + 8, 20);
  expect_cell(g, "got", 48, 48, std::ceil(3 * 11 * kCharEm) + 8, 20);
  expect_cell(g, "7", 88, 72, 40, 20);
  expect_cell(g, "ref", 168, 48, std::ceil(3 * 11 * kCharEm) + 8, 20);
  expect_cell(g, "101", 208, 92, 40, 20);
  EXPECT_EQ(cell_labelled(g, "101").fill, "#ef9a9a");
  EXPECT_EQ(cell_labelled(g, "101").tooltip, "[1, 1]: got 100, ref 101");
  EXPECT_TRUE(cell_labelled(g, "101").bold);
  expect_cell(g, "1", 8, 92, 36, 20);  // row numbers, right-aligned left of the lanes
  EXPECT_EQ(cell_labelled(g, "1").anchor, 'e');
  EXPECT_EQ(cell_labelled(g, "differs").y, 72 + 2 * 20 + 16);
}

TEST(DrawGrid, CommentRecordsWhatMadeThePicture) {
  const auto svg = pool_svg({{"p", 1, 1, {0, -1}, 0}});
  const auto with = with_comment(svg, R"(made by {"command": ["kvaddr", "-\u002dv2p"]})");
  EXPECT_EQ(with.substr(0, with.find("<svg")), svg.substr(0, svg.find('\n') + 1) +
                                                  "<!-- made by {\"command\": [\"kvaddr\", \"-\\u002dv2p\"]} -->\n");
  EXPECT_EQ(with.substr(with.find("<svg")), svg.substr(svg.find("<svg")));
  EXPECT_NO_THROW(with_comment(svg, "a -b - c-"));
  EXPECT_THROW(with_comment(svg, "a --b"), kvaddr::InvalidArgument);
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
  Matrix m{"m", {"production", "b10"}, {"proofs", "grid"}, {"no alarm", "FALSE ALARM", "killed", "survived"}, {}, {}, {}};
  EXPECT_EQ(matrix_text(m), "m\n"
                            "           proofs   grid    \n"
                            "production # no alarm ! FALSE ALARM\n"
                            "b10        # killed ! survived\n");
  m.cells.pop_back();
  EXPECT_THROW(validate(m), kvaddr::BufferTooSmall);
}

TEST(DrawProofs, RoutesByKindThenFamiliesWithTheirBugsInOneCell) {
  const std::vector<Verdict> v{
      {"route.read_table", "proved", "proved", ""},
      {"route.read_table.b09", "refuted", "refuted", "ps=1 tok=-1"},
      {"route.read_table.columns", "proved", "proved", ""},
      {"Q2.unpinned.read_table", "refuted", "refuted", "v2p[0]=3"},
      {"route.write_loc", "proved", "refuted", "ids=[-6]"},
      {"route.write_loc.spec_lane", "proved", "proved", ""},
      {"I1.algebra", "proved", "proved", ""},
      {"I1.int64", "proved", "unknown", "query 2 timed out"},
      {"I2", "proved", "proved", ""},
  };
  const auto ms = proofs_matrices("Z3", v);
  ASSERT_EQ(ms.size(), 2u);
  const auto& r = ms[0];
  EXPECT_EQ(r.rows, (std::vector<std::string>{"read_table", "write_loc"}));  // translate's route order
  EXPECT_EQ(r.cols, (std::vector<std::string>{"contract", "columns", "Q2.unpinned", "spec_lane"}));
  EXPECT_EQ(r.cells, (std::vector<std::string>{"proved", "proved", "refuted as expected", "n/a",  //
                                               "UNEXPECTED", "n/a", "n/a", "proved"}));
  EXPECT_EQ(r.labels, (std::vector<std::string>{"proved +1", "proved", "refuted", "", "UNEXPECTED", "", "", "proved"}));
  EXPECT_EQ(r.tips[0], "route.read_table: proved (expected proved)\nroute.read_table.b09: refuted (expected refuted); "
                       "ps=1 tok=-1");
  EXPECT_EQ(r.tips[4], "route.write_loc: refuted (expected proved); ids=[-6]");
  EXPECT_EQ(r.tips[3], "no obligation");
  const auto& f = ms[1];
  EXPECT_EQ(f.rows, (std::vector<std::string>{"I1", "I2"}));
  EXPECT_EQ(f.cols, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(f.cells, (std::vector<std::string>{"proved", "unknown", "proved", "n/a"}));
  EXPECT_EQ(f.labels, (std::vector<std::string>{"algebra", "int64", "I2", ""}));
  EXPECT_EQ(f.legend, (std::vector<std::string>{"proved", "refuted as expected", "unknown", "UNEXPECTED"}));
  // A planted bug that comes out proved makes its cell UNEXPECTED; nothing selected, no matrix.
  auto bad = v;
  bad[1].got = "proved";
  EXPECT_EQ(proofs_matrices("Z3", bad)[0].cells[0], "UNEXPECTED");
  EXPECT_TRUE(proofs_matrices("Z3", {}).empty());
  // Validation: names present and distinct, verdicts spelled as proofs/ spells them, at most 16384.
  EXPECT_THROW(proofs_matrices("Z3", {{"", "proved", "proved", ""}}), kvaddr::InvalidArgument);
  EXPECT_THROW(proofs_matrices("Z3", {{"a", "unknown", "unknown", ""}}), kvaddr::InvalidArgument);
  EXPECT_THROW(proofs_matrices("Z3", {{"a", "proved", "maybe", ""}}), kvaddr::InvalidArgument);
  EXPECT_THROW(proofs_matrices("Z3", {{"a", "proved", "proved", ""}, {"a", "proved", "proved", ""}}),
               kvaddr::InvalidArgument);
  std::vector<Verdict> many;
  for (int i = 0; i < 16384; ++i) many.push_back({"I" + std::to_string(i), "proved", "proved", ""});
  EXPECT_EQ(proofs_matrices("Z3", many)[0].rows.size(), 16384u);
  many.push_back({"last", "proved", "proved", ""});
  EXPECT_THROW(proofs_matrices("Z3", many), kvaddr::BufferTooSmall);
  EXPECT_EQ(verdict_state({"x", "refuted", "refuted", ""}), "refuted as expected");
  EXPECT_EQ(verdict_state({"x", "proved", "unknown", ""}), "unknown");
  EXPECT_EQ(verdict_state({"x", "refuted", "proved", ""}), "UNEXPECTED");
}

TEST(DrawVerdicts, TextFlagsUnexpectedVerdicts) {
  EXPECT_EQ(verdicts_text("v", {{"I1", "proved", "proved", ""}, {"B09", "refuted", "proved", ""}}),
            "v\n  ok  I1         expected proved   got proved\n  BAD B09        expected refuted  got proved\n");
}

}  // namespace
