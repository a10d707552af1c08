// Stateful simulation (issue 4, spec §4.14 page_lifecycle, §3.5 SWA, §3.6 Mamba) with rc::state.
//
// System under test: the model's unified-pool simulator (SubPool, SwaComposite, MambaSlots) read
// through the host routes of translate/. The rc::state model is an abstract description: the
// live requests (length, page count, the tag last written at every token), the SWA requests
// (pages slid out of the window) and the Mamba slots. Virtual ids are owned by the SUT; the
// abstract model refers to requests by position.
//
// Per-step hook: RapidCheck has none, so every command derives from `Checked`, whose run()
// executes the command and then checks, on the post-state:
//   * SubPool::check_invariants() of every sub-pool, and an independent re-check of §4.14:
//     v2p / p2v mutual inverses on bound pages, sink pinned (v2p[0] = p2v[0] = 0), trailing
//     sentinel rows -1, no physical page bound twice, bound pages inside [min_page_index, num_pages);
//   * the set of bound virtual pages is exactly the pages of the live requests (no leak, no loss);
//   * every live token reads back its own tag at every layer through every route (token_translate
//     int64 and int32, transfer_ids, dcp_read_translate, write_loc under DCP, canonical_page_table,
//     flashmla_block_table, read_table + read_stream, full_prefill_table, decode_metadata (ps a
//     power of two), eager_funnel, kv_indices_inplace, swa_translate, mamba_translate);
//   * every translated row lands on the physical page bound to the token's virtual page (nothing is
//     read from a freed or moved-away page); slid-out SWA tokens translate to the sink;
//   * compaction commands move exactly the survivors of the vacated band (predicted from the
//     watermark before the command), and the moves are counted.
#include <algorithm>
#include <bit>
#include <memory>
#include <set>
#include <sstream>

#include <rapidcheck/state.h>

#include "check.hpp"
#include "gen.hpp"
#include "stateful_sim.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/model/pool.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::props::detail {

StatefulCounters& stateful_counters() {
  static StatefulCounters c;
  return c;
}

namespace {

namespace tr = kvaddr::translate;
namespace g = kvaddr::props::gen;
using namespace sim;

rc::Gen<SimConfig> gen_config() {
  return rc::gen::exec([] {
    SimConfig c;
    c.ps = g::elem<i64>({1, 2, 4, 3, 8});
    c.L = g::elem<i64>({1, 2, 3});
    c.M = g::elem<i64>({1, c.L});
    c.num_pages = g::any<i64>(2, 21);
    c.mpi = std::min<i64>(g::elem<i64>({1, 2}), c.num_pages - 1);
    c.grow_down = g::coin();
    c.swa_full_pages = g::any<i64>(2, 13);
    c.swa_pages = g::any<i64>(2, c.swa_full_pages + 1);
    c.swa_L = g::elem<i64>({1, 2});
    c.swa_M = g::elem<i64>({1, c.swa_L});
    c.swa_grow_down = g::coin();
    c.mamba_slots = g::any<i64>(2, 10);
    return c;
  });
}

using Cmd = rc::state::Command<SimModel, Sim>;

// Every command runs its body, then the whole post-state check (the per-step hook).
template <class D>
struct Checked : Cmd {
  void run(const SimModel& m, Sim& s) const override {
    static_cast<const D*>(this)->exec(m, s);
    SimModel next = m;
    this->apply(next);
    ++stateful_counters().steps;
    check_all(next, s);
  }
};

// A command on one element of a model collection (a live request, an SWA request, a Mamba slot):
// picks its index when generated and requires it still to name an element when run.
template <class D, auto Coll>
struct OnOne : Checked<D> {
  std::size_t idx;
  explicit OnOne(const SimModel& m) {
    RC_PRE(!(m.*Coll).empty());
    idx = g::any<std::size_t>(0, (m.*Coll).size());
  }
  bool live(const SimModel& m) const { return idx < (m.*Coll).size(); }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(live(m)); }
};

u64 gen_salt() { return g::any<u64>(1, 4096); }

template <class V>
void erase_at(V& v, std::size_t idx) {
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(idx));
}

// Runs `step`, adds the moves it made (the growth of `total()`) to the counters and returns them.
template <class Total, class Step>
i64 count_moves(Total total, Step step) {
  const i64 before = total();
  step();
  const i64 moved = total() - before;
  stateful_counters().moves += moved;
  return moved;
}

i64 moves_of(const SubPool& p) { return static_cast<i64>(p.moves().size()); }

// Runs a compaction `step` on `p` and fails unless it moved exactly `want` pages.
template <class Step>
void expect_moves(const SubPool& p, i64 want, const std::string& what, Step step) {
  const i64 moved = count_moves([&] { return moves_of(p); }, step);
  if (moved != want) RC_FAIL(what + " moved " + std::to_string(moved) + ", expected " + std::to_string(want));
}

// Survivors of the band a compaction vacates once `freeing` (plus pending lazy holes) is released.
i64 predict_moves(const SubPool& p, const std::vector<VirtualPage>& freeing) {
  std::set<i64> freed;
  for (VirtualPage v : freeing) freed.insert(p.v2p()[uz(v.value)]);
  for (auto h : p.lazy_holes()) freed.insert(h.value);
  const i64 k = static_cast<i64>(freed.size());
  const i64 wm = p.watermark();
  i64 survivors = 0;
  const bool up = p.options().grow == GrowDirection::up;
  for (i64 i = 0; i < k; ++i) {
    const i64 P = up ? wm - 1 - i : wm + 1 + i;
    if (!freed.count(P) && p.p2v()[uz(P)] >= 0) ++survivors;
  }
  return survivors;
}

// Frees `pages` of the full sub-pool, lazily (no moves) or eagerly (the survivors of the band move).
void compact(SubPool& p, const std::vector<VirtualPage>& pages, bool lazy) {
  if (lazy) {
    expect_moves(p, 0, "lazy free", [&] { p.free_lazy(pages); });
  } else {
    expect_moves(p, predict_moves(p, pages), "compaction", [&] { p.free_eager(pages); });
  }
}

// ---- commands: full sub-pool ------------------------------------------------------------------
struct AllocReq : Checked<AllocReq> {
  i64 len;
  explicit AllocReq(const SimModel& m) : len(g::any<i64>(1, 3 * m.cfg.ps + 1)) {}
  i64 pages(const SimModel& m) const { return model::ceil_div(len, m.cfg.ps); }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(m.full_live + pages(m) <= m.full_cap()); }
  void apply(SimModel& m) const override {
    const i64 n = pages(m);
    m.reqs.push_back(ReqM{m.next_uid++, len, n, std::vector<u64>(uz(n * m.cfg.ps), 0)});
    m.full_live += n;
  }
  void exec(const SimModel& m, Sim& s) const { s.req_pages.push_back(s.full.alloc_pages(pages(m))); }
  void show(std::ostream& os) const override { os << "AllocReq(len=" << len << ")"; }
};

struct Extend : OnOne<Extend, &SimModel::reqs> {  // extend (n > 1) or decode (n = 1)
  i64 n;
  explicit Extend(const SimModel& m) : OnOne(m), n(g::elem<i64>({1, 1, m.cfg.ps, 2 * m.cfg.ps + 1})) {}
  i64 new_pages(const SimModel& m) const {
    const auto& r = m.reqs[idx];
    return model::ceil_div(r.len + n, m.cfg.ps) - r.pages;
  }
  void checkPreconditions(const SimModel& m) const override {
    RC_PRE(live(m));
    RC_PRE(m.full_live + new_pages(m) <= m.full_cap());
  }
  void apply(SimModel& m) const override {
    const i64 k = new_pages(m);
    auto& r = m.reqs[idx];
    r.len += n;
    r.pages += k;
    r.tags.resize(uz(r.pages * m.cfg.ps), 0);
    m.full_live += k;
  }
  void exec(const SimModel& m, Sim& s) const {
    const i64 k = new_pages(m);
    if (k > 0) {
      for (VirtualPage v : s.full.alloc_pages(k)) s.req_pages[idx].push_back(v);
    }
  }
  void show(std::ostream& os) const override { os << (n == 1 ? "Decode(req=" : "Extend(req=") << idx << ", n=" << n << ")"; }
};

struct WriteTags : OnOne<WriteTags, &SimModel::reqs> {
  u64 salt;
  explicit WriteTags(const SimModel& m) : OnOne(m), salt(gen_salt()) {}
  void apply(SimModel& m) const override {
    auto& r = m.reqs[idx];
    for (i64 j = 0; j < r.len; ++j) r.tags[uz(j)] = make_tag(r.uid, j, salt);
  }
  void exec(const SimModel& m, Sim& s) const {
    const auto& r = m.reqs[idx];
    const i64 ps = m.cfg.ps;
    for (i64 j = 0; j < r.len; ++j) {
      const VirtualToken t(s.req_pages[idx][uz(j / ps)].value * ps + j % ps);
      for (i64 l = 0; l < m.cfg.L; ++l) s.full.write(l, t, layer_tag(make_tag(r.uid, j, salt), l));
    }
  }
  void show(std::ostream& os) const override { os << "WriteTags(req=" << idx << ", salt=" << salt << ")"; }
};

struct FreeReq : OnOne<FreeReq, &SimModel::reqs> {
  bool lazy;
  explicit FreeReq(const SimModel& m) : OnOne(m), lazy(g::coin()) {}
  void apply(SimModel& m) const override {
    m.full_live -= m.reqs[idx].pages;
    erase_at(m.reqs, idx);
  }
  void exec(const SimModel&, Sim& s) const {
    const auto pages = s.req_pages[idx];
    erase_at(s.req_pages, idx);
    if (!pages.empty()) compact(s.full, pages, lazy);
  }
  void show(std::ostream& os) const override { os << (lazy ? "FreeLazy(req=" : "FreeEager(req=") << idx << ")"; }
};

// Release the tail pages of a request eagerly (compaction while the request stays live).
struct Truncate : OnOne<Truncate, &SimModel::reqs> {
  i64 keep;
  explicit Truncate(const SimModel& m) : OnOne(m), keep(g::any<i64>(0, m.reqs[idx].len)) {}
  void checkPreconditions(const SimModel& m) const override { RC_PRE((live(m) && keep < m.reqs[idx].len)); }
  void apply(SimModel& m) const override {
    auto& r = m.reqs[idx];
    const i64 pages = model::ceil_div(keep, m.cfg.ps);
    m.full_live -= r.pages - pages;
    r.len = keep;
    r.pages = pages;
    r.tags.resize(uz(pages * m.cfg.ps));
  }
  void exec(const SimModel& m, Sim& s) const {
    const i64 pages = model::ceil_div(keep, m.cfg.ps);
    auto& rp = s.req_pages[idx];
    std::vector<VirtualPage> tail(rp.begin() + static_cast<std::ptrdiff_t>(pages), rp.end());
    rp.resize(uz(pages));
    if (!tail.empty()) compact(s.full, tail, false);
  }
  void show(std::ostream& os) const override { os << "Truncate(req=" << idx << ", keep=" << keep << ")"; }
};

struct Flush : Checked<Flush> {
  explicit Flush(const SimModel&) {}
  void apply(SimModel&) const override {}
  void exec(const SimModel&, Sim& s) const {
    expect_moves(s.full, predict_moves(s.full, {}), "flush", [&] { s.full.flush(); });
  }
  void show(std::ostream& os) const override { os << "Flush"; }
};

// ---- commands: SWA composite ------------------------------------------------------------------
struct SwaAlloc : Checked<SwaAlloc> {
  i64 n;
  explicit SwaAlloc(const SimModel&) : n(g::any<i64>(1, 4)) {}
  void checkPreconditions(const SimModel& m) const override {
    RC_PRE((m.swa_full_live + n <= m.swa_full_cap() && m.swa_swa_live + n <= m.swa_cap()));
  }
  void apply(SimModel& m) const override {
    m.swa.push_back(SwaReqM{m.next_uid++, n, 0, std::vector<u64>(uz(n * m.cfg.ps), 0)});
    m.swa_full_live += n;
    m.swa_swa_live += n;
  }
  void exec(const SimModel& m, Sim& s) const {
    const auto toks = s.swa.alloc(n);
    std::vector<VirtualPage> pages;
    for (std::size_t k = 0; k < toks.size(); k += uz(m.cfg.ps)) pages.push_back(VirtualPage(toks[k].value / m.cfg.ps));
    s.swa_pages.push_back(pages);
  }
  void show(std::ostream& os) const override { os << "SwaAlloc(pages=" << n << ")"; }
};

struct SwaWrite : OnOne<SwaWrite, &SimModel::swa> {
  u64 salt;
  explicit SwaWrite(const SimModel& m) : OnOne(m), salt(gen_salt()) {}
  void apply(SimModel& m) const override {
    auto& r = m.swa[idx];
    for (i64 j = 0; j < r.pages * m.cfg.ps; ++j) r.tags[uz(j)] = make_tag(r.uid, j, salt);
  }
  void exec(const SimModel& m, Sim& s) const {
    const auto& r = m.swa[idx];
    const i64 ps = m.cfg.ps;
    for (i64 j = 0; j < r.pages * ps; ++j) {
      const VirtualToken t(s.swa_pages[idx][uz(j / ps)].value * ps + j % ps);
      const u64 tag = make_tag(r.uid, j, salt);
      for (i64 l = 0; l < m.cfg.L; ++l) s.swa.full().write(l, t, layer_tag(tag, l));
      if (j / ps >= r.slid) {
        for (i64 l = 0; l < m.cfg.swa_L; ++l) s.swa.swa().write(l, t, layer_tag(~tag, l));
      }
    }
  }
  void show(std::ostream& os) const override { os << "SwaWrite(req=" << idx << ", salt=" << salt << ")"; }
};

struct SwaSlide : OnOne<SwaSlide, &SimModel::swa> {
  i64 k;
  explicit SwaSlide(const SimModel& m) : OnOne(m), k(g::any<i64>(1, 3)) {}
  void checkPreconditions(const SimModel& m) const override {
    RC_PRE((live(m) && m.swa[idx].slid + k <= m.swa[idx].pages));
  }
  void apply(SimModel& m) const override {
    m.swa[idx].slid += k;
    m.swa_swa_live -= k;
  }
  void exec(const SimModel& m, Sim& s) const {
    const i64 from = m.swa[idx].slid;
    std::vector<VirtualPage> out(s.swa_pages[idx].begin() + from, s.swa_pages[idx].begin() + from + k);
    expect_moves(s.swa.swa(), predict_moves(s.swa.swa(), out), "SWA slide-out", [&] { s.swa.slide_out(out); });
  }
  void show(std::ostream& os) const override { os << "SwaSlide(req=" << idx << ", pages=" << k << ")"; }
};

struct SwaFree : OnOne<SwaFree, &SimModel::swa> {
  using OnOne::OnOne;
  void apply(SimModel& m) const override {
    m.swa_full_live -= m.swa[idx].pages;
    m.swa_swa_live -= m.swa[idx].pages - m.swa[idx].slid;
    erase_at(m.swa, idx);
  }
  void exec(const SimModel&, Sim& s) const {
    count_moves([&] { return moves_of(s.swa.full()) + moves_of(s.swa.swa()); }, [&] {
      s.swa.free(s.swa_pages[idx]);
      erase_at(s.swa_pages, idx);
    });
  }
  void show(std::ostream& os) const override { os << "SwaFree(req=" << idx << ")"; }
};

// ---- commands: Mamba slots --------------------------------------------------------------------
struct MambaAlloc : Checked<MambaAlloc> {
  explicit MambaAlloc(const SimModel&) {}
  void checkPreconditions(const SimModel& m) const override {
    RC_PRE(static_cast<i64>(m.mamba.size()) < m.cfg.mamba_slots - 1);
  }
  void apply(SimModel& m) const override { m.mamba.push_back(MambaM{m.next_uid++, 0}); }
  void exec(const SimModel&, Sim& s) const { s.mamba_ids.push_back(s.mamba.alloc(1).at(0)); }
  void show(std::ostream& os) const override { os << "MambaAlloc"; }
};

struct MambaWrite : OnOne<MambaWrite, &SimModel::mamba> {
  u64 salt;
  explicit MambaWrite(const SimModel& m) : OnOne(m), salt(gen_salt()) {}
  void apply(SimModel& m) const override { m.mamba[idx].tag = make_tag(m.mamba[idx].uid, 0, salt); }
  void exec(const SimModel& m, Sim& s) const {
    s.mamba.pool().write(0, VirtualToken(s.mamba_ids[idx]), make_tag(m.mamba[idx].uid, 0, salt));
  }
  void show(std::ostream& os) const override { os << "MambaWrite(slot=" << idx << ", salt=" << salt << ")"; }
};

struct MambaFree : OnOne<MambaFree, &SimModel::mamba> {
  using OnOne::OnOne;
  void apply(SimModel& m) const override { erase_at(m.mamba, idx); }
  void exec(const SimModel&, Sim& s) const {
    count_moves([&] { return moves_of(s.mamba.pool()); }, [&] {
      s.mamba.free(std::vector<i64>{s.mamba_ids[idx]});
      erase_at(s.mamba_ids, idx);
    });
  }
  void show(std::ostream& os) const override { os << "MambaFree(slot=" << idx << ")"; }
};

void prop_stateful(Variant v) {
  SimConfig cfg = *gen_config();
  cfg.variant = v;
  SimModel m0;
  m0.cfg = cfg;
  Sim sim(cfg);
  check_all(m0, sim);
  rc::state::check(m0, sim,
                   rc::state::gen::execOneOfWithArgs<AllocReq, AllocReq, Extend, Extend, WriteTags, WriteTags, FreeReq,
                                                     FreeReq, Truncate, Flush, SwaAlloc, SwaWrite, SwaSlide, SwaFree,
                                                     MambaAlloc, MambaWrite, MambaFree>());
}

}  // namespace

void register_stateful_property(std::vector<PropertyDef>& out) {
  using V = Variant;
  using R = Route;
  out.push_back({{"stateful_pool",
                  "rc::state over SubPool / SwaComposite / MambaSlots: §4.14 invariants and tag read-back through "
                  "every route after every command; compaction moves counted",
                  {V::b16_virtual_as_physical, V::b17_doc_formula, V::b04_prefill_no_remap, V::b14_dcp_untranslated,
                   V::b11_swa_no_clamp}, {R::transfer_ids, R::token_translate, R::full_prefill_table, R::dcp_read_translate, R::swa_translate}},
                 prop_stateful});
}

}  // namespace kvaddr::props::detail
