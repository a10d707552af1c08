// The mutation campaign: mutants of translate/'s host route arithmetic through the hooks of
// translate/src/checked.hpp, each run against the verify grid and the properties of its route.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ostream>

#include "checked.hpp"
#include "kvaddr/translate/validate.hpp"
#include "kvaddr/zoo/grid.hpp"
#include "kvaddr/zoo/zoo.hpp"
#if defined(KVADDR_ZOO_WITH_PROPS)
#include "kvaddr/props/props.hpp"
#endif

namespace kvaddr::zoo {
namespace {

namespace mut = translate::detail::mutation;
using Clock = std::chrono::steady_clock;

struct UnitDef {
  int unit;
  std::string_view name;
  Route grid_route;  // the grid case that runs this unit
  std::vector<std::string_view> properties;
};

const std::vector<UnitDef>& units() {
  static const std::vector<UnitDef> u = {
      {mut::unit_of(Route::token_translate), "token_translate", Route::token_translate,
       {"token_translate_vs_model", "token_vs_page_entry", "write_loc_vs_token_translate", "int32_no_silent_wrap", "stateful_pool"}},
      {mut::unit_of(Route::flashmla_block_table), "flashmla_block_table", Route::flashmla_block_table,
       {"flashmla_block_table_vs_model", "token_vs_page_entry", "decode_vs_canonical_vs_flashmla", "kv_indices_vs_block_table", "int32_no_silent_wrap"}},
      {mut::unit_of(Route::canonical_page_table), "canonical_page_table", Route::canonical_page_table,
       {"canonical_page_table_vs_model", "token_vs_page_entry", "decode_vs_canonical_vs_flashmla", "eager_funnel_vs_canonical", "int32_no_silent_wrap"}},
      {mut::unit_of(Route::read_table), "read_table", Route::read_table,
       {"read_table_vs_model", "token_vs_page_entry", "decode_vs_canonical_vs_flashmla", "read_stream_vs_table", "int32_no_silent_wrap"}},
      {mut::kUnitReadStream, "read_table.stream", Route::read_table, {"read_stream_vs_model", "read_stream_vs_table", "int32_no_silent_wrap"}},
      {mut::unit_of(Route::decode_metadata), "decode_metadata", Route::decode_metadata,
       {"decode_metadata_vs_model", "decode_vs_canonical_vs_flashmla", "int32_no_silent_wrap"}},
      {mut::unit_of(Route::eager_funnel), "eager_funnel", Route::eager_funnel, {"eager_funnel_vs_model", "eager_funnel_vs_canonical"}},
      {mut::unit_of(Route::kv_indices_inplace), "kv_indices_inplace", Route::kv_indices_inplace,
       {"kv_indices_inplace_vs_model", "kv_indices_vs_block_table", "int32_no_silent_wrap"}},
      {mut::unit_of(Route::write_loc), "write_loc", Route::write_loc, {"write_loc_vs_model", "write_loc_vs_token_translate"}},
      {mut::unit_of(Route::swa_translate), "swa_translate", Route::swa_translate, {"swa_translate_vs_model", "stateful_pool", "int32_no_silent_wrap"}},
      {mut::unit_of(Route::mamba_translate), "mamba_translate", Route::mamba_translate, {"mamba_translate_vs_model", "stateful_pool", "int32_no_silent_wrap"}},
      {mut::unit_of(Route::full_prefill_table), "full_prefill_table", Route::full_prefill_table, {"full_prefill_table_vs_model", "stateful_pool"}},
      {mut::unit_of(Route::dcp_read_translate), "dcp_read_translate", Route::dcp_read_translate, {"dcp_read_translate_vs_model", "stateful_pool"}},
      {mut::unit_of(Route::transfer_ids), "transfer_ids", Route::transfer_ids, {"transfer_ids_vs_model", "stateful_pool"}},
      {mut::kUnitEnvelopeMoves, "transfer_ids.envelope_moves", Route::transfer_ids, {"transfer_ids_vs_model", "stateful_pool"}},
  };
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
    default: break;
  }
  (void)site;
  return "no value changed";
}

}  // namespace

MutationReport run_mutants(const MutantOptions& o) {
  MutationReport rep;
  const auto t0 = Clock::now();
  auto& st = mut::tl_state;
  for (const auto& u : units()) {
    if (!o.units.empty() && std::find(o.units.begin(), o.units.end(), u.name) == o.units.end()) continue;
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
            m.equivalent = !m.killed && !infected;
            if (!m.killed) {
              m.reason = m.equivalent ? "equivalent on every generated input: the mutated operation never changed a "
                                        "value (" + survivor_reason(u, site, op) + ")"
                                      : "unclassified: it changed an intermediate value, yet no output compared by the "
                                        "grid or a property differed (likely discarded by a later pick or clamp; "
                                        "not proved equivalent: counted as a survivor)";
            }
            ++score.mutants;
            score.killed += m.killed ? 1 : 0;
            score.equivalent += m.equivalent ? 1 : 0;
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
    rep.units.push_back(std::move(score));
  }
  rep.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return rep;
}

}  // namespace kvaddr::zoo
