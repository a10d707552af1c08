#pragma once
// The symbolic integer behind every proof: a small value type over z3::expr that the lane
// templates of translate/lanes.hpp are instantiated with. Only proofs/ sees z3++.h.
//
// Two encodings share one type, chosen by the active `Env` (a thread-local scope):
//   * Mode::integer - unbounded mathematical integers (Z3 Int). kv_div / kv_rem are the C
//     truncating operations restated over Int; used for the algebra with symbolic divisors.
//   * Mode::bv64    - 64-bit two's complement (Z3 bit-vectors): bvsdiv, bvsrem, bvashr, exactly
//     the int64 arithmetic of the kernels. Every + - * also records "this operation did not
//     overflow" into the Env, so an obligation can state that the kernel's int64 arithmetic is
//     exact on its domain.
// Tables are `SymTable`s: a Z3 array plus a record of every (index, mask) the lane loaded.
#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvaddr::proofs::sym {

enum class Mode { integer, bv64 };

class Env {
 public:
  Env(z3::context& ctx, Mode mode);
  ~Env();
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

  static Env& current();
  z3::context& ctx() { return ctx_; }
  Mode mode() const { return mode_; }
  z3::sort value_sort();
  z3::expr num(std::int64_t v);
  void record_no_overflow(const z3::expr& cond) { no_overflow_.push_back(cond); }
  // Conjunction of every recorded no-overflow condition so far (true in Mode::integer).
  z3::expr no_overflow() const;
  void clear_overflow() { no_overflow_.clear(); }
  // Definitions of auxiliary variables (the bit-vector quotients below). They are conservative:
  // each pins a fresh variable to a unique value, so every query asserts them all.
  void define(const z3::expr& axiom) { definitions_.push_back(axiom); }
  z3::expr definitions() const;
  int fresh_id() { return next_fresh_++; }

  // Division abstraction (Mode::integer). After abstract_divisions_by(d), kv_div(a, d) and
  // kv_rem(a, d) for a divisor structurally equal to d return a fresh quotient q and remainder r,
  // one pair per distinct dividend a (the same pair for every call with that a), instead of the
  // Int division. The fresh pair is unconstrained: a query that abstracts a division assumes of
  // (q, r) only what a separate lemma obligation proves of the real quotient and remainder.
  struct AbstractDivision {
    z3::expr dividend, divisor, quotient, remainder;
  };
  void abstract_divisions_by(const z3::expr& divisor) { abstract_divisor_ = divisor; }
  // The pair for a / b when b is the abstracted divisor (created on first use), else nullptr; the
  // pointer is valid until the next call.
  const AbstractDivision* abstract_division(const z3::expr& a, const z3::expr& b);
  const std::vector<AbstractDivision>& abstract_divisions() const { return abstract_divisions_; }

 private:
  z3::context& ctx_;
  Mode mode_;
  Env* prev_;
  std::vector<z3::expr> no_overflow_;
  std::vector<z3::expr> definitions_;
  int next_fresh_ = 0;
  std::optional<z3::expr> abstract_divisor_;
  std::vector<AbstractDivision> abstract_divisions_;
};

class SymBool {
 public:
  explicit SymBool(z3::expr e) : e_(std::move(e)) {}
  explicit SymBool(bool b);
  const z3::expr& expr() const { return e_; }

 private:
  z3::expr e_;
};

SymBool operator!(const SymBool& a);
SymBool operator&&(const SymBool& a, const SymBool& b);
SymBool operator||(const SymBool& a, const SymBool& b);
SymBool implies(const SymBool& a, const SymBool& b);
SymBool operator==(const SymBool& a, const SymBool& b);

class Sym {
 public:
  explicit Sym(std::int64_t v);
  explicit Sym(z3::expr e) : e_(std::move(e)) {}
  // A fresh free variable of the current mode.
  static Sym var(const std::string& name);
  const z3::expr& expr() const { return e_; }

 private:
  z3::expr e_;
};

Sym operator+(const Sym& a, const Sym& b);
Sym operator-(const Sym& a, const Sym& b);
Sym operator*(const Sym& a, const Sym& b);
SymBool operator<(const Sym& a, const Sym& b);
SymBool operator<=(const Sym& a, const Sym& b);
SymBool operator>(const Sym& a, const Sym& b);
SymBool operator>=(const Sym& a, const Sym& b);
SymBool operator==(const Sym& a, const Sym& b);
SymBool operator!=(const Sym& a, const Sym& b);

// Customisation points of lanes.hpp, found by argument-dependent lookup.
// kv_div in Mode::bv64: bvsdiv when the divisor is not a positive numeral; for a positive
// numeral divisor b (every query of a ps sweep) the quotient is a fresh q defined by its
// equation a = q*b + r (q*b not overflowing, 0 <= r < b for a >= 0, -b < r <= 0 for a < 0),
// which is exactly bvsdiv / bvsrem for b > 0 and avoids bit-blasting a 64-bit divider.
Sym kv_div(const Sym& a, const Sym& b);  // truncating (C / CUDA / Triton)
Sym kv_rem(const Sym& a, const Sym& b);  // sign of the dividend
Sym kv_shr(const Sym& a, int s);          // arithmetic shift (floor division by 2^s)
Sym kv_pick(const SymBool& c, const Sym& a, const Sym& b);
Sym kv_narrow32(const Sym& a);            // int32 store + load: wrap to 32 bits, sign-extend
inline Sym kv_wrap32(const Sym& a) { return kv_narrow32(a); }  // int32_wrap store

// Floor division / modulo (Python semantics) for restating spec formulas; b > 0 assumed.
Sym floor_div(const Sym& a, const Sym& b);
Sym floor_mod(const Sym& a, const Sym& b);

// A symbolic table (v2p, swa_v2p, req_to_token row ...) with a length. The call operator is the
// `Gather` of lanes.hpp: a masked load with fill 0 that records (index, mask, value).
class SymTable {
 public:
  struct Load {
    z3::expr index;
    z3::expr mask;
    z3::expr value;  // the raw table value (before the mask fill)
  };
  SymTable(std::string name, Sym length);
  Sym operator()(const Sym& index, const SymBool& mask);
  const std::string& name() const { return name_; }
  const Sym& length() const { return length_; }
  const std::vector<Load>& loads() const { return loads_; }
  // mask => 0 <= index < length, for every recorded load.
  SymBool loads_in_bounds() const;
  // For every recorded in-bounds load: inv(index, value). This is how a table invariant
  // ("every entry is -1 or a page < num_pages", "v2p[0] = 0") is assumed without quantifiers:
  // a table satisfying the invariant everywhere exists iff the loaded entries satisfy it.
  SymBool loaded_entries(const std::function<SymBool(const Sym&, const Sym&)>& inv) const;
  // The value at a concrete/symbolic index (no record; for stating facts about entries).
  Sym at(const Sym& index) const;

 private:
  std::string name_;
  Sym length_;
  z3::expr array_;
  std::vector<Load> loads_;
};

// ---- deliberately wrong versions (proof vacuity, issue 13) ------------------------------------
// A mutant changes the k-th occurrence (in one obligation run) of one lane customisation point or
// arithmetic operation: the lane code the obligation names then computes something else. An
// obligation that stays "proved" under every such mutant would not constrain what it names;
// proofs/tests/test_vacuity.cpp holds, per proved obligation, a mutant that refutes it.
namespace mutation {
enum class Op : int {
  none,
  gather_index,  // a table load returns its index (the v2p gather dropped)
  gather_next,   // a table load reads the next entry
  pick_negate,   // kv_pick's branches swapped (a clamp / guard inverted)
  div_plus1,     // kv_div's quotient + 1
  rem_zero,      // kv_rem -> 0 (offset dropped)
  shr_plus1,     // kv_shr's result + 1
  narrow_skip,   // kv_narrow32 -> identity (no int32 wrap)
  add_plus1,     // a + b -> a + b + 1
  mul_drop,      // a * b -> a (a multiplier dropped)
  kCount
};
std::string_view name(Op op);
struct Mutant {
  Op op = Op::none;
  int k = 0;
};
// RAII: while alive, the lanes evaluated on this thread run mutant `m` (Op::none: count only).
class Scope {
 public:
  explicit Scope(Mutant m);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  // Occurrences of op's site reached so far.
  int count(Op op) const;
};
}  // namespace mutation

}  // namespace kvaddr::proofs::sym
