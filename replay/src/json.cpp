#include "kvaddr/replay/json.hpp"

#include <set>
#include <string>
#include <vector>

#include "files.hpp"
#include "kvaddr/model/errors.hpp"
#include "text.hpp"

namespace kvaddr::replay {

nlohmann::json read_json(std::string_view text, const std::string& file) {
  using json = nlohmann::json;
  if (text.size() > kMaxJsonBytes) {
    throw FormatError(file, std::to_string(text.size()) + " bytes",
                      "larger than " + std::to_string(kMaxJsonBytes) + " bytes");
  }
  std::vector<std::set<std::string>> keys;  // the keys seen so far, one set per open object
  const json::parser_callback_t check = [&keys, &file](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (static_cast<std::size_t>(depth) >= kMaxJsonDepth) {
          throw FormatError(file, "depth " + std::to_string(depth + 1),
                            "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        }
        if (event == json::parse_event_t::object_start) keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second) {
          throw FormatError(file, "key \"" + detail::snippet(parsed.get<std::string>()) + "\"",
                            "repeated key in one object");
        }
        break;
      default: break;
    }
    return true;
  };
  // Invalid UTF-8 bytes become U+FFFD, so that one bad byte costs one value (a name that no longer
  // matches), not the whole document.
  const std::string clean = detail::valid_utf8(text);
  try {
    return json::parse(clean.begin(), clean.end(), check);
  } catch (const json::parse_error& e) {
    // nlohmann's text ends with "; last read: '<bytes>'": cut there, the document is never echoed.
    std::string why = e.what();
    why = why.substr(0, why.find("; last read"));
    if (const auto colon = why.find(": "); colon != std::string::npos) why = why.substr(colon + 2);
    throw FormatError(file, "byte " + std::to_string(e.byte), "not valid JSON: " + detail::snippet(why, 120));
  } catch (const json::exception& e) {
    throw FormatError(file, "(document)", std::string("not valid JSON: ") + detail::snippet(e.what(), 120));
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& file) {
  std::string text;
  try {
    text = detail::read_bounded(path, kMaxJsonBytes);
  } catch (const IoError& e) {
    throw IoError(file, e.value(), e.reason());  // named by the caller's name for the file
  }
  return read_json(text, file);
}

}  // namespace kvaddr::replay
