// JSON, text and markdown renderings of the kill matrix and the mutation campaign.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "kvaddr/model/catalogue.hpp"
#include "kvaddr/zoo/zoo.hpp"
#include "lifecycle_rows.hpp"

namespace kvaddr::zoo {
namespace {

std::string cell_text(const Cell& c) {
  if (c.state == CellState::killed) return fmt::format("killed {:.2f}s", c.seconds);
  return std::string(to_string(c.state));
}

std::string md_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += "\\|";
    else if (ch == '\n') o += ' ';
    else o += ch;
  }
  return o;
}

// How many variant rows (all but production) there are, and how many of them two or more check kinds kill.
struct TwoKindKills {
  int killed = 0;
  int variants = 0;
};
TwoKindKills two_kind_kills(const ZooReport& r) {
  TwoKindKills two;
  for (const auto& row : r.rows) {
    if (row.family == Family::production) continue;
    ++two.variants;
    two.killed += row.kill_count() >= 2 ? 1 : 0;
  }
  return two;
}

}  // namespace

std::string to_json(const ZooReport& r) {
  nlohmann::json vars = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json kills = nlohmann::json::object(), secs = nlohmann::json::object(), by = nlohmann::json::object();
    for (Kind k : kAllKinds) {
      const auto& c = row.cell(k);
      kills[std::string(to_string(k))] = std::string(to_string(c.state));
      if (c.state == CellState::killed || c.state == CellState::survived)
        secs[std::string(to_string(k))] = c.seconds;
      if (c.state == CellState::killed) by[std::string(to_string(k))] = c.killer;
    }
    vars.push_back({{"name", row.name},
                    {"route", row.route},
                    {"kills", kills},
                    {"seconds", secs},
                    {"killed_by", by},
                    {"family", std::string(to_string(row.family))},
                    {"bug", row.bug_id},
                    {"kill_count", row.kill_count()}});
  }
  nlohmann::json j{{"variants", vars},
                   {"production_false_alarms", r.production_false_alarms},
                   {"gaps", r.gaps},
                   {"gpu_present", r.gpu_present},
                   {"seconds", r.seconds}};
  return j.dump(2);
}

std::string to_text(const ZooReport& r) {
  const TwoKindKills two = two_kind_kills(r);
  std::ostringstream os;
  os << fmt::format("{:<28} {:<22} {:<4}", "variant", "route", "bug");
  for (Kind k : kAllKinds) os << fmt::format(" {:<14}", to_string(k));
  os << " kinds\n";
  for (const auto& row : r.rows) {
    os << fmt::format("{:<28} {:<22} {:<4}", row.name, row.route, row.bug_id);
    for (Kind k : kAllKinds) os << fmt::format(" {:<14}", cell_text(row.cell(k)));
    os << ' ' << row.kill_count() << '\n';
  }
  os << fmt::format("{} of {} variant rows killed by >= 2 check kinds; production false alarms: {}; {:.1f} s{}\n",
                    two.killed, two.variants, r.production_false_alarms, r.seconds,
                    r.gpu_present ? "" : " (no GPU: differential skipped)");
  for (const auto& g : r.gaps) os << "gap: " << g << '\n';
  return os.str();
}

UnitScore layer_score(const MutationReport& r, bool validation) {
  UnitScore sum;
  sum.unit = validation ? "validation rules" : "route arithmetic";
  for (const auto& u : r.units) {
    if ((u.unit.rfind("validate.", 0) == 0) != validation) continue;
    sum.mutants += u.mutants;
    sum.killed += u.killed;
    sum.equivalent += u.equivalent;
    sum.argued += u.argued;
    sum.never_infected += u.never_infected;
  }
  return sum;
}

std::string to_json(const MutationReport& r) {
  nlohmann::json units = nlohmann::json::array();
  for (const auto& u : r.units)
    units.push_back({{"unit", u.unit}, {"mutants", u.mutants}, {"killed", u.killed}, {"equivalent", u.equivalent},
                     {"classified_equivalent", u.argued}, {"never_infected", u.never_infected},
                     {"score", u.score()}, {"infected_score", u.infected_score()}});
  nlohmann::json kills = nlohmann::json::array();
  for (const auto& m : r.mutants)
    if (m.killed) kills.push_back({{"unit", m.unit}, {"op", m.op}, {"site", m.site}, {"killer", m.killer}});
  nlohmann::json surv = nlohmann::json::array();
  for (const auto& m : r.mutants)
    if (!m.killed)
      surv.push_back({{"unit", m.unit}, {"op", m.op}, {"site", m.site}, {"equivalent", m.equivalent},
                      {"never_infected", m.never_infected}, {"reason", m.reason}});
  nlohmann::json j{{"units", units},       {"total", r.total},       {"killed", r.killed},
                   {"equivalent", r.equivalent}, {"classified_equivalent", r.argued}, {"never_infected", r.never_infected},
                   {"score", r.score()}, {"infected_score", r.infected_score()},
                   {"survivors", surv},    {"kills", kills},         {"stale_classifications", r.stale_classifications},
                   {"seconds", r.seconds}};
  return j.dump(2);
}

std::string to_text(const MutationReport& r) {
  std::ostringstream os;
  for (const auto& u : r.units)
    os << fmt::format("{:<30} {:>4}/{:<4} killed  {:6.1f}%\n", u.unit, u.killed, u.mutants, 100.0 * u.score());
  for (bool validation : {false, true}) {
    const UnitScore l = layer_score(r, validation);
    os << fmt::format("{}: {}/{} killed, {} never infected: {:.1f}% ({:.1f}% of the infected)\n", l.unit, l.killed,
                      l.mutants, l.never_infected, 100.0 * l.score(), 100.0 * l.infected_score());
  }
  os << fmt::format("overall: {}/{} killed, {} classified equivalent, {} never infected (survivors): {:.1f}% "
                    "({:.1f}% of the infected), {:.1f} s\n",
                    r.killed, r.total, r.equivalent, r.never_infected, 100.0 * r.score(), 100.0 * r.infected_score(),
                    r.seconds);
  for (const auto& st : r.stale_classifications) os << "stale classification: " << st << '\n';
  for (const auto& m : r.mutants)
    if (!m.killed) os << fmt::format("survivor: {} {} @ {}: {}\n", m.unit, m.op, m.site, m.reason);
  return os.str();
}

std::string to_markdown(const ZooReport& r, const MutationReport* mut) {
  std::ostringstream os;
  os << "# kvaddr bug zoo\n\n"
        "<!-- GENERATED by `kvaddr zoo --markdown --mutants` (or `kvaddr_zoo_tool --markdown --mutants`); "
        "do not edit by hand. -->\n\n"
        "Every historical translation bug of spec §6 that kvaddr models is planted as a variant and run against "
        "every check kind. A cell says `killed` (with the time to the first kill), `survived`, `n/a` (the check "
        "kind cannot see that variant) or `skipped` (the check kind is not available on this machine). "
        "**upstream grid** is upstream's example cases of spec §5 exactly as upstream wrote them (fixed seeds, "
        "bs 5, no tombstones, no padding in live prefixes, contiguous request rows); **coverage** is the wiring "
        "model's default-resolution path-coverage check (spec legend C).\n\n";
  const TwoKindKills two = two_kind_kills(r);
  os << fmt::format("**Result:** {} of {} variant rows are killed by at least two independent check kinds; "
                    "production is flagged by {} check kind(s) (false alarms). Matrix time {:.1f} s{}.\n\n",
                    two.killed, two.variants, r.production_false_alarms, r.seconds,
                    r.gpu_present ? "" : " on a machine without a GPU (the differential column is skipped)");
  os << "## Kill matrix\n\n| variant | route | bug |";
  for (Kind k : kAllKinds) os << ' ' << to_string(k) << " |";
  os << " kinds |\n|---|---|---|";
  for (std::size_t i = 0; i < kAllKinds.size(); ++i) os << "---|";
  os << "---|\n";
  for (const auto& row : r.rows) {
    os << "| `" << row.name << "` | " << row.route << " | " << row.bug_id << " |";
    for (Kind k : kAllKinds) os << ' ' << cell_text(row.cell(k)) << " |";
    os << ' ' << row.kill_count() << " |\n";
  }
  if (!r.gaps.empty()) {
    os << "\n### Gaps (variants killed by fewer than two kinds here)\n\n";
    for (const auto& g : r.gaps) os << "- " << md_escape(g) << '\n';
  }
  os << "\n## The variants\n\n"
        "What went wrong upstream, the configuration that exposed it and the symptom (from the catalogue, "
        "model/catalogue.cpp); which check kinds kill it here, with the first killer; whether upstream's own "
        "example grid catches it.\n\n"
        "| variant | bug | upstream | exposing configuration | symptom | killed here by | upstream grid |\n"
        "|---|---|---|---|---|---|---|\n";
  for (const auto& row : r.rows) {
    if (row.family == Family::production) continue;
    const auto* e = row.bug_id.empty() ? nullptr : model::find_bug(row.bug_id);
    std::string killers;
    for (Kind k : kAllKinds) {
      const auto& c = row.cell(k);
      if (c.state != CellState::killed) continue;
      killers += fmt::format("{}{} ({:.2f}s{})", killers.empty() ? "" : "; ", to_string(k), c.seconds,
                             c.killer.empty() ? "" : ", " + c.killer);
    }
    os << "| `" << row.name << "` @ " << row.route << " | " << row.bug_id << " | "
       << md_escape(e ? std::string(e->title) : detail::lifecycle_summary(row.name)) << " | " << md_escape(e ? e->configuration : "") << " | "
       << md_escape(e ? e->symptom : "") << " | " << md_escape(killers.empty() ? "none" : killers) << " | "
       << (row.cell(Kind::upstream_grid).state == CellState::killed ? "catches it" : "misses it") << " |\n";
  }
  os << detail::lifecycle_markdown();
  os << "\n## Mutation strength\n\n";
  if (mut == nullptr) {
    os << "Not run in this generation (pass `--mutants`).\n";
    return os.str();
  }
  os << "Mutation operators over translate/'s host route arithmetic (hooks in translate/src/checked.hpp and the "
        "route loops; no rebuild per mutant): off-by-one on additions/subtractions (ceil division's `n + d - 1`), "
        "truncating/floor division swap, quotient off by one, dropped remainder, shift floor/trunc swap, "
        "int32 narrowing of a product, dropped multiplier operand, clamp/guard picks forced or swapped, "
        "comparison boundary (`<` / `<=`: a mask on the wrong bound), `==` negated, dropped v2p gather (index "
        "used as the value), unmasked load, next-entry load, row/column stride swap, batch position used as the "
        "request row, stride `ps` instead of `ps*M`, loop bounds and tail starts off by one. A site is the k-th "
        "occurrence of an operation kind in one lane segment of a route (seg 0: the per-row / per-id lane, seg 1: "
        "the per-column lane, seg 2: the route's epilogue after its lane loops, e.g. read_table's padded rows and "
        "write_loc's tail); validation rules are mutated too (rule_skip: the rule not enforced; units `validate.<route>` hold the rules "
        "of validate.cpp, while a content precondition checked inside a route, e.g. read_stream's indptr order, is a "
        "rule site of the route's own unit; a rule's index k counts the rules evaluated in that call, so a "
        "conditional rule shifts the later indices); sites are enumerated per route by a counting pass over the same checks. Each mutant runs against the verify grid (gaps closed, large ids for int64 "
        "routes) and then the route's properties; the first failure kills it.\n\n";
  os << "Score = killed / (mutants - classified equivalent). A mutant is left out only when it changed an "
        "intermediate value and the classification table of zoo/src/mutants.cpp states why no output can differ on an "
        "admitted input (the reason is printed with each one below). A mutant that never changed a value on any "
        "generated input (never infected) is a coverage gap, not an equivalence: it counts as a survivor and is "
        "listed apart; the last column gives the score over infected mutants only.\n\n";
  os << "| route | mutants | killed | never infected | equivalent: classified | score | score of the infected |\n"
        "|---|---|---|---|---|---|---|\n";
  for (const auto& u : mut->units)
    os << fmt::format("| {} | {} | {} | {} | {} | {:.1f}% | {:.1f}% |\n", u.unit, u.mutants, u.killed, u.never_infected,
                      u.argued, 100.0 * u.score(), 100.0 * u.infected_score());
  for (bool validation : {false, true}) {
    const UnitScore l = layer_score(*mut, validation);
    os << fmt::format("| *{}* | {} | {} | {} | {} | {:.1f}% | {:.1f}% |\n", l.unit, l.mutants, l.killed,
                      l.never_infected, l.argued, 100.0 * l.score(), 100.0 * l.infected_score());
  }
  os << fmt::format("| **overall** | {} | {} | {} | {} | **{:.1f}%** | {:.1f}% |\n\n", mut->total, mut->killed,
                    mut->never_infected, mut->argued, 100.0 * mut->score(), 100.0 * mut->infected_score());
  for (const auto& st : mut->stale_classifications) os << "Stale classification entry: " << md_escape(st) << "\n\n";
  os << fmt::format("Campaign time {:.1f} s.\n\n### Surviving infected mutants\n\n", mut->seconds);
  bool any = false;
  for (const auto& m : mut->mutants) {
    if (m.killed || m.never_infected) continue;
    if (!any) os << "| route | operator | site | why it survives |\n|---|---|---|---|\n";
    any = true;
    os << "| " << m.unit << " | " << m.op << " | " << m.site << " | " << md_escape(m.reason) << " |\n";
  }
  if (!any) os << "None.\n";
  os << "\n### Never-infected mutants (coverage gaps)\n\n";
  any = false;
  for (const auto& m : mut->mutants) {
    if (!m.never_infected) continue;
    if (!any) os << "| route | operator | site | likely why |\n|---|---|---|---|\n";
    any = true;
    os << "| " << m.unit << " | " << m.op << " | " << m.site << " | " << md_escape(m.reason) << " |\n";
  }
  if (!any) os << "None.\n";
  return os.str();
}

}  // namespace kvaddr::zoo
