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

void compact(SubPool& p, const std::vector<VirtualPage>& pages, bool lazy, bool flush_only) {
  const i64 before = static_cast<i64>(p.moves().size());
  const i64 want = lazy ? 0 : predict_moves(p, pages);
  if (flush_only) {
    p.flush();
  } else if (lazy) {
    p.free_lazy(pages);
  } else if (!pages.empty()) {
    p.free_eager(pages);
  }
  const i64 moved = static_cast<i64>(p.moves().size()) - before;
  stateful_counters().moves += moved;
  if (moved != want) {
    RC_FAIL("compaction moved " + std::to_string(moved) + " pages, the vacated band held " + std::to_string(want) +
            " survivors");
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

struct Extend : Checked<Extend> {  // extend (n > 1) or decode (n = 1)
  std::size_t idx;
  i64 n;
  explicit Extend(const SimModel& m) {
    RC_PRE(!m.reqs.empty());
    idx = g::any<std::size_t>(0, m.reqs.size());
    n = g::elem<i64>({1, 1, m.cfg.ps, 2 * m.cfg.ps + 1});
  }
  i64 new_pages(const SimModel& m) const {
    const auto& r = m.reqs[idx];
    return model::ceil_div(r.len + n, m.cfg.ps) - r.pages;
  }
  void checkPreconditions(const SimModel& m) const override {
    RC_PRE(idx < m.reqs.size());
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

struct WriteTags : Checked<WriteTags> {
  std::size_t idx;
  u64 salt;
  explicit WriteTags(const SimModel& m) {
    RC_PRE(!m.reqs.empty());
    idx = g::any<std::size_t>(0, m.reqs.size());
    salt = g::any<u64>(1, 4096);
  }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(idx < m.reqs.size()); }
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

struct FreeReq : Checked<FreeReq> {
  std::size_t idx;
  bool lazy;
  explicit FreeReq(const SimModel& m) {
    RC_PRE(!m.reqs.empty());
    idx = g::any<std::size_t>(0, m.reqs.size());
    lazy = g::coin();
  }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(idx < m.reqs.size()); }
  void apply(SimModel& m) const override {
    m.full_live -= m.reqs[idx].pages;
    m.reqs.erase(m.reqs.begin() + static_cast<std::ptrdiff_t>(idx));
  }
  void exec(const SimModel&, Sim& s) const {
    const auto pages = s.req_pages[idx];
    s.req_pages.erase(s.req_pages.begin() + static_cast<std::ptrdiff_t>(idx));
    if (!pages.empty()) compact(s.full, pages, lazy, false);
  }
  void show(std::ostream& os) const override { os << (lazy ? "FreeLazy(req=" : "FreeEager(req=") << idx << ")"; }
};

// Release the tail pages of a request eagerly (compaction while the request stays live).
struct Truncate : Checked<Truncate> {
  std::size_t idx;
  i64 keep;
  explicit Truncate(const SimModel& m) {
    RC_PRE(!m.reqs.empty());
    idx = g::any<std::size_t>(0, m.reqs.size());
    keep = g::any<i64>(0, m.reqs[idx].len);
  }
  void checkPreconditions(const SimModel& m) const override { RC_PRE((idx < m.reqs.size() && keep < m.reqs[idx].len)); }
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
    if (!tail.empty()) compact(s.full, tail, false, false);
  }
  void show(std::ostream& os) const override { os << "Truncate(req=" << idx << ", keep=" << keep << ")"; }
};

struct Flush : Checked<Flush> {
  explicit Flush(const SimModel&) {}
  void apply(SimModel&) const override {}
  void exec(const SimModel&, Sim& s) const {
    const i64 before = static_cast<i64>(s.full.moves().size());
    const i64 want = predict_moves(s.full, {});
    s.full.flush();
    const i64 moved = static_cast<i64>(s.full.moves().size()) - before;
    stateful_counters().moves += moved;
    if (moved != want) RC_FAIL("flush moved " + std::to_string(moved) + " pages, expected " + std::to_string(want));
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

struct SwaWrite : Checked<SwaWrite> {
  std::size_t idx;
  u64 salt;
  explicit SwaWrite(const SimModel& m) {
    RC_PRE(!m.swa.empty());
    idx = g::any<std::size_t>(0, m.swa.size());
    salt = g::any<u64>(1, 4096);
  }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(idx < m.swa.size()); }
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

struct SwaSlide : Checked<SwaSlide> {
  std::size_t idx;
  i64 k;
  explicit SwaSlide(const SimModel& m) {
    RC_PRE(!m.swa.empty());
    idx = g::any<std::size_t>(0, m.swa.size());
    k = g::any<i64>(1, 3);
  }
  void checkPreconditions(const SimModel& m) const override {
    RC_PRE((idx < m.swa.size() && m.swa[idx].slid + k <= m.swa[idx].pages));
  }
  void apply(SimModel& m) const override {
    m.swa[idx].slid += k;
    m.swa_swa_live -= k;
  }
  void exec(const SimModel& m, Sim& s) const {
    const i64 from = m.swa[idx].slid;
    std::vector<VirtualPage> out(s.swa_pages[idx].begin() + from, s.swa_pages[idx].begin() + from + k);
    const i64 before = static_cast<i64>(s.swa.swa().moves().size());
    const i64 want = predict_moves(s.swa.swa(), out);
    s.swa.slide_out(out);
    const i64 moved = static_cast<i64>(s.swa.swa().moves().size()) - before;
    stateful_counters().moves += moved;
    if (moved != want) RC_FAIL("SWA slide-out moved " + std::to_string(moved) + ", expected " + std::to_string(want));
  }
  void show(std::ostream& os) const override { os << "SwaSlide(req=" << idx << ", pages=" << k << ")"; }
};

struct SwaFree : Checked<SwaFree> {
  std::size_t idx;
  explicit SwaFree(const SimModel& m) {
    RC_PRE(!m.swa.empty());
    idx = g::any<std::size_t>(0, m.swa.size());
  }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(idx < m.swa.size()); }
  void apply(SimModel& m) const override {
    m.swa_full_live -= m.swa[idx].pages;
    m.swa_swa_live -= m.swa[idx].pages - m.swa[idx].slid;
    m.swa.erase(m.swa.begin() + static_cast<std::ptrdiff_t>(idx));
  }
  void exec(const SimModel&, Sim& s) const {
    const i64 before = static_cast<i64>(s.swa.full().moves().size() + s.swa.swa().moves().size());
    s.swa.free(s.swa_pages[idx]);
    s.swa_pages.erase(s.swa_pages.begin() + static_cast<std::ptrdiff_t>(idx));
    stateful_counters().moves += static_cast<i64>(s.swa.full().moves().size() + s.swa.swa().moves().size()) - before;
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

struct MambaWrite : Checked<MambaWrite> {
  std::size_t idx;
  u64 salt;
  explicit MambaWrite(const SimModel& m) {
    RC_PRE(!m.mamba.empty());
    idx = g::any<std::size_t>(0, m.mamba.size());
    salt = g::any<u64>(1, 4096);
  }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(idx < m.mamba.size()); }
  void apply(SimModel& m) const override { m.mamba[idx].tag = make_tag(m.mamba[idx].uid, 0, salt); }
  void exec(const SimModel& m, Sim& s) const {
    s.mamba.pool().write(0, VirtualToken(s.mamba_ids[idx]), make_tag(m.mamba[idx].uid, 0, salt));
  }
  void show(std::ostream& os) const override { os << "MambaWrite(slot=" << idx << ", salt=" << salt << ")"; }
};

struct MambaFree : Checked<MambaFree> {
  std::size_t idx;
  explicit MambaFree(const SimModel& m) {
    RC_PRE(!m.mamba.empty());
    idx = g::any<std::size_t>(0, m.mamba.size());
  }
  void checkPreconditions(const SimModel& m) const override { RC_PRE(idx < m.mamba.size()); }
  void apply(SimModel& m) const override { m.mamba.erase(m.mamba.begin() + static_cast<std::ptrdiff_t>(idx)); }
  void exec(const SimModel&, Sim& s) const {
    const i64 before = static_cast<i64>(s.mamba.pool().moves().size());
    const std::vector<i64> one{s.mamba_ids[idx]};
    s.mamba.free(one);
    s.mamba_ids.erase(s.mamba_ids.begin() + static_cast<std::ptrdiff_t>(idx));
    stateful_counters().moves += static_cast<i64>(s.mamba.pool().moves().size()) - before;
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
