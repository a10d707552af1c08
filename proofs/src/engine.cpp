#include "engine.hpp"

#include <z3.h>

#include <cstdint>
#include <set>
#include <sstream>

namespace kvaddr::proofs {
namespace {

std::string render(const z3::model& m, const z3::expr& e) {
  const z3::expr v = m.eval(e, true);
  if (v.is_bool()) return v.is_true() ? "1" : "0";
  if (v.is_bv() && v.is_numeral()) {
    std::uint64_t u = 0;
    if (Z3_get_numeral_uint64(v.ctx(), v, &u)) return std::to_string(static_cast<std::int64_t>(u));
  }
  if (v.is_numeral()) return Z3_get_numeral_string(v.ctx(), v);
  return v.to_string();
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Outcome check(const Query& q, unsigned timeout_ms) {
  auto& ctx = sym::Env::current().ctx();
  const auto t0 = std::chrono::steady_clock::now();
  z3::solver s(ctx);
  z3::params p(ctx);
  p.set("timeout", timeout_ms);
  s.set(p);
  s.add(sym::Env::current().definitions());
  for (const auto& b : q.pre) s.add(b.expr());
  z3::expr all = ctx.bool_val(true);
  for (const auto& [label, b] : q.concl) all = all && b.expr();
  s.add(!all);
  const z3::check_result r = s.check();
  Outcome out;
  out.queries = 1;
  if (r == z3::unsat) {
    out.verdict = Verdict::proved;
  } else if (r == z3::sat) {
    out.verdict = Verdict::refuted;
    const z3::model m = s.get_model();
    std::ostringstream os;
    os << q.header;
    for (const auto& [name, v] : q.shown) os << ' ' << name << '=' << render(m, v.expr());
    for (const auto* t : q.tables) {
      os << ' ' << t->name() << "={";
      bool first = true;
      std::set<std::string> seen;
      for (const auto& l : t->loads()) {
        if (m.eval(l.mask, true).is_false()) continue;
        const std::string idx = render(m, l.index);
        if (!seen.insert(idx).second) continue;
        if (!first) os << ',';
        first = false;
        os << idx << ':' << render(m, l.value);
      }
      os << "} len(" << t->name() << ")=" << render(m, t->length().expr());
    }
    os << " failed:";
    for (const auto& [label, b] : q.concl) {
      if (m.eval(b.expr(), true).is_false()) os << ' ' << label;
    }
    out.text = os.str();
  } else {
    out.verdict = Verdict::unknown;
    out.text = q.header + " (" + s.reason_unknown() + ")";
  }
  out.seconds = since(t0);
  if (out.verdict == Verdict::unknown) {
    std::ostringstream os;
    os << out.text << " after " << out.seconds << " s";
    out.text = os.str();
  }
  return out;
}

Outcome sweep(const std::vector<std::int64_t>& values, const std::function<Outcome(std::int64_t)>& one) {
  Outcome acc;
  std::string unknown_at;  // the sweep values whose query came back unknown
  std::size_t unknowns = 0;
  for (const std::int64_t v : values) {
    Outcome o = one(v);
    acc.seconds += o.seconds;
    acc.queries += o.queries;
    if (o.verdict == Verdict::refuted) {
      acc.verdict = Verdict::refuted;
      acc.text = std::move(o.text);
      return acc;
    }
    if (o.verdict == Verdict::unknown) {
      unknown_at += (unknowns++ ? ", " : "") + std::to_string(v);
      if (acc.verdict != Verdict::unknown) {
        acc.verdict = Verdict::unknown;
        acc.text = std::move(o.text);
      }
    }
  }
  if (unknowns > 0)
    acc.text += "; unknown at " + std::to_string(unknowns) + " of " + std::to_string(values.size()) +
                " sweep values: " + unknown_at;
  return acc;
}

std::vector<std::int64_t> pow2_sweep() {
  std::vector<std::int64_t> v;
  for (int k = 0; k <= 16; ++k) v.push_back(std::int64_t{1} << k);
  return v;
}

std::vector<std::int64_t> dcp_sweep(bool full) {
  if (!full) return {1, 2, 4, 8};
  std::vector<std::int64_t> v;
  for (std::int64_t d = 1; d <= 16; ++d) v.push_back(d);
  v.push_back(32);
  v.push_back(64);
  return v;
}

std::string describe_dcp_sweep(bool full) {
  return full ? "one query per dcp_size in 1..16, 32, 64 (full sweep)" : "one query per dcp_size in {1, 2, 4, 8}";
}

}  // namespace kvaddr::proofs
