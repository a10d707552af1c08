#include <charconv>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/routes.hpp"
#include "subcommands.hpp"

namespace kvaddr::cli {

std::vector<std::int64_t> parse_int_list(const std::string& text, const std::string& what) {
  std::vector<std::int64_t> values;
  std::string token;
  auto flush = [&]() {
    if (token.empty()) return;
    std::int64_t v = 0;
    const auto* first = token.data();
    const auto* last = token.data() + token.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last) throw InvalidArgument(what, token, "not an int64 integer");
    values.push_back(v);
    token.clear();
  };
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      flush();
    } else {
      token.push_back(c);
    }
  }
  flush();
  return values;
}

std::vector<std::int64_t> parse_list_or_file(const std::string& text, const std::string& what) {
  std::error_code ec;
  if (!text.empty() && std::filesystem::is_regular_file(text, ec)) {
    std::ifstream in(text);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parse_int_list(buffer.str(), what);
  }
  return parse_int_list(text, what);
}

namespace {

template <class Out>
std::vector<std::int64_t> widen(const std::vector<Out>& v) {
  return std::vector<std::int64_t>(v.begin(), v.end());
}

}  // namespace

int run_translate(const TranslateOptions& o, std::ostream& out) {
  const auto v2p = parse_list_or_file(o.v2p, "v2p");
  std::vector<std::int64_t> ids = parse_int_list(o.ids_list, "ids");
  for (const auto& s : o.ids) {
    auto more = parse_int_list(s, "ids");
    ids.insert(ids.end(), more.begin(), more.end());
  }
  const Route route = parse_route(o.route);
  const Variant variant = parse_variant(o.variant);
  require_variant(route, variant);

  std::vector<std::int64_t> result;
  switch (route) {
    case Route::token_translate:
    case Route::swa_translate: {
      if (o.int32_out) {
        std::vector<std::int32_t> r(ids.size(), 0);
        if (route == Route::token_translate) {
          translate::token_translate<std::int32_t>({cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(r), variant});
        } else {
          translate::swa_translate<std::int32_t>({cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(r), variant});
        }
        result = widen(r);
      } else {
        result.assign(ids.size(), 0);
        if (route == Route::token_translate) {
          translate::token_translate<std::int64_t>(
              {cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(result), variant});
        } else {
          translate::swa_translate<std::int64_t>(
              {cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(result), variant});
        }
      }
      break;
    }
    case Route::write_loc: {
      const std::int64_t width = o.out_width < 0 ? static_cast<std::int64_t>(ids.size()) : o.out_width;
      require(width >= 0, "out-width", width, "must be >= 0");
      result.assign(static_cast<std::size_t>(width), 0);
      translate::write_loc({cvec(ids), cvec(v2p), o.page_size, o.multiplier, o.dcp_size, o.dcp_rank, mvec(result),
                            variant});
      break;
    }
    case Route::mamba_translate: {
      std::vector<std::int32_t> r(ids.size(), 0);
      translate::mamba_translate({cvec(ids), cvec(v2p), o.mamba_clamp, mvec(r)});
      result = widen(r);
      break;
    }
    case Route::dcp_read_translate: {
      result.assign(ids.size(), 0);
      translate::dcp_read_translate({cvec(ids), cvec(v2p), o.page_size, o.multiplier, o.dcp_size, mvec(result), variant});
      break;
    }
    case Route::transfer_ids: {
      result.assign(ids.size(), 0);
      translate::transfer_ids({cvec(ids), cvec(v2p), o.page_size, mvec(result), variant});
      break;
    }
    case Route::eager_funnel: {
      // ids are page-start tokens of one table row.
      result.assign(ids.size(), 0);
      const auto n = static_cast<std::int64_t>(ids.size());
      EagerFunnelArgs a;
      a.page_table = {ids.data(), n == 0 ? 0 : 1, n, n, 1};
      a.v2p = cvec(v2p);
      a.page_size = o.page_size;
      a.multiplier = o.multiplier;
      a.out = {result.data(), n == 0 ? 0 : 1, n, n, 1};
      a.variant = variant;
      translate::eager_funnel(a);
      break;
    }
    default:
      throw InvalidArgument("route", o.route,
                            "not a per-id route; `translate` takes token_translate, swa_translate, write_loc, "
                            "mamba_translate, dcp_read_translate, transfer_ids or eager_funnel");
  }

  if (o.json) {
    nlohmann::json j;
    j["route"] = o.route;
    j["variant"] = o.variant;
    j["page_size"] = o.page_size;
    j["multiplier"] = o.multiplier;
    j["ids"] = ids;
    j["out"] = result;
    out << j.dump() << "\n";
  } else {
    for (std::size_t i = 0; i < result.size(); ++i) {
      if (i < ids.size()) {
        out << ids[i] << " -> " << result[i] << "\n";
      } else {
        out << "(lane " << i << ") -> " << result[i] << "\n";
      }
    }
  }
  return 0;
}

}  // namespace kvaddr::cli
