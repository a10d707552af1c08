// Fixed-grid pictures: label fitting, the SVG of a grid, the heat-map layout and the provenance
// comment. (The pool layout is in pool.cpp.)
#include "kvaddr/draw/grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kvaddr/model/errors.hpp"
#include "svg.hpp"

namespace kvaddr::draw {

namespace {

std::size_t utf8_chars(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// Byte length of the first `chars` UTF-8 characters of s.
std::size_t utf8_prefix(const std::string& s, std::size_t chars) {
  std::size_t i = 0, n = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == chars) break;
      ++n;
    }
  }
  return i;
}

}  // namespace

double label_width(const std::string& label, double font) {
  return static_cast<double>(utf8_chars(label)) * font * kCharEm;
}

std::string fit_label(const std::string& label, double width, double font) {
  const double fits = std::floor(width / (font * kCharEm) + 1e-9);
  if (fits < 1) return "";
  const auto cap = static_cast<std::size_t>(fits);
  if (utf8_chars(label) <= cap) return label;
  return label.substr(0, utf8_prefix(label, cap - 1)) + "\xE2\x80\xA6";  // U+2026 HORIZONTAL ELLIPSIS
}

std::string grid_svg(const Grid& g) {
  detail::Svg svg;
  svg.grow(g.width, g.height);
  for (const auto& c : g.cells) {
    const auto shown = fit_label(c.label, c.w - 2 * kCellPad, c.font);
    const auto tip = c.tooltip.empty() && shown != c.label ? c.label : c.tooltip;
    svg.rect(c.x, c.y, c.w, c.h, c.fill, tip, c.stroke, c.dashed);
    if (shown.empty()) continue;
    const double x = c.anchor == 's' ? c.x + kCellPad : (c.anchor == 'm' ? c.x + c.w / 2 : c.x + c.w - kCellPad);
    const char* anchor = c.anchor == 's' ? "start" : (c.anchor == 'm' ? "middle" : "end");
    svg.text(x, c.y + c.h / 2 + c.font * 0.35, shown, c.font, anchor, c.text_fill, c.bold);
  }
  for (const auto& a : g.arrows) svg.polyline(a.points, a.stroke, a.width, a.dashed);
  return svg.str();
}

Grid matrix_grid(const Matrix& m) {
  validate(m);
  constexpr double kTitle = 13, kHead = 10, kLabel = 11, kCell = 9, kH = 18, kTop = 30;
  // Row labels longer than 64 characters, headers and cell labels longer than 40, are cut.
  auto width_for = [&](const std::string& s, double font, std::size_t most = 40) {
    return static_cast<double>(std::min(utf8_chars(s), most)) * font * kCharEm + 2 * kCellPad;
  };
  double lw = 60;
  for (const auto& r : m.rows) lw = std::max(lw, width_for(r, kLabel, 64));
  const auto label_of = [&](std::size_t i) -> const std::string& { return m.labels.empty() ? m.cells[i] : m.labels[i]; };
  // Each column as wide as its header or its widest cell label (at most 40 characters).
  std::vector<double> cw(m.cols.size(), 48), cx(m.cols.size() + 1, 8 + std::ceil(lw));
  for (std::size_t c = 0; c < m.cols.size(); ++c) {
    cw[c] = std::max(cw[c], width_for(m.cols[c], kHead));
    for (std::size_t r = 0; r < m.rows.size(); ++r) cw[c] = std::max(cw[c], width_for(label_of(r * m.cols.size() + c), kCell));
    cw[c] = std::ceil(cw[c]);
    cx[c + 1] = cx[c] + cw[c];
  }
  lw = std::ceil(lw);
  Grid g;
  const double grid_w = cx.back() - 8;
  const double title_w = std::ceil(label_width(m.title, kTitle)) + 2 * kCellPad;  // the title is never cut
  g.cells.push_back({8, 4, title_w, 22, m.title, "#ffffff", "", "none", "#000000", kTitle, 's', true});
  for (std::size_t c = 0; c < m.cols.size(); ++c) {
    g.cells.push_back({cx[c], kTop, cw[c], kH, m.cols[c], "#eceff1", "", "#ffffff", "#37474f", kHead, 'm', true});
  }
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const double y = kTop + kH * static_cast<double>(r + 1);
    g.cells.push_back({8, y, lw, kH, m.rows[r], "#ffffff", "", "none", "#000000", kLabel, 'e'});
    for (std::size_t c = 0; c < m.cols.size(); ++c) {
      const auto i = r * m.cols.size() + c;
      const auto& st = m.cells[i];
      g.cells.push_back({cx[c], y, cw[c], kH, label_of(i), detail::state_fill(st),
                         m.tips.empty() ? fmt::format("{} x {}: {}", m.rows[r], m.cols[c], st) : m.tips[i], "#ffffff",
                         detail::state_ink(st), kCell, 'm'});
    }
  }
  std::vector<std::string> legend = m.legend;
  if (legend.empty()) {
    for (const auto& st : m.cells) {
      if (std::find(legend.begin(), legend.end(), st) == legend.end()) legend.push_back(st);
    }
  }
  const double ly = kTop + kH * static_cast<double>(m.rows.size() + 1) + 12;
  double x = 8 + lw;
  for (const auto& st : legend) {
    const double w = std::ceil(width_for(st, 10)) + 6;
    g.cells.push_back({x, ly, w, kH, st, detail::state_fill(st), "", "#90a4ae", detail::state_ink(st), 10, 'm'});
    x += w + 8;
  }
  g.width = std::max({8 + grid_w, x, 8 + title_w});
  g.height = ly + kH;
  return g;
}

Grid stack(const std::vector<Grid>& grids) {
  Grid g;
  for (const auto& part : grids) {
    const double dy = g.height > 0 ? g.height + 8 : 0;
    for (auto c : part.cells) {
      c.y += dy;
      g.cells.push_back(std::move(c));
    }
    for (auto a : part.arrows) {
      for (auto& p : a.points) p[1] += dy;
      g.arrows.push_back(std::move(a));
    }
    g.width = std::max(g.width, part.width);
    g.height = dy + part.height;
  }
  return g;
}

std::string with_comment(const std::string& svg, const std::string& text) {
  if (text.find("--") != std::string::npos) {
    throw InvalidArgument("comment", text.substr(0, 60), "an XML comment cannot hold \"--\"");
  }
  std::size_t at = 0;  // after the XML declaration, when there is one
  if (svg.rfind("<?xml", 0) == 0 && svg.find("?>") != std::string::npos) {
    at = svg.find("?>") + 2;
    if (at < svg.size() && svg[at] == '\n') ++at;
  }
  return svg.substr(0, at) + "<!-- " + text + " -->\n" + svg.substr(at);
}

}  // namespace kvaddr::draw
