#pragma once
// Unified-pool simulator (spec §4.14 `page_lifecycle`, §3.5 SWA, §3.6 / §4.10 Mamba). Deterministic:
// no randomness, free lists are FIFO, compaction pairs survivors with holes in address order.
//
// Physical pages of one sub-pool: [0, min_page_index) reserved (page 0 = sink), the allocated band
// grows from the watermark: grow up = [min_page_index, wm) allocated, [wm, num_pages) free; grow down
// = (wm, num_pages - 1] allocated, [min_page_index, wm] free. Lazy holes are free pages inside the
// allocated band until a flush (or an alloc that drains them).
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "kvaddr/model/geometry.hpp"
#include "kvaddr/model/ids.hpp"
#include "kvaddr/model/tables.hpp"

namespace kvaddr::model {

enum class GrowDirection { up, down };

struct SubPoolOptions {
  std::int64_t min_page_index = 1;
  GrowDirection grow = GrowDirection::up;
  bool id_owner = true;                         // false: binds virtual ids handed in by an owner
  std::optional<std::int64_t> num_virtual_ids = std::nullopt;  // v2p sizing; defaults to num_pages
  bool zero_on_alloc = false;                   // zero handed-out page envelopes (#33974, B07 context)
  TableOptions table{};                         // v2p0_pinned (spec §7 Q2)
};

struct PageMove {
  PhysicalPage src;
  PhysicalPage dst;
  VirtualPage v;  // the virtual page that moved (its id never changes)
  friend bool operator==(const PageMove&, const PageMove&) = default;
};

// Planted allocator bugs (spec §6.1 "related allocator guards", §6.2 E04). `none` is production.
// E08 (sink page handed out) is a configuration, not a code change: see e08_sink_handed_out().
enum class PoolBug {
  none,
  double_free_unchecked,  // free drops the `v2p[v] < 0` assert: an unbound id is recycled again
  duplicate_free_ids,     // free_unbind_inplace accepts duplicate ids: the page is tombstoned and holed twice
  e04_alias_bind,         // alloc of n >= 2 pages binds the second virtual page to the first one's physical page
};

// E08 (kvcached #398 shape): the reserved floor dropped (min_page_index = 0) and clear() without the
// sink pin, so physical page 0 (the sink every padding lane reads and writes) goes to a live request.
SubPoolOptions e08_sink_handed_out(SubPoolOptions options = {});

// Largest simulated KV store (rows = (num_pages + 1) * L * ps); larger geometries are rejected.
inline constexpr std::int64_t kMaxSimulatedRows = std::int64_t{1} << 24;

class SubPool {
 public:
  // Rejects (InvalidArgument) a store larger than kMaxSimulatedRows and a min_page_index outside the
  // table; PageTables validation applies.
  explicit SubPool(const Geometry& geometry, SubPoolOptions options = {});

  const Geometry& geometry() const noexcept { return g_; }
  const SubPoolOptions& options() const noexcept { return opt_; }
  const PageTables& tables() const noexcept { return tables_; }
  std::span<const std::int64_t> v2p() const noexcept { return tables_.v2p(); }
  std::span<const std::int64_t> p2v() const noexcept { return tables_.p2v(); }
  std::int64_t watermark() const noexcept { return wm_; }
  std::int64_t free_physical_pages() const noexcept;  // holes + free band
  std::int64_t live_pages() const noexcept;           // bound pages (the sink pin excluded)
  const std::vector<PhysicalPage>& lazy_holes() const noexcept { return holes_; }

  // ---- lifecycle --------------------------------------------------------------------------------
  // Id owner only (InvalidState "id_owner" otherwise). n_pages >= 1 (InvalidArgument "n_pages");
  // not enough virtual ids or physical pages -> InvalidState "n_pages". Returns v*ps + arange(ps)
  // for every new virtual page v, in allocation order.
  std::vector<VirtualToken> alloc(std::int64_t n_pages);
  std::vector<VirtualPage> alloc_pages(std::int64_t n_pages);
  // Non-owner only: bind the given owner ids to fresh physical pages (validated before any change).
  void alloc_with_virtual(std::span<const VirtualPage> pages);
  // Eager free: tombstone, recycle the virtual ids (owner), compact at once (pending lazy holes too).
  // Rejects (before any change): ids outside the table / reserved (OutOfRange "virtual_pages"),
  // duplicates (InvalidState "virtual_pages"), unbound ids = double free (InvalidState "virtual_pages").
  void free_eager(std::span<const VirtualPage> pages);
  // Lazy free: same checks, tombstone and recycle now, append physical pages to the hole list.
  void free_lazy(std::span<const VirtualPage> pages);
  // Deferred compaction of every lazy hole.
  void flush();

  // Re-introduce one allocator bug from now on (binds then use raw table writes, as the upstream
  // kernels do, so the damage shows in check_invariants() and in the KV store instead of a throw).
  void plant(PoolBug bug) noexcept { bug_ = bug; }
  PoolBug planted() const noexcept { return bug_; }

  const std::vector<PageMove>& moves() const noexcept { return moves_; }  // every move since construction
  void clear_moves() noexcept { moves_.clear(); }

  // ---- translation against the live tables (formulas.hpp) ----------------------------------------
  PhysicalToken to_physical(VirtualToken t) const;
  KernelId to_kernel(VirtualToken t) const;

  // ---- KV store: one uint64 tag per (physical page, block, slot), page-major envelope ---------------
  // Blocks per page: L (one row per layer, MLA / M == 1), or 2L when M == 2L (K block 2l, V block
  // 2l + 1; write stores the tag in both, reads return the K block).
  // write: the token's page must be bound (InvalidState "t"); layer in [0, L) (OutOfRange "layer").
  void write(std::int64_t layer, VirtualToken t, std::uint64_t tag);
  std::uint64_t read_virtual(std::int64_t layer, VirtualToken t) const;  // through to_physical
  std::uint64_t read_physical(std::int64_t layer, PhysicalToken x) const;
  // Dense-view read: row l*ps + d of the envelope array when M == L (MLA), row 2l*ps + d when M == 2L
  // (MHA K block); physical read when M == 1; any other M -> InvalidState "multiplier".
  // d in [0, kernel_rows) (OutOfRange "d").
  std::uint64_t read_kernel(std::int64_t layer, KernelId d) const;
  void fill(std::uint64_t tag);  // poison every row (SGLANG_DEBUG_POISON_POOL analogue)

  // Table invariants (spec §4.14 a-c) plus: bound pages lie on the allocated side of the watermark,
  // lazy holes are unbound and inside the allocated band.
  std::vector<InvariantViolation> check_invariants() const;

 private:
  std::vector<PhysicalPage> validate_free(std::span<const VirtualPage> pages) const;
  std::vector<PhysicalPage> take_physical(std::int64_t n);
  void bind_all(std::span<const VirtualPage> virt, std::span<const PhysicalPage> phys);
  void move_envelope(PhysicalPage src, PhysicalPage dst);
  bool in_allocated_band(std::int64_t P) const noexcept;
  std::size_t row_of(std::int64_t P, std::int64_t block, std::int64_t o) const noexcept;
  std::int64_t k_block(std::int64_t layer) const noexcept;
  void check_layer(std::int64_t layer) const;

  Geometry g_;
  SubPoolOptions opt_;
  PageTables tables_;
  std::int64_t wm_;
  std::int64_t blocks_;  // envelope blocks per page: 2L for dense MHA (M == 2L), else L
  std::deque<std::int64_t> free_virtual_;
  std::vector<PhysicalPage> holes_;
  std::vector<PageMove> moves_;
  std::vector<std::uint64_t> store_;
  PoolBug bug_ = PoolBug::none;
};

// ---- SWA composite (§3.5, §4.9) ------------------------------------------------------------------
struct SwaOptions {
  std::int64_t min_page_index = 1;
  GrowDirection full_grow = GrowDirection::up;
  GrowDirection swa_grow = GrowDirection::up;
  // Bug B12: size the non-owner SWA v2p by its own page count instead of the owner's id count.
  bool b12_swa_sized_by_own_pages = false;
};

class SwaComposite {
 public:
  // Both geometries must share page_size (InvalidArgument "page_size").
  SwaComposite(const Geometry& full, const Geometry& swa, SwaOptions options = {});
  // Allocates virtual pages on the full (owner) side and binds the same ids on the SWA side. If the
  // SWA bind fails (e.g. B12 OutOfRange) the full allocation is rolled back and the error rethrown.
  std::vector<VirtualToken> alloc(std::int64_t n_pages);
  // Sliding out of the window: frees the SWA pages only (SWA tombstones, full stays bound).
  void slide_out(std::span<const VirtualPage> pages);
  // Request end: frees the full pages and whichever SWA pages are still bound.
  void free(std::span<const VirtualPage> pages);
  KernelId translate_full(VirtualToken t) const;  // kernel_id(full_v2p, ps, M_full, t)
  KernelId translate_swa(VirtualToken t) const;   // swa_id(swa_v2p, ps, M_swa, t)
  SubPool& full() noexcept { return full_; }
  SubPool& swa() noexcept { return swa_; }
  const SubPool& full() const noexcept { return full_; }
  const SubPool& swa() const noexcept { return swa_; }

 private:
  SubPool full_;
  SubPool swa_;
};

// ---- Mamba slots (§3.6, §4.10): page size 1, raw translate ----------------------------------------
class MambaSlots {
 public:
  MambaSlots(std::int64_t num_slots, std::int64_t min_slot_index = 1, bool clamp = false);
  std::vector<std::int64_t> alloc(std::int64_t n);   // virtual slot ids
  void free(std::span<const std::int64_t> slots);    // eager; relocation = per-slot copy
  std::int64_t translate(std::int64_t v) const;      // mamba_slot(v2p, v, clamp)
  std::vector<std::int32_t> translate_indices(std::span<const std::int64_t> v) const;  // int32 (checked)
  const SubPool& pool() const noexcept { return pool_; }
  SubPool& pool() noexcept { return pool_; }

 private:
  SubPool pool_;
  bool clamp_;
};

}  // namespace kvaddr::model
