#include "manifest.hpp"

#include <string>

#include "text.hpp"

namespace kvaddr::replay::detail {

nlohmann::json parse_manifest(std::string_view text) { return read_json(text, "manifest.json"); }

std::string describe_value(const nlohmann::json& v) {
  if (v.is_structured()) return std::string("a JSON ") + v.type_name();
  return valid_utf8(snippet(v.dump(), 40));
}

}  // namespace kvaddr::replay::detail
