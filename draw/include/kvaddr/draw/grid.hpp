#pragma once
// Pictures on a fixed grid (CuTe's print_svg is the model): every label sits alone in its own
// fixed-size cell, in a monospace font, cut to the cell's width with an ellipsis when longer (the
// whole text stays in the cell's tooltip); arrows are polylines of horizontal and vertical
// segments that run in the empty lanes between columns and end on the edges of the cells they
// connect, so no text overlaps another and no arrow crosses a cell. The layouts are plain values
// (tests check their coordinates); grid_svg() writes one as an SVG document.
#include <array>
#include <string>
#include <vector>

#include "kvaddr/draw/draw.hpp"

namespace kvaddr::draw {

// Advance of one character of the pictures' font (DejaVu Sans Mono: 0.602 em), rounded up: a
// label of n characters at font size f is at most n * f * kCharEm wide.
inline constexpr double kCharEm = 0.62;
inline constexpr double kCellPad = 4;  // text inset from a cell's left / right edge

struct GridCell {
  double x = 0, y = 0, w = 0, h = 0;
  std::string label;           // drawn fitted to the cell (fit_label)
  std::string fill = "#ffffff";
  std::string tooltip;         // <title> of the cell; the full label when it was cut
  std::string stroke = "none";
  std::string text_fill = "#000000";
  double font = 11;
  char anchor = 's';           // 's' start, 'm' middle, 'e' end
  bool bold = false;
  bool dashed = false;         // dashed border
};

struct GridArrow {
  std::vector<std::array<double, 2>> points;  // >= 2 points; consecutive points share x or y
  std::string stroke = "#1565c0";
  double width = 1.2;
  bool dashed = false;
};

struct Grid {
  double width = 0, height = 0;
  std::vector<GridCell> cells;
  std::vector<GridArrow> arrows;
};

// The longest prefix of `label` (whole UTF-8 characters) that fits `width` pixels at `font`
// size, ending in "…" when it was cut; "" when not even one character fits.
std::string fit_label(const std::string& label, double width, double font);
// Width of `label` at `font` size (UTF-8 characters x font x kCharEm).
double label_width(const std::string& label, double font);

// The document: a white background, each cell's rectangle (with its tooltip) and label, then the
// arrows (an arrow head at the last point).
std::string grid_svg(const Grid& g);

// The pool picture's layout. Per sub-pool, left to right: the virtual pages, a lane, the physical
// pages, the dense rows of each layer view (at most 6, then a "+N more" column); with `after`,
// a lane of compaction moves (orange, from a page's last dense cell to its new physical page),
// the physical pages after, a lane, the virtual pages after. Row r of every column is at the same
// y; a lane is as wide as its arrows need (one track each, tracks reused where their vertical
// spans do not meet). A legend row closes it.
Grid pool_grid(const std::vector<PoolState>& before, const std::vector<PoolState>& after = {});

// A heat map's layout: a title, the column headers, one row label and one cell per column for
// each row, and a legend of the states in `m.legend` (or those the cells use).
Grid matrix_grid(const Matrix& m);

// The grids one below the other (8 px apart), as one.
Grid stack(const std::vector<Grid>& grids);

// A route's output beside the reference: a title, "R x C lanes, N differ", then for the route and
// the reference a grid of lanes (one width for all: the widest value fits; row r at y 72 + 20 r),
// row numbers at the left, and a legend.
Grid table_grid(const TableView& t);

// Inserts `<!-- text -->` after the XML declaration of `svg` (what made the picture). Throws
// InvalidArgument("comment") when `text` holds "--" (XML forbids it in comments).
std::string with_comment(const std::string& svg, const std::string& text);

}  // namespace kvaddr::draw
