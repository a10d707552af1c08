// Proof vacuity (issue 13): every obligation expected "proved" must be refuted by at least one
// deliberately wrong version of the lane code it names. A wrong version is a mutant of sym.hpp
// (the k-th table gather dropped or shifted, a pick inverted, a quotient off by one, a dropped
// remainder or multiplier, ...). A refutation needs a model of the preconditions in which the
// conclusion fails, so it also shows the preconditions are satisfiable and the conclusion depends
// on the mutated computation. Obligations expected "refuted" are bug variants: their wrong
// version is the variant itself, and their production twin is among the proved ones.
//
// kRefuting holds one refuting mutant per proved obligation, found by the search below
// (DISABLED_SearchRefutingMutants; run it with --gtest_also_run_disabled_tests after adding an
// obligation). A new proved obligation without an entry fails EveryProvedObligationHasAMutant; the
// per-id routes' route.<r>.spec_lane obligations share one entry (kSpecLane).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"  // proofs/src: i2_phi_of
#include "kvaddr/model/errors.hpp"
#include "kvaddr/proofs/registry.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "sym.hpp"

namespace {

using kvaddr::proofs::Verdict;
namespace mut = kvaddr::proofs::sym::mutation;
using mut::Op;

struct Entry {
  const char* name;
  Op op;
  int k;
  const char* twin;  // op == Op::none: the refuted obligation that is this one's wrong version
};

// clang-format off
const std::vector<Entry> kRefuting = {
#include "vacuity_table.inc"
};
// clang-format on

std::vector<std::string> proved_names() {
  std::vector<std::string> v;
  for (const auto& o : kvaddr::proofs::obligations())
    if (o.expected == Verdict::proved) v.push_back(o.name);
  return v;
}

// route.<r>.spec_lane (proofs/src/per_id.cpp: every route opened with KVADDR_PER_ID_ROUTE_SPEC, a route
// added to the list included): the table gather dropped, which moves the page index past the physical
// pages (NV > N) and the lane past N*S.
constexpr Entry kSpecLane = {"route.*.spec_lane", Op::gather_index, 0, nullptr};

bool is_spec_lane(const std::string& name) {
  const std::string suffix = ".spec_lane";
  return name.rfind("route.", 0) == 0 && name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const Entry* entry_of(const std::string& name) {
  for (const auto& e : kRefuting)
    if (name == e.name) return &e;
  return is_spec_lane(name) ? &kSpecLane : nullptr;
}

std::string vacuity_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class Vacuity : public ::testing::TestWithParam<std::string> {};

// The recorded mutant refutes the obligation (and without it the obligation is proved: the
// registry test checks that).
TEST_P(Vacuity, RefutedByAWrongVersion) {
  const Entry* e = entry_of(GetParam());
  ASSERT_NE(e, nullptr) << GetParam() << " has no refuting mutant in vacuity_table.inc";
  if (e->op == Op::none) {
    ASSERT_NE(e->twin, nullptr) << GetParam();
    const auto r = kvaddr::proofs::run_one(e->twin);
    EXPECT_EQ(r.expected, Verdict::refuted) << e->twin;
    EXPECT_EQ(r.verdict, Verdict::refuted) << e->twin << ": " << r.counterexample;
    return;
  }
  // The k-th site of an operator is counted in evaluation order, and the order in which a compiler
  // evaluates function arguments is unspecified (g++ and clang differ), so the recorded k is tried
  // first and then every other site of the same operator: some wrong version of that operation must
  // refute the obligation.
  auto refuted_at = [&](int k) {
    const mut::Scope scope({e->op, k});
    return kvaddr::proofs::run_one(GetParam()).verdict == Verdict::refuted;
  };
  if (refuted_at(e->k)) return;
  int sites = 0;
  {
    const mut::Scope counting({Op::none, 0});
    (void)kvaddr::proofs::run_one(GetParam());
    sites = counting.count(e->op);
  }
  bool refuted = false;
  for (int k = 0; k < sites && !refuted; ++k) refuted = k != e->k && refuted_at(k);
  EXPECT_TRUE(refuted) << GetParam() << " is refuted by no site of " << mut::name(e->op) << " (" << sites
                       << " sites; recorded #" << e->k << ")";
}

INSTANTIATE_TEST_SUITE_P(Proofs, Vacuity, ::testing::ValuesIn(proved_names()), vacuity_test_name);

TEST(Vacuity, EveryProvedObligationHasAMutantAndNoEntryIsStale) {
  const auto names = proved_names();
  const std::set<std::string> proved(names.begin(), names.end());
  for (const auto& n : names) EXPECT_NE(entry_of(n), nullptr) << n;
  for (const auto& e : kRefuting) EXPECT_TRUE(proved.count(e.name)) << "stale entry " << e.name;
}

TEST(Vacuity, MutationsAreInertOutsideAScope) {
  const auto r = kvaddr::proofs::run_one("I2");
  EXPECT_EQ(r.verdict, Verdict::proved) << r.counterexample;
}

// I2's phi is evaluated beyond the sink: phi(x) = x*M, a dropped offset and a dropped quotient
// are each refuted; the lane's phi is proved.
TEST(Vacuity, I2RefutesWrongPhis) {
  using kvaddr::proofs::sym::Sym;
  const kvaddr::proofs::RunOptions o;
  auto verdict = [&](const kvaddr::proofs::PhiFn& phi) { return kvaddr::proofs::i2_phi_of(o, phi).verdict; };
  EXPECT_EQ(verdict([](const Sym& x, const Sym& ps, const Sym& s) { return kvaddr::lanes::phi_lane(x, ps, s); }),
            Verdict::proved);
  EXPECT_EQ(verdict([](const Sym& x, const Sym& ps, const Sym& s) { return x * kv_div(s, ps); }), Verdict::refuted);
  EXPECT_EQ(verdict([](const Sym& x, const Sym& ps, const Sym& s) { return kv_div(x, ps) * s; }), Verdict::refuted);
  EXPECT_EQ(verdict([](const Sym& x, const Sym& ps, const Sym&) { return kv_div(x, ps) * ps + kv_rem(x, ps); }),
            Verdict::refuted);
}

// dcp.collapse_lemma over the lanes' division is proved; a quotient by dcp_size + 1, a dropped
// remainder, a quotient off by one and a remainder of another divisor are each refuted.
TEST(Vacuity, DcpCollapseLemmaRefutesWrongDivisions) {
  using kvaddr::proofs::sym::Sym;
  const kvaddr::proofs::RunOptions o;
  auto verdict = [&](const kvaddr::proofs::DcpDivFn& div) { return kvaddr::proofs::dcp_collapse_lemma_of(o, div).verdict; };
  using P = std::pair<Sym, Sym>;
  EXPECT_EQ(verdict([](const Sym& a, const Sym& d) { return P(kv_div(a, d), kv_rem(a, d)); }), Verdict::proved);
  EXPECT_EQ(verdict([](const Sym& a, const Sym& d) { return P(kv_div(a, d + Sym(1)), kv_rem(a, d + Sym(1))); }),
            Verdict::refuted);
  EXPECT_EQ(verdict([](const Sym& a, const Sym& d) { return P(kv_div(a, d), Sym(0)); }), Verdict::refuted);
  EXPECT_EQ(verdict([](const Sym& a, const Sym& d) { return P(kv_div(a, d) + Sym(1), kv_rem(a, d)); }),
            Verdict::refuted);
  EXPECT_EQ(verdict([](const Sym& a, const Sym& d) { return P(kv_div(a, d), kv_rem(a, d + Sym(1))); }),
            Verdict::refuted);
}

// The all-dcp_size route obligations constrain the lanes' collapse: with the lane's first
// w / dcp_size off by one, its padding pick inverted, or write_loc's ownership remainder
// loc % dcp_size dropped, each is refuted (k = 0 is the lane's own site: the lane runs before the
// reference computations of the query).
TEST(Vacuity, AllDcpSizeRoutesRefuteWrongCollapses) {
  auto verdict = [](const char* name, Op op) {
    const mut::Scope scope({op, 0});
    const auto r = kvaddr::proofs::run_one(name);
    return r.verdict;
  };
  for (const char* n : {"route.dcp_read_translate.all_dcp_sizes", "route.write_loc.all_dcp_sizes",
                        "Q2.unpinned.write_loc.all_dcp_sizes"}) {
    EXPECT_EQ(kvaddr::proofs::run_one(n).verdict, Verdict::proved) << n;
    EXPECT_EQ(verdict(n, Op::div_plus1), Verdict::refuted) << n << " with w / dcp_size + 1";
    EXPECT_EQ(verdict(n, Op::pick_negate), Verdict::refuted) << n << " with the padding / ownership pick inverted";
  }
  for (const char* n : {"route.write_loc.all_dcp_sizes", "Q2.unpinned.write_loc.all_dcp_sizes"})
    EXPECT_EQ(verdict(n, Op::rem_zero), Verdict::refuted) << n << " with loc % dcp_size dropped";
}

// The tail rules of the route specs (route.read_table.tail, route.write_loc.tail) are proved with
// the specs' functions and refuted with wrong ones: a non-zero fill, the zero_tail flag ignored, a
// tail written without zero_tail, a tail one column short; write_loc's tail kept or filled with -1.
TEST(Vacuity, TailRulesRefuteWrongVersions) {
  using kvaddr::Variant;
  using kvaddr::proofs::ReadTableTailRule;
  using kvaddr::proofs::WriteLocTailRule;
  using kvaddr::proofs::sym::Sym;
  const kvaddr::proofs::RunOptions o;
  const ReadTableTailRule spec = kvaddr::proofs::read_table_tail_rule();
  auto table = [&](ReadTableTailRule rule) {
    return kvaddr::proofs::read_table_tail_of(o, Variant::production, rule).verdict;
  };
  EXPECT_EQ(table(spec), Verdict::proved);
  EXPECT_EQ(table({[](Variant) { return Sym(1); }, spec.written}), Verdict::refuted) << "fill 1";
  EXPECT_EQ(table({[](Variant) { return Sym(-1); }, spec.written}), Verdict::refuted) << "fill -1";
  EXPECT_EQ(table({spec.fill, [](const Sym& live, const Sym&, bool) { return live; }}), Verdict::refuted)
      << "zero_tail ignored";
  EXPECT_EQ(table({spec.fill, [&](const Sym& live, const Sym& max_pages, bool) { return spec.written(live, max_pages, true); }}),
            Verdict::refuted)
      << "tail written without zero_tail";
  EXPECT_EQ(table({spec.fill,
                   [&](const Sym& live, const Sym& max_pages, bool zero_tail) {
                     return spec.written(live, max_pages - Sym(1), zero_tail);
                   }}),
            Verdict::refuted)
      << "tail one column short";

  const WriteLocTailRule wl = kvaddr::proofs::write_loc_tail_rule();
  auto tail = [&](WriteLocTailRule rule) {
    return kvaddr::proofs::write_loc_tail_of(o, Variant::production, rule).verdict;
  };
  EXPECT_EQ(tail(wl), Verdict::proved);
  EXPECT_EQ(tail({[](Variant) { return true; }, wl.fill}), Verdict::refuted) << "tail kept";
  EXPECT_EQ(tail({wl.keeps, [](Variant) { return Sym(-1); }}), Verdict::refuted) << "tail filled with -1";
}

// The search that produced kRefuting: for each proved obligation, count the sites, then try
// mutants in a fixed order (k < 3 per operator) until one refutes it.
TEST(Vacuity, DISABLED_SearchRefutingMutants) {
  const Op order[] = {Op::gather_index, Op::pick_negate, Op::div_plus1, Op::rem_zero, Op::gather_next,
                      Op::shr_plus1,    Op::narrow_skip, Op::mul_drop,  Op::add_plus1};
  for (const auto& n : proved_names()) {
    int counts[static_cast<int>(Op::kCount)] = {};
    {
      const mut::Scope counting({Op::none, 0});
      (void)kvaddr::proofs::run_one(n);
      for (int i = 0; i < static_cast<int>(Op::kCount); ++i) counts[i] = counting.count(static_cast<Op>(i));
    }
    bool found = false;
    for (Op op : order) {
      for (int k = 0; k < std::min(counts[static_cast<int>(op)], 3) && !found; ++k) {
        const mut::Scope scope({op, k});
        if (kvaddr::proofs::run_one(n).verdict == Verdict::refuted) {
          std::cout << "    {\"" << n << "\", Op::" << mut::name(op) << ", " << k << "},\n";
          found = true;
        }
      }
      if (found) break;
    }
    if (!found) std::cout << "    // NONE: " << n << "\n";
    std::cout.flush();
  }
}

}  // namespace

// The obligation from a spec's per-id Lane (route.<r>.spec_lane) holds in production for every such
// route and is refuted by the catalogue bugs that break it: B16 hands the virtual id on as a physical
// one (past N*ps when NV > N), B14 returns the collapsed id untranslated (past N*S when NV*ps > N*S),
// B17 and B11 as below.
TEST(PerIdSpecLane, ProvedInProductionRefutedByTheBugVariants) {
  using kvaddr::Route;
  using kvaddr::Variant;
  const kvaddr::proofs::RunOptions o;
  int routes = 0;
  kvaddr::for_each_route([&](auto spec) {
    using S = decltype(spec);
    if constexpr (kvaddr::has_spec_lane<S>) {
      ++routes;
      EXPECT_EQ(kvaddr::proofs::per_id_spec_lane_of(S::id, Variant::production, o).verdict, Verdict::proved) << S::name;
    }
  });
  EXPECT_EQ(routes, static_cast<int>(kvaddr::kPerIdRoutes.size()) + 3);  // + token_translate, swa_translate, write_loc
  // B17 drops the gather (the virtual page as the physical one), B11 leaves a tombstone unclamped (-S + off).
  for (const auto& [r, v] : {std::pair{Route::token_translate, Variant::b17_doc_formula},
                             std::pair{Route::swa_translate, Variant::b11_swa_no_clamp}}) {
    const auto bad = kvaddr::proofs::per_id_spec_lane_of(r, v, o);
    EXPECT_EQ(bad.verdict, Verdict::refuted) << static_cast<int>(r);
    EXPECT_NE(bad.text.find("id_in_range"), std::string::npos) << bad.text;
  }
  const auto b16 = kvaddr::proofs::per_id_spec_lane_of(Route::transfer_ids, Variant::b16_virtual_as_physical, o);
  EXPECT_EQ(b16.verdict, Verdict::refuted);
  EXPECT_NE(b16.text.find("id_in_range"), std::string::npos) << b16.text;
  const auto b14 = kvaddr::proofs::per_id_spec_lane_of(Route::dcp_read_translate, Variant::b14_dcp_untranslated, o);
  EXPECT_EQ(b14.verdict, Verdict::refuted);
  EXPECT_NE(b14.text.find("id_in_range"), std::string::npos) << b14.text;
  EXPECT_THROW(kvaddr::proofs::per_id_spec_lane_of(Route::read_table, Variant::production, o), kvaddr::InvalidArgument);
}
