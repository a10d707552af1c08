#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/draw/grid.hpp"

namespace kvaddr::draw {

std::string escape(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': r += "&amp;"; break;
      case '<': r += "&lt;"; break;
      case '>': r += "&gt;"; break;
      case '"': r += "&quot;"; break;
      case '\'': r += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          r += '?';
        } else {
          r += c;
        }
    }
  }
  return r;
}

namespace detail {

void Svg::rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip,
               const std::string& stroke, bool dashed) {
  body_ += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="{}")", x, y, w,
                       h, fill, stroke);
  if (dashed) body_ += R"( stroke-dasharray="4 3")";
  body_ += tooltip.empty() ? "/>\n" : fmt::format("><title>{}</title></rect>\n", escape(tooltip));
  grow(x + w, y + h);
}

void Svg::text(double x, double y, const std::string& s, double size, const std::string& anchor,
               const std::string& fill, bool bold) {
  body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.0f}" text-anchor="{}" fill="{}"{}>{}</text>)",
                       x, y, size, anchor, fill, bold ? R"( font-weight="bold")" : "", escape(s));
  body_ += "\n";
  const double w = label_width(s, size);
  grow(anchor == "start" ? x + w : (anchor == "middle" ? x + w / 2 : x), y + 4);
}

void Svg::polyline(const std::vector<std::array<double, 2>>& points, const std::string& stroke, double width,
                   bool dashed) {
  body_ += R"(<polyline points=")";
  for (std::size_t i = 0; i < points.size(); ++i) {
    body_ += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", points[i][0], points[i][1]);
    grow(points[i][0], points[i][1]);
  }
  body_ += fmt::format(R"(" fill="none" stroke="{}" stroke-width="{:.1f}")", stroke, width);
  if (dashed) body_ += R"( stroke-dasharray="4 3")";
  body_ += R"x( marker-end="url(#arrow)"/>)x";
  body_ += "\n";
}

void Svg::grow(double w, double h) {
  w_ = std::max(w_, w);
  h_ = std::max(h_, h);
}

std::string Svg::str() const {
  const double w = w_ + 12, h = h_ + 12;
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "font-family=\"DejaVu Sans Mono, monospace\">\n"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"8\" markerHeight=\"8\" "
      "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#37474f\"/></marker></defs>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n{2}</svg>\n",
      w, h, body_);
}

std::string state_fill(const std::string& state) {
  if (state == "killed" || state == "proved") return "#66bb6a";
  if (state == "refuted as expected") return "#80cbc4";
  if (state == "survived") return "#ef5350";
  if (state == "n/a") return "#f5f5f5";
  if (state == "skipped") return "#bdbdbd";
  if (state == "no alarm") return "#c5e1a5";
  if (state == "FALSE ALARM" || state == "UNEXPECTED") return "#b71c1c";
  return "#fff59d";
}

std::string state_ink(const std::string& state) {
  return state == "FALSE ALARM" || state == "UNEXPECTED" ? "#ffffff" : "#212121";
}

}  // namespace detail
}  // namespace kvaddr::draw
