// Path coverage of the wiring model (spec §4.15, §5.4, §5.7), its bug variants, the planted
// allocator bugs (G1, G2, E04, E08) and the bug catalogue (spec §6).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "kvaddr/model/catalogue.hpp"
#include "kvaddr/model/pool.hpp"
#include "kvaddr/model/wiring.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::InvalidState;

namespace {

std::vector<std::string> failing(WiringVariant v) {
  std::vector<std::string> out;
  for (const WiringFinding& f : check_wiring(v))
    if (!f.ok) out.emplace_back(f.config);
  return out;
}

const WiringConfig& config(std::string_view name) {
  for (const WiringConfig& c : wiring_configs())
    if (c.name == name) return c;
  throw std::runtime_error("no configuration " + std::string(name));
}

const WiringHop* hop(const std::vector<WiringHop>& hops, IdUse use) {
  for (const WiringHop& h : hops)
    if (h.use == use) return &h;
  return nullptr;
}

}  // namespace

// ---- wiring ---------------------------------------------------------------------------------------
TEST(WiringPaths, ProductionEveryConfigurationReachesATranslatingRoute) {
  const auto findings = check_wiring(WiringVariant::production);
  ASSERT_EQ(findings.size(), wiring_configs().size());
  for (const WiringFinding& f : findings) {
    EXPECT_TRUE(f.starts) << f.config;
    EXPECT_TRUE(f.ok) << f.config << ": " << f.detail;
    EXPECT_FALSE(f.hops.empty()) << f.config;
    for (const WiringHop& h : f.hops) EXPECT_TRUE(h.applied) << f.config << " " << to_string(h.use);
  }
}

TEST(WiringPaths, EachVariantBreaksExactlyTheConfigurationThatExposedIt) {
  for (WiringVariant v : all_wiring_variants()) {
    if (v == WiringVariant::production) continue;
    const std::string exposing(exposing_config(v));
    ASSERT_FALSE(exposing.empty()) << to_string(v);
    EXPECT_EQ(failing(v), std::vector<std::string>{exposing}) << to_string(v);
  }
}

TEST(WiringPaths, B01DefaultHopperConfigurationFailsAtStartup) {
  const WiringConfig& c = config("kimi_linear_hopper_default");
  EXPECT_EQ(c.backend, Backend::fa3);
  EXPECT_TRUE(c.backend_by_default);
  EXPECT_EQ(c.kind, AttentionKind::mla);
  const WiringFinding f = check_config(c, WiringVariant::b01_fa3_not_allowlisted);
  EXPECT_FALSE(f.starts);
  EXPECT_TRUE(f.hops.empty());
  EXPECT_NE(f.detail.find("fa3"), std::string::npos) << f.detail;
  // Production: fa3 decode goes through the Era B metadata remap, eager prefill through the funnel.
  const auto hops = resolve_hops(c);
  EXPECT_EQ(hop(hops, IdUse::decode_read)->route, "decode_metadata");
  EXPECT_EQ(hop(hops, IdUse::prefill_read)->route, "eager_funnel");
  EXPECT_EQ(hop(hops, IdUse::mamba_state)->route, "mamba_translate");
}

TEST(WiringPaths, B03AndB07SingleLayerRank) {
  const WiringConfig& c = config("mla_pp_single_layer_rank");
  EXPECT_EQ(c.multiplier, 1);
  EXPECT_EQ(c.kind, AttentionKind::mla);
  const auto b03 = resolve_hops(c, WiringVariant::b03_detect_multiplier);
  EXPECT_EQ(*hop(b03, IdUse::kv_write), (WiringHop{IdUse::kv_write, "write_loc", false}));
  EXPECT_EQ(*hop(b03, IdUse::decode_read), (WiringHop{IdUse::decode_read, "flashmla_block_table", false}));
  EXPECT_TRUE(hop(b03, IdUse::page_handout)->applied);
  const auto b07 = resolve_hops(c, WiringVariant::b07_zero_predicate_multiplier);
  EXPECT_EQ(*hop(b07, IdUse::page_handout), (WiringHop{IdUse::page_handout, "page_lifecycle", false}));
  EXPECT_TRUE(hop(b07, IdUse::decode_read)->applied);
}

TEST(WiringPaths, B04B13B14B15B16HopsOfTheExposingConfigurations) {
  const auto b04 = resolve_hops(config("dense_swa_fa3_full_prefill_graph"), WiringVariant::b04_prefill_graph_no_remap);
  EXPECT_EQ(*hop(b04, IdUse::prefill_graph_read), (WiringHop{IdUse::prefill_graph_read, "full_prefill_table", false}));
  EXPECT_EQ(hop(b04, IdUse::swa_read)->route, "swa_translate");
  const auto b13 = resolve_hops(config("kimi_linear_tp2_flashinfer_wrapper"), WiringVariant::b13_wrapper_drops_translator);
  EXPECT_EQ(*hop(b13, IdUse::prefill_read), (WiringHop{IdUse::prefill_read, "kv_indices_inplace", false}));
  const auto b14 = resolve_hops(config("mla_dcp2_eager"), WiringVariant::b14_dcp_half_translated);
  EXPECT_EQ(*hop(b14, IdUse::dcp_read), (WiringHop{IdUse::dcp_read, "dcp_read_translate", false}));
  // Under graphs B14's graph buffer was translated (incidentally): the capture config survives B14.
  EXPECT_TRUE(hop(resolve_hops(config("mla_dcp2_graph_capture"), WiringVariant::b14_dcp_half_translated),
                  IdUse::dcp_read)->applied);
  const auto b15 = resolve_hops(config("mla_dcp2_graph_capture"), WiringVariant::b15_capture_none_write_loc);
  EXPECT_EQ(*hop(b15, IdUse::capture_write), (WiringHop{IdUse::capture_write, "write_loc", false}));
  const auto b16 = resolve_hops(config("mla_pd_disaggregated"), WiringVariant::b16_pd_virtual_ids);
  EXPECT_EQ(*hop(b16, IdUse::pd_transfer), (WiringHop{IdUse::pd_transfer, "transfer_ids", false}));
}

TEST(WiringPaths, ThreeWayGate) {
  for (Backend b : {Backend::triton, Backend::fa3, Backend::trtllm_mla, Backend::flashinfer, Backend::cutedsl_mla,
                    Backend::tokenspeed_mla, Backend::flashmla})
    EXPECT_TRUE(backend_allowed_three_way(b, AttentionKind::mla, true)) << to_string(b);
  for (Backend b : {Backend::triton, Backend::fa3, Backend::fa4, Backend::flashinfer, Backend::trtllm_mha})
    EXPECT_TRUE(backend_allowed_three_way(b, AttentionKind::dense_mha, true)) << to_string(b);
  EXPECT_FALSE(backend_allowed_three_way(Backend::trtllm_mla, AttentionKind::dense_mha, true));
  EXPECT_FALSE(backend_allowed_three_way(Backend::fa3, AttentionKind::strided_mha, true));
  EXPECT_TRUE(backend_allowed_three_way(Backend::triton, AttentionKind::strided_mha, true));
  EXPECT_FALSE(backend_allowed_three_way(Backend::aiter, AttentionKind::mla, true));
  EXPECT_TRUE(backend_allowed_three_way(Backend::aiter, AttentionKind::mla, false));
}

TEST(WiringPaths, Names) {
  EXPECT_EQ(all_wiring_variants().size(), 9u);
  for (WiringVariant v : all_wiring_variants()) EXPECT_EQ(wiring_variant_from_string(to_string(v)), v);
  EXPECT_FALSE(wiring_variant_from_string("nope").has_value());
  EXPECT_EQ(exposing_config(WiringVariant::production), "");
  std::set<std::string_view> names;
  for (const WiringConfig& c : wiring_configs()) EXPECT_TRUE(names.insert(c.name).second) << c.name;
  for (WiringVariant v : all_wiring_variants()) {
    if (v != WiringVariant::production) {
      EXPECT_TRUE(names.count(exposing_config(v))) << to_string(v);
    }
  }
}

// ---- planted allocator bugs ---------------------------------------------------------------------------
namespace {
const Geometry kPs1(1, 1, 8, 1, 1, 8);
}

TEST(PoolBugs, G1DoubleFreeRecyclesTheIdTwice) {
  SubPoolOptions o;
  o.num_virtual_ids = 4;  // free virtual ids 1, 2, 3
  SubPool prod(kPs1, o), bug(kPs1, o);
  bug.plant(PoolBug::double_free_unchecked);
  for (SubPool* p : {&prod, &bug}) {
    EXPECT_EQ(p->alloc_pages(1), std::vector<VirtualPage>{VirtualPage(1)});
    p->free_eager(std::vector<VirtualPage>{VirtualPage(1)});
  }
  EXPECT_KVADDR_ERROR(prod.free_eager(std::vector<VirtualPage>{VirtualPage(1)}), InvalidState, "virtual_pages");
  bug.free_eager(std::vector<VirtualPage>{VirtualPage(1)});  // assert dropped: id 1 recycled again
  EXPECT_EQ(bug.alloc_pages(2), (std::vector<VirtualPage>{VirtualPage(2), VirtualPage(3)}));
  EXPECT_EQ(bug.alloc_pages(1), std::vector<VirtualPage>{VirtualPage(1)});  // request A -> P3
  EXPECT_EQ(bug.alloc_pages(1), std::vector<VirtualPage>{VirtualPage(1)});  // request B gets the same id -> P4
  EXPECT_EQ(bug.v2p()[1], 4);
  EXPECT_EQ(bug.p2v()[3], 1);  // P3 still claims v1: the bijection (a) is broken
  const auto violations = bug.check_invariants();
  EXPECT_TRUE(std::any_of(violations.begin(), violations.end(), [](const auto& x) { return x.invariant == 'a'; }));
}

TEST(PoolBugs, G2DuplicateIdsHoleThePageTwiceAndBreakCompaction) {
  SubPool prod(kPs1), bug(kPs1);
  bug.plant(PoolBug::duplicate_free_ids);
  for (SubPool* p : {&prod, &bug}) (void)p->alloc_pages(3);  // v1..v3 -> P1..P3
  const std::vector<VirtualPage> dup{VirtualPage(1), VirtualPage(1)};
  EXPECT_KVADDR_ERROR(prod.free_lazy(dup), InvalidState, "virtual_pages");
  bug.free_lazy(dup);
  EXPECT_EQ(bug.lazy_holes(), (std::vector<PhysicalPage>{PhysicalPage(1), PhysicalPage(1)}));
  // The watermark retreats by 2 for one freed page; both survivors P2, P3 are sent to hole P1.
  EXPECT_KVADDR_ERROR(bug.flush(), InvalidState, "dst");
}

TEST(PoolBugs, E04AliasBindSharesOnePhysicalPage) {
  const Geometry g(2, 1, 8, 1, 1, 8);
  SubPool prod(g), bug(g);
  bug.plant(PoolBug::e04_alias_bind);
  for (SubPool* p : {&prod, &bug}) {
    (void)p->alloc(2);  // v1, v2
    p->write(0, VirtualToken(2), 11);  // v1 offset 0
    p->write(0, VirtualToken(4), 22);  // v2 offset 0
  }
  EXPECT_EQ(prod.read_virtual(0, VirtualToken(2)), 11u);
  EXPECT_TRUE(prod.check_invariants().empty());
  EXPECT_EQ(bug.to_physical(VirtualToken(2)).value, bug.to_physical(VirtualToken(4)).value);  // both P1
  EXPECT_EQ(bug.read_virtual(0, VirtualToken(2)), 22u);  // v1's data overwritten through the alias
  const auto violations = bug.check_invariants();
  EXPECT_TRUE(std::any_of(violations.begin(), violations.end(), [](const auto& x) { return x.invariant == 'a'; }));
}

TEST(PoolBugs, E08SinkPageHandedToALiveRequest) {
  SubPool prod(kPs1), bug(kPs1, e08_sink_handed_out());
  EXPECT_EQ(bug.options().min_page_index, 0);
  EXPECT_FALSE(bug.options().table.v2p0_pinned);
  EXPECT_EQ(prod.alloc(1).front().value, 1);
  EXPECT_EQ(bug.alloc(1).front().value, 0);  // virtual page 0 -> physical page 0, the sink
  EXPECT_EQ(bug.to_physical(VirtualToken(0)).value, 0);
  bug.write(0, VirtualToken(0), 99);
  EXPECT_EQ(bug.read_physical(0, kvaddr::model::PhysicalToken(0)), 99u);  // padding lanes read live data
  bug.free_eager(std::vector<VirtualPage>{VirtualPage(0)});
  const auto violations = bug.check_invariants();
  EXPECT_TRUE(std::any_of(violations.begin(), violations.end(), [](const auto& x) { return x.invariant == 'b'; }));
}

// ---- catalogue --------------------------------------------------------------------------------------
TEST(BugCatalogue, EveryBugOfSection6IsListedOnce) {
  std::set<std::string_view> ids;
  for (const CatalogueEntry& e : bug_catalogue()) {
    EXPECT_TRUE(ids.insert(e.id).second) << e.id;
    EXPECT_FALSE(e.title.empty()) << e.id;
    EXPECT_FALSE(e.routes.empty()) << e.id;
    EXPECT_FALSE(e.checks.empty()) << e.id;
    if (e.kind == PlantKind::not_modelled) {
      EXPECT_TRUE(e.planted_by.empty()) << e.id;
      EXPECT_FALSE(e.note.empty()) << e.id << ": not modelled needs a reason";
    } else {
      EXPECT_FALSE(e.planted_by.empty()) << e.id;
    }
    if (e.kind == PlantKind::shares) {
      EXPECT_NE(find_bug(e.planted_by), nullptr) << e.id;
    }
    if (e.kind == PlantKind::wiring_variant) {
      EXPECT_TRUE(wiring_variant_from_string(e.planted_by)) << e.id;
    }
  }
  for (int i = 1; i <= 18; ++i) EXPECT_TRUE(ids.count((i < 10 ? "B0" : "B") + std::to_string(i))) << i;
  for (int i = 1; i <= 11; ++i) EXPECT_TRUE(ids.count((i < 10 ? "E0" : "E") + std::to_string(i))) << i;
  EXPECT_EQ(bug_catalogue().size(), 31u);  // B01-B18, G1-G2, E01-E11
  EXPECT_EQ(find_bug("nope"), nullptr);
  // Every wiring variant is referenced by the catalogue.
  for (WiringVariant v : all_wiring_variants()) {
    if (v == WiringVariant::production) continue;
    bool named = false;
    for (const CatalogueEntry& e : bug_catalogue()) named = named || e.planted_by.find(to_string(v)) != std::string_view::npos;
    EXPECT_TRUE(named) << to_string(v);
  }
}
