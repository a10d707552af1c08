#include "sym.hpp"

#include <climits>
#include <cstdint>
#include <stdexcept>

#include "kvaddr/model/errors.hpp"
#include <utility>
#include <vector>

namespace kvaddr::proofs::sym {

namespace mutation {
namespace {
struct State {
  Mutant m;
  int counts[static_cast<int>(Op::kCount)] = {};
};
thread_local State* g_state = nullptr;
thread_local std::vector<State> g_states;  // one per live Scope (nested scopes stack)
}  // namespace

std::string_view name(Op op) {
  switch (op) {
    case Op::none: return "none";
    case Op::gather_index: return "gather_index";
    case Op::gather_next: return "gather_next";
    case Op::pick_negate: return "pick_negate";
    case Op::div_plus1: return "div_plus1";
    case Op::rem_zero: return "rem_zero";
    case Op::shr_plus1: return "shr_plus1";
    case Op::narrow_skip: return "narrow_skip";
    case Op::add_plus1: return "add_plus1";
    case Op::mul_drop: return "mul_drop";
    case Op::kCount: break;
  }
  return "?";
}

Scope::Scope(Mutant m) {
  g_states.reserve(8);
  g_states.push_back(State{m, {}});
  g_state = &g_states.back();
}
Scope::~Scope() {
  g_states.pop_back();
  g_state = g_states.empty() ? nullptr : &g_states.back();
}
int Scope::count(Op op) const { return g_state ? g_state->counts[static_cast<int>(op)] : 0; }

namespace {
// One occurrence of op's site: true when the active mutant is this occurrence.
bool hit(Op op) {
  if (g_state == nullptr) return false;
  const int k = g_state->counts[static_cast<int>(op)]++;
  return g_state->m.op == op && g_state->m.k == k;
}
}  // namespace
}  // namespace mutation

namespace {
thread_local Env* g_env = nullptr;
using mutation::hit;
using mutation::Op;

bool int_mode(const z3::expr& e) { return e.is_int(); }

// Mode::integer: the exact result, plus the record that it lies in the int64 range. When every
// recorded result of a lane lies in range, the kernel's int64 computation never wrapped and
// equals the integer one operation by operation (bvsdiv / bvsrem / bvashr / signed compares
// agree with their integer counterparts on in-range operands).
Sym in_int64(const z3::expr& r) {
  auto& c = r.ctx();
  Env::current().record_no_overflow(r >= c.int_val(INT64_MIN) && r <= c.int_val(INT64_MAX));
  return Sym(r);
}
}  // namespace

Env::Env(z3::context& ctx, Mode mode) : ctx_(ctx), mode_(mode), prev_(g_env) { g_env = this; }
Env::~Env() { g_env = prev_; }

Env& Env::current() {
  if (g_env == nullptr) throw InvalidState("sym::Env", "none", "a symbolic value was built outside an active Env");
  return *g_env;
}

z3::sort Env::value_sort() { return mode_ == Mode::integer ? ctx_.int_sort() : ctx_.bv_sort(64); }

z3::expr Env::num(std::int64_t v) {
  return mode_ == Mode::integer ? ctx_.int_val(v) : ctx_.bv_val(v, 64);
}

z3::expr Env::no_overflow() const {
  z3::expr acc = ctx_.bool_val(true);
  for (const auto& c : no_overflow_) acc = acc && c;
  return acc;
}

z3::expr Env::definitions() const {
  z3::expr acc = ctx_.bool_val(true);
  for (const auto& c : definitions_) acc = acc && c;
  return acc;
}

const Env::AbstractDivision* Env::abstract_division(const z3::expr& a, const z3::expr& b) {
  if (!abstract_divisor_ || !z3::eq(b, *abstract_divisor_)) return nullptr;
  for (const auto& d : abstract_divisions_)
    if (z3::eq(d.dividend, a)) return &d;
  const int id = fresh_id();
  const z3::sort s = value_sort();
  abstract_divisions_.push_back(AbstractDivision{a, b, ctx_.constant(("!dq" + std::to_string(id)).c_str(), s),
                                                 ctx_.constant(("!dr" + std::to_string(id)).c_str(), s)});
  return &abstract_divisions_.back();
}

SymBool::SymBool(bool b) : e_(Env::current().ctx().bool_val(b)) {}
SymBool operator!(const SymBool& a) { return SymBool(!a.expr()); }
SymBool operator&&(const SymBool& a, const SymBool& b) { return SymBool(a.expr() && b.expr()); }
SymBool operator||(const SymBool& a, const SymBool& b) { return SymBool(a.expr() || b.expr()); }
SymBool implies(const SymBool& a, const SymBool& b) { return SymBool(z3::implies(a.expr(), b.expr())); }
SymBool operator==(const SymBool& a, const SymBool& b) { return SymBool(a.expr() == b.expr()); }

Sym::Sym(std::int64_t v) : e_(Env::current().num(v)) {}
Sym Sym::var(const std::string& name) {
  Env& env = Env::current();
  return Sym(env.ctx().constant(name.c_str(), env.value_sort()));
}

Sym operator+(const Sym& a, const Sym& b) {
  if (hit(Op::add_plus1)) return (a + b) + Sym(1);
  const auto& x = a.expr();
  const auto& y = b.expr();
  if (int_mode(x)) return in_int64(x + y);
  Env::current().record_no_overflow(z3::bvadd_no_overflow(x, y, true) && z3::bvadd_no_underflow(x, y));
  return Sym(x + y);
}
Sym operator-(const Sym& a, const Sym& b) {
  const auto& x = a.expr();
  const auto& y = b.expr();
  if (int_mode(x)) return in_int64(x - y);
  Env::current().record_no_overflow(z3::bvsub_no_overflow(x, y) && z3::bvsub_no_underflow(x, y, true));
  return Sym(x - y);
}
Sym operator*(const Sym& a, const Sym& b) {
  if (hit(Op::mul_drop)) return a;
  const auto& x = a.expr();
  const auto& y = b.expr();
  if (int_mode(x)) return in_int64(x * y);
  Env::current().record_no_overflow(z3::bvmul_no_overflow(x, y, true) && z3::bvmul_no_underflow(x, y));
  return Sym(x * y);
}
// z3++ compares bit-vectors signed with < <= > >=, which is the int64 semantics.
SymBool operator<(const Sym& a, const Sym& b) { return SymBool(a.expr() < b.expr()); }
SymBool operator<=(const Sym& a, const Sym& b) { return SymBool(a.expr() <= b.expr()); }
SymBool operator>(const Sym& a, const Sym& b) { return SymBool(a.expr() > b.expr()); }
SymBool operator>=(const Sym& a, const Sym& b) { return SymBool(a.expr() >= b.expr()); }
SymBool operator==(const Sym& a, const Sym& b) { return SymBool(a.expr() == b.expr()); }
SymBool operator!=(const Sym& a, const Sym& b) { return SymBool(a.expr() != b.expr()); }

namespace {
// Truncating quotient over Int: sign(a)·sign(b)·(|a| div |b|).
z3::expr int_trunc_div(const z3::expr& a, const z3::expr& b) {
  auto& c = a.ctx();
  const z3::expr zero = c.int_val(0);
  std::int64_t bv = 0;
  if (b.is_numeral_i64(bv) && bv > 0) return z3::ite(a >= zero, a / b, -((-a) / b));
  const z3::expr abs_a = z3::ite(a < zero, -a, a);
  const z3::expr abs_b = z3::ite(b < zero, -b, b);
  const z3::expr q = abs_a / abs_b;  // Euclidean = floor for non-negative operands
  const z3::expr neg = (a < zero) != (b < zero);
  return z3::ite(neg, -q, q);
}
}  // namespace

namespace {
bool positive_numeral(const z3::expr& b) {
  std::int64_t v = 0;
  return b.is_numeral_i64(v) && v > 0;
}
// Quotient and remainder of a truncating bit-vector division by a positive numeral, by their
// defining equation (see sym.hpp).
std::pair<z3::expr, z3::expr> bv_divrem_by_numeral(const z3::expr& a, const z3::expr& b) {
  Env& env = Env::current();
  auto& c = env.ctx();
  const int id = env.fresh_id();
  const z3::expr q = c.bv_const(("!q" + std::to_string(id)).c_str(), 64);
  const z3::expr r = c.bv_const(("!r" + std::to_string(id)).c_str(), 64);
  const z3::expr zero = c.bv_val(0, 64);
  env.define(z3::bvmul_no_overflow(q, b, true) && z3::bvmul_no_underflow(q, b) && a == q * b + r &&
             z3::ite(a >= zero, r >= zero && r < b, r <= zero && r > -b));
  return {q, r};
}
}  // namespace

Sym kv_div(const Sym& a, const Sym& b) {
  if (hit(Op::div_plus1)) return kv_div(a, b) + Sym(1);
  const auto& x = a.expr();
  if (const auto* d = Env::current().abstract_division(x, b.expr())) return Sym(d->quotient);
  if (int_mode(x)) return Sym(int_trunc_div(x, b.expr()));
  if (positive_numeral(b.expr())) return Sym(bv_divrem_by_numeral(x, b.expr()).first);
  return Sym(x / b.expr());  // bvsdiv
}
Sym kv_rem(const Sym& a, const Sym& b) {
  if (hit(Op::rem_zero)) return Sym(0);
  const auto& x = a.expr();
  if (const auto* d = Env::current().abstract_division(x, b.expr())) return Sym(d->remainder);
  if (int_mode(x)) return Sym(x - b.expr() * int_trunc_div(x, b.expr()));
  if (positive_numeral(b.expr())) return Sym(bv_divrem_by_numeral(x, b.expr()).second);
  return Sym(z3::srem(x, b.expr()));
}
Sym kv_shr(const Sym& a, int s) {
  if (hit(Op::shr_plus1)) return kv_shr(a, s) + Sym(1);
  const auto& x = a.expr();
  if (int_mode(x)) return Sym(x / x.ctx().int_val(std::int64_t{1} << s));
  return Sym(z3::ashr(x, s));
}
Sym kv_pick(const SymBool& c, const Sym& a, const Sym& b) {
  if (hit(Op::pick_negate)) return Sym(z3::ite(c.expr(), b.expr(), a.expr()));
  return Sym(z3::ite(c.expr(), a.expr(), b.expr()));
}
Sym kv_narrow32(const Sym& a) {
  if (hit(Op::narrow_skip)) return a;
  const auto& x = a.expr();
  if (int_mode(x)) {
    auto& c = x.ctx();
    const z3::expr two31 = c.int_val(std::int64_t{1} << 31);
    const z3::expr two32 = c.int_val(std::int64_t{1} << 32);
    return Sym(z3::mod(x + two31, two32) - two31);
  }
  return Sym(z3::sext(x.extract(31, 0), 32));
}

Sym floor_div(const Sym& a, const Sym& b) {
  const auto& x = a.expr();
  if (int_mode(x)) return Sym(x / b.expr());  // Euclidean = floor for b > 0
  const z3::expr q = x / b.expr();
  const z3::expr r = z3::srem(x, b.expr());
  return Sym(z3::ite(r != 0 && x < 0, q - 1, q));
}
Sym floor_mod(const Sym& a, const Sym& b) {
  const auto& x = a.expr();
  if (int_mode(x)) return Sym(z3::mod(x, b.expr()));
  return Sym(z3::smod(x, b.expr()));
}

SymTable::SymTable(std::string name, Sym length)
    : name_(std::move(name)),
      length_(std::move(length)),
      array_(Env::current().ctx().constant(
          name_.c_str(), Env::current().ctx().array_sort(Env::current().value_sort(), Env::current().value_sort()))) {}

Sym SymTable::operator()(const Sym& index, const SymBool& mask) {
  const bool drop = hit(Op::gather_index);
  const bool next = hit(Op::gather_next);
  const z3::expr at = next ? (index.expr() + Env::current().num(1)) : index.expr();
  const z3::expr value = z3::select(array_, at);
  loads_.push_back(Load{at, mask.expr(), value});
  return Sym(z3::ite(mask.expr(), drop ? index.expr() : value, Env::current().num(0)));
}

Sym SymTable::at(const Sym& index) const { return Sym(z3::select(array_, index.expr())); }

SymBool SymTable::loads_in_bounds() const {
  z3::expr acc = Env::current().ctx().bool_val(true);
  const Sym zero(0);
  for (const auto& l : loads_) {
    acc = acc && z3::implies(l.mask, l.index >= zero.expr() && l.index < length_.expr());
  }
  return SymBool(acc);
}

SymBool SymTable::loaded_entries(const std::function<SymBool(const Sym&, const Sym&)>& inv) const {
  z3::expr acc = Env::current().ctx().bool_val(true);
  const Sym zero(0);
  for (const auto& l : loads_) {
    const z3::expr in = l.index >= zero.expr() && l.index < length_.expr();
    acc = acc && z3::implies(in, inv(Sym(l.index), Sym(l.value)).expr());
  }
  return SymBool(acc);
}

}  // namespace kvaddr::proofs::sym
