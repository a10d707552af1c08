// The mutation campaign: mutants of translate/'s host route arithmetic through the hooks of
// kvaddr/translate/mutation.hpp, each run against the verify grid and the properties of its route.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ostream>
#include <initializer_list>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/mutation.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/validate.hpp"
#include "kvaddr/zoo/grid.hpp"
#include "kvaddr/zoo/zoo.hpp"
#if defined(KVADDR_ZOO_WITH_PROPS)
#include "kvaddr/props/props.hpp"
#endif

namespace kvaddr::zoo {
namespace {

namespace mut = translate::mutation;
using Clock = std::chrono::steady_clock;

struct UnitDef {
  int unit;
  std::string name;
  Route grid_route;  // the grid case that runs this unit
  std::vector<std::string> properties;
};

// The properties beside "<route>_vs_model" (every route's, the generated one of a per-id route
// included) that exercise a route's lane unit; a route without a row has that one alone.
struct LaneProperties {
  Route route;
  std::vector<std::string> more;
};
const std::vector<LaneProperties>& lane_properties() {
  static const std::vector<LaneProperties> l = {
      {Route::token_translate, {"token_vs_page_entry", "write_loc_vs_token_translate", "int32_no_silent_wrap", "stateful_pool"}},
      {Route::flashmla_block_table, {"token_vs_page_entry", "decode_vs_canonical_vs_flashmla", "kv_indices_vs_block_table", "int32_no_silent_wrap"}},
      {Route::canonical_page_table, {"token_vs_page_entry", "decode_vs_canonical_vs_flashmla", "eager_funnel_vs_canonical", "int32_no_silent_wrap"}},
      {Route::read_table, {"token_vs_page_entry", "decode_vs_canonical_vs_flashmla", "read_stream_vs_table", "int32_no_silent_wrap"}},
      {Route::decode_metadata, {"decode_vs_canonical_vs_flashmla", "int32_no_silent_wrap"}},
      {Route::eager_funnel, {"eager_funnel_vs_canonical"}},
      {Route::kv_indices_inplace, {"kv_indices_vs_block_table", "int32_no_silent_wrap", "kv_indices_inplace_rejects_invalid"}},
      {Route::write_loc, {"write_loc_loc0_unpinned", "write_loc_vs_token_translate"}},
      {Route::swa_translate, {"stateful_pool", "int32_no_silent_wrap"}},
      {Route::mamba_translate, {"stateful_pool", "int32_no_silent_wrap"}},
      {Route::full_prefill_table, {"stateful_pool"}},
      {Route::dcp_read_translate, {"stateful_pool"}},
      {Route::transfer_ids, {"stateful_pool"}},
  };
  return l;
}

const std::vector<UnitDef>& units() {
  static const std::vector<UnitDef> u = [] {
    std::vector<UnitDef> v;
    // Each route's lane unit, in list order (a route added to the list gets its unit here), with the
    // route-loop units beside their route.
    for (Route r : kAllRoutes) {
      const std::string name(to_string(r));
      std::vector<std::string> props{name + "_vs_model"};
      for (const LaneProperties& l : lane_properties()) {
        if (l.route == r) props.insert(props.end(), l.more.begin(), l.more.end());
      }
      v.push_back({mut::unit_of(r), name, r, std::move(props)});
      if (r == Route::read_table) {
        v.push_back({mut::kUnitReadStream, "read_table.stream", r,
                     {"read_stream_vs_model", "read_stream_vs_table", "int32_no_silent_wrap", "read_stream_rejects_invalid"}});
      }
      if (r == Route::transfer_ids) {
        v.push_back({mut::kUnitEnvelopeMoves, "transfer_ids.envelope_moves", r, {"transfer_ids_vs_model", "stateful_pool"}});
      }
    }
    // The validation rules of each route (validate.cpp and the routes' content preconditions):
    // rule_skip mutants, checked by the same grid and properties plus the invalid-input ones.
    for (Route r : kAllRoutes) {
      const std::string name(to_string(r));
      v.push_back({mut::validation_unit(mut::unit_of(r)), "validate." + name, r,
                   {name + "_rejects_invalid", name + "_vs_model"}});
      if (r == Route::read_table) {
        v.push_back({mut::validation_unit(mut::kUnitReadStream), "validate.read_table.stream", r,
                     {"read_stream_rejects_invalid", "read_stream_vs_model"}});
      }
      if (r == Route::transfer_ids) {
        v.push_back({mut::validation_unit(mut::kUnitEnvelopeMoves), "validate.transfer_ids.envelope_moves", r,
                     {"envelope_moves_rejects_invalid", "transfer_ids_vs_model"}});
      }
    }
    return v;
  }();
  return u;
}

std::string_view site_name(mut::Site s) {
  switch (s) {
    case mut::Site::addsub: return "addsub";
    case mut::Site::mul: return "mul";
    case mut::Site::div: return "div";
    case mut::Site::rem: return "rem";
    case mut::Site::shr: return "shr";
    case mut::Site::pick: return "pick";
    case mut::Site::cmp: return "cmp";
    case mut::Site::eq: return "eq";
    case mut::Site::gather: return "gather";
    case mut::Site::mat: return "mat";
    case mut::Site::row: return "row";
    case mut::Site::stride: return "stride";
    case mut::Site::bound: return "bound";
    case mut::Site::rule: return "rule";
    case mut::Site::kCount: break;
  }
  return "?";
}

std::string_view op_name(mut::Op o) {
  switch (o) {
    case mut::Op::arith_plus1: return "arith_plus1";
    case mut::Op::arith_minus1: return "arith_minus1";
    case mut::Op::mul_narrow32: return "mul_narrow32";
    case mut::Op::mul_drop_rhs: return "mul_drop_rhs";
    case mut::Op::div_floor: return "div_floor";
    case mut::Op::div_plus1: return "div_plus1";
    case mut::Op::rem_zero: return "rem_zero";
    case mut::Op::shr_trunc: return "shr_trunc";
    case mut::Op::pick_then: return "pick_then";
    case mut::Op::pick_else: return "pick_else";
    case mut::Op::pick_negate: return "pick_negate";
    case mut::Op::cmp_boundary: return "cmp_boundary";
    case mut::Op::eq_negate: return "eq_negate";
    case mut::Op::gather_index: return "gather_index";
    case mut::Op::gather_unmasked: return "gather_unmasked";
    case mut::Op::gather_next: return "gather_next";
    case mut::Op::mat_stride_swap: return "mat_stride_swap";
    case mut::Op::row_batch: return "row_batch";
    case mut::Op::stride_drop_mult: return "stride_drop_mult";
    case mut::Op::bound_plus1: return "bound_plus1";
    case mut::Op::bound_minus1: return "bound_minus1";
    case mut::Op::rule_skip: return "rule_skip";
    default: return "none";
  }
}

std::vector<mut::Op> ops_of(mut::Site s) {
  using O = mut::Op;
  switch (s) {
    case mut::Site::addsub: return {O::arith_plus1, O::arith_minus1};
    case mut::Site::mul: return {O::mul_narrow32, O::mul_drop_rhs};
    case mut::Site::div: return {O::div_floor, O::div_plus1};
    case mut::Site::rem: return {O::rem_zero};
    case mut::Site::shr: return {O::shr_trunc};
    case mut::Site::pick: return {O::pick_then, O::pick_else, O::pick_negate};
    case mut::Site::cmp: return {O::cmp_boundary};
    case mut::Site::eq: return {O::eq_negate};
    case mut::Site::gather: return {O::gather_index, O::gather_unmasked, O::gather_next};
    case mut::Site::mat: return {O::mat_stride_swap};
    case mut::Site::row: return {O::row_batch};
    case mut::Site::stride: return {O::stride_drop_mult};
    case mut::Site::bound: return {O::bound_plus1, O::bound_minus1};
    case mut::Site::rule: return {O::rule_skip};
    case mut::Site::kCount: break;
  }
  return {};
}

// The verify grid (every ps, M 24 and 1, gaps closed; int64 routes also with large ids).
std::string grid_check(Route r, std::uint64_t seed) {
  for (auto ps : grid_page_sizes(r))
    for (std::int64_t m : {24, 1})
      for (bool large : {false, true}) {
        if (large && !has_int64_output(r)) continue;
        std::string msg;
        try {
          msg = check_route_on_grid(r, Variant::production, GridOptions{ps, m, false, seed, large});
        } catch (const std::exception& e) {
          msg = std::string("raised: ") + e.what();
        }
        if (!msg.empty()) return fmt::format("grid ps={} M={}{}", ps, m, large ? " large ids" : "");
      }
  return "";
}

// "" when every check passes, else the killer's name.
std::string run_checks(const UnitDef& u, const MutantOptions& o, int cases) {
  if (auto g = grid_check(u.grid_route, o.seed); !g.empty()) return g;
#if defined(KVADDR_ZOO_WITH_PROPS)
  props::Options po;
  po.seed = o.seed;
  po.cases_per_property = cases;
  po.stateful_runs = o.stateful_runs;
  po.shrink = false;
  for (auto name : u.properties) {
    try {
      if (!props::run_property(name, po).passed) return std::string(name);
    } catch (const std::exception&) {
      return std::string(name) + " (raised)";
    }
  }
#else
  (void)o, (void)cases;
#endif
  return "";
}

// Survivor classification: operator-level reasons established by reading the route code (see
// docs/bug-zoo.md); anything not listed is reported as a gap.
std::string survivor_reason(const UnitDef& u, mut::Site site, mut::Op op) {
  using O = mut::Op;
  (void)u;
  switch (op) {
    case O::mul_narrow32: return "the product fits int32 on every admitted input";
    case O::gather_unmasked: return "a masked-off lane reads page 0, whose entry is the sink 0";
    case O::div_floor: return "the dividend is non-negative here: the sign test runs first";
    case O::shr_trunc: return "the shifted value is non-negative here";
    case O::cmp_boundary: return "the operands are never equal here (tok < 0 at tok = 0 selects page 0 either way)";
    case O::pick_then:
    case O::pick_else:
    case O::pick_negate: return "both branches carry the same value here";
    case O::mul_drop_rhs: return "the dropped factor is 1 here";
    case O::rem_zero: return "the remainder is 0 here";
    case O::rule_skip: return "no generated input violates this rule";
    default: break;
  }
  (void)site;
  return "no value changed";
}

// ---- classification table: infected survivors proved equivalent by reading the lane code ----------
// A mutant listed here changed an intermediate value on some generated input, yet no output can
// differ on an admitted input; the reason says why (lanes.hpp, spec §2.4 I9, §2.5, §7 Q2). Only
// these and never-infected mutants are left out of the score. An entry that matches no surviving
// infected mutant, or matches a killed one, is reported (MutationReport::stale_classifications).
constexpr std::string_view kGuardDiv =
    "the quotient differs from truncation only for a negative dividend (a padding lane), whose value the sign-guard "
    "pick that follows replaces (I9: page = 0 if t < 0)";
constexpr std::string_view kGuardPick =
    "forces the live branch on padding / not-kept lanes only: the value reaches only the load masked by the same "
    "guard (fill 0) and the final guard pick, which returns 0 for those lanes";
constexpr std::string_view kSinkCmp =
    "t <= 0 differs from t < 0 only at t = 0, which then takes the padding branch (0) while production computes "
    "v2p[0] * S + 0 = 0: v2p[0] = 0 is the pinned sink of every admitted table (v2p0_pinned, §2.4 I9, §7 Q2)";
constexpr std::string_view kMax0Cmp = "max(d, 0) tested with d <= 0: differs only at d = 0, where both branches are 0";
constexpr std::string_view kCapCmp =
    "min(n, cap) tested with n <= cap: differs only at n == cap, where both branches of the pick are equal";
constexpr std::string_view kPage0Cmp =
    "tok <= 0 differs only at tok = 0, where the guarded page 0 equals the quotient 0 / ps (0 >> s) = 0";
constexpr std::string_view kEagerOff =
    "the offset 0 <= o < ps only feeds (P * ps * M + o) / ps = P * M (truncation, P * M >= 0), and a tombstone "
    "P = -1 clamps to 0 with or without o; padding lanes are replaced by the guard";

struct Classified {
  std::string_view unit;
  std::string site;
  std::string_view op, reason;
};
// A classified site of a lane function, for every unit that runs the lane.
struct SiteReason {
  std::string_view site, op, reason;
};
// token_translate_lane sites: cmp#0 t<0, div#0 t/ps, pick#0 page, rem#0, pick#1 off, gather#0,
// mul#0, addsub#0, cmp#1/pick#2 max0, pick#3 final guard.
constexpr SiteReason kTokenLane[] = {
    {"div#0 seg 0", "div_floor", kGuardDiv},     {"pick#0 seg 0", "pick_then", kGuardPick},
    {"pick#1 seg 0", "pick_then", kGuardPick},   {"cmp#0 seg 0", "cmp_boundary", kSinkCmp},
    {"cmp#1 seg 0", "cmp_boundary", kMax0Cmp},
};
// write_loc_lane: cmp#0 0<loc, [rem#0, eq#0], div#0 loc/dcp, pick#0 t, div#1 t/ps, pick#1 page,
// rem pick#2 off, gather#0, mul#0, addsub#0, cmp#1/pick#3 max0, pick#4 final (keep).
constexpr SiteReason kWriteLocLane[] = {
    {"div#0 seg 0", "div_floor",
     "loc / dcp_size differs from truncation only for loc = -1 (padding), which is not kept: pick#0 replaces it by -1"},
    {"div#1 seg 0", "div_floor", "t / ps differs only for t = -1 (a not-kept lane), which pick#1 replaces by page 0"},
    {"pick#0 seg 0", "pick_then",
     "t is used only through pick#1 / pick#2, which select page 0 and offset 0 on not-kept lanes whatever t is"},
    {"pick#1 seg 0", "pick_then", kGuardPick},
    {"pick#2 seg 0", "pick_then", kGuardPick},
    {"cmp#1 seg 0", "cmp_boundary", kMax0Cmp},
    {"gather#0 seg 0", "gather_unmasked",
     "a not-kept lane (loc <= 0 or another rank's loc) loads v2p[0] unmasked, an in-bounds entry (changed only "
     "under write_loc_loc0_unpinned, v2p[0] != 0); the final keep pick replaces the lane's value by 0"},
};
// mamba_lane (clamp): cmp#0 slot<0, gather#0, cmp#1/pick#0 max0, pick#1 guard.
constexpr SiteReason kMambaLane[] = {
    {"cmp#0 seg 0", "cmp_boundary", kSinkCmp},
    {"cmp#1 seg 0", "cmp_boundary", kMax0Cmp},
};
// dcp_read_lane: cmp#0 w<0, div#0 w/dcp, pick#0 t, then token_translate_lane (kTokenLane with cmp, div and pick
// one index on: cmp#1, div#1, pick#1, rem#0, pick#2, gather#0, mul#0, addsub#0, cmp#2/pick#3 max0, pick#4).
constexpr SiteReason kDcpReadLane[] = {
    {"div#0 seg 0", "div_floor",
     "w / dcp_size differs from truncation only for w < 0 (padding), which pick#0 replaces by -1"},
    {"pick#0 seg 0", "pick_else",
     "padding w = -1 then gives t = -1 / dcp_size: -1 (dcp 1) takes the padding branch, 0 (dcp > 1) translates to "
     "v2p[0] * S = 0 (pinned sink, §7 Q2); live w are unchanged"},
    {"cmp#0 seg 0", "cmp_boundary",
     "w <= 0 differs only at w = 0: t = -1 gives 0, production t = 0 gives v2p[0] * S = 0 (pinned sink, §7 Q2)"},
};
// eager_funnel_lane (seg 1): token_translate_lane sites, then div#1 (/ ps).
constexpr SiteReason kEagerLane[] = {
    {"div#0 seg 1", "div_floor", kGuardDiv},      {"rem#0 seg 1", "rem_zero", kEagerOff},
    {"pick#0 seg 1", "pick_then", kGuardPick},    {"pick#1 seg 1", "pick_then", kGuardPick},
    {"pick#1 seg 1", "pick_else", kEagerOff},     {"pick#1 seg 1", "pick_negate", kEagerOff},
    {"cmp#0 seg 1", "cmp_boundary", kSinkCmp},    {"cmp#1 seg 1", "cmp_boundary", kMax0Cmp},
};
// Page tables. seg 0: table_columns (ceil: addsub#0/#1, div#0; cmp#0/pick#0 the max_pages cap);
// seg 1: page_entry_lane (cmp#0 tok<0, div#0, pick#0 guard, eq#0, gather#0, mul#0, cmp#1/pick#1 max0).
constexpr SiteReason kColumnCap[] = {{"cmp#0 seg 0", "cmp_boundary", kCapCmp}};
constexpr SiteReason kPageEntryLane[] = {
    {"div#0 seg 1", "div_floor", kGuardDiv},
    {"cmp#0 seg 1", "cmp_boundary", kPage0Cmp},
    {"cmp#1 seg 1", "cmp_boundary", kMax0Cmp},
};
// decode_metadata. seg 0: decode_columns (cmp#0/pick#0 the max_seq_pages cap, as kColumnCap); seg 1:
// decode_entry_lane of page_table (shr#0, cmp#0 guard, cmp#1 max0) then of swa_page_table (shr#1, cmp#2 guard,
// cmp#3 max0: kDecodeEntryLane with cmp two indices on); with a kernel_page_table copy only the SWA lane runs
// (#0/#1).
constexpr SiteReason kDecodeEntryLane[] = {
    {"cmp#0 seg 1", "cmp_boundary", kPage0Cmp},
    {"cmp#1 seg 1", "cmp_boundary", kMax0Cmp},
};
constexpr SiteReason kDecodeSwaShr[] = {
    {"shr#1 seg 1", "shr_trunc",
     "the SWA lane's shifted page index differs from the floor shift only for a padding index < 0, which the sign "
     "guard replaces by page 0"},
};

// A lane's classified sites as a unit runs them: `by` indices on for the operation kinds in `kinds` (space
// separated), where operations of those kinds run before the lane in the same segment.
struct LaneAt {
  template <std::size_t N>
  LaneAt(const SiteReason (&lane)[N], int by_ = 0, std::string_view kinds_ = "") : sites(lane), by(by_), kinds(kinds_) {}
  std::span<const SiteReason> sites;
  int by;
  std::string_view kinds;
};

// `site` ("cmp#0 seg 1") with its index `by` on when its operation kind is one of `kinds`.
std::string shifted_site(std::string_view site, int by, std::string_view kinds) {
  const auto hash = site.find('#');
  const auto space = site.find(' ', hash);
  const std::string_view kind = site.substr(0, hash);
  const std::string padded = fmt::format(" {} ", kinds);
  if (by == 0 || padded.find(fmt::format(" {} ", kind)) == std::string::npos) return std::string(site);
  const int k = std::stoi(std::string(site.substr(hash + 1, space - hash - 1)));
  return fmt::format("{}#{}{}", kind, k + by, site.substr(space));
}

// Every classified mutant: each unit with the classified sites of the lanes it runs, in unit order.
const std::vector<Classified>& classified_list() {
  static const std::vector<Classified> list = [] {
    std::vector<Classified> l;
    const auto add = [&](std::string_view unit, std::initializer_list<LaneAt> lanes) {
      for (const LaneAt& lane : lanes)
        for (const SiteReason& r : lane.sites)
          l.push_back({unit, shifted_site(r.site, lane.by, lane.kinds), r.op, r.reason});
    };
    for (std::string_view unit : {"token_translate", "kv_indices_inplace", "swa_translate", "transfer_ids"})
      add(unit, {kTokenLane});
    add("write_loc", {kWriteLocLane});
    add("mamba_translate", {kMambaLane});
    add("dcp_read_translate", {{kDcpReadLane}, {kTokenLane, 1, "cmp div pick"}});
    add("eager_funnel", {kEagerLane});
    add("flashmla_block_table", {kPageEntryLane});
    for (std::string_view unit : {"canonical_page_table", "read_table", "full_prefill_table"})
      add(unit, {kColumnCap, kPageEntryLane});
    add("decode_metadata", {{kColumnCap}, {kDecodeSwaShr}, {kDecodeEntryLane}, {kDecodeEntryLane, 2, "cmp"}});
    return l;
  }();
  return list;
}

const Classified* classified(std::string_view unit, std::string_view site, std::string_view op) {
  for (const auto& c : classified_list())
    if (c.unit == unit && c.site == site && c.op == op) return &c;
  return nullptr;
}

}  // namespace

std::vector<std::string> mutant_units() {
  std::vector<std::string> names;
  for (const auto& u : units()) names.push_back(u.name);
  return names;
}

MutationReport run_mutants(const MutantOptions& o) {
  require(o.shard_count >= 1, "shard_count", o.shard_count, "must be >= 1");
  require(o.shard_index >= 0 && o.shard_index < o.shard_count, "shard_index", o.shard_index,
          "must be in [0, shard_count - 1]");
  MutationReport rep;
  std::set<const Classified*> matched;
  std::set<std::string> ran;  // the units this run (this shard) ran
  std::int64_t position = 0;  // of the unit among the selected ones
  const auto t0 = Clock::now();
  const mut::Campaign campaign;  // the host entry points run the hooked instantiation until we return
  auto& st = mut::tl_state;
  for (const auto& u : units()) {
    if (!o.units.empty() && std::find(o.units.begin(), o.units.end(), u.name) == o.units.end()) continue;
    if (position++ % o.shard_count != o.shard_index) continue;
    ran.insert(u.name);
    // Counting pass: which sites does this unit reach on the grid and the properties?
    st = mut::State{};
    st.counting_unit = u.unit;
    (void)run_checks(u, o, std::max(20, o.property_cases / 4));
    std::uint64_t seen[mut::kSegments][mut::kSites];
    std::copy(&st.seen[0][0], &st.seen[0][0] + mut::kSegments * mut::kSites, &seen[0][0]);
    st = mut::State{};
    UnitScore score{std::string(u.name), 0, 0};
    for (int seg = 0; seg < mut::kSegments; ++seg)
      for (int si = 0; si < mut::kSites; ++si)
        for (int k = 0; k < mut::kMaxK; ++k) {
          if (!(seen[seg][si] >> k & 1U)) continue;
          const auto site = static_cast<mut::Site>(si);
          for (auto op : ops_of(site)) {
            st = mut::State{};
            st.active = mut::Mutant{u.unit, seg, site, k, op};
            const std::string killer = run_checks(u, o, o.property_cases);
            const bool infected = st.infected;
            st = mut::State{};
            Mutant m;
            m.unit = std::string(u.name);
            m.op = std::string(op_name(op));
            m.site = fmt::format("{}#{} seg {}", site_name(site), k, seg);
            m.killed = !killer.empty();
            m.killer = killer;
            m.never_infected = !m.killed && !infected;
            const Classified* cls = classified(m.unit, m.site, m.op);
            if (cls != nullptr) {
              matched.insert(cls);
              if (m.killed)
                rep.stale_classifications.push_back(
                    fmt::format("{} {} @ {}: classified equivalent but killed by {}", m.unit, m.op, m.site, killer));
            }
            if (!m.killed) {
              if (m.never_infected) {
                m.reason = "never infected: the mutated operation never changed a value on the generated inputs, so "
                           "no check could see it (a coverage gap, counted as a survivor; likely why: " +
                           survivor_reason(u, site, op) + ")";
              } else if (cls != nullptr) {
                m.equivalent = true;
                m.argued = true;
                m.reason = "equivalent (classified): " + std::string(cls->reason);
              } else {
                m.reason = "unclassified: it changed an intermediate value, yet no output compared by the grid or a "
                           "property differed (not proved equivalent: counted as a survivor)";
              }
            }
            ++score.mutants;
            score.killed += m.killed ? 1 : 0;
            score.equivalent += m.equivalent ? 1 : 0;
            score.argued += m.argued ? 1 : 0;
            score.never_infected += m.never_infected ? 1 : 0;
            if (o.progress && !m.killed)
              *o.progress << "[mutant] " << m.unit << ' ' << m.op << " @ " << m.site << ": SURVIVED" << std::endl;
            rep.mutants.push_back(std::move(m));
          }
        }
    if (o.progress)
      *o.progress << "[mutants] " << score.unit << ": " << score.killed << "/" << score.mutants << " killed" << std::endl;
    rep.total += score.mutants;
    rep.killed += score.killed;
    rep.equivalent += score.equivalent;
    rep.argued += score.argued;
    rep.never_infected += score.never_infected;
    rep.units.push_back(std::move(score));
  }
  for (const auto& c : classified_list()) {
    if (matched.count(&c)) continue;
    // A whole campaign checks every entry (one naming no unit at all included); a part, its own units'.
    const bool whole = o.units.empty() && o.shard_count == 1;
    if (whole || ran.count(std::string(c.unit)) != 0)
      rep.stale_classifications.push_back(fmt::format("{} {} @ {}: no such mutant", c.unit, c.op, c.site));
  }
  rep.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return rep;
}

}  // namespace kvaddr::zoo
