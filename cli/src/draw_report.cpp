#include "draw_report.hpp"

#include <fmt/format.h>

#include <fstream>

#include "kvaddr/draw/grid.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::cli {

std::string provenance(const Context& ctx, const nlohmann::json& inputs) {
  nlohmann::json command = nlohmann::json::array({"kvaddr"});
  if (ctx.line != nullptr) {
    for (const auto& a : *ctx.line) command.push_back(a);
  }
  auto text = nlohmann::json{{"command", command}, {"inputs", inputs}}.dump(-1, ' ', false,
                                                                            nlohmann::json::error_handler_t::replace);
  // Only a JSON string can hold "--" (numbers have one leading "-"), so this keeps the document.
  for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at)) {
    text.replace(at + 1, 1, "\\u002d");
  }
  return "made by " + text;
}

std::string with_provenance(const std::string& svg, const Context& ctx, const nlohmann::json& inputs) {
  return draw::with_comment(svg, provenance(ctx, inputs));
}

void write_svg_file(const std::filesystem::path& path, const std::string& svg) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InvalidArgument("--svg", path.string(), "cannot write: the file cannot be created");
  f << svg;
  f.close();
  if (!f) throw InvalidArgument("--svg", path.string(), "cannot write: I/O error");
}

void make_svg_dir(const std::filesystem::path& dir, const std::string& option) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec)) {
    throw InvalidArgument(option, dir.string(), "cannot create the folder");
  }
}

#ifdef KVADDR_WITH_ZOO
draw::Matrix kill_matrix(const zoo::ZooReport& report) {
  draw::Matrix m;
  m.title = "kill matrix: planted variants x check kinds";
  for (auto k : zoo::kAllKinds) m.cols.emplace_back(zoo::to_string(k));
  m.legend = {"killed", "survived", "n/a", "skipped", "no alarm", "FALSE ALARM"};
  for (const auto& row : report.rows) {
    m.rows.push_back(row.route == "-" ? row.name : fmt::format("{} @ {}", row.name, row.route));
    for (auto k : zoo::kAllKinds) {
      // On a production row (every row of the production family: the route row and the lifecycle
      // one) a kill is a false alarm and a survivor is the wanted outcome.
      const auto& cell = row.cell(k);
      const auto state = cell.state;
      const bool production = row.family == zoo::Family::production;
      if (production && state == zoo::CellState::killed) {
        m.cells.emplace_back("FALSE ALARM");
      } else if (production && state == zoo::CellState::survived) {
        m.cells.emplace_back("no alarm");
      } else {
        m.cells.emplace_back(zoo::to_string(state));
      }
      auto tip = fmt::format("{} x {}: {}", m.rows.back(), zoo::to_string(k), m.cells.back());
      if (!cell.killer.empty()) tip += "\nby " + cell.killer;
      if (!cell.detail.empty()) tip += "\n" + cell.detail;
      m.tips.push_back(std::move(tip));
    }
  }
  return m;
}
#endif

#ifdef KVADDR_WITH_REPLAY
int replay_pictures(const replay::ReplayReport& report, const std::filesystem::path& dir, const Context& ctx) {
  int written = 0;
  for (const auto& c : report.calls) {
    if (c.status != replay::CallStatus::differs || c.diffs.empty()) continue;
    draw::TableView t;
    t.title = fmt::format("call {} \"{}\" {}: {} of {} lanes differ (first {})", c.position, c.name, c.route,
                          c.lanes_differing, c.lanes_checked, c.diffs.size());
    t.cols = static_cast<std::int64_t>(c.diffs.size());
    for (const auto& d : c.diffs) {
      std::string idx;
      for (std::size_t k = 0; k < d.index.size(); ++k) idx += (k ? ", " : "") + std::to_string(d.index[k]);
      t.got.push_back(d.recorded);
      t.expected.push_back(d.expected);
      t.lane_labels.push_back(fmt::format("{}[{}]{}", d.output, idx, d.region.empty() ? "" : " " + d.region));
    }
    t.got_label = "recorded";
    t.expected_label = "expected (" + c.variant + ")";
    const nlohmann::json inputs{{"call", c.position}, {"name", c.name}, {"route", c.route}, {"variant", c.variant},
                                {"lanes", t.lane_labels}, {"recorded", t.got}, {"expected", t.expected}};
    write_svg_file(dir / fmt::format("call-{}.svg", c.position), with_provenance(draw::table_svg(t), ctx, inputs));
    ++written;
  }
  return written;
}
#endif

#ifdef KVADDR_WITH_KERNELS
int diff_pictures(const gpu::DiffReport& report, const std::filesystem::path& dir, const Context& ctx) {
  if (!report.first_mismatch || report.first_mismatch->lanes.empty()) return 0;
  const auto& m = *report.first_mismatch;
  draw::TableView t;
  t.title = fmt::format("{} under {}: {} lanes differ ({}), against {}", to_string(m.route), to_string(m.variant),
                        m.differing_lanes, m.geometry, m.against);
  t.cols = static_cast<std::int64_t>(m.lanes.size());
  for (const auto& d : m.lanes) {
    t.got.push_back(d.actual);
    t.expected.push_back(d.expected);
    t.lane_labels.push_back(fmt::format("{}[{}]", d.buffer, d.index));
  }
  t.got_label = "actual";
  t.expected_label = "expected";
  const nlohmann::json inputs{{"route", to_string(m.route)}, {"variant", to_string(m.variant)}, {"geometry", m.geometry},
                              {"against", m.against}, {"lanes", t.lane_labels}, {"actual", t.got},
                              {"expected", t.expected}};
  write_svg_file(dir / "first-mismatch.svg", with_provenance(draw::table_svg(t), ctx, inputs));
  return 1;
}
#endif

}  // namespace kvaddr::cli
