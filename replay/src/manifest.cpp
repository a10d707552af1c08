#include "manifest.hpp"

#include <set>
#include <string>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "text.hpp"

namespace kvaddr::replay::detail {

nlohmann::json parse_manifest(std::string_view text) {
  using json = nlohmann::json;
  std::vector<std::set<std::string>> keys;  // the keys seen so far, one set per open object
  const json::parser_callback_t check = [&keys](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (static_cast<std::size_t>(depth) >= kMaxManifestDepth) {
          throw FormatError("manifest.json", "depth " + std::to_string(depth + 1),
                            "nested deeper than " + std::to_string(kMaxManifestDepth) + " levels");
        }
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second) {
          throw FormatError("manifest.json", "depth " + std::to_string(depth), "repeated key in one object");
        }
        break;
      default: break;
    }
    return true;
  };
  // Invalid UTF-8 bytes become U+FFFD, so that one bad byte costs one call (a name that no longer
  // matches, a file that is not found), not the whole report.
  const std::string clean = valid_utf8(text);
  try {
    return json::parse(clean.begin(), clean.end(), check);
  } catch (const json::parse_error& e) {
    // Only the position: neither the text nor nlohmann's message (which quotes the last bytes read).
    throw FormatError("manifest.json", "byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0), "not valid JSON");
  } catch (const json::exception&) {
    throw FormatError("manifest.json", "the document", "not valid JSON");
  }
}

std::string describe_value(const nlohmann::json& v) {
  if (v.is_structured()) return std::string("a JSON ") + v.type_name();
  return valid_utf8(snippet(v.dump(), 40));
}

}  // namespace kvaddr::replay::detail
