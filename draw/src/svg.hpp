#pragma once
// A minimal SVG writer: shapes are appended in drawing order; str() wraps them in a document with
// a white background and an arrow-head marker. Every text goes through escape().
#include <array>
#include <string>
#include <vector>

namespace kvaddr::draw::detail {

class Svg {
 public:
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& tooltip = "",
            const std::string& stroke = "#455a64", bool dashed = false);
  void text(double x, double y, const std::string& s, double size = 11, const std::string& anchor = "start",
            const std::string& fill = "#000000", bool bold = false);
  // An arrow along `points` (a <polyline>, its head at the last point).
  void polyline(const std::vector<std::array<double, 2>>& points, const std::string& stroke, double width,
                bool dashed);
  void grow(double w, double h);  // the document is at least w x h
  std::string str() const;

 private:
  std::string body_;
  double w_ = 0, h_ = 0;
};

// Colours of the heat maps' states (zoo kill matrix and proofs): background and text.
std::string state_fill(const std::string& state);
std::string state_ink(const std::string& state);

}  // namespace kvaddr::draw::detail
