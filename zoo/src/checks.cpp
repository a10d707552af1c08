// The zoo's pool and wiring check families (see checks.hpp).
#include "checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "kvaddr/gen/rng.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"

namespace kvaddr::zoo::detail {
namespace {

using model::SubPool;
using model::VirtualPage;
using model::VirtualToken;

// The draws of case i of a campaign of `seed`: gen/'s SplitMix64 on a sub-stream of the seed.
gen::SplitMix64 case_rng(std::uint64_t seed, int i) { return gen::SplitMix64(gen::substream(seed, static_cast<std::uint64_t>(i))); }

// A pool under test plus the tags every live token must read back.
class PoolHarness {
 public:
  PoolHarness(const PoolRow& row, std::int64_t ps, std::int64_t num_pages)
      : ps_(ps), pool_(model::Geometry(ps, kLayers, num_pages, kLayers, 8, 2),
                       row.e08 ? model::e08_sink_handed_out() : model::SubPoolOptions{}) {
    pool_.plant(row.bug);
  }
  static constexpr std::int64_t kLayers = 2;

  // Allocates a request of n pages (false when the pool is full) and tags its tokens.
  bool alloc(std::int64_t n) {
    std::vector<VirtualToken> toks;
    try {
      toks = pool_.alloc(n);
    } catch (const InvalidState&) {
      return false;
    }
    std::vector<std::int64_t> pages;
    for (auto t : toks) {
      if (t.value % ps_ == 0) pages.push_back(t.value / ps_);
      for (std::int64_t l = 0; l < kLayers; ++l) {
        const std::uint64_t tag = ++next_tag_;
        pool_.write(l, t, tag);
        tags_[{l, t.value}] = tag;
      }
    }
    reqs_.push_back(pages);
    return true;
  }
  // Frees request r (eager or lazy); its pages become stale ids.
  void free_request(std::size_t r, bool eager) {
    std::vector<VirtualPage> pages;
    for (auto p : reqs_[r]) pages.emplace_back(p);
    if (eager) {
      pool_.free_eager(pages);
    } else {
      pool_.free_lazy(pages);
    }
    for (auto p : reqs_[r]) {
      for (std::int64_t o = 0; o < ps_; ++o)
        for (std::int64_t l = 0; l < kLayers; ++l) tags_.erase({l, p * ps_ + o});
      stale_.push_back(p);
    }
    reqs_.erase(reqs_.begin() + static_cast<std::ptrdiff_t>(r));
  }
  // An adversarial free the production allocator must reject (double free / duplicate ids).
  void bad_free(std::vector<std::int64_t> pages, bool eager) {
    std::vector<VirtualPage> vp;
    for (auto p : pages) vp.emplace_back(p);
    try {
      if (eager) {
        pool_.free_eager(vp);
      } else {
        pool_.free_lazy(vp);
      }
    } catch (const kvaddr::Error&) {
      return;  // rejected, as production must
    }
    // Accepted: whatever it unbound is no longer live data (a pool that accepted it must keep
    // every other live token intact, which check() verifies).
    for (auto p : pages) {
      for (auto& req : reqs_) {
        if (std::find(req.begin(), req.end(), p) != req.end()) {
          for (std::int64_t o = 0; o < ps_; ++o)
            for (std::int64_t l = 0; l < kLayers; ++l) tags_.erase({l, p * ps_ + o});
          req.erase(std::remove(req.begin(), req.end(), p), req.end());
        }
      }
    }
  }
  void flush() { pool_.flush(); }

  std::string check() const {
    const auto inv = pool_.check_invariants();
    if (!inv.empty()) return fmt::format("invariant ({}): {}", inv.front().invariant, inv.front().detail);
    const auto v2p = pool_.v2p();
    for (const auto& req : reqs_)
      for (auto p : req) {
        if (v2p[static_cast<std::size_t>(p)] == 0) {
          return fmt::format("live virtual page {} is bound to physical page 0, the sink (E08)", p);
        }
      }
    for (const auto& [key, tag] : tags_) {
      std::uint64_t got = 0;
      try {
        got = pool_.read_virtual(key.first, VirtualToken(key.second));
      } catch (const kvaddr::Error& e) {
        return fmt::format("read-back of t={} layer {} raised: {}", key.second, key.first, e.what());
      }
      if (got != tag) return fmt::format("t={} layer {} reads tag {}, wrote {}", key.second, key.first, got, tag);
    }
    return "";
  }

  std::size_t requests() const { return reqs_.size(); }
  const std::vector<std::int64_t>& stale() const { return stale_; }
  const std::vector<std::int64_t>& request(std::size_t r) const { return reqs_[r]; }

 private:
  std::int64_t ps_;
  SubPool pool_;
  std::vector<std::vector<std::int64_t>> reqs_;
  std::vector<std::int64_t> stale_;
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint64_t> tags_;
  std::uint64_t next_tag_ = 0;
};

std::string guarded(const std::function<std::string()>& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return std::string("raised: ") + e.what();
  }
}

}  // namespace

std::string pool_property(const PoolRow& row, std::uint64_t seed, int cases, int* ran) {
  for (int i = 0; i < cases; ++i) {
    if (ran) *ran = i + 1;
    auto rng = case_rng(seed, i);
    auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.uniform(lo, hi); };
    const std::int64_t ps = std::array<std::int64_t, 3>{1, 2, 4}[static_cast<std::size_t>(pick(0, 2))];
    const std::int64_t step = pick(0, 4);
    auto msg = guarded([&] {
      PoolHarness h(row, ps, pick(10, 24));
      for (std::int64_t r = pick(2, 4); r > 0; --r) h.alloc(pick(1, 3));
      if (auto m = h.check(); !m.empty()) return "after the initial allocations: " + m;
      const auto victim = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(h.requests()) - 1));
      switch (step) {
        case 0: {  // double free: free a request, then free one of its pages again
          const auto pages = h.request(victim);
          h.free_request(victim, pick(0, 1) == 1);
          h.bad_free({pages.front()}, pick(0, 1) == 1);
          break;
        }
        case 1: {  // duplicate ids in one free
          const auto p = h.request(victim).front();
          h.bad_free({p, p}, pick(0, 1) == 1);
          break;
        }
        case 2: h.alloc(pick(2, 4)); break;  // a multi-page allocation
        case 3: h.free_request(victim, true); break;
        default:
          h.free_request(victim, false);
          h.flush();
          break;
      }
      // Refill: recycled ids (and pages) are handed out again and tagged; then release every
      // request and refill once more (a corrupted free list or p2v shows on the second round).
      while (h.alloc(1)) {
      }
      if (auto m = h.check(); !m.empty()) return m;
      while (h.requests() > 0) h.free_request(h.requests() - 1, true);
      while (h.alloc(1)) {
      }
      return h.check();
    });
    if (!msg.empty()) return fmt::format("case {} (ps {}, step {}): {}", i, ps, step, msg);
  }
  return "";
}

std::string pool_stateful(const PoolRow& row, std::uint64_t seed, int runs, int* ran) {
  for (int i = 0; i < runs; ++i) {
    if (ran) *ran = i + 1;
    auto rng = case_rng(seed ^ 0x57a7e, i);
    auto pick = [&](std::int64_t lo, std::int64_t hi) { return rng.uniform(lo, hi); };
    const std::int64_t ps = std::array<std::int64_t, 3>{1, 2, 4}[static_cast<std::size_t>(pick(0, 2))];
    int cmd_no = 0;
    std::string last;
    auto msg = guarded([&] {
      PoolHarness h(row, ps, pick(12, 40));
      const std::int64_t steps = pick(10, 40);
      for (cmd_no = 0; cmd_no < steps; ++cmd_no) {
        const std::int64_t c = pick(0, 9);
        if (c <= 3 || h.requests() == 0) {
          h.alloc(pick(1, 3));
          last = "alloc";
        } else if (c <= 5) {
          h.free_request(static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(h.requests()) - 1)), c == 4);
          last = c == 4 ? "free_eager" : "free_lazy";
        } else if (c == 6) {
          h.flush();
          last = "flush";
        } else if (c == 7 && !h.stale().empty()) {
          h.bad_free({h.stale()[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(h.stale().size()) - 1))]},
                     pick(0, 1) == 1);
          last = "stale free";
        } else if (h.requests() > 0) {
          const auto p = h.request(static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(h.requests()) - 1))).front();
          h.bad_free({p, p}, pick(0, 1) == 1);
          last = "duplicate free";
        }
        if (auto m = h.check(); !m.empty()) return m;
      }
      return std::string();
    });
    if (!msg.empty()) return fmt::format("sequence {} (ps {}), command {} ({}): {}", i, ps, cmd_no, last, msg);
  }
  return "";
}

std::string pool_upstream_grid(const PoolRow& row) {
  return guarded([&]() -> std::string {
    const std::int64_t L = 3;
    // test_dense_matches_formula_ps1 / _paged: d = formula of the live tables.
    for (auto [ps, n] : {std::pair<std::int64_t, std::int64_t>{1, 8}, {4, 12}}) {
      SubPool pool(model::Geometry(ps, L, 16, L, 8, 2), row.e08 ? model::e08_sink_handed_out() : model::SubPoolOptions{});
      pool.plant(row.bug);
      const auto toks = pool.alloc((n + ps - 1) / ps);
      for (auto t : toks) {
        const auto P = pool.to_physical(t).value;
        const auto want = (P / ps) * (ps * L) + P % ps;
        if (pool.to_kernel(t).value != want) return fmt::format("ps {}: d(t={}) != formula {}", ps, t.value, want);
      }
    }
    // test_dense_follows_compaction: 3 x alloc(4), free the middle eagerly, survivors read back.
    SubPool pool(model::Geometry(4, L, 16, L, 8, 2), row.e08 ? model::e08_sink_handed_out() : model::SubPoolOptions{});
    pool.plant(row.bug);
    std::vector<std::vector<VirtualToken>> reqs;
    for (int r = 0; r < 3; ++r) reqs.push_back(pool.alloc(1));
    for (const auto& req : reqs)
      for (auto t : req)
        for (std::int64_t l = 0; l < L; ++l) pool.write(l, t, static_cast<std::uint64_t>(t.value * 10 + l + 1));
    pool.free_eager(std::vector<VirtualPage>{VirtualPage(reqs[1].front().value / 4)});
    for (int r : {0, 2})
      for (auto t : reqs[static_cast<std::size_t>(r)])
        for (std::int64_t l = 0; l < L; ++l) {
          const auto got = pool.read_kernel(l, pool.to_kernel(t));
          if (got != static_cast<std::uint64_t>(t.value * 10 + l + 1)) {
            return fmt::format("compaction: t={} layer {} reads {} through d", t.value, l, got);
          }
        }
    return "";
  });
}

// ---- wiring ------------------------------------------------------------------------------------

std::string wiring_property(model::WiringVariant v, std::uint64_t seed, int cases, int* ran) {
  using namespace model;
  const auto backends = all_backends();
  for (int i = 0; i < cases; ++i) {
    if (ran) *ran = i + 1;
    auto rng = case_rng(seed ^ 0x3171, i);
    auto coin = [&] { return rng.uniform(0, 1) == 1; };
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(n) - 1)); };
    WiringConfig c{};
    c.name = "generated";
    c.upstream = "generated configuration";
    c.backend = backends[pick(backends.size())];
    c.backend_by_default = coin();
    c.kind = std::array{AttentionKind::mla, AttentionKind::dense_mha, AttentionKind::strided_mha}[pick(3)];
    c.gate = coin() ? GateEra::era_b_allowlist : GateEra::three_way;
    c.page_size = coin() ? 1 : 64;
    c.multiplier = std::array<std::int64_t, 3>{1, 24, 48}[pick(3)];
    c.graphs = coin() ? GraphMode::eager : GraphMode::decode_graphs;
    c.full_prefill_graph = coin();
    c.wrapper_backend = coin();
    c.dcp_size = coin() ? 1 : 2;
    c.pd = coin();
    c.swa = coin();
    c.mamba = coin();
    if (!gate_allows(c, WiringVariant::production)) continue;
    const auto f = check_config(c, v);
    if (!f.ok) {
      return fmt::format(
          "case {}: backend {} ({}), {}, ps {}, M {}, {}, prefill graph {}, wrapper {}, dcp {}, pd {}, swa {}, "
          "mamba {}: {}",
          i, to_string(c.backend), c.backend_by_default ? "default" : "pinned", to_string(c.kind), c.page_size,
          c.multiplier, c.graphs == GraphMode::eager ? "eager" : "decode graphs", c.full_prefill_graph,
          c.wrapper_backend, c.dcp_size, c.pd, c.swa, c.mamba, f.starts ? f.detail : "does not start: " + f.detail);
    }
  }
  return "";
}

std::string wiring_coverage(model::WiringVariant v) {
  for (const auto& f : model::check_wiring(v))
    if (!f.ok) return fmt::format("configuration {}: {}", f.config, f.detail.empty() ? "does not start" : f.detail);
  return "";
}

std::string wiring_upstream_grid(model::WiringVariant v) {
  using namespace model;
  auto cfg = [](Backend b, AttentionKind k) {
    WiringConfig c{};
    c.name = "upstream_5_4";
    c.upstream = "test_page_major_backend_allowlist.py";
    c.backend = b;
    c.kind = k;
    c.gate = GateEra::era_b_allowlist;
    c.page_size = 1;
    c.multiplier = 24;
    c.graphs = GraphMode::decode_graphs;
    c.dcp_size = 1;
    return c;
  };
  // §5.4: triton always; the dense MLA backends allowed under unified MLA, rejected for MHA;
  // flashmla, cutlass_mla, trtllm_mha, aiter always rejected.
  if (!gate_allows(cfg(Backend::triton, AttentionKind::mla), v)) return "test_triton_always_allowed (MLA) fails";
  if (!gate_allows(cfg(Backend::triton, AttentionKind::dense_mha), v)) return "test_triton_always_allowed (MHA) fails";
  for (Backend b : {Backend::fa3, Backend::trtllm_mla, Backend::flashinfer, Backend::cutedsl_mla, Backend::tokenspeed_mla}) {
    if (!gate_allows(cfg(b, AttentionKind::mla), v))
      return fmt::format("test_dense_mla_backends_allowed_under_unified_mla: {} rejected", to_string(b));
    if (gate_allows(cfg(b, AttentionKind::dense_mha), v))
      return fmt::format("test_dense_mla_backends_rejected_for_mha: {} allowed", to_string(b));
  }
  for (Backend b : {Backend::flashmla, Backend::cutlass_mla, Backend::trtllm_mha, Backend::aiter})
    if (gate_allows(cfg(b, AttentionKind::mla), v))
      return fmt::format("test_unwired_backends_always_rejected: {} allowed", to_string(b));
  // §5.2 TestUnifiedMLAHookDetection.
  const auto d = v == WiringVariant::b03_detect_multiplier ? DetectVariant::b03_multiplier_gt_one : DetectVariant::production;
  if (unified_mla_hooks(PoolHooks{false, 1}, d).enabled) return "test_static_pool_disables_every_hook fails";
  if (!unified_mla_hooks(PoolHooks{true, 24}, d).enabled) return "test_multi_layer_unified_pool fails";
  if (!unified_mla_hooks(PoolHooks{true, 1}, d).enabled)
    return "test_single_full_attention_layer_pool_is_still_unified: v2p + M 1 not detected";
  return "";
}

}  // namespace kvaddr::zoo::detail
