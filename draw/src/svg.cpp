#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kvaddr/draw/draw.hpp"

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
               const std::string& stroke) {
  body_ += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="{}")", x, y, w,
                       h, fill, stroke);
  body_ += tooltip.empty() ? "/>\n" : fmt::format("><title>{}</title></rect>\n", escape(tooltip));
  grow(x + w, y + h);
}

void Svg::text(double x, double y, const std::string& s, double size, const std::string& anchor,
               const std::string& fill, bool bold) {
  body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="{:.0f}" text-anchor="{}" fill="{}"{}>{}</text>)",
                       x, y, size, anchor, fill, bold ? R"( font-weight="bold")" : "", escape(s));
  body_ += "\n";
  const double w = text_width(s, size);
  grow(anchor == "start" ? x + w : (anchor == "middle" ? x + w / 2 : x), y + 4);
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& stroke, double width, bool dashed,
               bool arrow) {
  body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{:.1f}")",
                       x1, y1, x2, y2, stroke, width);
  if (dashed) body_ += R"( stroke-dasharray="4 3")";
  if (arrow) body_ += R"x( marker-end="url(#arrow)")x";
  body_ += "/>\n";
  grow(std::max(x1, x2), std::max(y1, y2));
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
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
      "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#37474f\"/></marker></defs>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"#ffffff\"/>\n{2}</svg>\n",
      w, h, body_);
}

double text_width(const std::string& s, double size) { return static_cast<double>(s.size()) * size * 0.62; }

}  // namespace detail
}  // namespace kvaddr::draw
