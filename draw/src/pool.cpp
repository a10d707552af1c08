// Pool pictures: virtual pages -> physical pages -> dense rows per layer view, for each sub-pool,
// optionally before and after a compaction.
#include <fmt/format.h>

#include <algorithm>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/model/errors.hpp"
#include "svg.hpp"

namespace kvaddr::draw {

namespace {

constexpr double kRow = 22, kTop = 58, kBox = 20;
constexpr std::int64_t kMaxBlocks = 6;  // layer views drawn per physical page (then "...")

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

struct Placed {
  double x_virtual, x_physical, x_dense, width;
};

// Draws one sub-pool state at x0; returns the columns' positions.
Placed draw_state(detail::Svg& svg, const PoolState& s, double x0, const std::string& caption) {
  const auto n_phys = pages_of(s);
  const auto blocks = std::min(s.multiplier, kMaxBlocks);
  const double wv = 118, wp = 92, wd = 76;
  Placed at{x0, x0 + wv + 60, x0 + wv + 60 + wp + 26, 0};
  svg.text(x0, 18, fmt::format("{} {}: ps {}, M {}, S = ps*M = {}", s.name, caption, s.page_size, s.multiplier,
                               s.page_size * s.multiplier),
           12, "start", "#000000", true);
  svg.text(at.x_virtual, 44, "virtual page", 11, "start", "#37474f");
  svg.text(at.x_physical, 44, "physical page", 11, "start", "#37474f");
  svg.text(at.x_dense, 44, "dense rows per layer view (l*ps origin)", 11, "start", "#37474f");
  std::vector<bool> used(static_cast<std::size_t>(n_phys), false);
  for (std::size_t p = 0; p < s.v2p.size(); ++p) {
    if (s.v2p[p] >= 0 && !is_sentinel(s, p)) used[static_cast<std::size_t>(s.v2p[p])] = true;
  }
  for (std::int64_t P = 0; P < n_phys; ++P) {
    const double y = kTop + static_cast<double>(P) * kRow;
    const bool sink = P == 0;
    const std::string fill = sink ? "#263238" : (used[static_cast<std::size_t>(P)] ? "#bbdefb" : "#f5f5f5");
    svg.rect(at.x_physical, y, wp, kBox, fill,
             sink ? "physical page 0: the sink (tombstones and padding land here)" : fmt::format("physical page {}", P));
    svg.text(at.x_physical + 6, y + 14, sink ? "P0 sink" : fmt::format("P{}{}", P, used[static_cast<std::size_t>(P)] ? "" : " free"),
             11, "start", sink ? "#ffffff" : "#000000");
    for (std::int64_t l = 0; l < blocks; ++l) {
      const double x = at.x_dense + static_cast<double>(l) * (wd + 4);
      svg.rect(x, y, wd, kBox, sink ? "#90a4ae" : (l % 2 == 0 ? "#e3f2fd" : "#e8f5e9"),
               fmt::format("layer view {}: dense rows {}", l, dense_rows(s, P, l)));
      svg.text(x + 4, y + 14, dense_rows(s, P, l), 10);
    }
    if (s.multiplier > blocks) {
      svg.text(at.x_dense + static_cast<double>(blocks) * (wd + 4), y + 14,
               fmt::format("... {} more", s.multiplier - blocks), 10, "start", "#607d8b");
    }
  }
  for (std::size_t p = 0; p < s.v2p.size(); ++p) {
    const double y = kTop + static_cast<double>(p) * kRow;
    const auto P = s.v2p[p];
    const bool sentinel = is_sentinel(s, p);
    const bool tomb = P < 0 && !sentinel;
    const std::string fill = sentinel ? "#fff9c4" : (tomb ? "#e0e0e0" : (p == 0 ? "#90a4ae" : "#c8e6c9"));
    const std::string label = sentinel ? fmt::format("v{} sentinel", p)
                                       : (tomb ? fmt::format("v{} tombstone", p) : fmt::format("v{} -> P{}", p, P));
    svg.rect(at.x_virtual, y, wv, kBox, fill,
             sentinel ? "trailing sentinel row (-1): a floored -1 index lands on a tombstone"
                      : (tomb ? "freed virtual page: translation clamps to the sink (row 0)" : label));
    svg.text(at.x_virtual + 6, y + 14, label, 11);
    if (P >= 0) {
      svg.line(at.x_virtual + wv, y + kBox / 2, at.x_physical, kTop + static_cast<double>(P) * kRow + kBox / 2,
               "#1565c0", 1.2, false, true);
    } else if (tomb) {
      svg.line(at.x_virtual + wv, y + kBox / 2, at.x_physical, kTop + kBox / 2, "#9e9e9e", 1, true, true);
    }
  }
  at.width = at.x_dense + static_cast<double>(blocks) * (wd + 4) + 80 - x0;
  return at;
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
}

std::string pool_svg(const std::vector<PoolState>& before, const std::vector<PoolState>& after) {
  validate_pair(before, after);
  detail::Svg svg;
  double x = 8;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const auto a = draw_state(svg, before[i], x, after.empty() ? "" : "before");
    x += a.width + 30;
    if (after.empty()) continue;
    const auto b = draw_state(svg, after[i], x, "after");
    x += b.width + 30;
    const auto& s0 = before[i].v2p;
    const auto& s1 = after[i].v2p;
    for (std::size_t p = 0; p < std::min(s0.size(), s1.size()); ++p) {
      if (s0[p] < 0 || s1[p] < 0 || s0[p] == s1[p]) continue;
      const double y0 = kTop + static_cast<double>(s0[p]) * kRow + kBox / 2;
      const double y1 = kTop + static_cast<double>(s1[p]) * kRow + kBox / 2;
      // From the end of the first state's dense rows to the second state's physical page.
      svg.line(a.x_virtual + a.width - 76, y0, b.x_physical, y1, "#e65100", 2, false, true);
    }
  }
  return svg.str();
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
