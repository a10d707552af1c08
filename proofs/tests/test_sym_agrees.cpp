// The symbolic instantiation of the lanes agrees with the int64 one on random concrete inputs,
// in both encodings (unbounded Int with truncating operators; 64-bit bit-vectors with quotients
// defined by their equation). This checks the Sym customisation points, not the lanes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kvaddr/translate/lanes.hpp"
#include "sym.hpp"

namespace {
using kvaddr::Variant;
namespace lanes = kvaddr::lanes;
namespace sym = kvaddr::proofs::sym;
using I = std::int64_t;

struct VecTable {
  const std::vector<I>* v;
  I operator()(I idx, bool mask) const {
    if (!mask) return 0;
    return (idx >= 0 && idx < static_cast<I>(v->size())) ? (*v)[static_cast<std::size_t>(idx)] : 0;
  }
};

// Evaluates `out` with the table pinned to `table` (out-of-table entries 0, as VecTable).
I evaluate(const sym::SymTable& t, const std::vector<I>& table, const sym::Sym& out) {
  auto& env = sym::Env::current();
  z3::solver s(env.ctx());
  s.add(env.definitions());
  for (const auto& l : t.loads()) {
    z3::expr in_table = env.ctx().bool_val(false);
    for (std::size_t i = 0; i < table.size(); ++i) {
      const sym::Sym idx(static_cast<I>(i));
      s.add(z3::implies(l.index == idx.expr(), l.value == sym::Sym(table[i]).expr()));
      in_table = in_table || (l.index == idx.expr());
    }
    s.add(z3::implies(!in_table, l.value == sym::Sym(0).expr()));
  }
  EXPECT_EQ(s.check(), z3::sat);
  const z3::expr v = s.get_model().eval(out.expr(), true);
  if (v.is_bv()) return static_cast<I>(v.get_numeral_uint64());
  return v.get_numeral_int64();
}

class SymAgrees : public ::testing::TestWithParam<sym::Mode> {};

TEST_P(SymAgrees, LanesOnRandomInputs) {
  std::mt19937_64 rng(20260919);
  // Fewer cases for bit-vectors: each evaluation is a solver call over 64-bit quotients.
  const int cases = GetParam() == sym::Mode::integer ? 40 : 8;
  for (int iter = 0; iter < cases; ++iter) {
    const I ps = std::vector<I>{1, 2, 3, 4, 7, 64}[rng() % 6];
    const I M = static_cast<I>(rng() % 5) + 1;
    const I pages = static_cast<I>(rng() % 6) + 2;
    std::vector<I> v2p(static_cast<std::size_t>(pages) + 1);
    for (auto& e : v2p) e = static_cast<I>(rng() % (static_cast<std::uint64_t>(pages) + 1)) - 1;  // -1..pages-1
    v2p[0] = 0;
    v2p.back() = -1;
    const I tok = static_cast<I>(rng() % static_cast<std::uint64_t>(pages * ps + 1)) - 1;  // -1..pages*ps-1
    const I dcp = static_cast<I>(rng() % 3) + 1;
    const I rank = static_cast<I>(rng() % static_cast<std::uint64_t>(dcp));
    VecTable g{&v2p};
    const I want[] = {
        lanes::token_translate_lane<I>(tok, g, ps, ps * M, Variant::production),
        lanes::page_entry_lane<I>(tok < 0 ? -1 : tok, g, ps, M, Variant::production),
        lanes::eager_funnel_lane<I>(tok, g, ps, ps * M),
        lanes::write_loc_lane<I>(tok, g, ps, ps * M, dcp, rank),
        lanes::phi_lane<I>(tok < 0 ? 0 : tok, ps, ps * M),
        lanes::kv_narrow32<I>(tok * (I{1} << 33) + tok),
    };
    z3::context ctx;
    sym::Env env(ctx, GetParam());
    sym::SymTable t("v2p", sym::Sym(pages + 1));
    const sym::Sym s_tok(tok), s_ps(ps), s_M(M), s_S(ps * M), s_dcp(dcp), s_rank(rank);
    const sym::Sym got[] = {
        lanes::token_translate_lane(s_tok, t, s_ps, s_S, Variant::production),
        lanes::page_entry_lane(tok < 0 ? sym::Sym(-1) : s_tok, t, s_ps, s_M, Variant::production),
        lanes::eager_funnel_lane(s_tok, t, s_ps, s_S),
        lanes::write_loc_lane(s_tok, t, s_ps, s_S, s_dcp, s_rank),
        lanes::phi_lane(tok < 0 ? sym::Sym(0) : s_tok, s_ps, s_S),
        sym::kv_narrow32(sym::Sym(tok * (I{1} << 33) + tok)),
    };
    for (std::size_t k = 0; k < std::size(want); ++k) {
      EXPECT_EQ(evaluate(t, v2p, got[k]), want[k]) << "lane " << k << " ps=" << ps << " M=" << M << " tok=" << tok;
    }
  }
}

TEST_P(SymAgrees, TruncatingOperatorsOnNegatives) {
  z3::context ctx;
  sym::Env env(ctx, GetParam());
  sym::SymTable none("none", sym::Sym(0));
  for (const I a : {I{-7}, I{-1}, I{63}}) {
    for (const I b : {I{1}, I{3}, I{64}}) {
      EXPECT_EQ(evaluate(none, {}, sym::kv_div(sym::Sym(a), sym::Sym(b))), a / b) << a << '/' << b;
      EXPECT_EQ(evaluate(none, {}, sym::kv_rem(sym::Sym(a), sym::Sym(b))), a % b) << a << '%' << b;
      EXPECT_EQ(evaluate(none, {}, sym::kv_shr(sym::Sym(a), 3)), a >> 3) << a;
    }
  }
}

// Env::abstract_divisions_by: a / d and a % d for the abstracted divisor d are one fresh pair per
// dividend (the same pair for every call with that dividend), unconstrained by the division;
// a division by any other divisor keeps its exact meaning.
TEST(SymAbstraction, OneFreshPairPerDividendOfTheAbstractedDivisor) {
  z3::context ctx;
  sym::Env env(ctx, sym::Mode::integer);
  const sym::Sym a = sym::Sym::var("a"), b = sym::Sym::var("b"), d = sym::Sym::var("d");
  env.abstract_divisions_by(d.expr());
  const sym::Sym q1 = sym::kv_div(a, d), r1 = sym::kv_rem(a, d), q2 = sym::kv_div(a, d), qb = sym::kv_div(b, d);
  const sym::Sym exact = sym::kv_div(a, b);
  ASSERT_EQ(env.abstract_divisions().size(), 2u);
  const auto& pa = env.abstract_divisions()[0];
  EXPECT_TRUE(z3::eq(pa.dividend, a.expr()));
  EXPECT_TRUE(z3::eq(q1.expr(), pa.quotient));
  EXPECT_TRUE(z3::eq(q2.expr(), pa.quotient));
  EXPECT_TRUE(z3::eq(r1.expr(), pa.remainder));
  EXPECT_TRUE(z3::eq(qb.expr(), env.abstract_divisions()[1].quotient));
  EXPECT_FALSE(z3::eq(qb.expr(), q1.expr()));
  z3::solver s(ctx);
  s.add(a.expr() == ctx.int_val(7) && b.expr() == ctx.int_val(2) && d.expr() == ctx.int_val(2));
  s.add(q1.expr() == ctx.int_val(100) && r1.expr() == ctx.int_val(-5));  // fresh: any value is possible
  ASSERT_EQ(s.check(), z3::sat);
  EXPECT_EQ(s.get_model().eval(exact.expr(), true).get_numeral_int64(), 3);
  s.add(exact.expr() != ctx.int_val(3));
  EXPECT_EQ(s.check(), z3::unsat);
}

INSTANTIATE_TEST_SUITE_P(Modes, SymAgrees, ::testing::Values(sym::Mode::integer, sym::Mode::bv64),
                         [](const ::testing::TestParamInfo<sym::Mode>& p) { return p.param == sym::Mode::integer ? "Int" : "BitVec64"; });

}  // namespace
