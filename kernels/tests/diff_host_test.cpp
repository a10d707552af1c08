// The differential check's host side without a GPU (label diff): over many seeds, every generated
// case (edge classes included) runs the host route and agrees with the model; every edge class of
// kvaddr/gen/edges.hpp is drawn for every kernel whose contract admits it; the overflowing
// cu_seqlens_k class raises Overflow on the production route.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kvaddr/gen/edges.hpp"
#include "kvaddr/kernels/diff.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace {

using namespace kvaddr;
using i64 = std::int64_t;
using i32 = std::int32_t;

gpu::DiffOptions host_options(std::uint64_t seed, i64 cases) {
  gpu::DiffOptions o;
  o.seed = seed;
  o.cases = cases;
  o.max_case_lanes = 2048;
  o.host_only = true;
  return o;
}

TEST(DiffHost, ManySeedsAgreeWithTheModel) {
  i64 cases = 0, model_lanes = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    for (bool production_only : {false, true}) {
      gpu::DiffOptions o = host_options(seed, 250);
      o.production_only = production_only;
      const gpu::DiffReport r = gpu::run_differential(o);
      ASSERT_TRUE(r.ok()) << gpu::to_text(r);
      cases += r.cases_run;
      model_lanes += r.model_lanes_compared;
    }
  }
  EXPECT_EQ(cases, 12 * 2 * 250);
  EXPECT_GT(model_lanes, 1'000'000);
}

TEST(DiffHost, ReportsAreDeterministic) {
  const auto a = gpu::run_differential(host_options(5, 120));
  const auto b = gpu::run_differential(host_options(5, 120));
  EXPECT_EQ(gpu::to_json(a), gpu::to_json(b));
}

// Every class, for every kernel whose contract admits it, is drawn at least `kMin` times in
// `kCases` cases of that kernel (the counts are printed).
constexpr i64 kCases = 400;
constexpr i64 kMin = 3;
const std::map<gpu::DiffKernel, std::vector<std::string>>& expected_classes() {
  using K = gpu::DiffKernel;
  static const std::vector<std::string> ps = {"non_pow2_ps", "odd_ps"};
  const auto with = [](std::vector<std::string> a, std::vector<std::string> b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const std::vector<std::string> alias = {"alias_admitted", "alias_rejected"};
  const std::vector<std::string> tables = {"strided_out", "strided_in", "parent_v2p", "padding_before_table"};
  const std::vector<std::string> wide = {"wide_entries_wrap", "wide_entries_overflow"};
  static const std::map<K, std::vector<std::string>> m = {
      {K::token_translate_i64, with(with(ps, alias), {"values_past_2^31"})},
      {K::token_translate_i32, with(ps, wide)},
      {K::swa_translate_i64, with(with(ps, alias), {"values_past_2^31"})},
      {K::swa_translate_i32, ps},
      {K::flashmla_block_table, with(with(ps, tables), wide)},
      {K::canonical_page_table, with(with(with(ps, tables), wide), {"grid_spill"})},
      {K::full_prefill_table, with(ps, tables)},
      {K::read_table, with(with(with(ps, tables), wide), {"grid_spill"})},
      {K::read_stream, with(ps, {"strided_in"})},
      {K::decode_metadata, with(with(tables, wide), {"batch_over_128_rows", "overflow_lens", "overflow_lens_wrap"})},
      {K::eager_funnel, with(ps, {"strided_out", "strided_in", "alias_admitted"})},
      {K::kv_indices_inplace, with(ps, {"alias_admitted"})},
      {K::write_loc, with(with(ps, alias), {"values_past_2^31"})},
      {K::envelope_moves, ps},
  };
  // Every per-id kernel (kPerIdRoutes) draws the classes of its generic case: the page-size classes
  // where the route has a page size, aliasing and values past 2^31 where its output is int64 (mamba's
  // int32 output has neither).
  static const std::map<K, std::vector<std::string>> all = [&] {
    auto r = m;
    for (int k = gpu::kFirstPerIdKernel; k < gpu::kDiffKernelCount; ++k) {
      visit_route(gpu::route_of(static_cast<K>(k)), [&](auto spec) {
        using S = decltype(spec);
        if constexpr (uses_per_id_runner<S>) {
          using Out = std::remove_pointer_t<decltype(PerIdShape<S>::out(typename S::Args{}).data)>;
          std::vector<std::string> c = has_field<S>("page_size") ? ps : std::vector<std::string>{};
          if (std::is_same_v<Out, i64>) c = with(with(c, alias), {"values_past_2^31"});
          r[static_cast<K>(k)] = c;
        }
      });
    }
    return r;
  }();
  return all;
}

TEST(DiffHost, EveryEdgeClassIsDrawnForEveryAdmittingKernel) {
  ASSERT_EQ(expected_classes().size(), static_cast<std::size_t>(gpu::kDiffKernelCount));
  for (int k = 0; k < gpu::kDiffKernelCount; ++k) {
    const auto kernel = static_cast<gpu::DiffKernel>(k);
    gpu::DiffOptions o = host_options(1000 + static_cast<std::uint64_t>(k), kCases);
    o.only = kernel;
    const gpu::DiffReport r = gpu::run_differential(o);
    ASSERT_TRUE(r.ok()) << gpu::to_text(r);
    const auto& got = r.per_kernel[static_cast<std::size_t>(k)];
    ASSERT_EQ(got.cases, kCases);
    std::string line;
    for (const auto& [cls, n] : got.edge_classes) line += " " + cls + "=" + std::to_string(n);
    std::printf("%s:%s\n", std::string(gpu::to_string(kernel)).c_str(), line.c_str());
    for (const auto& cls : expected_classes().at(kernel)) {
      const auto it = got.edge_classes.find(cls);
      const i64 n = it == got.edge_classes.end() ? 0 : it->second;
      EXPECT_GE(n, kMin) << gpu::to_string(kernel) << ": class " << cls << " drawn " << n << " times in " << kCases;
    }
    // And no class a kernel's contract does not admit (e.g. grid_spill outside the two table routes).
    const auto& want = expected_classes().at(kernel);
    for (const auto& [cls, n] : got.edge_classes)
      EXPECT_NE(std::find(want.begin(), want.end(), cls), want.end()) << gpu::to_string(kernel) << " drew " << cls;
  }
}

TEST(DiffHost, EdgeClassesOffDrawNone) {
  gpu::DiffOptions o = host_options(3, 300);
  o.edge_classes = false;
  const gpu::DiffReport r = gpu::run_differential(o);
  ASSERT_TRUE(r.ok()) << gpu::to_text(r);
  // Classes that the base draws reach by themselves (page sizes, offset pools, eager's aliasing).
  const std::set<std::string> structural = {"non_pow2_ps", "odd_ps", "values_past_2^31", "alias_admitted"};
  for (const auto& k : r.per_kernel)
    for (const auto& [cls, n] : k.edge_classes) EXPECT_TRUE(structural.count(cls)) << cls << " drawn with edge classes off";
}

// The edge behaviours of the upstream kernels, forced (the bug zoo's kill runs): the generator
// reaches the cases where they differ from production, and the host route running them disagrees
// with the model (or raises), never merely with itself.
TEST(DiffHost, ForcedEdgeVariantsAreKilled) {
  const std::pair<Variant, Route> cells[] = {
      {Variant::grid_spill, Route::canonical_page_table},    {Variant::grid_spill, Route::read_table},
      {with_column_block(Variant::grid_spill, 4), Route::read_table},
      {Variant::int32_wrap, Route::canonical_page_table},    {Variant::int32_wrap, Route::read_table},
      {Variant::int32_wrap, Route::flashmla_block_table},    {Variant::int32_wrap, Route::decode_metadata},
      {Variant::int32_wrap, Route::token_translate},
  };
  for (const auto& [v, route] : cells) {
    gpu::DiffOptions o = host_options(1, 200);
    o.max_case_lanes = 4096;
    o.force_variant = v;
    o.force_route = route;
    const auto r = gpu::run_differential(o);
    ASSERT_TRUE(r.first_mismatch.has_value()) << to_string(v) << " on " << to_string(route) << " survived";
    EXPECT_EQ(r.first_mismatch->against, "model") << gpu::to_text(r);
    std::printf("%s (G %d) on %s: killed in case %lld by %s\n", std::string(to_string(v)).c_str(), v.column_block,
                std::string(to_string(route)).c_str(), static_cast<long long>(r.first_mismatch->case_index),
                std::string(gpu::to_string(r.first_mismatch->kernel)).c_str());
  }
}

// int32_lane_offsets forced (issue 33): every case of token_translate and write_loc runs it (the report
// says so: no case ran production in its place) and agrees with the model, since it equals production
// on every launch below 2^31 lanes (the kill matrix kills it by the proofs and the property
// launch_lanes_in_place).
TEST(DiffHost, ForcedInt32LaneOffsetsRunsAndAgreesBelow2To31) {
  for (const Route route : {Route::token_translate, Route::write_loc}) {
    gpu::DiffOptions o = host_options(1, 100);
    o.force_variant = Variant::int32_lane_offsets;
    o.force_route = route;
    const auto r = gpu::run_differential(o);
    EXPECT_TRUE(r.ok()) << to_string(route) << ": " << gpu::to_text(r);
    EXPECT_EQ(r.cases_run, 100) << to_string(route);
    const std::map<std::string, i64> want = {{"int32_lane_offsets", 100}};
    EXPECT_EQ(gpu::variants_run(r), want) << to_string(route) << ": " << gpu::to_text(r);
  }
}

// Every variant a route can be claimed with (the lists behind kvaddr._core.variants(route): the catalogue,
// edge and inferred behaviours and the named composites), forced on that route, runs in every case (the
// report names it as the variant of each case, never production in its place); forced on a route that
// does not accept it, it is InvalidArgument naming force_variant and the variant, before any case runs.
TEST(DiffHost, EveryClaimableVariantForcedRunsAsItselfOrIsRejected) {
  std::vector<Variant> all(std::begin(kAllVariants), std::end(kAllVariants));
  all.insert(all.end(), std::begin(kEdgeVariants), std::end(kEdgeVariants));
  all.insert(all.end(), std::begin(kInferredVariants), std::end(kInferredVariants));
  for (const NamedComposite& nc : kNamedComposites) all.push_back(nc.variant);
  int ran = 0, rejected = 0;
  for (const Route route : kAllRoutes) {
    for (const Variant v : all) {
      gpu::DiffOptions o = host_options(3, 12);
      o.force_variant = v;
      o.force_route = route;
      const std::string name(to_string(v, route));
      if (!route_accepts(route, v) || v == Variant::production) {
        if (v == Variant::production) continue;  // production is every route's; run by every other test
        try {
          (void)gpu::run_differential(o);
          ADD_FAILURE() << name << " forced on " << to_string(route) << " (not accepted) ran";
        } catch (const InvalidArgument& e) {
          EXPECT_EQ(e.argument(), "force_variant") << e.what();
          EXPECT_EQ(e.value(), std::string(to_string(v))) << e.what();
          ++rejected;
        }
        continue;
      }
      const auto r = gpu::run_differential(o);
      ASSERT_GE(r.cases_run, 1) << name << " on " << to_string(route);
      const std::map<std::string, i64> want = {{name, r.cases_run}};
      EXPECT_EQ(gpu::variants_run(r), want) << name << " forced on " << to_string(route) << ": " << gpu::to_text(r);
      for (const auto& k : r.per_kernel) {
        if (k.cases) {
          EXPECT_TRUE(gpu::kernel_carries(k.kernel, v)) << gpu::to_string(k.kernel) << " ran " << name;
        }
      }
      ++ran;
    }
  }
  std::printf("forced variants: %d (route, variant) pairs ran as themselves, %d rejected\n", ran, rejected);
  EXPECT_GE(ran, 40);
}

// A differential kernel that does not carry the forced variant is rejected by name (read_stream runs
// production only), and without a route the report counts the cases that ran production.
TEST(DiffHost, ForcedVariantOnAKernelThatCannotRunItIsRejectedOrCounted) {
  gpu::DiffOptions o = host_options(1, 4);
  o.force_variant = Variant::e10_batch_index_rows;
  o.only = gpu::DiffKernel::read_stream;
  try {
    (void)gpu::run_differential(o);
    ADD_FAILURE() << "read_stream accepted a forced e10_batch_index_rows";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "force_variant");
    EXPECT_EQ(e.value(), "e10_batch_index_rows");
  }
  o.only = gpu::DiffKernel::read_table;  // the other kernel of the route runs it (and is killed)
  const auto killed = gpu::run_differential(o);
  EXPECT_EQ(gpu::variants_run(killed), (std::map<std::string, i64>{{"e10_batch_index_rows", killed.cases_run}}));
  // No route: int32_lane_offsets (equal to production on these launches) on the kernels that carry it,
  // production on the others, each case counted under the variant it ran.
  o.only.reset();
  o.force_variant = Variant::int32_lane_offsets;
  o.cases = 60;
  const auto r = gpu::run_differential(o);
  ASSERT_TRUE(r.ok()) << gpu::to_text(r);
  const auto v = gpu::variants_run(r);
  i64 forced = 0, production = 0;
  for (const auto& k : r.per_kernel) {
    if (!k.cases) continue;
    const auto& counts = k.variants;
    const i64 n = counts.count("int32_lane_offsets") ? counts.at("int32_lane_offsets") : 0;
    EXPECT_EQ(n, gpu::kernel_carries(k.kernel, o.force_variant.value()) ? k.cases : 0) << gpu::to_string(k.kernel);
    forced += n;
    production += counts.count("production") ? counts.at("production") : 0;
  }
  EXPECT_EQ(forced + production, r.cases_run);
  EXPECT_GT(forced, 0);
  EXPECT_GT(production, 0);
  EXPECT_EQ(v.size(), 2u);
}

// cu_seqlens_k of decode_metadata: the production route raises Overflow naming it when the int32
// prefix sum passes 2^31 - 1, and writes nothing; at exactly 2^31 - 1 it does not.
void decode_prefix_sums(const std::vector<i64>& lens, i64 delta, bool want_overflow) {
  std::vector<i32> cache(lens.size(), 7), cu(lens.size() + 1, 9);
  const auto cache0 = cache, cu0 = cu;
  DecodeMetadataArgs a;
  a.seq_lens = cvec(lens);
  a.seq_len_delta = delta;
  a.page_size = 1;
  a.skip_page_table = true;
  a.cache_seqlens = mvec(cache);
  a.cu_seqlens_k = mvec(cu);
  if (!want_overflow) {
    translate::decode_metadata(a);
    i64 total = 0;
    EXPECT_EQ(cu[0], 0);
    for (std::size_t b = 0; b < lens.size(); ++b) {
      total += lens[b] + delta;
      EXPECT_EQ(cache[b], lens[b] + delta);
      EXPECT_EQ(cu[b + 1], total);
    }
    return;
  }
  try {
    translate::decode_metadata(a);
    ADD_FAILURE() << "no Overflow";
  } catch (const Overflow& e) {
    EXPECT_NE(std::string(e.what()).find("cu_seqlens_k"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cache, cache0);
  EXPECT_EQ(cu, cu0);
}

TEST(DiffHost, OverflowingPrefixSumRaisesOverflow) {
  const i64 max = std::numeric_limits<i32>::max();
  decode_prefix_sums({i64(1) << 30, (i64(1) << 30) - 1}, 0, false);  // sum 2^31 - 1: fits
  decode_prefix_sums({i64(1) << 30, i64(1) << 30}, 0, true);         // sum 2^31: Overflow
  decode_prefix_sums({max - 4, 0}, 2, false);                        // (max - 2) + 2 = 2^31 - 1: fits
  decode_prefix_sums({max - 4, 1}, 2, true);                         // (max - 2) + 3: one past
  gen::SplitMix64 r(17);
  for (int i = 0; i < 40; ++i) {
    const i64 B = r.uniform(2, 200), delta = r.uniform(0, 8);
    decode_prefix_sums(gen::overflowing_lens(r, B, delta), delta, true);
  }
}

}  // namespace
