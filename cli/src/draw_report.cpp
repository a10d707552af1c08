#include "draw_report.hpp"

#include <fmt/format.h>

#include <fstream>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::cli {

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
  for (const auto& row : report.rows) {
    m.rows.push_back(row.route == "-" ? row.name : fmt::format("{} @ {}", row.name, row.route));
    for (auto k : zoo::kAllKinds) {
      // On the production row a kill is a false alarm and a survivor is the wanted outcome.
      const auto state = row.cell(k).state;
      const bool production = row.name == "production";
      if (production && state == zoo::CellState::killed) {
        m.cells.emplace_back("FALSE ALARM");
      } else if (production && state == zoo::CellState::survived) {
        m.cells.emplace_back("no alarm");
      } else {
        m.cells.emplace_back(zoo::to_string(state));
      }
    }
  }
  return m;
}
#endif

#ifdef KVADDR_WITH_REPLAY
int replay_pictures(const replay::ReplayReport& report, const std::filesystem::path& dir) {
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
    write_svg_file(dir / fmt::format("call-{}.svg", c.position), draw::table_svg(t));
    ++written;
  }
  return written;
}
#endif

#ifdef KVADDR_WITH_KERNELS
int diff_pictures(const gpu::DiffReport& report, const std::filesystem::path& dir) {
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
  write_svg_file(dir / "first-mismatch.svg", draw::table_svg(t));
  return 1;
}
#endif

}  // namespace kvaddr::cli
