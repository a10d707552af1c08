// Layout obligations (spec §3): the §3 formulas restated over unbounded integers (model/ works on
// concrete int64 values, so the formulas are restated here; each cites its section).
#include <functional>
#include <string>
#include <vector>

#include "common.hpp"

namespace kvaddr::proofs {
namespace {

// §3.1 elem_MLA(P, l, o) = P*(L*ps*D) + l*(ps*D) + o*D
Sym elem_mla(const Sym& P, const Sym& l, const Sym& o, const Sym& L, const Sym& ps, const Sym& D) {
  return P * (L * ps * D) + l * (ps * D) + o * D;
}

// Composition helper: a list of lemma queries; the obligation holds when every lemma is proved
// (the composition argument is stated at each use).
Outcome chain(const std::vector<std::function<Outcome()>>& lemmas) {
  Outcome acc;
  for (const auto& lemma : lemmas) {
    Outcome o = lemma();
    acc.seconds += o.seconds;
    acc.queries += o.queries;
    if (o.verdict == Verdict::refuted) {
      acc.verdict = Verdict::refuted;
      acc.text = o.text;
      return acc;
    }
    if (o.verdict == Verdict::unknown && acc.verdict != Verdict::unknown) {
      acc.verdict = Verdict::unknown;
      acc.text = o.text;
    }
  }
  return acc;
}

// Mixed-radix uniqueness: B >= 1, 0 <= w < B, P >= 0: P1*B + w1 = P2*B + w2 => P1 = P2, w1 = w2.
Outcome radix_lemma(const std::string& header, unsigned timeout_ms) {
  return check_integer(timeout_ms, {"B", "w1", "w2", "P1", "P2"}, [&](Query& q, const auto& v) {
    const auto& [B, w1, w2, P1, P2] = v;
    q.header = header + " lemma=radix";
    q.require(B >= Sym(1) && w1 >= Sym(0) && w1 < B && w2 >= Sym(0) && w2 < B && P1 >= Sym(0) && P2 >= Sym(0));
    q.require(P1 * B + w1 == P2 * B + w2);
    q.ensure("unique", P1 == P2 && w1 == w2);
  });
}

// Digit range: 0 <= l < L, 0 <= o < ps => 0 <= l*ps + o < L*ps.
Outcome digit_lemma(const std::string& header, unsigned timeout_ms) {
  return check_integer(timeout_ms, {"ps", "L", "l", "o"}, [&](Query& q, const auto& v) {
    const auto& [ps, L, l, o] = v;
    q.header = header + " lemma=digit_range";
    q.require(ps >= Sym(1) && L >= Sym(1) && l >= Sym(0) && l < L && o >= Sym(0) && o < ps);
    q.ensure("range", l * ps + o >= Sym(0) && l * ps + o < L * ps);
  });
}

// Rows of width D at distinct row indices r1 != r2 (addresses D*r) do not overlap.
Outcome stride_lemma(const std::string& header, unsigned timeout_ms) {
  return check_integer(timeout_ms, {"D", "r1", "r2"}, [&](Query& q, const auto& v) {
    const auto& [D, r1, r2] = v;
    q.header = header + " lemma=row_stride";
    q.require(D >= Sym(1) && r1 != r2);
    q.ensure("disjoint", D * r1 + D <= D * r2 || D * r2 + D <= D * r1);
  });
}

// I5 + §3.3: the dense view address of the kernel-facing id equals the envelope address, and two
// distinct (P, l, o) rows never overlap. Proof by composition of lemmas:
//   (1) elem_MLA(P, l, o) = D * r with r = P*(L*ps) + (l*ps + o), and the view address of
//       d = P*ps*L + o in view l is the same (polynomial identities);
//   (2) digit range: 0 <= l*ps + o < L*ps, and 0 <= o < ps;
//   (3) radix: (P, l*ps + o) -> r is injective (B = L*ps), and (l, o) -> l*ps + o (B = ps);
//   (4) row stride: distinct r give disjoint [D*r, D*r + D).
Outcome mla_rows(const RunOptions& opt) {
  const std::string h = "layout=mla_page_major (§3.1, §3.3)";
  auto identity = [&]() {
    return check_integer(opt.timeout_ms, {"ps", "L", "D", "P", "l", "o"}, [&](Query& q, const auto& v) {
      const auto& [ps, L, D, P, l, o] = v;
      q.header = h + " lemma=address_identity";
      q.require(ps >= Sym(1) && L >= Sym(1) && D >= Sym(1) && P >= Sym(0) && l >= Sym(0) && l < L && o >= Sym(0) &&
                o < ps);
      const Sym d = P * (ps * L) + o;        // kernel-facing id, M = L
      const Sym view = l * ps * D + d * D;    // §3.3 elem(view_l, d)
      const Sym env_addr = elem_mla(P, l, o, L, ps, D);
      q.ensure("view_equals_envelope", view == env_addr);
      q.ensure("envelope_is_D_times_row", env_addr == D * (P * (L * ps) + (l * ps + o)));
    });
  };
  return chain({identity, [&] { return digit_lemma(h, opt.timeout_ms); },
                [&] { return radix_lemma(h, opt.timeout_ms); }, [&] { return stride_lemma(h, opt.timeout_ms); }});
}

// §3.1 MHA: K and V rows of distinct (P, l, o, part) occupy disjoint byte intervals inside their
// page. Composition: within a layer block [0, ps*(k+v)) the K rows [o*k, o*k + k) lie in
// [0, ps*k) and the V rows [ps*k + o*v, ...) in [ps*k, ps*(k+v)) (lemma `block`); rows of one part
// are disjoint by the row-stride lemma (k or v); blocks of distinct (P, l) are disjoint by the
// radix lemma with B = ps*(k+v) (layer index P*L + l, itself unique by radix with B = L).
Outcome mha_rows(const RunOptions& opt) {
  const std::string h = "layout=mha_page_major (§3.1; part 0 = K, 1 = V)";
  auto block = [&]() {
    return check_integer(opt.timeout_ms, {"ps", "k_row", "v_row", "o"}, [&](Query& q, const auto& s) {
      const auto& [ps, k, v, o] = s;
      q.header = h + " lemma=rows_in_layer_block";
      q.require(ps >= Sym(1) && k >= Sym(1) && v >= Sym(1) && o >= Sym(0) && o < ps);
      q.ensure("k_row_in_k_block", o * k >= Sym(0) && o * k + k <= ps * k);
      q.ensure("v_row_in_v_block", ps * k + o * v >= ps * k && ps * k + o * v + v <= ps * (k + v));
      q.ensure("block_is_layer_stride", ps * k + ps * v == ps * (k + v));
    });
  };
  auto page = [&]() {
    return check_integer(opt.timeout_ms, {"ps", "L", "k_row", "v_row", "P", "l"}, [&](Query& q, const auto& s) {
      const auto& [ps, L, k, v, P, l] = s;
      q.header = h + " lemma=layer_block_address";
      q.require(ps >= Sym(1) && L >= Sym(1) && k >= Sym(1) && v >= Sym(1) && P >= Sym(0) && l >= Sym(0) && l < L);
      const Sym page_bytes = L * ps * (k + v);
      q.ensure("block_base_is_stride_times_index",
               P * page_bytes + l * ps * (k + v) == (P * L + l) * (ps * (k + v)));
    });
  };
  return chain({block, page, [&] { return radix_lemma(h, opt.timeout_ms); },
                [&] { return stride_lemma(h, opt.timeout_ms); }});
}

// Scaling: a <= b, D >= 1 => D*a <= D*b (turns row-unit statements into element addresses).
Outcome scale_lemma(const std::string& header, unsigned timeout_ms) {
  return check_integer(timeout_ms, {"D", "a", "b"}, [&](Query& q, const auto& v) {
    const auto& [D, a, b] = v;
    q.header = header + " lemma=scale";
    q.require(D >= Sym(1) && a <= b);
    q.ensure("scaled", D * a <= D * b);
  });
}

// §3.3 dense MLA views, in row units (element address = D * row, rows of D elements; the scale
// lemma carries every row inequality to elements): every row of every view (live or not, up to
// view_rows = N*L*ps) lies inside total + tail pad (N*L*ps + L*ps rows); with `pad` = false the
// tail pad is dropped (the builder's assert). A live id d = P*ps*L + o read through view l stays
// inside layer l's block of page P.
Outcome dense_views(bool pad, const RunOptions& opt) {
  const std::string h = std::string("layout=dense_mla_views tail_pad=") + (pad ? "ps*entry" : "none");
  auto rows = [&]() {
    return check_integer(opt.timeout_ms, {"ps", "L", "num_pages", "l", "d"}, [&](Query& q, const auto& v) {
      const auto& [ps, L, N, l, d] = v;
      const Sym LB = var("L_times_ps");  // L*ps, pinned below; keeps the query linear in l*ps
      const Sym lps = var("l_times_ps");
      q.header = h + " unit=rows";
      q.require(ps >= Sym(1) && L >= Sym(1) && N >= Sym(1) && l >= Sym(0) && l < L);
      q.require(LB == L * ps && lps == l * ps);
      q.require(lps + ps <= LB);  // digit lemma (l < L): proved by digit_range with o = ps - 1
      const Sym view_rows = N * LB;
      q.require(d >= Sym(0) && d < view_rows);
      const Sym buffer_rows = pad ? view_rows + LB : view_rows;
      q.ensure("row_inside_buffer", lps + d >= Sym(0) && lps + d + Sym(1) <= buffer_rows);
      if (pad) {
        const Sym P = var("P"), o = var("o");
        q.require(P >= Sym(0) && P < N && o >= Sym(0) && o < ps);
        const Sym live = lps + (P * LB + o);  // view row of the live id in view l
        const Sym block = P * LB + lps;       // layer l's block of page P
        q.show({{"P", P}, {"o", o}});
        q.ensure("live_row_in_own_layer_block", live >= block && live + Sym(1) <= block + ps);
      }
    });
  };
  if (!pad) return rows();
  return chain({[&] { return digit_lemma(h, opt.timeout_ms); }, rows, [&] { return scale_lemma(h, opt.timeout_ms); }});
}

// §3.3 dense MHA (#34602): byte of K row d in layer l = (2l*ps + d)*R = byte_K(P, l, o), and
// likewise for V. Polynomial identities, proved for all integers (no precondition needed).
Outcome dense_mha(const RunOptions& opt) {
  return check_integer(opt.timeout_ms, {"ps", "L", "R", "P", "l", "o"}, [&](Query& q, const auto& v) {
    const auto& [ps, L, R, P, l, o] = v;
    const Sym d = P * (ps * (Sym(2) * L)) + o;
    const Sym page = L * ps * (R + R);
    q.header = "layout=dense_mha_views (§3.3, M = 2L)";
    q.ensure("k_matches_envelope", (Sym(2) * l * ps + d) * R == P * page + l * ps * (R + R) + o * R);
    q.ensure("v_matches_envelope",
             ((Sym(2) * l + Sym(1)) * ps + d) * R == P * page + l * ps * (R + R) + ps * R + o * R);
  });
}

// §3.4 reserved floor with two sub-pools: a full-attention pool (ps_f, entry_f) and a peer (ps_p,
// entry_p; ps_p = 1 for Mamba). Era C: floor = max(max entry, max over non-Mamba ps*entry);
// Era A (B18): floor = max entry. min_slot = ceil(floor / entry), min_page = ceil(min_slot / ps).
// Conclusion: each page-0 envelope lies inside the floor and the first live page of each
// sub-pool starts at or past the floor (hence past every page-0 envelope). The products
// ps*entry are atoms here; the ceiling lemma (first live byte >= floor) is its own query.
Outcome reserved_floor(bool era_c, const RunOptions& opt) {
  const std::string h = std::string("layout=reserved_floor era=") + (era_c ? "C" : "A (B18)");
  auto floor_q = [&]() {
    return check_integer(opt.timeout_ms, {"ps_full", "entry_full", "ps_peer", "entry_peer"}, [&](Query& q, const auto& v) {
      const auto& [psf, ef, psp, ep] = v;
      const Sym env_f = var("env_full"), env_p = var("env_peer");  // ps*entry of each sub-pool
      z3::context& ctx = Env::current().ctx();
      const z3::expr peer_mamba_e = ctx.bool_const("peer_is_mamba");
      const SymBool peer_mamba(peer_mamba_e);
      auto mx = [](const Sym& a, const Sym& b) { return sym::kv_pick(a < b, b, a); };
      const Sym max_entry = mx(ef, ep);
      const Sym floor_c = mx(max_entry, mx(env_f, sym::kv_pick(peer_mamba, Sym(0), env_p)));
      const Sym floor = era_c ? floor_c : max_entry;
      q.header = h;
      q.require(psf >= Sym(1) && psf <= Sym(kMaxPs) && ef >= Sym(1) && ep >= Sym(1) && psp >= Sym(1) &&
                psp <= Sym(kMaxPs));
      q.require(env_f == psf * ef && env_p == psp * ep);
      q.require(env_f >= ef && env_p >= ep);  // ps >= 1 (scale lemma)
      q.require(sym::implies(peer_mamba, psp == Sym(1)));
      q.show({{"peer_is_mamba", Sym(z3::ite(peer_mamba_e, ctx.int_val(1), ctx.int_val(0)))}, {"floor", floor}});
      q.ensure("page0_envelopes_inside_floor", env_f <= floor && env_p <= floor);
    });
  };
  auto ceiling = [&]() {
    return check_integer(opt.timeout_ms, {"floor", "entry", "ps", "min_slot", "min_page"}, [&](Query& q, const auto& v) {
      const auto& [F, e, p, s, m] = v;
      q.header = h + " lemma=first_live_byte";
      q.require(F >= Sym(0) && e >= Sym(1) && p >= Sym(1));
      q.require(s * e >= F && (s - Sym(1)) * e < F);  // s = ceil(F / e)
      q.require(m * p >= s && (m - Sym(1)) * p < s);  // m = ceil(s / p)
      q.ensure("first_live_byte_past_floor", m * p * e >= F);
    });
  };
  if (!era_c) return floor_q();
  return chain({floor_q, ceiling});
}

// §3.7 token-major (Era D): rows of (x, l) lie inside slot x's entry and never overlap.
// Composition: (1) within an entry the part's layer rows [off + l*stride, ... + row) lie in
// [0, entry) and are disjoint for l1 != l2 (stride >= row); (2) distinct slots: entries
// [x*entry, (x+1)*entry) are disjoint by the radix lemma with B = entry.
Outcome token_major(const RunOptions& opt) {
  const std::string h = "layout=token_major (§3.7)";
  auto within = [&]() {
    const char* const names[] = {"entry_bytes", "part_offset", "layer_stride", "row_bytes", "layers", "l1", "l2"};
    return check_integer(opt.timeout_ms, names, [&](Query& q, const auto& v) {
      const auto& [entry, off, stride, row, layers, l1, l2] = v;
      const Sym a1 = var("l1_times_stride"), a2 = var("l2_times_stride"), last = var("last_times_stride");
      q.header = h + " lemma=rows_in_entry";
      q.require(entry >= Sym(1) && off >= Sym(0) && stride >= row && row >= Sym(1) && layers >= Sym(1));
      q.require(a1 == l1 * stride && a2 == l2 * stride && last == (layers - Sym(1)) * stride);
      q.require(off + last + row <= entry);  // the part fits in the entry
      q.require(l1 >= Sym(0) && l1 < layers && l2 >= Sym(0) && l2 < layers && l1 != l2);
      // monotonicity of l*stride (stride >= 1): l1 < l2 => a1 + stride <= a2, l <= layers - 1 => a <= last
      q.require(sym::implies(l1 < l2, a1 + stride <= a2) && sym::implies(l2 < l1, a2 + stride <= a1));
      q.require(a1 >= Sym(0) && a1 <= last && a2 >= Sym(0) && a2 <= last);
      q.ensure("inside_entry", off + a1 >= Sym(0) && off + a1 + row <= entry);
      q.ensure("layers_disjoint", off + a1 + row <= off + a2 || off + a2 + row <= off + a1);
    });
  };
  auto monotone = [&]() {
    return check_integer(opt.timeout_ms, {"layer_stride", "l1", "l2"}, [&](Query& q, const auto& v) {
      const auto& [stride, l1, l2] = v;
      q.header = h + " lemma=layer_stride_monotone";
      q.require(stride >= Sym(1) && l1 >= Sym(0) && l1 < l2);
      q.ensure("monotone", l1 * stride + stride <= l2 * stride && l1 * stride >= Sym(0));
    });
  };
  return chain({monotone, within, [&] { return radix_lemma(h, opt.timeout_ms); }});
}

}  // namespace

void add_layout_obligations(std::vector<Def>& out) {
  using enum Verdict;
  add_obligations(out, {
      {{"I5.mla_layer_address", "§2.4 I5, §3.1, §3.3",
        "ps, L, D >= 1; 0 <= l < L, 0 <= o < ps, P >= 0; two distinct (P, l, o)",
        "view address l*ps*D + d*D = envelope address; the two rows [addr, addr + D) are disjoint",
        "unbounded integers, all symbolic", proved},
       mla_rows},
      {{"layout.mha_no_collision", "§3.1 MHA",
        "ps, L, k_row, v_row >= 1; distinct (P, l, o, K|V)",
        "row byte intervals are disjoint and inside their page envelope",
        "unbounded integers, all symbolic", proved},
       mha_rows}});
  add_flag_pair(out,
                {"layout.dense_views_in_buffer", "§3.3 tail pad",
                 "ps, L, D, N >= 1; 0 <= l < L, 0 <= d < N*L*ps; live d = P*ps*L + o",
                 "every view row lies in total + ps*entry; a live row stays in layer l's block of page P",
                 "unbounded integers, all symbolic", proved},
                {"layout.dense_views_in_buffer.no_tail_pad", "§3.3 (test_missing_tail_pad_fails_loud)",
                 "as layout.dense_views_in_buffer without the tail pad", "every view row lies in total",
                 "unbounded integers, all symbolic", refuted},
                dense_views);
  add_obligations(out, {
      {{"layout.dense_mha", "§3.3 MHA dense (#34602)",
        "k_row = v_row = R; 0 <= l < L, 0 <= o < ps",
        "(2l*ps + d)*R = byte_K(P, l, o) and ((2l+1)*ps + d)*R = byte_V(P, l, o)",
        "unbounded integers, all symbolic", proved},
       dense_mha}});
  add_flag_pair(out,
                {"layout.reserved_floor.era_c", "§3.4, B18 fix",
                 "two sub-pools (full ps_f, entry_f; peer ps_p, entry_p, Mamba => ps_p = 1), ps <= 2^16",
                 "page-0 envelopes inside the floor; first live page of each sub-pool past both envelopes",
                 "unbounded integers, all symbolic", proved},
                {"layout.reserved_floor.era_a_b18", "§3.4, §6 B18", "as era_c with floor = max entry (Era A)",
                 "as era_c (fails: at ps > 1 the page-0 envelope exceeds the floor)", "unbounded integers, all symbolic",
                 refuted},
                reserved_floor);
  add_obligations(out, {
      {{"layout.token_major", "§3.7",
        "part fits in the entry; distinct (x, l)",
        "rows lie inside their slot's entry and never overlap",
        "unbounded integers, all symbolic", proved},
       token_major}});
}

}  // namespace kvaddr::proofs
