// Lifecycle simulator: admission, finish, and the decode / speculative step (eager or graph replay).
#include <algorithm>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/lifecycle.hpp"

namespace kvaddr::model::lifecycle {

namespace {
std::size_t uz(std::int64_t v) { return static_cast<std::size_t>(v); }
std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::string str(std::int64_t v) { return std::to_string(v); }
constexpr std::int64_t kMaxRequests = 6;
}  // namespace

bool LifecycleSim::alloc_pages(Pool p, std::int64_t n, std::vector<std::int64_t>& out, Effects& fx) {
  if (n <= 0) return true;
  std::vector<VirtualPage> got;
  try {
    got = mut_pool(p).alloc_pages(n);
  } catch (const InvalidState&) {
    return false;  // out of pages: the caller skips the request
  }
  const auto& s = params(p);
  for (VirtualPage v : got) {
    out.push_back(v.value);
    if (p == Pool::full) {  // handed-out envelopes of the MLA full pool are zeroed (#33974)
      const std::int64_t P = pool(p).v2p()[uz(v.value)];
      fx.spans.push_back({p, P, span_start(p, P, true), s.page_bytes, "zero"});
    }
  }
  return true;
}

// Columns wholly below the request's current token slide out of the window (oldest first) while more
// than swa_window_pages stay mapped; `one` slides one such column whatever the count.
void LifecycleSim::slide_window(Request& r, bool one) {
  const std::int64_t keep_col = r.seq / params(Pool::swa).page_size;
  std::int64_t mapped = 0;
  for (char m : r.swa_mapped) mapped += m ? 1 : 0;
  for (std::int64_t col = 0; col < keep_col && col < static_cast<std::int64_t>(r.swa_mapped.size()); ++col) {
    if (!one && mapped <= cfg_.swa_window_pages) break;
    if (!r.swa_mapped[uz(col)]) continue;
    r.swa_mapped[uz(col)] = 0;
    --mapped;
    if (r.swa_pages[uz(col)] >= 0) {
      const VirtualPage v(r.swa_pages[uz(col)]);
      mut_pool(Pool::swa).free_lazy(std::span<const VirtualPage>(&v, 1));
    }
    if (one) break;
  }
}

void LifecycleSim::admit(std::uint64_t pick, Effects& fx) {
  if (static_cast<std::int64_t>(requests_.size()) >= kMaxRequests) return;
  Request r;
  r.id = next_id_++;
  r.seq = 1 + static_cast<std::int64_t>(pick % uz(std::max<std::int64_t>(context_len() / 2, 1)));
  std::vector<std::int64_t> slot;
  if (!alloc_pages(Pool::state, 1, slot, fx)) return;
  r.state_slot = slot[0];
  const std::int64_t ps_swa = params(Pool::swa).page_size;
  const std::int64_t cols = cdiv(r.seq, ps_swa);
  const std::int64_t mapped = std::min(cols, cfg_.swa_window_pages);
  std::vector<std::int64_t> swa;
  if (!alloc_pages(Pool::full, cdiv(r.seq, cfg_.ps_full), r.full_pages, fx) ||
      !alloc_pages(Pool::swa, mapped, swa, fx)) {
    std::vector<VirtualPage> undo;
    for (auto v : r.full_pages) undo.emplace_back(v);
    if (!undo.empty()) mut_pool(Pool::full).free_lazy(undo);
    const VirtualPage s(r.state_slot);
    mut_pool(Pool::state).free_lazy(std::span<const VirtualPage>(&s, 1));
    return;
  }
  r.swa_pages.assign(uz(cols - mapped), -1);  // older columns never mapped (already out of the window)
  r.swa_mapped.assign(uz(cols - mapped), 0);
  for (auto v : swa) {
    r.swa_pages.push_back(v);
    r.swa_mapped.push_back(1);
  }
  requests_.push_back(std::move(r));
}

void LifecycleSim::finish(std::uint64_t pick, Effects& fx) {
  if (requests_.empty()) return;
  const auto idx = static_cast<std::ptrdiff_t>(pick % requests_.size());
  const Request r = requests_[uz(idx)];
  if (r.leased) return;  // a consumer still holds its ids: the request ends after completion
  std::vector<VirtualPage> full, swa;
  for (auto v : r.full_pages) full.emplace_back(v);
  for (std::size_t c = 0; c < r.swa_pages.size(); ++c) {
    if (r.swa_mapped[c]) {
      swa.emplace_back(r.swa_pages[c]);
    } else if (fault_ == Fault::sink_freed_by_segment_free) {
      fx.freed.push_back({Pool::swa, 0});  // unmapped entries read as the sink, and the sink is freed
    }
  }
  for (auto v : full) fx.freed.push_back({Pool::full, v.value});
  for (auto v : swa) fx.freed.push_back({Pool::swa, v.value});
  fx.freed.push_back({Pool::state, r.state_slot});
  if (!full.empty()) mut_pool(Pool::full).free_lazy(full);
  if (!swa.empty()) mut_pool(Pool::swa).free_lazy(swa);
  const VirtualPage s(r.state_slot);
  mut_pool(Pool::state).free_lazy(std::span<const VirtualPage>(&s, 1));
  requests_.erase(requests_.begin() + idx);
}

void LifecycleSim::step(std::int64_t k, std::uint64_t pick, Effects& fx) {
  sync(fx);  // the forward starts with the gate open
  const bool graph = !bindings_.empty();
  const std::int64_t bs = graph ? captured_batch_ : cfg_.batch;
  const std::int64_t ps = cfg_.ps_full;
  const std::int64_t ps_swa = params(Pool::swa).page_size;
  const std::int64_t ctx = context_len();
  std::vector<std::size_t> lanes;
  const std::size_t n = requests_.size();
  for (std::size_t i = 0; i < n && static_cast<std::int64_t>(lanes.size()) < bs; ++i) {
    const std::size_t idx = (static_cast<std::size_t>(pick) + i) % n;
    Request& r = requests_[idx];
    if (r.seq >= ctx || r.leased) continue;
    const std::int64_t end = r.seq + 1 + k;
    if (!alloc_pages(Pool::full, cdiv(end, ps) - static_cast<std::int64_t>(r.full_pages.size()), r.full_pages, fx))
      continue;
    std::vector<std::int64_t> fresh;
    if (!alloc_pages(Pool::swa, cdiv(end, ps_swa) - static_cast<std::int64_t>(r.swa_pages.size()), fresh, fx))
      continue;
    for (auto v : fresh) {
      r.swa_pages.push_back(v);
      r.swa_mapped.push_back(1);
    }
    slide_window(r, false);
    lanes.push_back(idx);
  }
  if (lanes.empty()) return;
  const auto L = static_cast<std::int64_t>(lanes.size());

  // ---- rebuild the step's buffers (in place for a captured graph) ----
  // The buffer a rebuild writes (rebuild = true: the live captured buffer of the role, or the eager
  // one) or the eager path reads (rebuild = false).
  auto is_eager = [&](std::int64_t id) {
    return std::any_of(eager_.begin(), eager_.end(), [id](const Binding& b) { return b.buffer_id == id; });
  };
  auto target = [&](std::string_view role, bool rebuild) -> Buffer& {
    if (rebuild && graph && !(role == "kv_indptr" && fault_ == Fault::replay_rebuilds_eager_buffer)) {
      for (auto& b : buffers_)
        if (b.alive && b.role == role && !is_eager(b.id)) return b;
    }
    for (const auto& b : eager_)
      if (b.role == role) return *mut_buffer(b.buffer_id);
    throw InvalidState("role", std::string(role), "no buffer for this role");
  };
  std::int64_t max_n = 0, max_ns = 0;
  std::vector<std::int64_t> n_full(uz(L)), n_swa(uz(L));
  for (std::int64_t i = 0; i < L; ++i) {
    const Request& r = requests_[lanes[uz(i)]];
    n_full[uz(i)] = cdiv(r.seq + 1 + k, ps);
    n_swa[uz(i)] = cdiv(r.seq + 1 + k, ps_swa);
    max_n = std::max(max_n, n_full[uz(i)]);
    max_ns = std::max(max_ns, n_swa[uz(i)]);
  }
  auto prepare = [&](std::string_view role, std::int64_t eager_width, std::int64_t rows) -> Buffer& {
    Buffer& b = target(role, true);
    if (!graph || (role == "kv_indptr" && fault_ == Fault::replay_rebuilds_eager_buffer)) b.width = eager_width;
    b.data.assign(uz(rows * b.width), 0);
    b.epoch = epoch_;
    return b;
  };
  Buffer& indptr = prepare("kv_indptr", bs + 1, 1);
  for (std::int64_t i = 0; i < bs && i + 1 < indptr.width; ++i)
    indptr.data[uz(i + 1)] = indptr.data[uz(i)] + (i < L ? n_full[uz(i)] : 0);
  Buffer& work = prepare("workspace", bs + 1, 1);
  for (std::int64_t i = 0; i < work.width && i < indptr.width; ++i) work.data[uz(i)] = indptr.data[uz(i)];
  Buffer& pt = prepare("page_table", max_n, bs);
  Buffer& st = prepare("swa_table", max_ns, bs);
  Buffer& si = prepare("state_indices", bs, 1);
  Buffer& wl = prepare("write_loc", 1 + k, bs);
  for (std::int64_t i = 0; i < bs; ++i) {
    if (i >= L) {
      if (i < si.width) si.data[uz(i)] = route_state(-1);
      continue;
    }
    const Request& r = requests_[lanes[uz(i)]];
    for (std::int64_t c = 0; c < std::min(n_full[uz(i)], pt.width); ++c)
      pt.data[uz(i * pt.width + c)] = route_page_entry(Pool::full, r.full_pages[uz(c)], true);
    for (std::int64_t c = 0; c < std::min(n_swa[uz(i)], st.width); ++c)
      st.data[uz(i * st.width + c)] = route_page_entry(Pool::swa, r.swa_pages[uz(c)], r.swa_mapped[uz(c)] != 0);
    si.data[uz(i)] = route_state(r.state_slot);
    for (std::int64_t j = 0; j <= k && j < wl.width; ++j) {
      const std::int64_t pos = r.seq + j;
      wl.data[uz(i * wl.width + j)] = route_token(Pool::full, r.full_pages[uz(pos / ps)] * ps + pos % ps);
    }
  }

  // ---- the kernels read what the graph binds (or the eager buffers) ----
  fx.replayed = graph;
  auto bound = [&](std::string_view role) -> const Buffer& {
    if (graph)
      for (const auto& b : bindings_)
        if (b.role == role) return *buffer(b.buffer_id);
    return target(role, false);
  };
  const Buffer& rip = bound("kv_indptr");
  const Buffer& rpt = bound("page_table");
  const Buffer& rst = bound("swa_table");
  const Buffer& rsi = bound("state_indices");
  const Buffer& rwl = bound("write_loc");
  const Buffer& rwk = bound("workspace");
  fx.reads = {{"kv_indptr", rip.id, L + 1}, {"workspace", rwk.id, L + 1},        {"page_table", rpt.id, max_n},
              {"swa_table", rst.id, max_ns}, {"state_indices", rsi.id, L},       {"write_loc", rwl.id, 1 + k}};
  auto at = [](const Buffer& b, std::int64_t i) { return i >= 0 && uz(i) < b.data.size() ? b.data[uz(i)] : 0; };
  const std::int64_t ps_used = fault_ == Fault::min_block_size_column ? std::min(ps, ps_swa) : ps_swa;
  for (std::int64_t i = 0; i < bs; ++i) {
    const std::string lane = "[lane " + str(i) + "]";
    if (i >= L) {
      if (!graph) continue;
      fx.uses.push_back({Pool::state, false, IdSpace::kernel_facing, -1, at(rsi, i), true, "state_indices" + lane});
      fx.uses.push_back({Pool::full, false, IdSpace::kernel_facing, -1, at(rwl, i * rwl.width), true,
                         "write_loc" + lane});
      continue;
    }
    const Request& r = requests_[lanes[uz(i)]];
    const std::int64_t n_read = at(rip, i + 1) - at(rip, i);
    for (std::int64_t c = 0; c < std::min(n_read, rpt.width); ++c) {
      const std::int64_t src = c < static_cast<std::int64_t>(r.full_pages.size()) ? r.full_pages[uz(c)] : -1;
      fx.uses.push_back({Pool::full, true, IdSpace::kernel_facing, src, at(rpt, i * rpt.width + c), false,
                         "page_table" + lane + "[col " + str(c) + "]"});
    }
    for (std::int64_t c = 0; c < std::min(n_swa[uz(i)], rst.width); ++c) {
      const std::int64_t src = r.swa_mapped[uz(c)] ? r.swa_pages[uz(c)] : -1;
      fx.uses.push_back({Pool::swa, true, IdSpace::kernel_facing, src, at(rst, i * rst.width + c), false,
                         "swa_table" + lane + "[col " + str(c) + "]"});
    }
    fx.uses.push_back({Pool::state, false, IdSpace::kernel_facing, r.state_slot, at(rsi, i), true,
                       "state_indices" + lane});
    for (std::int64_t j = 0; j <= k && j < rwl.width; ++j) {
      const std::int64_t pos = r.seq + j;
      const std::int64_t t = r.full_pages[uz(pos / ps)] * ps + pos % ps;
      fx.uses.push_back({Pool::full, false, IdSpace::kernel_facing, t, at(rwl, i * rwl.width + j), true,
                         "write_loc" + lane + "[" + str(j) + "]"});
      fx.uses.push_back({Pool::draft, false, IdSpace::kernel_facing, t, route_token(Pool::draft, t), true,
                         "draft write" + lane + "[" + str(j) + "]"});
      const std::int64_t swa_t = r.swa_pages[uz(pos / ps_swa)] * ps_swa + pos % ps_swa;
      const std::int64_t col = pos / ps_used;
      const bool ok = col < static_cast<std::int64_t>(r.swa_pages.size()) && r.swa_mapped[uz(col)] != 0;
      const std::int64_t P = ok ? pool(Pool::swa).v2p()[uz(r.swa_pages[uz(col)])] : -1;
      fx.uses.push_back({Pool::swa, false, IdSpace::kernel_facing, swa_t, P < 0 ? 0 : P * ps_swa + pos % ps_used,
                         true, "swa write" + lane + "[" + str(j) + "]"});
    }
  }
  // ---- verification accepts some of the draft tokens ----
  for (std::int64_t i = 0; i < L; ++i) {
    Request& r = requests_[lanes[uz(i)]];
    const std::int64_t accepted = k == 0 ? 0 : static_cast<std::int64_t>((pick / 5 + uz(i)) % uz(k + 1));
    r.seq = std::min(ctx, r.seq + 1 + accepted);
  }
}

}  // namespace kvaddr::model::lifecycle
