// The kill matrix (issue 6): every planted variant against every check kind.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iterator>
#include <ostream>

#include "checks.hpp"
#include "lifecycle_rows.hpp"
#include "kvaddr/model/catalogue.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/validate.hpp"
#include "kvaddr/translate/variant.hpp"
#include "kvaddr/zoo/grid.hpp"
#include "kvaddr/zoo/zoo.hpp"
#if defined(KVADDR_ZOO_WITH_PROPS)
#include "kvaddr/props/props.hpp"
#endif
#if defined(KVADDR_ZOO_WITH_PROOFS)
#include "kvaddr/proofs/registry.hpp"
#endif
#if defined(KVADDR_ZOO_WITH_KERNELS)
#include "kvaddr/kernels/diff.hpp"
#include "kvaddr/kernels/launch.hpp"
#endif

namespace kvaddr::zoo {

namespace {
// The names of an enumeration's values, in enumerator order (the enumerators count from 0).
constexpr std::string_view kKindNames[] = {"proofs", "properties", "stateful", "differential", "upstream_grid",
                                           "coverage"};
constexpr std::string_view kCellStateNames[] = {"killed", "survived", "n/a", "skipped"};
constexpr std::string_view kFamilyNames[] = {"production", "translate", "pool", "wiring", "lifecycle"};
static_assert(std::size(kKindNames) == kKinds);

template <class E, std::size_t N>
std::string_view name_of(const std::string_view (&names)[N], E e) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}
}  // namespace

std::string_view to_string(Kind k) noexcept { return name_of(kKindNames, k); }
std::string_view to_string(CellState s) noexcept { return name_of(kCellStateNames, s); }
std::string_view to_string(Family f) noexcept { return name_of(kFamilyNames, f); }

int Row::kill_count() const noexcept {
  int n = 0;
  for (const auto& c : cells) n += c.state == CellState::killed ? 1 : 0;
  return n;
}

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Marks a cell that did not run (skipped, n/a) with the reason.
void set_cell(Cell& cell, CellState state, std::string detail) {
  cell.state = state;
  cell.detail = std::move(detail);
}

// Runs a check returning "" (pass) or a failure; fills the cell.
void run_cell(Cell& cell, const std::string& killer, const std::function<std::string()>& f) {
  const auto t0 = Clock::now();
  std::string msg;
  try {
    msg = f();
  } catch (const std::exception& e) {
    msg = std::string("raised: ") + e.what();
  }
  cell.seconds = since(t0);
  if (msg.empty()) {
    cell.state = CellState::survived;
  } else {
    cell.state = CellState::killed;
    cell.killer = killer;
    cell.detail = msg.substr(0, msg.find('\n'));
  }
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Catalogue id of a variant name (from model::bug_catalogue's planted_by lists).
std::string bug_of(std::string_view name) {
  for (const auto& e : model::bug_catalogue()) {
    std::string_view list = e.planted_by;
    while (!list.empty()) {
      const auto comma = list.find(',');
      auto item = list.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (item == name && e.kind != model::PlantKind::shares) return std::string(e.id);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  return "";
}

// ---- proofs: which obligation refutes which (route, variant) ------------------------------------
struct ProofKill {
  std::string_view route;    // route name, or "backend_gate" etc. for wiring rows
  std::string_view variant;  // translate or wiring variant name
  std::string_view obligation;
};
constexpr ProofKill kProofKills[] = {
    {"token_translate", "b17_doc_formula", "agree.token_translate.b17"},
    {"flashmla_block_table", "era_b_unclamped", "route.flashmla_block_table.era_b_unclamped"},
    {"flashmla_block_table", "era_b_unclamped", "I7.eager_vs_flashmla.era_b_unclamped"},
    {"flashmla_block_table", "b09_no_padding_guard", "route.flashmla_block_table.b09"},
    {"canonical_page_table", "b09_no_padding_guard", "route.canonical_page_table.b09"},
    {"read_table", "b09_no_padding_guard", "route.read_table.b09"},
    {"read_table", "b10_no_max_pages_bound", "route.read_table.columns.b10"},
    {"decode_metadata", "b09_no_padding_guard", "route.decode_metadata.b09"},
    {"decode_metadata", "era_b_unclamped", "route.decode_metadata.era_b_unclamped"},
    {"swa_translate", "b11_swa_no_clamp", "route.swa_translate.b11"},
    {"full_prefill_table", "b04_prefill_no_remap", "agree.full_prefill.b04"},
    {"dcp_read_translate", "b14_dcp_untranslated", "agree.dcp_read.b14"},
    {"transfer_ids", "b16_virtual_as_physical", "agree.transfer.b16"},
    {"canonical_page_table", "e02_minus_one_sentinel", "route.canonical_page_table.e02"},
    {"token_translate", "e03_int32_offset", "route.token_translate.int64_domain.e03"},
    {"write_loc", "e03_int32_offset", "route.write_loc.int64_domain.e03"},
    {"flashmla_block_table", "e10_batch_index_rows", "route.flashmla_block_table.rows.e10"},
    {"canonical_page_table", "e10_batch_index_rows", "route.canonical_page_table.rows.e10"},
    {"read_table", "e10_batch_index_rows", "route.read_table.rows.e10"},
    {"decode_metadata", "e10_batch_index_rows", "route.decode_metadata.rows.e10"},
    {"token_translate", "int32_wrap", "route.token_translate.int32_store.wrap"},
    {"flashmla_block_table", "int32_wrap", "route.flashmla_block_table.int32_store.wrap"},
    {"canonical_page_table", "int32_wrap", "route.canonical_page_table.int32_store.wrap"},
    {"read_table", "int32_wrap", "route.read_table.int32_store.wrap"},
    {"decode_metadata", "int32_wrap", "route.decode_metadata.int32_store.wrap"},
    {"canonical_page_table", "era_b_unclamped", "route.canonical_page_table.unclamped"},
    {"read_table", "era_b_unclamped", "route.read_table.unclamped"},
    {"read_table", "grid_spill", "route.read_table.columns.grid_spill"},
    {"canonical_page_table", "grid_spill", "route.read_table.columns.grid_spill"},
    {"decode_metadata", "pr33046_as_written", "route.decode_metadata.pr33046_as_written"},
    {"flashmla_block_table", "flashmla_era_b_as_written", "route.flashmla_block_table.era_b_as_written"},
    {"canonical_page_table", "e01_no_column_bound", "route.canonical_page_table.columns.e01"},
    {"flashmla_block_table", "e09_floor_pages", "route.flashmla_block_table.columns.e09"},
    {"read_table", "e02_minus_one_sentinel", "route.read_table.tail.e02"},
    {"write_loc", "b06_stale_tail", "route.write_loc.tail.b06"},
    {"write_loc", "e02_minus_one_sentinel", "route.write_loc.tail.e02"},
    {"kv_indices_inplace", "b05_rebind_fresh", "route.kv_indices_inplace.in_place.b05"},
    // the behaviours inferred from recorded upstream calls (issue 33): the contract's obligation under each
    {"token_translate", "int32_lane_offsets", "route.per_id.lane_offset.int32_lane_offsets"},
    {"write_loc", "int32_lane_offsets", "route.per_id.lane_offset.int32_lane_offsets"},
    {"decode_metadata", "int32_lengths", "route.decode_metadata.columns.int32_lengths"},
    {"decode_metadata", "full_width_page_table", "route.decode_metadata.columns.full_width"},
    {"decode_metadata", "era_d_read_table", "route.decode_metadata.columns.era_d_read_table"},
    {"decode_metadata", "swa_no_padding_guard", "route.decode_metadata.swa_slot_map.swa_no_padding_guard"},
    // wiring rows: the arithmetic shape of the wiring bug
    {"backend_gate", "b03_detect_multiplier", "B03.detector.multiplier_gt_1"},
    {"full_prefill_table", "b04_prefill_graph_no_remap", "agree.full_prefill.b04"},
    {"dcp_read_translate", "b14_dcp_half_translated", "agree.dcp_read.b14"},
    {"transfer_ids", "b16_pd_virtual_ids", "agree.transfer.b16"},
};
// The production counterparts (expected proved): a refutation is a false alarm.
constexpr std::string_view kProductionObligations[] = {
    "route.token_translate",      "route.transfer_ids",         "route.swa_translate",
    "route.dcp_read_translate",   "route.write_loc",            "route.flashmla_block_table",
    "route.canonical_page_table", "route.read_table",           "route.decode_metadata",
    "route.eager_funnel",         "route.read_table.columns",   "agree.token_translate.spec",
    "agree.full_prefill",         "B03.detector.v2p_present",   "I7.eager_vs_canonical",
    "route.token_translate.int64_domain", "route.write_loc.int64_domain", "route.flashmla_block_table.rows",
    "route.canonical_page_table.rows", "route.read_table.rows", "route.decode_metadata.rows",
    "route.per_id.lane_offset",   "route.decode_metadata.columns", "route.decode_metadata.swa_slot_map",
};

void proofs_cell(Cell& cell, std::string_view route, std::string_view variant, bool production,
                 const ZooOptions& o) {
#if defined(KVADDR_ZOO_WITH_PROOFS)
  if (!o.proofs) {
    set_cell(cell, CellState::skipped, "proofs not requested");
    return;
  }
  std::vector<std::string> names;
  if (production) {
    for (auto n : kProductionObligations) names.emplace_back(n);
  } else {
    for (const auto& k : kProofKills)
      if (k.route == route && k.variant == variant) names.emplace_back(k.obligation);
  }
  std::vector<std::string> known;
  for (const auto& n : names)
    for (const auto& info : proofs::obligations())
      if (info.name == n) known.push_back(n);
  detail::run_obligations(cell, known, "no obligation models this variant");
#else
  (void)route, (void)variant, (void)production, (void)o;
  set_cell(cell, CellState::skipped, "proofs/ not built (Z3 not found)");
#endif
}

#if defined(KVADDR_ZOO_WITH_PROPS)
props::Options prop_options(const ZooOptions& o) {
  props::Options po;
  po.seed = o.seed;
  po.cases_per_property = o.property_cases;
  po.stateful_runs = o.stateful_runs;
  po.shrink = false;
  return po;
}
#endif

void properties_cell(Cell& cell, Route route, Variant v, const ZooOptions& o) {
#if defined(KVADDR_ZOO_WITH_PROPS)
  const auto po = prop_options(o);
  const auto t0 = Clock::now();
  cell.state = CellState::survived;
  for (const auto& info : props::list_properties()) {
    if (info.name == "stateful_pool") continue;
    const bool on_route = std::find(info.routes.begin(), info.routes.end(), route) != info.routes.end();
    if (!on_route && v != Variant::production) continue;
    const auto r = props::run_property(info.name, po, v);
    if (!r.passed) {
      cell.state = CellState::killed;
      cell.killer = info.name;
      cell.detail = first_line(r.failure.substr(r.failure.find('\n') == std::string::npos ? 0 : r.failure.find('\n') + 1));
      break;
    }
  }
  cell.seconds = since(t0);
#else
  (void)route, (void)v, (void)o;
  set_cell(cell, CellState::skipped, "props/ not built (RapidCheck not found)");
#endif
}

void stateful_cell(Cell& cell, Route route, Variant v, const ZooOptions& o) {
#if defined(KVADDR_ZOO_WITH_PROPS)
  const props::PropertyInfo* st = nullptr;
  for (const auto& info : props::list_properties())
    if (info.name == "stateful_pool") st = &info;
  if (st == nullptr || (v != Variant::production &&
                        std::find(st->routes.begin(), st->routes.end(), route) == st->routes.end())) {
    set_cell(cell, CellState::na, "the stateful simulation does not read through this route");
    return;
  }
  const auto t0 = Clock::now();
  const auto r = props::run_property("stateful_pool", prop_options(o), v);
  cell.seconds = since(t0);
  cell.state = r.passed ? CellState::survived : CellState::killed;
  if (!r.passed) {
    cell.killer = "stateful_pool";
    cell.detail = first_line(r.failure.substr(r.failure.find('\n') == std::string::npos ? 0 : r.failure.find('\n') + 1));
  }
#else
  (void)route, (void)v, (void)o;
  set_cell(cell, CellState::skipped, "props/ not built (RapidCheck not found)");
#endif
}

bool gpu_present() {
#if defined(KVADDR_ZOO_WITH_KERNELS)
  return gpu::gpu_available();
#else
  return false;
#endif
}

void differential_cell(Cell& cell, Route route, Variant v, const ZooOptions& o) {
#if defined(KVADDR_ZOO_WITH_KERNELS)
  if (!o.differential || !gpu::gpu_available()) {
    set_cell(cell, CellState::skipped, o.differential ? "no GPU present" : "differential not requested");
    return;
  }
  gpu::DiffOptions d;
  d.cases = o.differential_cases;
  d.seed = o.seed;
  d.force_variant = v;
  d.force_route = route;
  const auto t0 = Clock::now();
  const auto r = gpu::run_differential(d);
  cell.seconds = since(t0);
  if (r.skipped) {
    set_cell(cell, CellState::skipped, r.skip_reason);
  } else if (r.first_mismatch && r.first_mismatch->against != "host") {
    cell.state = CellState::killed;
    cell.killer = std::string(gpu::to_string(r.first_mismatch->kernel)) + " vs " + r.first_mismatch->against;
    cell.detail = r.first_mismatch->replay;
  } else {
    cell.state = CellState::survived;
    if (r.first_mismatch) cell.detail = "GPU differs from the host route, not a kill: " + r.first_mismatch->replay;
  }
#else
  (void)route, (void)v, (void)o;
  set_cell(cell, CellState::skipped, "kernels/ not built (nvcc not found)");
#endif
}

void upstream_grid_cell(Cell& cell, Route route, Variant v, const ZooOptions& o) {
  run_cell(cell, "", [&]() -> std::string {
    for (auto ps : grid_page_sizes(route))
      for (std::int64_t m : {24, 1}) {
        auto msg = check_route_on_grid(route, v, GridOptions{ps, m, true, o.seed, false});
        if (!msg.empty()) {
          cell.killer = fmt::format("upstream grid ps={} M={}", ps, m);
          return msg;
        }
      }
    return "";
  });
}


void na(Row& row, std::initializer_list<Kind> kinds, std::string_view why) {
  for (Kind k : kinds) set_cell(row.cell(k), CellState::na, std::string(why));
}

}  // namespace

namespace detail {

RowPicker::RowPicker(const ZooOptions& o) : options_(o) {
  require(o.shard_count >= 1, "shard_count", o.shard_count, "must be >= 1");
  require(o.shard_index >= 0 && o.shard_index < o.shard_count, "shard_index", o.shard_index,
          "must be in [0, shard_count - 1]");
}

bool RowPicker::operator()(const std::string& name) {
  const auto& only = options_.only;
  if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) return false;
  return position_++ % options_.shard_count == options_.shard_index;
}

}  // namespace detail

ZooReport run_zoo(const ZooOptions& o) {
  detail::RowPicker wanted(o);
  ZooReport rep;
  const auto t0 = Clock::now();
  rep.gpu_present = gpu_present();
  auto progress = [&](const Row& r) {
    if (!o.progress) return;
    *o.progress << "[zoo] " << r.name << " @ " << r.route << ":";
    for (Kind k : kAllKinds) *o.progress << ' ' << to_string(k) << '=' << to_string(r.cell(k).state);
    *o.progress << std::endl;
  };

  // Production: the false-alarm row. Every check kind runs against the production semantics.
  if (wanted("production")) {
    Row row{"production", "-", Family::production, "", {}};
    proofs_cell(row.cell(Kind::proofs), "", "", true, o);
    properties_cell(row.cell(Kind::properties), Route::token_translate, Variant::production, o);
    stateful_cell(row.cell(Kind::stateful), Route::token_translate, Variant::production, o);
    // Pool and wiring families under production as well.
    if (row.cell(Kind::properties).state != CellState::killed) {
      const auto t1 = Clock::now();
      std::string m = detail::pool_property({}, o.seed, o.pool_cases, nullptr);
      if (m.empty()) m = detail::wiring_property(model::WiringVariant::production, o.seed, o.pool_cases, nullptr);
      row.cell(Kind::properties).seconds += since(t1);
      if (!m.empty()) {
        row.cell(Kind::properties).state = CellState::killed;
        row.cell(Kind::properties).killer = "pool/wiring property";
        row.cell(Kind::properties).detail = m;
      }
    }
    if (row.cell(Kind::stateful).state != CellState::killed) {
      const auto t1 = Clock::now();
      const auto m = detail::pool_stateful({}, o.seed, o.stateful_runs, nullptr);
      row.cell(Kind::stateful).seconds += since(t1);
      if (!m.empty()) {
        row.cell(Kind::stateful).state = CellState::killed;
        row.cell(Kind::stateful).killer = "pool sequences";
        row.cell(Kind::stateful).detail = m;
      }
    }
    {
      Cell& diff = row.cell(Kind::differential);
#if defined(KVADDR_ZOO_WITH_KERNELS)
      if (o.differential && gpu::gpu_available()) {
        gpu::DiffOptions d;
        d.cases = o.differential_cases;
        d.seed = o.seed;
        d.production_only = true;
        const auto t1 = Clock::now();
        const auto r = gpu::run_differential(d);
        diff.seconds = since(t1);
        diff.state = r.first_mismatch ? CellState::killed : (r.skipped ? CellState::skipped : CellState::survived);
        if (r.first_mismatch) diff.detail = r.first_mismatch->replay;
      } else {
        diff.state = CellState::skipped;
        diff.detail = "no GPU present";
      }
#else
      diff.state = CellState::skipped;
      diff.detail = "kernels/ not built (nvcc not found)";
#endif
    }
    run_cell(row.cell(Kind::upstream_grid), "upstream grid", [&]() -> std::string {
      for (Route r : kAllRoutes)
        for (auto ps : grid_page_sizes(r))
          for (std::int64_t m : {24, 1}) {
            auto msg = check_route_on_grid(r, Variant::production, GridOptions{ps, m, true, o.seed, false});
            if (!msg.empty()) return msg;
          }
      if (auto m = detail::pool_upstream_grid({}); !m.empty()) return m;
      return detail::wiring_upstream_grid(model::WiringVariant::production);
    });
    run_cell(row.cell(Kind::coverage), "check_wiring",
             [] { return detail::wiring_coverage(model::WiringVariant::production); });
    for (const auto& c : row.cells) rep.production_false_alarms += c.state == CellState::killed ? 1 : 0;
    progress(row);
    rep.rows.push_back(std::move(row));
  }

  // Translate variants, one row per route that accepts them; then the edge behaviours of the
  // upstream kernels, the named composites (issues 17, 18) and the inferred behaviours (issue 33).
  const auto variant_row = [&](Variant v, Route r) {
    const std::string name(kvaddr::to_string(v, r));
    if (!wanted(name)) return;
    Row row{name, std::string(kvaddr::to_string(r)), Family::translate, bug_of(name), {}};
    proofs_cell(row.cell(Kind::proofs), row.route, name, false, o);
    properties_cell(row.cell(Kind::properties), r, v, o);
    stateful_cell(row.cell(Kind::stateful), r, v, o);
    differential_cell(row.cell(Kind::differential), r, v, o);
    upstream_grid_cell(row.cell(Kind::upstream_grid), r, v, o);
    na(row, {Kind::coverage}, "a route variant: the wiring model does not see lane arithmetic");
    progress(row);
    rep.rows.push_back(std::move(row));
  };
  for (Variant v : kAllVariants) {
    if (v == Variant::production) continue;
    for (Route r : kAllRoutes)
      if (route_accepts(r, v)) variant_row(v, r);
  }
  for (Variant v : kEdgeVariants)
    for (Route r : kAllRoutes)
      if (route_accepts(r, v)) variant_row(v, r);
  for (const NamedComposite& c : kNamedComposites) variant_row(c.variant, c.route);
  for (Variant v : kInferredVariants)
    for (Route r : kAllRoutes)
      if (route_accepts(r, v)) variant_row(v, r);

  // Pool bugs.
  struct PoolDef {
    const char* name;
    detail::PoolRow row;
  };
  const PoolDef pools[] = {
      {"double_free_unchecked", {model::PoolBug::double_free_unchecked, false}},
      {"duplicate_free_ids", {model::PoolBug::duplicate_free_ids, false}},
      {"e04_alias_bind", {model::PoolBug::e04_alias_bind, false}},
      {"e08_sink_handed_out", {model::PoolBug::none, true}},
  };
  for (const auto& p : pools) {
    if (!wanted(p.name)) continue;
    Row row{p.name, "page_lifecycle", Family::pool, bug_of(p.name), {}};
    if (row.bug_id.empty()) {
      const std::string_view n = p.name;
      row.bug_id = n == "double_free_unchecked" ? "G1" : n == "duplicate_free_ids" ? "G2" : n == "e04_alias_bind" ? "E04" : "E08";
    }
    na(row, {Kind::proofs}, "no obligation models the allocator");
    na(row, {Kind::differential}, "no GPU kernel: the allocator is host-side");
    na(row, {Kind::coverage}, "not a wiring bug");
    run_cell(row.cell(Kind::properties), "pool property",
             [&] { return detail::pool_property(p.row, o.seed, o.pool_cases, nullptr); });
    run_cell(row.cell(Kind::stateful), "pool sequences",
             [&] { return detail::pool_stateful(p.row, o.seed, o.stateful_runs, nullptr); });
    run_cell(row.cell(Kind::upstream_grid), "§5.1 pool cases", [&] { return detail::pool_upstream_grid(p.row); });
    progress(row);
    rep.rows.push_back(std::move(row));
  }

  // Wiring variants.
  for (auto w : model::all_wiring_variants()) {
    if (w == model::WiringVariant::production) continue;
    const std::string name(model::to_string(w));
    if (!wanted(name)) continue;
    std::string route = "backend_gate";
    switch (w) {
      case model::WiringVariant::b04_prefill_graph_no_remap: route = "full_prefill_table"; break;
      case model::WiringVariant::b07_zero_predicate_multiplier: route = "page_lifecycle"; break;
      case model::WiringVariant::b14_dcp_half_translated: route = "dcp_read_translate"; break;
      case model::WiringVariant::b15_capture_none_write_loc: route = "write_loc"; break;
      case model::WiringVariant::b16_pd_virtual_ids: route = "transfer_ids"; break;
      default: break;
    }
    Row row{name, route, Family::wiring, bug_of(name), {}};
    proofs_cell(row.cell(Kind::proofs), route, name, false, o);
    run_cell(row.cell(Kind::properties), "wiring property",
             [&] { return detail::wiring_property(w, o.seed, o.pool_cases, nullptr); });
    na(row, {Kind::stateful}, "configuration bug: no pool state involved");
    na(row, {Kind::differential}, "configuration bug: no kernel differs");
    run_cell(row.cell(Kind::upstream_grid), "§5.4 / §5.2 gate cases", [&] { return detail::wiring_upstream_grid(w); });
    run_cell(row.cell(Kind::coverage), "check_wiring", [&] { return detail::wiring_coverage(w); });
    progress(row);
    rep.rows.push_back(std::move(row));
  }

  detail::add_lifecycle_rows(rep, o, wanted, progress);

  for (const auto& r : rep.rows) {
    if (r.family == Family::production || r.kill_count() >= 2) continue;
    std::string kinds;
    for (Kind k : kAllKinds)
      if (r.cell(k).state == CellState::killed) kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(k));
    std::string skipped;
    for (Kind k : kAllKinds)
      if (r.cell(k).state == CellState::skipped) skipped += (skipped.empty() ? "" : ", ") + std::string(to_string(k));
    rep.gaps.push_back(fmt::format("{}@{}: killed by {} kind(s) ({}){}", r.name, r.route, r.kill_count(),
                                   kinds.empty() ? "none" : kinds,
                                   skipped.empty() ? "" : "; skipped here: " + skipped));
  }
  rep.seconds = since(t0);
  return rep;
}

}  // namespace kvaddr::zoo
