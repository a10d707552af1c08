// The stateful simulation's post-state checks (see stateful.cpp's header for the list): §4.14
// invariants of every sub-pool, no leak or loss of bound pages, and the read-back of every live
// token's tag through every route.
#include <algorithm>
#include <bit>
#include <set>
#include <string>

#include <rapidcheck.h>

#include "stateful_sim.hpp"
#include "table_args.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::props::detail::sim {
namespace {

namespace tr = kvaddr::translate;

// ---- post-state checks ------------------------------------------------------------------------
[[noreturn]] void fail(const std::string& what) { RC_FAIL(what); }

void check_pool(std::string_view name, const SubPool& p, const std::set<i64>& live_pages) {
  const auto viol = p.check_invariants();
  if (!viol.empty()) fail(std::string(name) + ": invariant (" + viol[0].invariant + ") " + viol[0].detail);
  const auto v2p = p.v2p();
  const auto p2v = p.p2v();
  const i64 nv = p.tables().num_virtual_ids();
  const i64 np = p.tables().num_pages();
  const i64 mpi = p.tables().min_page_index();
  if (v2p[0] != 0 || p2v[0] != 0) fail(std::string(name) + ": sink not pinned (v2p[0], p2v[0] must be 0)");
  if (v2p[uz(nv)] != -1) fail(std::string(name) + ": trailing v2p sentinel row is not -1");
  if (p2v[uz(np)] != -1) fail(std::string(name) + ": trailing p2v sentinel row is not -1");
  std::set<i64> seen_phys;
  std::set<i64> bound;
  for (i64 v = 1; v < nv; ++v) {
    const i64 P = v2p[uz(v)];
    if (P < 0) continue;
    bound.insert(v);
    if (P < std::max<i64>(mpi, 1) || P >= np) fail(std::string(name) + ": v2p[" + std::to_string(v) + "] = " + std::to_string(P) + " outside the pool");
    if (!seen_phys.insert(P).second) fail(std::string(name) + ": physical page " + std::to_string(P) + " bound twice");
    if (p2v[uz(P)] != v) fail(std::string(name) + ": p2v[v2p[" + std::to_string(v) + "]] != " + std::to_string(v));
  }
  for (i64 P = 1; P < np; ++P) {
    const i64 v = p2v[uz(P)];
    if (v >= 0 && (v >= nv || v2p[uz(v)] != P)) fail(std::string(name) + ": v2p[p2v[" + std::to_string(P) + "]] != " + std::to_string(P));
  }
  if (bound != live_pages) fail(std::string(name) + ": bound virtual pages differ from the live requests' pages (leak or loss)");
}

template <class F>
void route(std::string_view name, F&& f) {
  (void)call_route(name, Expect{}, std::forward<F>(f));
}

// A live token of the full pool: where it is, what it must read.
struct Live {
  i64 t, page, o, req, j;
  u64 tag;  // 0 = never written (placement checked, tag not)
};

void expect_row(std::string_view via, const Sim& s, const Live& x, i64 row_d) {
  const i64 S = s.cfg.ps * s.cfg.M;
  const i64 P = row_d / S;
  if (row_d < 0 || row_d % S != x.o || P >= s.full.tables().num_pages() || s.full.p2v()[uz(P)] != x.page) {
    fail(std::string(via) + ": token " + std::to_string(x.t) + " (req " + std::to_string(x.req) + ", pos " +
         std::to_string(x.j) + ") translated to row " + std::to_string(row_d) +
         ", which is not on the physical page bound to its virtual page");
  }
  if (x.tag == 0) return;
  for (i64 l = 0; l < s.cfg.L; ++l) {
    const u64 got = s.full.read_kernel(l, model::KernelId(row_d));
    if (got != layer_tag(x.tag, l)) {
      fail(std::string(via) + ": token " + std::to_string(x.t) + " layer " + std::to_string(l) + " read tag " +
           std::to_string(got) + ", wrote " + std::to_string(layer_tag(x.tag, l)) + " (tag lost or stale page)");
    }
  }
}

void readback_full(const SimModel& m, Sim& s) {
  const i64 ps = m.cfg.ps, M = m.cfg.M;
  const Variant v = m.cfg.variant;
  const std::vector<i64> v2p(s.full.v2p().begin(), s.full.v2p().end());
  std::vector<Live> live;
  std::vector<i64> ids;
  for (std::size_t r = 0; r < m.reqs.size(); ++r) {
    for (i64 j = 0; j < m.reqs[r].len; ++j) {
      const i64 page = s.req_pages[r][uz(j / ps)].value;
      live.push_back(Live{page * ps + j % ps, page, j % ps, static_cast<i64>(r), j, m.reqs[r].tags[uz(j)]});
      ids.push_back(live.back().t);
    }
  }
  const i64 n = static_cast<i64>(ids.size());
  // token_translate int64 / int32
  std::vector<i64> d(ids.size(), -5);
  {
    TokenTranslateArgs<i64> a{cvec(ids), cvec(v2p), ps, M, mvec(d), for_route(Route::token_translate, v)};
    route("token_translate", [&] { tr::token_translate(a); });
    for (std::size_t i = 0; i < live.size(); ++i) expect_row("token_translate", s, live[i], d[i]);
    std::vector<i32> d32(ids.size(), -5);
    TokenTranslateArgs<i32> b{cvec(ids), cvec(v2p), ps, M, mvec(d32), for_route(Route::token_translate, v)};
    route("token_translate<int32>", [&] { tr::token_translate(b); });
    for (std::size_t i = 0; i < live.size(); ++i) expect_row("token_translate<int32>", s, live[i], d32[i]);
  }
  // transfer_ids: physical tokens, read at the physical address
  {
    std::vector<i64> x(ids.size(), -5);
    TransferIdsArgs a{cvec(ids), cvec(v2p), ps, mvec(x), for_route(Route::transfer_ids, v)};
    route("transfer_ids", [&] { tr::transfer_ids(a); });
    for (std::size_t i = 0; i < live.size(); ++i) {
      const auto& L = live[i];
      if (x[i] < 0 || x[i] % ps != L.o || s.full.p2v()[uz(x[i] / ps)] != L.page)
        fail("transfer_ids: token " + std::to_string(L.t) + " -> physical " + std::to_string(x[i]) + " not on its bound page");
      if (L.tag != 0 && s.full.read_physical(0, model::PhysicalToken(x[i])) != layer_tag(L.tag, 0))
        fail("transfer_ids: physical read of token " + std::to_string(L.t) + " lost its tag");
    }
  }
  // DCP: widened reads and write locs (dcp_size 2)
  {
    std::vector<i64> w, out(ids.size(), -5);
    for (std::size_t i = 0; i < ids.size(); ++i) w.push_back(ids[i] * 2 + static_cast<i64>(i % 2));
    DcpReadTranslateArgs a{cvec(w), cvec(v2p), ps, M, 2, mvec(out), for_route(Route::dcp_read_translate, v)};
    route("dcp_read_translate", [&] { tr::dcp_read_translate(a); });
    for (std::size_t i = 0; i < live.size(); ++i) expect_row("dcp_read_translate", s, live[i], out[i]);
    for (i64 rank = 0; rank < 2; ++rank) {
      std::vector<i64> loc, wl(ids.size() + 2, 77);
      for (i64 t : ids) loc.push_back(t * 2 + rank);
      auto b = write_loc_args(v, loc, v2p, ps, M, 2, rank, wl);
      route("write_loc", [&] { tr::write_loc(b); });
      for (std::size_t i = 0; i < live.size(); ++i) expect_row("write_loc", s, live[i], wl[i]);
      if (wl[ids.size()] != 0 || wl[ids.size() + 1] != 0) fail("write_loc: padded tail lanes are not the sink");
    }
  }
  // Page-granular routes over a req_to_token with a non-identity row assignment.
  const i64 B = static_cast<i64>(m.reqs.size());
  i64 maxp = 1;
  for (const auto& r : m.reqs) maxp = std::max(maxp, r.pages);
  const i64 R = B + 1, C = maxp * ps;
  std::vector<i32> r2t(uz(R * C), -1);
  std::vector<i64> rows, lens;
  for (i64 b = 0; b < B; ++b) {
    const i64 row = R - 1 - b;  // reversed: row b of the batch is not pool row b
    rows.push_back(row);
    lens.push_back(m.reqs[uz(b)].len);
    for (i64 j = 0; j < m.reqs[uz(b)].pages * ps; ++j)
      r2t[uz(row * C + j)] = static_cast<i32>(s.req_pages[uz(b)][uz(j / ps)].value * ps + j % ps);
  }
  auto check_table = [&](std::string_view via, const std::vector<i32>& table, i64 cols) {
    for (const auto& L : live) {
      const i64 entry = table[uz(L.req * cols + L.j / ps)];
      expect_row(via, s, L, entry * ps + L.o);
    }
  };
  const Mat<const i32> r2t_view = cmat(r2t, R, C);
  const i64 Bm = std::max<i64>(B, 1);
  const TableBatch batch{r2t_view, cvec(rows), cvec(lens), maxp};
  // A page-table route over the batch (its arguments by manifest name, table_args) into the Bm x maxp
  // table `out`, which is then checked against the pool.
  auto table_route = [&](auto spec, std::vector<i32>& out, ViewSource extra = {}) {
    using Spec = decltype(spec);
    const auto a = table_args<Spec>(v, batch, v2p, ps, M, {out.data(), Bm, maxp, maxp, 1}, extra);
    route(Spec::name, [&] { Spec::run(a); });
    check_table(Spec::name, out, maxp);
  };
  {
    std::vector<i32> t(uz(Bm * maxp), -9);
    table_route(RouteSpec<Route::canonical_page_table>{}, t);
    std::vector<i32> f(t.size(), -1);
    table_route(RouteSpec<Route::flashmla_block_table>{}, f);
    std::vector<i32> fp(t.size(), -9);
    table_route(RouteSpec<Route::full_prefill_table>{}, fp);
    std::vector<i32> rt(t.size(), -9);
    table_route(RouteSpec<Route::read_table>{}, rt);

    std::vector<i32> indptr(1, 0);
    for (i64 b = 0; b < B; ++b) indptr.push_back(static_cast<i32>(indptr.back() + lens[uz(b)]));
    std::vector<i32> stream(uz(n), -9);
    ReadStreamArgs sa;
    sa.table = {rt.data(), Bm, maxp, maxp, 1};
    sa.indptr = cvec(indptr);
    sa.page_size = ps;
    sa.stream = mvec(stream);
    route("read_stream", [&] { tr::read_stream(sa); });
    for (std::size_t i = 0; i < live.size(); ++i) expect_row("read_stream", s, live[i], stream[i]);

    std::vector<i32> kv(uz(n) + 1, 1 << 30);
    for (std::size_t i = 0; i < ids.size(); ++i) kv[i] = static_cast<i32>(ids[i]);
    KvIndicesInplaceArgs ka;
    ka.kv_indices = mvec(kv);
    ka.kv_indptr = cvec(indptr);
    ka.batch_size = B;
    ka.v2p = cvec(v2p);
    ka.page_size = ps;
    ka.multiplier = M;
    ka.variant = for_route(Route::kv_indices_inplace, v);
    route("kv_indices_inplace", [&] { tr::kv_indices_inplace(ka); });
    for (std::size_t i = 0; i < live.size(); ++i) expect_row("kv_indices_inplace", s, live[i], kv[i]);
    if (kv[uz(n)] != (1 << 30)) fail("kv_indices_inplace: translated past kv_indptr[bs]");

    std::vector<i64> starts(uz(Bm * maxp), -1), fo(starts.size(), -9);
    for (i64 b = 0; b < B; ++b)
      for (i64 c = 0; c < m.reqs[uz(b)].pages; ++c) starts[uz(b * maxp + c)] = r2t[uz(rows[uz(b)] * C + c * ps)];
    const EagerFunnelArgs ea = eager_funnel_args(v, starts, Bm, maxp, v2p, ps, M, fo);
    route("eager_funnel", [&] { tr::eager_funnel(ea); });
    std::vector<i32> fo32;
    for (i64 x : fo) fo32.push_back(static_cast<i32>(x));
    check_table("eager_funnel", fo32, maxp);

    if (std::has_single_bit(static_cast<std::uint64_t>(ps))) {
      std::vector<i32> pt(t.size(), -9), cache(uz(B)), cu(uz(B + 1));
      ViewSource extra;
      extra.set("cache_seqlens", mvec(cache));
      extra.set("cu_seqlens_k", mvec(cu));
      table_route(RouteSpec<Route::decode_metadata>{}, pt, extra);
    }
  }
}

void readback_swa(const SimModel& m, Sim& s) {
  const i64 ps = m.cfg.ps;
  const Variant v = m.cfg.variant;
  const std::vector<i64> fv2p(s.swa.full().v2p().begin(), s.swa.full().v2p().end());
  const std::vector<i64> sv2p(s.swa.swa().v2p().begin(), s.swa.swa().v2p().end());
  std::vector<i64> ids;
  for (std::size_t r = 0; r < m.swa.size(); ++r)
    for (i64 j = 0; j < m.swa[r].pages * ps; ++j) ids.push_back(s.swa_pages[r][uz(j / ps)].value * ps + j % ps);
  std::vector<i64> fd(ids.size(), -5), sd(ids.size(), -5);
  std::vector<i32> sd32(ids.size(), -5);
  TokenTranslateArgs<i64> fa{cvec(ids), cvec(fv2p), ps, m.cfg.L, mvec(fd), for_route(Route::token_translate, v)};
  route("token_translate (SWA full side)", [&] { tr::token_translate(fa); });
  SwaTranslateArgs<i64> sa{cvec(ids), cvec(sv2p), ps, m.cfg.swa_M, mvec(sd), for_route(Route::swa_translate, v)};
  route("swa_translate", [&] { tr::swa_translate(sa); });
  SwaTranslateArgs<i32> sb{cvec(ids), cvec(sv2p), ps, m.cfg.swa_M, mvec(sd32), for_route(Route::swa_translate, v)};
  route("swa_translate<int32>", [&] { tr::swa_translate(sb); });
  std::size_t i = 0;
  const i64 Sswa = ps * m.cfg.swa_M;
  for (std::size_t r = 0; r < m.swa.size(); ++r) {
    for (i64 j = 0; j < m.swa[r].pages * ps; ++j, ++i) {
      const u64 tag = m.swa[r].tags[uz(j)];
      const i64 page = ids[i] / ps;
      if (s.swa.full().p2v()[uz(fd[i] / (ps * m.cfg.L))] != page) fail("SWA full side: token not on its bound page");
      if (sd[i] != sd32[i]) fail("swa_translate int32 and int64 outputs differ");
      if (j / ps < m.swa[r].slid) {
        if (sd[i] != 0) fail("swa_translate: slid-out token " + std::to_string(ids[i]) + " -> " + std::to_string(sd[i]) + ", not the sink");
        continue;
      }
      if (sd[i] < 0 || s.swa.swa().p2v()[uz(sd[i] / Sswa)] != page || sd[i] % Sswa != j % ps)
        fail("swa_translate: token " + std::to_string(ids[i]) + " -> " + std::to_string(sd[i]) + " not on its bound SWA page");
      if (tag == 0) continue;
      for (i64 l = 0; l < m.cfg.L; ++l)
        if (s.swa.full().read_kernel(l, model::KernelId(fd[i])) != layer_tag(tag, l)) fail("SWA full side: tag lost");
      for (i64 l = 0; l < m.cfg.swa_L; ++l)
        if (s.swa.swa().read_kernel(l, model::KernelId(sd[i])) != layer_tag(~tag, l)) fail("SWA side: tag lost");
    }
  }
}

void readback_mamba(const SimModel& m, Sim& s) {
  const std::vector<i64> v2p(s.mamba.pool().v2p().begin(), s.mamba.pool().v2p().end());
  std::vector<i32> x(s.mamba_ids.size(), -5);
  MambaTranslateArgs a{cvec(s.mamba_ids), cvec(v2p), false, mvec(x)};
  route("mamba_translate", [&] { tr::mamba_translate(a); });
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] != s.mamba.translate(s.mamba_ids[i])) fail("mamba_translate differs from MambaSlots::translate");
    if (x[i] <= 0 || s.mamba.pool().p2v()[uz(x[i])] != s.mamba_ids[i]) fail("mamba_translate: slot not bound to its id");
    if (m.mamba[i].tag != 0 && s.mamba.pool().read_physical(0, model::PhysicalToken(x[i])) != m.mamba[i].tag)
      fail("mamba slot " + std::to_string(s.mamba_ids[i]) + " lost its tag");
  }
}

}  // namespace

void check_all(const SimModel& m, Sim& s) {
  if (s.req_pages.size() != m.reqs.size() || s.swa_pages.size() != m.swa.size() || s.mamba_ids.size() != m.mamba.size())
    fail("SUT and model disagree on the number of live requests");
  std::set<i64> full_live, swa_full_live, swa_live, mamba_live;
  for (std::size_t r = 0; r < m.reqs.size(); ++r) {
    if (static_cast<i64>(s.req_pages[r].size()) != m.reqs[r].pages) fail("request page count differs from the model");
    for (auto p : s.req_pages[r]) full_live.insert(p.value);
  }
  for (std::size_t r = 0; r < m.swa.size(); ++r) {
    for (std::size_t k = 0; k < s.swa_pages[r].size(); ++k) {
      swa_full_live.insert(s.swa_pages[r][k].value);
      if (static_cast<i64>(k) >= m.swa[r].slid) swa_live.insert(s.swa_pages[r][k].value);
    }
  }
  for (i64 id : s.mamba_ids) mamba_live.insert(id);
  check_pool("full", s.full, full_live);
  check_pool("swa.full", s.swa.full(), swa_full_live);
  check_pool("swa.swa", s.swa.swa(), swa_live);
  check_pool("mamba", s.mamba.pool(), mamba_live);
  readback_full(m, s);
  readback_swa(m, s);
  readback_mamba(m, s);
}

}  // namespace kvaddr::props::detail::sim
