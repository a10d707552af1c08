// Output tables beside the reference; the heat maps' validation and text form.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/draw/grid.hpp"
#include "kvaddr/model/errors.hpp"
#include "svg.hpp"

namespace kvaddr::draw {

namespace {

constexpr std::int64_t kMaxLanes = 1 << 14;

enum class Lane { same, differs, untouched };

Lane lane_state(const TableView& t, std::size_t i) {
  if (t.got[i] != t.expected[i]) return Lane::differs;
  if (!t.before.empty() && t.expected[i] == t.before[i]) return Lane::untouched;
  return Lane::same;
}

// The text form's mark of a heat-map state: # good, ! bad, . n/a, - skipped, ? anything else.
std::string state_mark(const std::string& st) {
  if (st == "killed" || st == "no alarm" || st == "proved" || st == "refuted as expected") return "#";
  if (st == "survived" || st == "FALSE ALARM" || st == "UNEXPECTED") return "!";
  if (st == "n/a") return ".";
  if (st == "skipped") return "-";
  return "?";
}

}  // namespace

void validate(const TableView& t) {
  require(t.rows >= 0 && t.cols >= 0, "rows", t.rows, "rows and cols must be >= 0");
  require_size(t.cols == 0 || t.rows <= kMaxLanes / std::max<std::int64_t>(t.cols, 1), "lanes", t.rows,
               "at most 16384 lanes per picture");
  const auto n = static_cast<std::size_t>(t.rows * t.cols);
  require_size(t.got.size() == n, "got", static_cast<std::int64_t>(t.got.size()), "must hold rows * cols values");
  require_size(t.expected.size() == n, "expected", static_cast<std::int64_t>(t.expected.size()),
               "must hold rows * cols values");
  require_size(t.before.empty() || t.before.size() == n, "before", static_cast<std::int64_t>(t.before.size()),
               "must be empty or hold rows * cols values");
  require_size(t.lane_labels.empty() || t.lane_labels.size() == n, "lane_labels",
               static_cast<std::int64_t>(t.lane_labels.size()), "must be empty or one per lane");
}

Grid table_grid(const TableView& t) {
  validate(t);
  constexpr double kH = 20, kTop = 72, kLeft = 48, kGap = 40;
  Grid g;
  std::int64_t differing = 0;
  for (std::size_t i = 0; i < t.got.size(); ++i) differing += lane_state(t, i) == Lane::differs ? 1 : 0;
  const auto subtitle = fmt::format("{} x {} lanes, {} differ", t.rows, t.cols, differing);
  auto text_cell = [](double x, double y, double w, const std::string& label, double font, bool bold) {
    return GridCell{x, y, w, kH, label, "#ffffff", "", "none", "#000000", font, 's', bold};
  };
  g.cells.push_back(text_cell(8, 4, std::ceil(label_width(t.title, 13)) + 2 * kCellPad, t.title, 13, true));
  g.cells.push_back(text_cell(8, 26, std::ceil(label_width(subtitle, 11)) + 2 * kCellPad, subtitle, 11, false));
  double cw = 40;  // one width for every lane: the widest value fits
  for (std::size_t i = 0; i < t.got.size(); ++i) {
    cw = std::max({cw, label_width(std::to_string(t.got[i]), 10) + 2 * kCellPad,
                   label_width(std::to_string(t.expected[i]), 10) + 2 * kCellPad});
  }
  cw = std::ceil(cw);
  const double grid_w = static_cast<double>(t.cols) * cw;
  for (std::int64_t r = 0; r < t.rows; ++r) {
    g.cells.push_back({8, kTop + static_cast<double>(r) * kH, kLeft - 12, kH, std::to_string(r), "#ffffff", "", "none",
                       "#607d8b", 10, 'e'});
  }
  double x0 = kLeft;
  for (int side = 0; side < 2; ++side) {
    const auto& label = side == 0 ? t.got_label : t.expected_label;
    const auto& values = side == 0 ? t.got : t.expected;
    const double label_w = std::ceil(label_width(label, 11)) + 2 * kCellPad;
    g.cells.push_back(text_cell(x0, 48, label_w, label, 11, true));
    for (std::int64_t r = 0; r < t.rows; ++r) {
      for (std::int64_t c = 0; c < t.cols; ++c) {
        const auto i = static_cast<std::size_t>(r * t.cols + c);
        const auto st = lane_state(t, i);
        const std::string name = t.lane_labels.empty() ? fmt::format("[{}, {}]", r, c) : t.lane_labels[i];
        const std::string tip = st == Lane::differs
                                    ? fmt::format("{}: {} {}, {} {}", name, t.got_label, t.got[i], t.expected_label,
                                                  t.expected[i])
                                    : fmt::format("{}: {}{}", name, values[i], st == Lane::untouched ? " (untouched)" : "");
        g.cells.push_back({x0 + static_cast<double>(c) * cw, kTop + static_cast<double>(r) * kH, cw, kH,
                           std::to_string(values[i]),
                           st == Lane::differs ? "#ef9a9a" : (st == Lane::untouched ? "#e0e0e0" : "#ffffff"), tip,
                           "#90a4ae", st == Lane::untouched ? "#757575" : "#000000", 10, 'm', st == Lane::differs});
      }
    }
    x0 += std::max(grid_w, label_w) + kGap;
  }
  const double ly = kTop + static_cast<double>(t.rows) * kH + 16;
  double x = kLeft;
  for (const auto& [label, fill] : {std::pair<const char*, const char*>{"differs", "#ef9a9a"},
                                    {"untouched by the reference", "#e0e0e0"}, {"written, equal", "#ffffff"}}) {
    const double w = std::ceil(label_width(label, 10)) + 2 * kCellPad + 2;
    g.cells.push_back({x, ly, w, kH, label, fill, "", "#90a4ae", "#000000", 10, 's'});
    x += w + 8;
  }
  g.width = std::max({x, x0 - kGap, g.cells[0].x + g.cells[0].w, g.cells[1].x + g.cells[1].w});
  g.height = ly + kH;
  return g;
}

std::string table_svg(const TableView& t) { return grid_svg(table_grid(t)); }

std::string table_text(const TableView& t) {
  validate(t);
  std::string s = t.title + "\n";
  std::size_t w = 1;
  for (std::size_t i = 0; i < t.got.size(); ++i) {
    w = std::max({w, std::to_string(t.got[i]).size(), std::to_string(t.expected[i]).size()});
  }
  auto cell = [&](std::int64_t v, Lane st) {
    const auto text = std::to_string(v);
    const std::string mark = st == Lane::differs ? "*" : (st == Lane::untouched ? "." : "");
    return fmt::format(" {:>{}}", mark + text, w + 1);
  };
  s += fmt::format("  {} | {}   (*: differs, .: untouched by the reference)\n", t.got_label, t.expected_label);
  for (std::int64_t r = 0; r < t.rows; ++r) {
    std::string left, right;
    for (std::int64_t c = 0; c < t.cols; ++c) {
      const auto i = static_cast<std::size_t>(r * t.cols + c);
      const auto st = lane_state(t, i);
      left += cell(t.got[i], st);
      right += cell(t.expected[i], st);
    }
    s += fmt::format("  {:>3}:{} |{}\n", r, left, right);
  }
  return s;
}

void validate(const Matrix& m) {
  require_size(m.cells.size() == m.rows.size() * m.cols.size(), "cells", static_cast<std::int64_t>(m.cells.size()),
               "must hold rows * cols states");
  require_size(m.labels.empty() || m.labels.size() == m.cells.size(), "labels",
               static_cast<std::int64_t>(m.labels.size()), "must be empty or one per cell");
  require_size(m.tips.empty() || m.tips.size() == m.cells.size(), "tips", static_cast<std::int64_t>(m.tips.size()),
               "must be empty or one per cell");
  require_size(m.rows.size() * std::max<std::size_t>(m.cols.size(), 1) <= kMaxLanes, "rows",
               static_cast<std::int64_t>(m.rows.size()), "at most 16384 cells per picture");
}

std::string matrix_svg(const Matrix& m) { return grid_svg(matrix_grid(m)); }

std::string matrix_text(const Matrix& m) {
  validate(m);
  std::size_t lw = 4;
  for (const auto& r : m.rows) lw = std::max(lw, r.size());
  std::vector<std::size_t> cw;
  for (const auto& c : m.cols) cw.push_back(std::max<std::size_t>(c.size(), 8));
  std::string s = m.title + "\n" + std::string(lw, ' ');
  for (std::size_t c = 0; c < m.cols.size(); ++c) s += fmt::format(" {:<{}}", m.cols[c], cw[c]);
  s += "\n";
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    s += fmt::format("{:<{}}", m.rows[r], lw);
    for (std::size_t c = 0; c < m.cols.size(); ++c) {
      const auto& st = m.cells[r * m.cols.size() + c];
      s += fmt::format(" {:<{}}", state_mark(st) + " " + (m.labels.empty() ? st : m.labels[r * m.cols.size() + c]),
                       cw[c]);
    }
    s += "\n";
  }
  return s;
}

}  // namespace kvaddr::draw
