// The proofs as a picture: routes x obligation kinds, and the obligations that name no route by
// family, each cell coloured by verdict with the obligations, verdicts and counterexamples in its
// tooltip.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/draw/grid.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::draw {

namespace {

std::vector<std::string> split(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (true) {
    const auto dot = name.find('.', at);
    parts.push_back(name.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
    if (dot == std::string::npos) return parts;
    at = dot + 1;
  }
}

std::string join(const std::vector<std::string>& parts, std::size_t from, std::size_t to) {
  std::string s;
  for (std::size_t i = from; i < to; ++i) s += (i > from ? "." : "") + parts[i];
  return s;
}

bool is_route(const std::string& s) {
  for (std::int32_t i = 0;; ++i) {
    const auto name = to_string(static_cast<Route>(i));
    if (name == "unknown") return false;
    if (name == s) return true;
  }
}

int severity(const std::string& state) {
  return state == "UNEXPECTED" ? 3 : (state == "unknown" ? 2 : 0);
}

// One cell: a statement and the obligations whose name extends it (its planted-bug variants).
struct Group {
  std::string row, col, label;
  std::vector<const Verdict*> members;  // the statement first
};

// The statement an obligation belongs to: an obligation expected refuted whose name extends an
// obligation expected proved by one part ("route.read_table.b09" of "route.read_table") is that
// statement's planted bug or upstream form; any other obligation is a statement of its own.
std::string statement_of(const Verdict& x, const std::map<std::string, std::string>& expected) {
  const auto dot = x.name.rfind('.');
  if (x.expected != "refuted" || dot == std::string::npos) return x.name;
  const auto parent = expected.find(x.name.substr(0, dot));
  return parent != expected.end() && parent->second == "proved" ? parent->first : x.name;
}

std::string tip_of(const Group& g) {
  std::string t;
  for (const auto* m : g.members) {
    t += fmt::format("{}{}: {} (expected {}){}", t.empty() ? "" : "\n", m->name, m->got, m->expected,
                     m->detail.empty() ? "" : "; " + m->detail);
  }
  return t;
}

std::string state_of(const Group& g) {
  std::string worst = verdict_state(*g.members.front());
  for (const auto* m : g.members) {
    const auto st = verdict_state(*m);
    if (severity(st) > severity(worst)) worst = st;
  }
  return worst;
}

Matrix to_matrix(const std::string& title, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                 const std::vector<Group>& groups, bool named_cells) {
  Matrix m;
  m.title = title;
  m.rows = rows;
  m.cols = cols;
  m.cells.assign(rows.size() * cols.size(), "n/a");
  m.labels.assign(m.cells.size(), "");
  m.tips.assign(m.cells.size(), "no obligation");
  std::map<std::string, std::size_t> row_of, col_of;
  for (std::size_t r = 0; r < rows.size(); ++r) row_of[rows[r]] = r;
  for (std::size_t c = 0; c < cols.size(); ++c) col_of[cols[c]] = c;
  for (const auto& g : groups) {
    const auto r = row_of.at(g.row), c = col_of.at(g.col);
    const auto i = r * cols.size() + c;
    m.cells[i] = state_of(g);
    const auto extra = g.members.size() > 1 ? fmt::format(" +{}", g.members.size() - 1) : "";
    if (named_cells) {
      m.labels[i] = g.label + extra;
    } else {
      const auto& st = m.cells[i];
      m.labels[i] = (st == "refuted as expected" ? "refuted" : st) + extra;
    }
    m.tips[i] = tip_of(g);
  }
  m.legend = {"proved", "refuted as expected", "unknown", "UNEXPECTED"};
  return m;
}

}  // namespace

std::string verdict_state(const Verdict& v) {
  if (v.got == v.expected) return v.got == "proved" ? "proved" : "refuted as expected";
  return v.got == "unknown" ? "unknown" : "UNEXPECTED";
}

std::vector<Matrix> proofs_matrices(const std::string& title, const std::vector<Verdict>& v) {
  require_size(v.size() <= 16384, "verdicts", static_cast<std::int64_t>(v.size()), "at most 16384 obligations");
  std::vector<Group> routed, other;
  std::vector<std::string> route_rows, kinds{"contract"}, families;
  std::map<std::string, std::pair<bool, std::size_t>> index;  // statement -> (in `other`, group)
  for (std::int32_t i = 0; to_string(static_cast<Route>(i)) != "unknown"; ++i) {
    route_rows.emplace_back(to_string(static_cast<Route>(i)));
  }
  std::map<std::string, std::string> expected;  // name -> expected verdict
  std::set<std::string> seen_families;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto& x = v[i];
    const auto at = fmt::format("verdicts[{}]", i);
    auto reject = [&](const char* field, const std::string& value, const char* why) {
      throw InvalidArgument(at + "." + field, value, why);
    };
    if (x.name.empty()) reject("name", x.name, "an obligation needs a name");
    if (x.expected != "proved" && x.expected != "refuted") reject("expected", x.expected, "must be proved or refuted");
    if (x.got != "proved" && x.got != "refuted" && x.got != "unknown") {
      reject("got", x.got, "must be proved, refuted or unknown");
    }
    if (!expected.emplace(x.name, x.expected).second) reject("name", x.name, "names must be distinct");
  }
  for (const auto& x : v) {
    const auto stmt = statement_of(x, expected);
    if (const auto it = index.find(stmt); it != index.end()) {
      auto& members = (it->second.first ? other : routed)[it->second.second].members;
      members.insert(x.name == stmt ? members.begin() : members.end(), &x);  // the statement first
      continue;
    }
    const auto parts = split(stmt);
    const auto at = std::find_if(parts.begin(), parts.end(), is_route);
    if (at != parts.end()) {
      auto kind = join(parts, 0, static_cast<std::size_t>(at - parts.begin()));
      const auto rest = join(parts, static_cast<std::size_t>(at - parts.begin()) + 1, parts.size());
      kind += (kind.empty() || rest.empty() ? "" : ".") + rest;
      if (kind.rfind("route", 0) == 0) kind = kind.size() == 5 ? "contract" : kind.substr(6);
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
      index[stmt] = {false, routed.size()};
      routed.push_back({*at, kind, "", {&x}});
    } else {
      // A family: the first part (lifecycle: the first two, it has many).
      const std::size_t n = parts[0] == "lifecycle" && parts.size() > 2 ? 2 : 1;
      const auto family = join(parts, 0, n);
      if (seen_families.insert(family).second) families.push_back(family);
      index[stmt] = {true, other.size()};
      other.push_back({family, "", parts.size() > n ? join(parts, n, parts.size()) : stmt, {&x}});
    }
  }
  std::vector<Matrix> out;
  if (!routed.empty()) {
    route_rows.erase(std::remove_if(route_rows.begin(), route_rows.end(),
                                    [&](const std::string& r) {
                                      return std::none_of(routed.begin(), routed.end(),
                                                          [&](const Group& g) { return g.row == r; });
                                    }),
                     route_rows.end());
    if (std::none_of(routed.begin(), routed.end(), [](const Group& g) { return g.col == "contract"; })) {
      kinds.erase(kinds.begin());
    }
    out.push_back(to_matrix(title + ": routes x obligation kinds (+k: planted-bug variants in the cell)", route_rows,
                            kinds, routed, false));
  }
  if (!other.empty()) {
    // Each family's statements side by side, in registry order.
    std::size_t width = 0;
    std::map<std::string, std::size_t> used;
    for (auto& g : other) g.col = std::to_string(++used[g.row]);
    for (const auto& [f, n] : used) width = std::max(width, n);
    std::vector<std::string> cols;
    for (std::size_t c = 1; c <= width; ++c) cols.push_back(std::to_string(c));
    out.push_back(to_matrix(title + ": obligations of no single route, by family", families, cols, other, true));
  }
  return out;
}

std::string verdicts_svg(const std::string& title, const std::vector<Verdict>& v) {
  std::vector<Grid> grids;
  for (const auto& m : proofs_matrices(title, v)) grids.push_back(matrix_grid(m));
  if (grids.empty()) {
    Matrix none;
    none.title = title + ": no obligation";
    none.legend = {"proved", "refuted as expected", "unknown", "UNEXPECTED"};
    grids.push_back(matrix_grid(none));
  }
  return grid_svg(stack(grids));
}

std::string verdicts_text(const std::string& title, const std::vector<Verdict>& v) {
  std::size_t nw = 10;
  for (const auto& x : v) nw = std::max(nw, x.name.size());
  std::string s = title + "\n";
  for (const auto& x : v) {
    s += fmt::format("  {} {:<{}} expected {:<8} got {}\n", x.got == x.expected ? "ok " : "BAD", x.name, nw,
                     x.expected, x.got);
  }
  return s;
}

}  // namespace kvaddr::draw
