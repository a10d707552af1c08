#include "common.hpp"

#include "kvaddr/translate/validate.hpp"

namespace kvaddr::proofs {

Def make(ObligationInfo info, RunFn run) {
  Def d;
  d.info = std::move(info);
  d.run = std::move(run);
  return d;
}

void add_obligations(std::vector<Def>& out, std::initializer_list<Obligation> rows) {
  for (const Obligation& row : rows) out.push_back(make(row.info, row.run));
}

void add_flag_pair(std::vector<Def>& out, ObligationInfo on, ObligationInfo off,
                   Outcome (*check)(bool, const RunOptions&)) {
  out.push_back(make(std::move(on), [check](const RunOptions& o) { return check(true, o); }));
  out.push_back(make(std::move(off), [check](const RunOptions& o) { return check(false, o); }));
}

Def variant_of(const Def& d, std::string name, std::string spec, RunFn run, Verdict expected) {
  Def v = d;
  v.info.name = std::move(name);
  v.info.spec = std::move(spec);
  v.info.expected = expected;
  v.run = std::move(run);
  return v;
}

std::string_view variant_name(Variant v) { return kvaddr::to_string(v); }

// The route list's name (kvaddr/translate/route_list.hpp).
std::string_view route_name(Route r) { return kvaddr::to_string(r); }

namespace {
Sym ps_of(std::int64_t v) { return v > 0 ? Sym(v) : Sym::var("ps"); }
}  // namespace

SymPool::SymPool(std::int64_t ps_value, const std::string& table)
    : ps(ps_of(ps_value)),
      M(Sym::var("M")),
      N(Sym::var("num_pages")),
      NV(Sym::var("num_virtual_ids")),
      v2p(table, Sym::var("num_virtual_ids") + Sym(1)) {}

SymBool SymPool::entry_ok(const Sym& idx, const Sym& v, bool pinned) const {
  SymBool ok = (v == Sym(-1)) || (v >= Sym(0) && v < N);
  if (pinned) ok = ok && sym::implies(idx == Sym(0), v == Sym(0));
  return ok && sym::implies(idx == NV, v == Sym(-1));
}

void SymPool::constrain(Query& q, bool pinned) const {
  q.require(ps >= Sym(1));
  q.require(ps <= Sym(kMaxPs));
  q.require(M >= Sym(1));
  q.require(M <= Sym(kMaxM));
  q.require(N >= Sym(1));
  q.require(NV >= Sym(1));
  q.require(N * ps * M < Sym(kTwo31));  // I8 (Era C _assert_kernel_id_bound)
  q.require(NV * ps < Sym(kTwo31));     // virtual token ids live in int32 req_to_token
  q.require(v2p.loaded_entries([this, pinned](const Sym& i, const Sym& v) { return entry_ok(i, v, pinned); }));
}

void SymPool::show(Query& q) const {
  q.show({{"ps", ps}, {"M", M}, {"num_pages", N}, {"num_virtual_ids", NV}});
}

SymBool admitted_token(const SymPool& p, const Sym& tok) {
  return (tok == Sym(-1)) || (tok >= Sym(0) && tok < p.NV * p.ps);
}

}  // namespace kvaddr::proofs
