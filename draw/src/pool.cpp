// Pool pictures: virtual pages -> physical pages -> dense rows per layer view, for each sub-pool,
// optionally before and after a compaction.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/draw/grid.hpp"
#include "kvaddr/model/errors.hpp"
#include "svg.hpp"

namespace kvaddr::draw {

namespace {

// The grid: a title row, a header row, then one row per page (cells abut, as in CuTe's pictures).
constexpr double kTitleY = 4, kHeadY = 30, kTop = 54, kRowH = 20;
constexpr double kVirtualW = 104, kPhysW = 80, kDenseW = 88, kTrack = 6, kLaneIn = 10, kLaneOut = 12;
constexpr std::int64_t kMaxBlocks = 6;  // layer views drawn per physical page (then "+N more")
const std::string kMove = "#e65100", kMap = "#1565c0", kTomb = "#9e9e9e";

std::int64_t pages_of(const PoolState& s) {
  if (s.num_pages > 0) return s.num_pages;
  std::int64_t m = 0;
  for (auto p : s.v2p) m = std::max(m, p + 1);
  return std::max<std::int64_t>(m, 1);
}

bool is_sentinel(const PoolState& s, std::size_t p) { return p + 1 == s.v2p.size(); }

std::string dense_rows(const PoolState& s, std::int64_t P, std::int64_t l) {
  const auto start = P * s.page_size * s.multiplier + l * s.page_size;
  return fmt::format("[{},{})", start, start + s.page_size);
}

double row_y(std::int64_t r) { return kTop + static_cast<double>(r) * kRowH; }
// An arrow leaves its source row above the middle and enters its target row below it, so an
// arrow leaving row r never runs on top of one entering row r.
double out_y(std::int64_t r) { return row_y(r) + kRowH / 2 - 3; }
double in_y(std::int64_t r) { return row_y(r) + kRowH / 2 + 3; }

struct Link {
  std::int64_t from, to;  // rows
  std::string stroke;
  double width;
  bool dashed;
};

// One lane of arrows between two columns: each link gets a vertical track; tracks are reused by
// links whose vertical spans do not meet (interval partitioning, links taken by their top end).
struct Lane {
  std::vector<Link> links;
  std::vector<int> track;
  int tracks = 0;

  void place() {
    std::vector<std::size_t> order(links.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto lo = [&](std::size_t i) { return std::min(out_y(links[i].from), in_y(links[i].to)); };
    auto hi = [&](std::size_t i) { return std::max(out_y(links[i].from), in_y(links[i].to)); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lo(a) < lo(b); });
    std::vector<double> busy_until;  // per track: the lowest y in use
    track.assign(links.size(), 0);
    for (auto i : order) {
      std::size_t t = 0;
      while (t < busy_until.size() && busy_until[t] + 2 >= lo(i)) ++t;
      if (t == busy_until.size()) busy_until.push_back(0);
      busy_until[t] = hi(i);
      track[i] = static_cast<int>(t);
    }
    tracks = static_cast<int>(busy_until.size());
  }
  double width() const { return kLaneIn + kTrack * tracks + kLaneOut; }
  // Arrows from the column ending at `left` to the one starting at `left + width()` (or back,
  // right to left, when `leftward`).
  void draw(Grid& g, double left, bool leftward) const {
    const double right = left + width();
    for (std::size_t i = 0; i < links.size(); ++i) {
      const auto& l = links[i];
      const double off = kLaneIn + kTrack * track[i];
      const double x = leftward ? right - off : left + off;
      const double x0 = leftward ? right : left, x1 = leftward ? left : right;
      g.arrows.push_back({{{x0, out_y(l.from)}, {x, out_y(l.from)}, {x, in_y(l.to)}, {x1, in_y(l.to)}},
                          l.stroke, l.width, l.dashed});
    }
  }
};

// v -> P arrows of one state: mapped pages blue, tombstones dashed grey to the sink.
Lane map_lane(const PoolState& s) {
  Lane lane;
  for (std::size_t p = 0; p < s.v2p.size(); ++p) {
    const auto P = s.v2p[p];
    const auto row = static_cast<std::int64_t>(p);
    if (P >= 0) {
      lane.links.push_back({row, P, kMap, 1.2, false});
    } else if (!is_sentinel(s, p)) {
      lane.links.push_back({row, 0, kTomb, 1, true});
    }
  }
  lane.place();
  return lane;
}

GridCell cell(double x, double y, double w, std::string label, std::string fill, std::string tip,
              std::string ink = "#000000") {
  return {x, y, w, kRowH, std::move(label), std::move(fill), std::move(tip), "#455a64", std::move(ink), 11, 's'};
}

GridCell header(double x, double w, std::string label) {
  return {x, kHeadY, w, kRowH, std::move(label), "#eceff1", "", "none", "#37474f", 10, 's', true};
}

void virtual_column(Grid& g, const PoolState& s, double x) {
  g.cells.push_back(header(x, kVirtualW, "virtual page"));
  for (std::size_t p = 0; p < s.v2p.size(); ++p) {
    const auto P = s.v2p[p];
    const bool sentinel = is_sentinel(s, p), tomb = P < 0 && !sentinel;
    const std::string fill = sentinel ? "#fff9c4" : (tomb ? "#e0e0e0" : (p == 0 ? "#90a4ae" : "#c8e6c9"));
    const std::string label = sentinel ? fmt::format("v{} sentinel", p)
                                       : (tomb ? fmt::format("v{} tombstone", p) : fmt::format("v{} -> P{}", p, P));
    g.cells.push_back(cell(x, row_y(static_cast<std::int64_t>(p)), kVirtualW, label, fill,
                           sentinel ? label + ": the trailing -1 row; a floored -1 index lands on it"
                                    : (tomb ? label + ": freed; translation clamps to the sink (row 0)" : label)));
  }
}

void physical_column(Grid& g, const PoolState& s, double x) {
  g.cells.push_back(header(x, kPhysW, "physical"));
  std::vector<bool> used(static_cast<std::size_t>(pages_of(s)), false);
  for (std::size_t p = 0; p < s.v2p.size(); ++p) {
    if (s.v2p[p] >= 0 && !is_sentinel(s, p)) used[static_cast<std::size_t>(s.v2p[p])] = true;
  }
  for (std::int64_t P = 0; P < pages_of(s); ++P) {
    const bool sink = P == 0, live = used[static_cast<std::size_t>(P)];
    g.cells.push_back(cell(x, row_y(P), kPhysW, sink ? "P0 sink" : fmt::format("P{}{}", P, live ? "" : " free"),
                           sink ? "#263238" : (live ? "#bbdefb" : "#f5f5f5"),
                           sink ? "physical page 0: the sink (tombstones and padding land here)"
                                : fmt::format("physical page {}{}", P, live ? "" : " (free)"),
                           sink ? "#ffffff" : "#000000"));
  }
}

// The dense-row columns; returns their total width.
double dense_columns(Grid& g, const PoolState& s, double x) {
  const auto blocks = std::min(s.multiplier, kMaxBlocks);
  const bool more = s.multiplier > blocks;
  for (std::int64_t l = 0; l <= blocks; ++l) {
    if (l == blocks && !more) break;
    const double cx = x + static_cast<double>(l) * kDenseW;
    g.cells.push_back(header(cx, kDenseW, l < blocks ? fmt::format("view {} rows", l) : "more views"));
    for (std::int64_t P = 0; P < pages_of(s); ++P) {
      if (l == blocks) {
        g.cells.push_back(cell(cx, row_y(P), kDenseW, fmt::format("+{} more", s.multiplier - blocks), "#fafafa",
                               fmt::format("layer views {}..{}", blocks, s.multiplier - 1), "#607d8b"));
        continue;
      }
      g.cells.push_back(cell(cx, row_y(P), kDenseW, dense_rows(s, P, l),
                             P == 0 ? "#90a4ae" : (l % 2 == 0 ? "#e3f2fd" : "#e8f5e9"),
                             fmt::format("P{}, layer view {}: dense rows {}", P, l, dense_rows(s, P, l))));
    }
  }
  return static_cast<double>(blocks + (more ? 1 : 0)) * kDenseW;
}

GridCell title(double x, double w, std::string label) {
  return {x, kTitleY, w, 22, std::move(label), "#ffffff", "", "none", "#000000", 12, 's', true};
}

std::int64_t rows_of(const PoolState& s) { return std::max(static_cast<std::int64_t>(s.v2p.size()), pages_of(s)); }

void legend(Grid& g, double y) {
  struct Entry {
    const char *label, *fill, *ink;
  };
  const Entry entries[] = {{"P0 sink", "#263238", "#ffffff"},   {"live page", "#bbdefb", "#000000"},
                           {"free page", "#f5f5f5", "#000000"}, {"tombstone", "#e0e0e0", "#000000"},
                           {"sentinel", "#fff9c4", "#000000"},  {"-> maps to", "#ffffff", "#1565c0"},
                           {"-> sink (freed)", "#ffffff", "#757575"}, {"-> moves to", "#ffffff", "#e65100"}};
  double x = 8;
  for (const auto& e : entries) {
    const double w = std::ceil(label_width(e.label, 10)) + 2 * kCellPad + 2;
    g.cells.push_back({x, y, w, kRowH, e.label, e.fill, "", "#90a4ae", e.ink, 10, 's'});
    x += w + 6;
  }
  g.width = std::max(g.width, x);
}

}  // namespace

void validate(const PoolState& s) {
  require(s.page_size >= 1, "page_size", s.page_size, "must be >= 1");
  require(s.multiplier >= 1, "multiplier", s.multiplier, "must be >= 1");
  require(s.num_pages >= 0 && s.num_pages <= kMaxPages, "num_pages", s.num_pages, "must be in [0, 4096]");
  require_size(!s.v2p.empty() && static_cast<std::int64_t>(s.v2p.size()) <= kMaxPages, "v2p",
               static_cast<std::int64_t>(s.v2p.size()), "must hold 1 to 4096 rows (the sentinel included)");
  const auto limit = s.num_pages > 0 ? s.num_pages : kMaxPages;
  for (std::size_t p = 0; p < s.v2p.size(); ++p) {
    require_range(s.v2p[p] >= -1 && s.v2p[p] < limit, fmt::format("v2p[{}]", p), s.v2p[p],
                  "must be -1 (tombstone) or a physical page below num_pages");
  }
  // Dense rows of the last page must fit int64.
  checked_mul(checked_mul(pages_of(s), s.page_size, "page_size"), s.multiplier, "multiplier");
}

static void validate_pair(const std::vector<PoolState>& before, const std::vector<PoolState>& after) {
  require_size(!before.empty(), "pools", 0, "at least one sub-pool");
  for (const auto& s : before) validate(s);
  for (const auto& s : after) validate(s);
  require_size(after.empty() || after.size() == before.size(), "after", static_cast<std::int64_t>(after.size()),
               "must have as many sub-pools as the first state");
  for (std::size_t i = 0; i < after.size(); ++i) {
    // A compaction moves pages; it keeps the geometry (the dense rows are drawn once, from `before`).
    require(after[i].page_size == before[i].page_size, fmt::format("after[{}].page_size", i), after[i].page_size,
            "must equal the first state's page_size");
    require(after[i].multiplier == before[i].multiplier, fmt::format("after[{}].multiplier", i), after[i].multiplier,
            "must equal the first state's multiplier");
  }
}

Grid pool_grid(const std::vector<PoolState>& before, const std::vector<PoolState>& after) {
  validate_pair(before, after);
  Grid g;
  double x = 8;
  std::int64_t rows = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const auto& s0 = before[i];
    const double x0 = x;
    virtual_column(g, s0, x);
    const auto lane0 = map_lane(s0);
    lane0.draw(g, x + kVirtualW, false);
    x += kVirtualW + lane0.width();
    physical_column(g, s0, x);
    x += kPhysW;
    x += dense_columns(g, s0, x);
    rows = std::max(rows, rows_of(s0));
    const auto caption = fmt::format("{}{}: ps {}, M {}, S = ps*M = {}", s0.name, after.empty() ? "" : " before",
                                     s0.page_size, s0.multiplier, s0.page_size * s0.multiplier);
    g.cells.push_back(title(x0, x - x0, caption));
    if (!after.empty()) {
      const auto& s1 = after[i];
      Lane moves;
      for (std::size_t p = 0; p < std::min(s0.v2p.size(), s1.v2p.size()); ++p) {
        if (s0.v2p[p] < 0 || s1.v2p[p] < 0 || s0.v2p[p] == s1.v2p[p]) continue;
        moves.links.push_back({s0.v2p[p], s1.v2p[p], kMove, 2, false});
      }
      moves.place();
      moves.draw(g, x, false);
      x += moves.width();
      const double x1 = x;
      physical_column(g, s1, x);
      x += kPhysW;
      const auto lane1 = map_lane(s1);
      lane1.draw(g, x, true);
      x += lane1.width();
      virtual_column(g, s1, x);
      x += kVirtualW;
      rows = std::max(rows, rows_of(s1));
      g.cells.push_back(title(x1, x - x1, s1.name + " after"));
    }
    x += 24;
  }
  g.width = x - 24 + 8;
  const double legend_y = row_y(rows) + 12;
  legend(g, legend_y);
  g.height = legend_y + kRowH;
  return g;
}

std::string pool_svg(const std::vector<PoolState>& before, const std::vector<PoolState>& after) {
  return grid_svg(pool_grid(before, after));
}

std::string pool_text(const std::vector<PoolState>& before, const std::vector<PoolState>& after) {
  validate_pair(before, after);
  std::string s;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const auto& st = before[i];
    s += fmt::format("{}: ps {}, M {}, S = {}; P0 is the sink\n", st.name, st.page_size, st.multiplier,
                     st.page_size * st.multiplier);
    for (std::size_t p = 0; p < st.v2p.size(); ++p) {
      const auto P = st.v2p[p];
      std::string line = fmt::format("  v{:<4}", p);
      if (is_sentinel(st, p)) {
        line += " sentinel (-1)";
      } else if (P < 0) {
        line += " tombstone -> sink row 0";
      } else {
        line += fmt::format(" -> P{:<4}{} rows", P, P == 0 ? " (sink)" : "");
        for (std::int64_t l = 0; l < std::min(st.multiplier, kMaxBlocks); ++l) line += " " + dense_rows(st, P, l);
        if (st.multiplier > kMaxBlocks) line += " ...";
      }
      if (!after.empty() && p < after[i].v2p.size() && after[i].v2p[p] != P) {
        const auto Q = after[i].v2p[p];
        line += Q < 0 ? "   after: freed" : (P < 0 ? fmt::format("   after: P{}", Q) : fmt::format("   moves P{} -> P{}", P, Q));
      }
      s += line + "\n";
    }
  }
  return s;
}

}  // namespace kvaddr::draw
