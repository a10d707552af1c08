#include "kvaddr/model/pool.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"

namespace kvaddr::model {

namespace {
std::size_t uz(std::int64_t v) { return static_cast<std::size_t>(v); }
std::string str(std::int64_t v) { return std::to_string(v); }
}  // namespace

// ================================================================================================
// SubPool
// ================================================================================================
namespace {
// The simulated store must be checked before any table is allocated.
// Envelope blocks per page: one K and one V block per layer for dense MHA (M == 2L), else one per layer.
std::int64_t blocks_for(const Geometry& g) {
  return (g.multiplier() % 2 == 0 && g.multiplier() / 2 == g.num_layers()) ? g.multiplier() : g.num_layers();
}
const Geometry& simulable(const Geometry& g) {
  const std::int64_t rows = checked_mul(checked_add(g.num_pages(), 1, "num_pages"),
                                        checked_mul(blocks_for(g), g.page_size(), "num_layers"), "num_pages");
  require(rows <= kMaxSimulatedRows, "num_pages", g.num_pages(),
          "the simulated KV store would exceed kMaxSimulatedRows rows");
  return g;
}
}  // namespace

SubPool::SubPool(const Geometry& geometry, SubPoolOptions options)
    : g_(simulable(geometry)),
      opt_(options),
      tables_(geometry.num_pages(), options.num_virtual_ids, options.min_page_index, options.table),
      wm_(options.grow == GrowDirection::up ? options.min_page_index : geometry.num_pages() - 1),
      blocks_(blocks_for(geometry)) {
  store_.assign(uz((g_.num_pages() + 1) * blocks_ * g_.page_size()), 0);
  if (opt_.id_owner) {
    for (std::int64_t v = opt_.min_page_index; v < tables_.num_virtual_ids(); ++v) free_virtual_.push_back(v);
  }
}

bool SubPool::in_allocated_band(std::int64_t P) const noexcept {
  if (opt_.grow == GrowDirection::up) return P >= opt_.min_page_index && P < wm_;
  return P > wm_ && P < g_.num_pages();
}

std::int64_t SubPool::free_physical_pages() const noexcept {
  const std::int64_t band = opt_.grow == GrowDirection::up ? g_.num_pages() - wm_ : wm_ - opt_.min_page_index + 1;
  return static_cast<std::int64_t>(holes_.size()) + std::max<std::int64_t>(band, 0);
}

std::int64_t SubPool::live_pages() const noexcept {
  std::int64_t n = 0;
  const auto v2p = tables_.v2p();
  for (std::size_t v = 1; v + 1 < v2p.size(); ++v) n += v2p[v] >= 0 ? 1 : 0;
  if (!opt_.table.v2p0_pinned && v2p[0] >= 0) ++n;
  return n;
}

std::vector<PhysicalPage> SubPool::take_physical(std::int64_t n) {
  std::vector<PhysicalPage> out;
  out.reserve(uz(n));
  // Slow path first: drain lazy holes (oldest first).
  std::size_t used = 0;
  while (static_cast<std::int64_t>(out.size()) < n && used < holes_.size()) out.push_back(holes_[used++]);
  holes_.erase(holes_.begin(), holes_.begin() + static_cast<std::ptrdiff_t>(used));
  const std::int64_t rest = n - static_cast<std::int64_t>(out.size());
  if (rest > 0) {
    if (opt_.grow == GrowDirection::up) {  // [wm, wm + rest)
      for (std::int64_t i = 0; i < rest; ++i) out.push_back(PhysicalPage(wm_ + i));
      wm_ += rest;
    } else {  // [wm - rest + 1, wm], ascending
      for (std::int64_t i = rest - 1; i >= 0; --i) out.push_back(PhysicalPage(wm_ - i));
      wm_ -= rest;
    }
  }
  return out;
}

void SubPool::bind_all(std::span<const VirtualPage> virt, std::span<const PhysicalPage> phys) {
  for (std::size_t i = 0; i < virt.size(); ++i) {
    if (bug_ == PoolBug::none) {
      tables_.bind(virt[i], phys[i]);
    } else {
      // alloc_bind_inplace: plain stores, no "already bound" check. E04: the second page of the
      // allocation aliases the first one's physical page (its own page stays taken but unbound).
      const PhysicalPage P = (bug_ == PoolBug::e04_alias_bind && i == 1) ? phys[0] : phys[i];
      tables_.set_v2p_raw(virt[i].value, P.value);
      tables_.set_p2v_raw(P.value, virt[i].value);
    }
    if (opt_.zero_on_alloc) {
      for (std::int64_t b = 0; b < blocks_; ++b)
        for (std::int64_t o = 0; o < g_.page_size(); ++o) store_[row_of(phys[i].value, b, o)] = 0;
    }
  }
}

std::vector<VirtualPage> SubPool::alloc_pages(std::int64_t n_pages) {
  if (!opt_.id_owner) throw InvalidState("id_owner", "false", "a non-owner sub-pool allocates with alloc_with_virtual");
  require(n_pages >= 1, "n_pages", n_pages, "must be >= 1");
  if (n_pages > static_cast<std::int64_t>(free_virtual_.size())) {
    throw InvalidState("n_pages", str(n_pages), "only " + str(static_cast<std::int64_t>(free_virtual_.size())) +
                                                    " free virtual page ids");
  }
  if (n_pages > free_physical_pages()) {
    throw InvalidState("n_pages", str(n_pages), "only " + str(free_physical_pages()) + " free physical pages");
  }
  std::vector<VirtualPage> virt;
  for (std::int64_t i = 0; i < n_pages; ++i) {
    virt.push_back(VirtualPage(free_virtual_.front()));
    free_virtual_.pop_front();
  }
  const std::vector<PhysicalPage> phys_pages = take_physical(n_pages);
  bind_all(virt, phys_pages);
  return virt;
}

std::vector<VirtualToken> SubPool::alloc(std::int64_t n_pages) {
  const std::vector<VirtualPage> virt = alloc_pages(n_pages);
  std::vector<VirtualToken> out;
  out.reserve(virt.size() * uz(g_.page_size()));
  for (VirtualPage v : virt)
    for (std::int64_t o = 0; o < g_.page_size(); ++o) out.push_back(VirtualToken(v.value * g_.page_size() + o));
  return out;
}

void SubPool::alloc_with_virtual(std::span<const VirtualPage> pages) {
  if (opt_.id_owner) throw InvalidState("id_owner", "true", "an id owner allocates its own virtual ids (alloc)");
  require(!pages.empty(), "virtual_pages", 0, "must not be empty");
  std::set<std::int64_t> seen;
  for (VirtualPage v : pages) {
    require_range(v.value >= opt_.min_page_index && v.value < tables_.num_virtual_ids(), "virtual_pages", v.value,
                  "virtual page outside [min_page_index, num_virtual_ids = " + str(tables_.num_virtual_ids()) + ")");
    if (!seen.insert(v.value).second) throw InvalidState("virtual_pages", str(v.value), "duplicate virtual page id");
    if (tables_.is_bound(v)) throw InvalidState("virtual_pages", str(v.value), "virtual page is already bound");
  }
  const auto n = static_cast<std::int64_t>(pages.size());
  if (n > free_physical_pages()) {
    throw InvalidState("virtual_pages", str(n), "only " + str(free_physical_pages()) + " free physical pages");
  }
  const std::vector<PhysicalPage> phys_pages = take_physical(n);
  bind_all(pages, phys_pages);
}

std::vector<PhysicalPage> SubPool::validate_free(std::span<const VirtualPage> pages) const {
  std::set<std::int64_t> seen;
  std::vector<PhysicalPage> out;
  for (VirtualPage v : pages) {
    require_range(v.value >= opt_.min_page_index && v.value < tables_.num_virtual_ids(), "virtual_pages", v.value,
                  "virtual page outside [min_page_index, num_virtual_ids = " + str(tables_.num_virtual_ids()) + ")");
    const bool first = seen.insert(v.value).second;
    if (!first && bug_ != PoolBug::duplicate_free_ids) {
      throw InvalidState("virtual_pages", str(v.value), "duplicate virtual page id (ids must be unique)");
    }
    const auto P = tables_.physical_of(v);
    if (!P) {
      if (bug_ == PoolBug::double_free_unchecked) continue;  // assert dropped: nothing to hole, id recycled below
      throw InvalidState("virtual_pages", str(v.value), "virtual page is not bound (double free / stale slot)");
    }
    out.push_back(*P);  // a duplicate id (planted) races: every lane read the same P before the stores
  }
  return out;
}

void SubPool::free_lazy(std::span<const VirtualPage> pages) {
  const std::vector<PhysicalPage> phys_pages = validate_free(pages);
  for (VirtualPage v : pages) {
    if (bug_ == PoolBug::none) {
      (void)tables_.unbind(v);
    } else if (const auto P = tables_.physical_of(v)) {  // planted: plain tombstone stores
      tables_.set_v2p_raw(v.value, -1);
      if (tables_.p2v()[uz(P->value)] == v.value) tables_.set_p2v_raw(P->value, -1);
    }
    if (opt_.id_owner) free_virtual_.push_back(v.value);
  }
  holes_.insert(holes_.end(), phys_pages.begin(), phys_pages.end());
}

void SubPool::free_eager(std::span<const VirtualPage> pages) {
  free_lazy(pages);
  flush();
}

void SubPool::flush() {
  if (holes_.empty()) return;
  const auto k = static_cast<std::int64_t>(holes_.size());
  std::vector<std::int64_t> dst;  // holes outside the band being vacated
  std::vector<std::int64_t> src;  // survivors inside the band being vacated
  if (opt_.grow == GrowDirection::up) {
    const std::int64_t new_wm = wm_ - k;
    for (PhysicalPage h : holes_)
      if (h.value < new_wm) dst.push_back(h.value);
    for (std::int64_t P = new_wm; P < wm_; ++P)
      if (tables_.p2v()[uz(P)] >= 0) src.push_back(P);
    std::sort(dst.begin(), dst.end());
    wm_ = new_wm;
  } else {
    const std::int64_t new_wm = wm_ + k;
    for (PhysicalPage h : holes_)
      if (h.value > new_wm) dst.push_back(h.value);
    for (std::int64_t P = new_wm; P > wm_; --P)
      if (tables_.p2v()[uz(P)] >= 0) src.push_back(P);
    std::sort(dst.begin(), dst.end(), std::greater<>());
    wm_ = new_wm;
  }
  if (dst.size() != src.size()) {
    throw InvalidState("lazy_holes", str(k), "compaction found " + str(static_cast<std::int64_t>(src.size())) +
                                                 " survivors for " + str(static_cast<std::int64_t>(dst.size())) + " holes");
  }
  for (std::size_t i = 0; i < src.size(); ++i) {
    const VirtualPage v(tables_.p2v()[uz(src[i])]);
    move_envelope(PhysicalPage(src[i]), PhysicalPage(dst[i]));
    tables_.relocate(PhysicalPage(src[i]), PhysicalPage(dst[i]));
    moves_.push_back(PageMove{PhysicalPage(src[i]), PhysicalPage(dst[i]), v});
  }
  // The whole vacated band of p2v is -1 now (moved sources and freed pages alike).
  holes_.clear();
}

void SubPool::move_envelope(PhysicalPage src, PhysicalPage dst) {
  for (std::int64_t b = 0; b < blocks_; ++b)
    for (std::int64_t o = 0; o < g_.page_size(); ++o) store_[row_of(dst.value, b, o)] = store_[row_of(src.value, b, o)];
}

PhysicalToken SubPool::to_physical(VirtualToken t) const { return phys(tables_.v2p(), g_.page_size(), t); }

KernelId SubPool::to_kernel(VirtualToken t) const { return kernel_id(tables_.v2p(), g_, t); }

std::size_t SubPool::row_of(std::int64_t P, std::int64_t block, std::int64_t o) const noexcept {
  return uz((P * blocks_ + block) * g_.page_size() + o);
}

std::int64_t SubPool::k_block(std::int64_t layer) const noexcept { return blocks_ == g_.num_layers() ? layer : 2 * layer; }

void SubPool::check_layer(std::int64_t layer) const {
  require_range(layer >= 0 && layer < g_.num_layers(), "layer", layer, "must lie in [0, num_layers)");
}

void SubPool::write(std::int64_t layer, VirtualToken t, std::uint64_t tag) {
  check_layer(layer);
  require_range(t.value >= 0 && t.value / g_.page_size() < tables_.num_virtual_ids(), "t", t.value,
                "virtual token outside the sub-pool's id space");
  const VirtualPage p(t.value / g_.page_size());
  const auto P = tables_.physical_of(p);
  if (!P) throw InvalidState("t", str(t.value), "the token's virtual page is not bound");
  store_[row_of(P->value, k_block(layer), t.value % g_.page_size())] = tag;
  if (blocks_ != g_.num_layers()) store_[row_of(P->value, k_block(layer) + 1, t.value % g_.page_size())] = tag;
}

std::uint64_t SubPool::read_virtual(std::int64_t layer, VirtualToken t) const {
  return read_physical(layer, to_physical(t));
}

std::uint64_t SubPool::read_physical(std::int64_t layer, PhysicalToken x) const {
  check_layer(layer);
  require_range(x.value >= 0 && x.value < g_.num_slots(), "x", x.value, "must lie in [0, num_pages*page_size)");
  return store_[row_of(x.value / g_.page_size(), k_block(layer), x.value % g_.page_size())];
}

std::uint64_t SubPool::read_kernel(std::int64_t layer, KernelId d) const {
  check_layer(layer);
  if (g_.multiplier() == 1) return read_physical(layer, PhysicalToken(d.value));
  if (g_.multiplier() != blocks_) {
    throw InvalidState("multiplier", str(g_.multiplier()),
                       "read_kernel models dense views (M == L for MLA, M == 2L for MHA) or M == 1");
  }
  require_range(d.value >= 0 && d.value < g_.kernel_rows(), "d", d.value, "must lie in [0, kernel_rows)");
  // Dense view of layer l (K block for MHA): origin k_block(l)*ps rows into the envelope array, then
  // row d (spec §3.3, one tag per row).
  return store_[uz(k_block(layer) * g_.page_size() + d.value)];
}

void SubPool::fill(std::uint64_t tag) { std::fill(store_.begin(), store_.end(), tag); }

std::vector<InvariantViolation> SubPool::check_invariants() const {
  std::vector<InvariantViolation> out = tables_.check_invariants();
  const auto v2p = tables_.v2p();
  for (std::int64_t v = 0; v < tables_.num_virtual_ids(); ++v) {
    const std::int64_t P = v2p[uz(v)];
    if (P < 0 || (v == 0 && P == 0 && opt_.table.v2p0_pinned)) continue;
    if (!in_allocated_band(P)) {
      out.push_back({'c', "v2p[" + str(v) + "] = " + str(P) + " lies outside the allocated band (watermark " + str(wm_) + ")"});
    }
  }
  for (PhysicalPage h : holes_) {
    if (!in_allocated_band(h.value) || tables_.p2v()[uz(h.value)] != -1) {
      out.push_back({'c', "lazy hole " + str(h.value) + " is bound or outside the allocated band"});
    }
  }
  return out;
}

SubPoolOptions e08_sink_handed_out(SubPoolOptions options) {
  options.min_page_index = 0;
  options.table.v2p0_pinned = false;
  return options;
}

// ================================================================================================
// SwaComposite
// ================================================================================================
namespace {
const Geometry& same_ps(const Geometry& full, const Geometry& swa) {
  require(full.page_size() == swa.page_size(), "page_size", swa.page_size(),
          "the SWA sub-pool must share the full sub-pool's page size (" + std::to_string(full.page_size()) + ")");
  return full;
}
}  // namespace

SwaComposite::SwaComposite(const Geometry& full, const Geometry& swa, SwaOptions options)
    : full_(same_ps(full, swa), SubPoolOptions{options.min_page_index, options.full_grow, true, std::nullopt, false, {}}),
      swa_(swa, SubPoolOptions{options.min_page_index, options.swa_grow, false,
                               options.b12_swa_sized_by_own_pages ? swa.num_pages() : full.num_pages(), false, {}}) {}

std::vector<VirtualToken> SwaComposite::alloc(std::int64_t n_pages) {
  const std::vector<VirtualPage> virt = full_.alloc_pages(n_pages);
  try {
    swa_.alloc_with_virtual(virt);
  } catch (...) {
    full_.free_eager(virt);  // the pages were just taken at the watermark: no moves
    throw;
  }
  std::vector<VirtualToken> out;
  const std::int64_t ps = full_.geometry().page_size();
  for (VirtualPage v : virt)
    for (std::int64_t o = 0; o < ps; ++o) out.push_back(VirtualToken(v.value * ps + o));
  return out;
}

void SwaComposite::slide_out(std::span<const VirtualPage> pages) { swa_.free_eager(pages); }

void SwaComposite::free(std::span<const VirtualPage> pages) {
  std::vector<VirtualPage> still_swa;
  for (VirtualPage v : pages) {
    if (v.value >= 0 && v.value < swa_.tables().num_virtual_ids() && swa_.tables().is_bound(v)) still_swa.push_back(v);
  }
  full_.free_eager(pages);  // validates and rejects before any change
  if (!still_swa.empty()) swa_.free_eager(still_swa);
}

KernelId SwaComposite::translate_full(VirtualToken t) const { return full_.to_kernel(t); }

KernelId SwaComposite::translate_swa(VirtualToken t) const {
  return swa_id(swa_.v2p(), swa_.geometry().page_size(), swa_.geometry().multiplier(), t);
}

// ================================================================================================
// MambaSlots
// ================================================================================================
MambaSlots::MambaSlots(std::int64_t num_slots, std::int64_t min_slot_index, bool clamp)
    : pool_(Geometry(1, 1, num_slots, 1, 1, 1), SubPoolOptions{min_slot_index, GrowDirection::up, true, std::nullopt, false, {}}),
      clamp_(clamp) {}

std::vector<std::int64_t> MambaSlots::alloc(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (VirtualPage v : pool_.alloc_pages(n)) out.push_back(v.value);
  return out;
}

void MambaSlots::free(std::span<const std::int64_t> slots) {
  std::vector<VirtualPage> pages;
  pages.reserve(slots.size());
  for (std::int64_t s : slots) pages.push_back(VirtualPage(s));
  pool_.free_eager(pages);
}

std::int64_t MambaSlots::translate(std::int64_t v) const { return mamba_slot(pool_.v2p(), v, clamp_); }

std::vector<std::int32_t> MambaSlots::translate_indices(std::span<const std::int64_t> v) const {
  std::vector<std::int32_t> out;
  out.reserve(v.size());
  for (std::int64_t x : v) out.push_back(checked_narrow32(translate(x), "v"));
  return out;
}

}  // namespace kvaddr::model
