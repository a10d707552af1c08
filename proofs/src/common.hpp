#pragma once
// Shared pieces of the obligation files: the symbolic pool of spec §1-§2 and the registry entry.
#include <array>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "engine.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/variant.hpp"
#include "sym.hpp"

namespace kvaddr::proofs {

// The symbolic names every obligation file uses unqualified.
using sym::Env;
using sym::Mode;
using sym::Sym;
using sym::SymBool;
using sym::implies;

// A fresh symbolic integer named n.
inline Sym var(const std::string& n) { return Sym::var(n); }

// Fresh symbolic integers, one per name, created in the order given.
template <class... Names>
std::array<Sym, sizeof...(Names)> vars(const Names&... names) {
  return {Sym::var(std::string(names))...};
}

// One query in a fresh integer-mode context over fresh variables named `names`, created in that
// order and shown first in a counterexample: `state(q, v)` (v[i] the variable names[i]) adds the
// header, preconditions, further symbols and shown values, and the conclusions.
template <std::size_t N, class State>
Outcome check_integer(unsigned timeout_ms, const char* const (&names)[N], State&& state) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const std::array<Sym, N> v = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<Sym, N>{Sym::var(names[I])...};
  }(std::make_index_sequence<N>{});
  Query q;
  for (std::size_t i = 0; i < N; ++i) q.show(names[i], v[i]);
  state(q, v);
  return check(q, timeout_ms);
}

struct Def {
  ObligationInfo info;
  std::function<Outcome(const RunOptions&)> run;
  std::string domain_full;  // domain under RunOptions::full_sweep (empty: same as info.domain)
};

using RunFn = std::function<Outcome(const RunOptions&)>;

// A registry entry of the given description and check (domain_full left empty).
Def make(ObligationInfo info, RunFn run);

// One row of an obligation table: the description and the check.
struct Obligation {
  ObligationInfo info;
  RunFn run;
};
// Registers make(info, run) for each row, in order.
void add_obligations(std::vector<Def>& out, std::initializer_list<Obligation> rows);

// Two obligations checked by one query builder: `on` runs check(true, o), then `off` check(false, o).
void add_flag_pair(std::vector<Def>& out, ObligationInfo on, ObligationInfo off,
                   Outcome (*check)(bool, const RunOptions&));

// Another check of the statement of `d` (a bug variant of the same obligation): a copy of `d`
// named `name` under `spec`, expected `expected`, that runs `run`.
Def variant_of(const Def& d, std::string name, std::string spec, RunFn run, Verdict expected = Verdict::refuted);

// Registration (one function per obligation file).
void add_identity_obligations(std::vector<Def>& out);
void add_route_obligations(std::vector<Def>& out);
void add_layout_obligations(std::vector<Def>& out);
void add_lifecycle_obligations(std::vector<Def>& out);
// The route specs' row / columns / tail rules (spec_rules.cpp): the .rows obligations (+ .e10) and
// route.read_table.columns (+ .b10, or + .grid_spill alone) at their place among the route
// obligations, and the other spec-rule obligations.
void add_row_obligations(std::vector<Def>& out);
void add_read_table_column_obligations(std::vector<Def>& out, bool grid_spill);
void add_spec_rule_obligations(std::vector<Def>& out);
void add_mode_obligations(std::vector<Def>& out);  // modes.cpp: the upstream call modes (issue 35)
void add_inferred_obligations(std::vector<Def>& out);  // inferred.cpp: the inferred behaviours (issue 33)
// route.<name>.spec_lane for every route whose spec has a per-id Lane (per_id.cpp), and its
// query under a variant (the vacuity tests run the routes' bug variants, which must be refuted).
void add_per_id_obligations(std::vector<Def>& out);
Outcome per_id_spec_lane_of(Route r, Variant v, const RunOptions& o);

constexpr std::int64_t kTwo31 = std::int64_t{1} << 31;
constexpr std::int64_t kMaxPs = std::int64_t{1} << 16;
constexpr std::int64_t kMaxM = 4096;

// The exponent k of the smallest power of two 2^k >= v (0 for v <= 1): log2 of a power-of-two ps.
constexpr int ceil_log2(std::int64_t v) {
  int k = 0;
  while ((std::int64_t{1} << k) < v) ++k;
  return k;
}

std::string_view variant_name(Variant v);
std::string_view route_name(Route r);
// "route=<route> variant=<variant>": the head of a route obligation's counterexample text.
inline std::string route_header(Route r, Variant v) {
  return "route=" + std::string(route_name(r)) + " variant=" + std::string(variant_name(v));
}

// The symbolic unified sub-pool of spec §1: page size ps, multiplier M, num_pages N (physical),
// num_virtual_ids NV (= N for an id owner) and v2p of length NV + 1.
//   domain:     1 <= ps <= 2^16 (or the given numeral), 1 <= M <= 4096, 1 <= N, NV >= 1;
//   int32 bound (I8, asserted by Era C at pool build): N*ps*M < 2^31 and NV*ps*M < 2^31... only
//   N*ps*M is asserted upstream; virtual ids are bounded separately by NV*ps < 2^31 (req_to_token
//   is int32).
struct SymPool {
  sym::Sym ps, M, N, NV;
  sym::SymTable v2p;
  // ps_value > 0: ps is that numeral; 0: symbolic in [1, 2^16].
  explicit SymPool(std::int64_t ps_value = 0, const std::string& table = "v2p");
  // Adds the domain, the I8 bound and the table invariant (§1: entries are -1 or a physical page
  // < N; v2p[0] = 0 when pinned; the trailing row v2p[NV] = -1) over the loads made so far: call
  // after the lanes have run.
  void constrain(Query& q, bool pinned = true) const;
  void show(Query& q) const;
  sym::Sym stride() const { return ps * M; }
  sym::SymBool entry_ok(const sym::Sym& idx, const sym::Sym& v, bool pinned) const;
};

// Admitted token: the padding id -1 (§1 "Padding ids") or a virtual token id 0 <= tok < NV*ps.
sym::SymBool admitted_token(const SymPool& p, const sym::Sym& tok);

// The I2 phi lemma over a given phi(x, ps, S) (the registered I2 uses lanes::phi_lane; the
// vacuity tests pass wrong versions, e.g. phi(x) = x*M, which must be refuted).
using PhiFn = std::function<sym::Sym(const sym::Sym& x, const sym::Sym& ps, const sym::Sym& stride)>;
Outcome i2_phi_of(const RunOptions& o, const PhiFn& phi);

// The DCP collapse lemma (dcp.collapse_lemma) over a given division (q, r) = div(a, dcp_size):
// for 1 <= dcp_size < 2^31, 1 <= K < 2^31 and -1 <= a < K*dcp_size, a = q*dcp_size + r; a >= 0 gives
// 0 <= r < dcp_size and 0 <= q < K; a = -1 gives the truncated (q, r) of -1 (-1, 0 at dcp_size 1,
// else 0, -1). The registered lemma passes kv_div / kv_rem; the vacuity tests
// pass wrong divisions (a / (dcp_size + 1), the remainder dropped), which must be refuted.
using DcpDivFn = std::function<std::pair<sym::Sym, sym::Sym>(const sym::Sym& a, const sym::Sym& dcp_size)>;
Outcome dcp_collapse_lemma_of(const RunOptions& o, const DcpDivFn& div);

// The tail rules of read_table and write_loc under proof in route.read_table.tail and
// route.write_loc.tail; the registered obligations pass the specs' functions (read_table_tail_rule,
// write_loc_tail_rule), the vacuity tests pass wrong versions, which must be refuted.
struct ReadTableTailRule {
  std::function<sym::Sym(Variant)> fill;  // Spec::tail_fill
  std::function<sym::Sym(const sym::Sym& live, const sym::Sym& max_pages, bool zero_tail)> written;  // written_columns
};
struct WriteLocTailRule {
  std::function<bool(Variant)> keeps;     // Spec::keeps_tail
  std::function<sym::Sym(Variant)> fill;  // Spec::tail_fill
};
ReadTableTailRule read_table_tail_rule();
WriteLocTailRule write_loc_tail_rule();
Outcome read_table_tail_of(const RunOptions& o, Variant v, const ReadTableTailRule& rule);
Outcome write_loc_tail_of(const RunOptions& o, Variant v, const WriteLocTailRule& rule);

}  // namespace kvaddr::proofs
