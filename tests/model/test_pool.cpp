// page_lifecycle simulator (spec §4.14) and the §5.1 translate / compaction cases.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kvaddr/model/formulas.hpp"
#include "kvaddr/model/pool.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::model::testing::vec;
using kvaddr::InvalidArgument;
using kvaddr::InvalidState;
using kvaddr::OutOfRange;

namespace {
std::vector<std::int64_t> values(const std::vector<VirtualToken>& ts) {
  std::vector<std::int64_t> out;
  for (VirtualToken t : ts) out.push_back(t.value);
  return out;
}
std::uint64_t tag_of(std::int64_t layer, VirtualToken t) {
  return (static_cast<std::uint64_t>(layer) << 32) | static_cast<std::uint64_t>(t.value) | 0x1000000000000ull;
}
void write_all(SubPool& pool, const std::vector<VirtualToken>& ts) {
  for (std::int64_t l = 0; l < pool.geometry().num_layers(); ++l)
    for (VirtualToken t : ts) pool.write(l, t, tag_of(l, t));
}
// Reads every token through translate -> kernel-facing id -> dense view and checks its tag.
void expect_tags_via_kernel_ids(const SubPool& pool, const std::vector<VirtualToken>& ts) {
  for (std::int64_t l = 0; l < pool.geometry().num_layers(); ++l)
    for (VirtualToken t : ts) {
      EXPECT_EQ(pool.read_kernel(l, pool.to_kernel(t)), tag_of(l, t)) << "layer " << l << " t " << t.value;
      EXPECT_EQ(pool.read_physical(l, pool.to_physical(t)), tag_of(l, t));
    }
}
std::vector<VirtualToken> concat(std::vector<VirtualToken> a, const std::vector<VirtualToken>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Three allocations of n pages each; the first and the last are written (write_all), the middle
// one is left for the test to free.
struct ThreeRuns {
  std::vector<VirtualToken> a, b, c;
};
ThreeRuns three_runs(SubPool& pool, std::int64_t n) {
  ThreeRuns r{pool.alloc(n), pool.alloc(n), pool.alloc(n)};
  write_all(pool, concat(r.a, r.c));
  return r;
}
}  // namespace

TEST(SubPool, AllocReturnsPageRunsOfVirtualTokens) {
  SubPool pool(Geometry(4, 3, 8, 3, 1, 8));
  EXPECT_EQ(values(pool.alloc(2)), (std::vector<std::int64_t>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(vec(pool.v2p()), (std::vector<std::int64_t>{0, 1, 2, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(vec(pool.p2v()), (std::vector<std::int64_t>{0, 1, 2, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(pool.watermark(), 3);
  EXPECT_EQ(pool.live_pages(), 2);
  EXPECT_EQ(pool.free_physical_pages(), 5);
  EXPECT_TRUE(pool.check_invariants().empty());
}

TEST(SubPool, DenseMatchesFormulaPs1) {
  // ps 1, L = M = 3, 16 pages, grow down: alloc 8 binds v1..v8 -> P8..P15.
  SubPool pool(Geometry(1, 3, 16, 3, 1, 8), SubPoolOptions{.grow = GrowDirection::down});
  const auto ts = pool.alloc(8);
  EXPECT_EQ(values(ts), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(pool.to_physical(VirtualToken(1)).value, 8);
  EXPECT_EQ(pool.to_kernel(VirtualToken(1)).value, 24);  // phys*L
  EXPECT_EQ(pool.to_physical(VirtualToken(5)).value, 12);
  EXPECT_EQ(pool.to_kernel(VirtualToken(5)).value, 36);
  EXPECT_EQ(pool.to_kernel(VirtualToken(8)).value, 45);  // 15*3
  for (VirtualToken t : ts) EXPECT_EQ(pool.to_kernel(t).value, pool.to_physical(t).value * 3);
}

TEST(SubPool, DenseMatchesFormulaPaged) {
  // ps 4, L = M = 3, 8 pages, grow down: alloc 12 tokens = 3 pages: v1 -> 5, v2 -> 6, v3 -> 7.
  SubPool pool(Geometry(4, 3, 8, 3, 1, 8), SubPoolOptions{.grow = GrowDirection::down});
  const auto ts = pool.alloc(3);
  EXPECT_EQ(vec(pool.v2p()), (std::vector<std::int64_t>{0, 5, 6, 7, -1, -1, -1, -1, -1}));
  EXPECT_EQ(pool.to_physical(VirtualToken(6)).value, 22);  // 5*4 + 2
  EXPECT_EQ(pool.to_kernel(VirtualToken(6)).value, 62);    // 5*12 + 2
  EXPECT_EQ(pool.to_physical(VirtualToken(15)).value, 31);
  EXPECT_EQ(pool.to_kernel(VirtualToken(15)).value, 87);   // 7*12 + 3
  for (VirtualToken t : ts) {
    const std::int64_t x = pool.to_physical(t).value;
    EXPECT_EQ(pool.to_kernel(t).value, (x / 4) * 12 + x % 4);
  }
}

TEST(SubPool, TombstoneClampsToSink) {
  SubPool pool(Geometry(4, 3, 8, 3, 1, 8));
  // min_slot_index = 4 (page 1); the never-allocated id min_slot_index + 1 = 5 has v2p[1] = -1.
  EXPECT_EQ(pool.to_kernel(VirtualToken(5)).value, 0);
  EXPECT_EQ(pool.to_physical(VirtualToken(5)).value, 0);
}

TEST(SubPool, MultiplierOneFallsBackToPhysical) {
  SubPool pool(Geometry(4, 1, 8, 1, 1, 8), SubPoolOptions{.grow = GrowDirection::down});
  const auto ts = pool.alloc(3);
  for (VirtualToken t : ts) EXPECT_EQ(pool.to_kernel(t).value, pool.to_physical(t).value);
  EXPECT_EQ(pool.to_kernel(VirtualToken(6)).value, 22);
}

TEST(SubPool, DenseFollowsCompactionPs1) {
  // 3 x alloc(4) at ps 1, L = M = 3: v1..4 -> P1..4, v5..8 -> P5..8, v9..12 -> P9..12.
  SubPool pool(Geometry(1, 3, 16, 3, 1, 8));
  const auto [a, b, c] = three_runs(pool, 4);
  std::vector<VirtualPage> middle;
  for (VirtualToken t : b) middle.push_back(VirtualPage(t.value));
  pool.free_eager(middle);
  // K = 4: watermark 13 -> 9; survivors P9..12 move into the holes P5..8.
  EXPECT_EQ(pool.watermark(), 9);
  const std::vector<PageMove> expected{{PhysicalPage(9), PhysicalPage(5), VirtualPage(9)},
                                       {PhysicalPage(10), PhysicalPage(6), VirtualPage(10)},
                                       {PhysicalPage(11), PhysicalPage(7), VirtualPage(11)},
                                       {PhysicalPage(12), PhysicalPage(8), VirtualPage(12)}};
  EXPECT_EQ(pool.moves(), expected);
  EXPECT_EQ(vec(pool.v2p()), (std::vector<std::int64_t>{0, 1, 2, 3, 4, -1, -1, -1, -1, 5, 6, 7, 8, -1, -1, -1, -1}));
  EXPECT_EQ(vec(pool.p2v()), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 9, 10, 11, 12, -1, -1, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(pool.to_kernel(VirtualToken(9)).value, 15);   // phys 5 * L
  EXPECT_EQ(pool.to_kernel(VirtualToken(12)).value, 24);  // phys 8 * L
  for (VirtualToken t : concat(a, c)) EXPECT_EQ(pool.to_kernel(t).value, pool.to_physical(t).value * 3);
  expect_tags_via_kernel_ids(pool, concat(a, c));
  EXPECT_TRUE(pool.check_invariants().empty());
}

TEST(SubPool, DenseFollowsCompactionPaged) {
  // ps 4, L = M = 3: pages v1 -> P1, v2 -> P2, v3 -> P3; free v2 -> P3 moves to P2.
  SubPool pool(Geometry(4, 3, 8, 3, 1, 8));
  const auto [a, b, c] = three_runs(pool, 1);
  EXPECT_EQ(pool.to_kernel(VirtualToken(13)).value, 37);  // before: 3*12 + 1
  pool.free_eager(std::vector<VirtualPage>{VirtualPage(2)});
  ASSERT_EQ(pool.moves().size(), 1u);
  EXPECT_EQ(pool.moves()[0], (PageMove{PhysicalPage(3), PhysicalPage(2), VirtualPage(3)}));
  EXPECT_EQ(pool.to_kernel(VirtualToken(13)).value, 25);  // after: 2*12 + 1
  EXPECT_EQ(pool.to_kernel(VirtualToken(5)).value, 13);   // v1 did not move: 1*12 + 1
  EXPECT_EQ(pool.to_kernel(VirtualToken(9)).value, 0);    // freed: tombstone -> sink
  expect_tags_via_kernel_ids(pool, concat(a, c));
  EXPECT_TRUE(pool.check_invariants().empty());
  (void)b;
}

TEST(SubPool, GrowDownCompaction) {
  // 8 pages grow down: v1 -> 5, v2 -> 6, v3 -> 7, watermark 4. Free v3 (P7): band (4, 5] = P5 (v1)
  // moves into the hole P7.
  SubPool pool(Geometry(2, 2, 8, 2, 1, 8), SubPoolOptions{.grow = GrowDirection::down});
  const auto ts = pool.alloc(3);
  EXPECT_EQ(pool.watermark(), 4);
  write_all(pool, ts);
  pool.free_eager(std::vector<VirtualPage>{VirtualPage(3)});
  EXPECT_EQ(pool.watermark(), 5);
  ASSERT_EQ(pool.moves().size(), 1u);
  EXPECT_EQ(pool.moves()[0], (PageMove{PhysicalPage(5), PhysicalPage(7), VirtualPage(1)}));
  EXPECT_EQ(vec(pool.v2p()), (std::vector<std::int64_t>{0, 7, 6, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(pool.to_kernel(VirtualToken(3)).value, 29);  // v1 o1: 7*4 + 1
  expect_tags_via_kernel_ids(pool, {ts[0], ts[1], ts[2], ts[3]});
  EXPECT_TRUE(pool.check_invariants().empty());
}

TEST(SubPool, EagerAndLazyFlushReachEquivalentReads) {
  const Geometry g(4, 3, 16, 3, 1, 8);
  SubPool eager(g);
  SubPool lazy(g);
  std::vector<VirtualToken> live;
  for (SubPool* p : {&eager, &lazy}) {
    std::vector<VirtualToken> all;
    for (int i = 0; i < 6; ++i) all = concat(all, p->alloc(1));
    write_all(*p, all);
    live = all;
  }
  const std::vector<VirtualPage> gone{VirtualPage(2), VirtualPage(4)};
  eager.free_eager(gone);
  lazy.free_lazy(gone);
  // Lazy: tombstoned now, holes pending, nothing moved yet, survivors still readable.
  EXPECT_EQ(lazy.lazy_holes().size(), 2u);
  EXPECT_TRUE(lazy.moves().empty());
  EXPECT_EQ(lazy.v2p()[2], -1);
  EXPECT_EQ(lazy.v2p()[4], -1);
  EXPECT_TRUE(lazy.check_invariants().empty());
  std::vector<VirtualToken> survivors;
  for (VirtualToken t : live)
    if (t.value / 4 != 2 && t.value / 4 != 4) survivors.push_back(t);
  expect_tags_via_kernel_ids(lazy, survivors);
  lazy.flush();
  EXPECT_TRUE(lazy.lazy_holes().empty());
  EXPECT_FALSE(eager.moves().empty());
  EXPECT_EQ(lazy.moves(), eager.moves());
  EXPECT_EQ(vec(lazy.v2p()), vec(eager.v2p()));
  EXPECT_EQ(vec(lazy.p2v()), vec(eager.p2v()));
  // 7 pages -> wm 5 after freeing P2, P4: survivors P5, P6 move into P2, P4.
  EXPECT_EQ(vec(eager.v2p()), (std::vector<std::int64_t>{0, 1, -1, 3, -1, 2, 4, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}));
  expect_tags_via_kernel_ids(eager, survivors);
  expect_tags_via_kernel_ids(lazy, survivors);
  EXPECT_TRUE(eager.check_invariants().empty());
  EXPECT_TRUE(lazy.check_invariants().empty());
}

TEST(SubPool, AllocDrainsLazyHolesFirst) {
  SubPool pool(Geometry(1, 1, 8, 1, 1, 8));
  (void)pool.alloc(4);  // v1..4 -> P1..4
  pool.free_lazy(std::vector<VirtualPage>{VirtualPage(2)});
  // Virtual ids are FIFO: 5 is next; the lazy hole P2 is handed out before the watermark.
  EXPECT_EQ(values(pool.alloc(2)), (std::vector<std::int64_t>{5, 6}));
  EXPECT_EQ(pool.v2p()[5], 2);
  EXPECT_EQ(pool.v2p()[6], 5);
  EXPECT_TRUE(pool.lazy_holes().empty());
  EXPECT_TRUE(pool.check_invariants().empty());
  // the recycled virtual id 2 comes after the never-used ones
  EXPECT_EQ(values(pool.alloc(1)), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(values(pool.alloc(1)), (std::vector<std::int64_t>{2}));
}

TEST(SubPool, DoubleFreeAndDuplicatesRejectedWithoutChange) {
  SubPool pool(Geometry(2, 1, 8, 1, 1, 8));
  (void)pool.alloc(3);
  pool.free_eager(std::vector<VirtualPage>{VirtualPage(3)});
  const auto before = vec(pool.v2p());
  EXPECT_KVADDR_ERROR(pool.free_eager(std::vector<VirtualPage>{VirtualPage(3)}), InvalidState, "virtual_pages");
  EXPECT_KVADDR_ERROR(pool.free_lazy(std::vector<VirtualPage>{VirtualPage(3)}), InvalidState, "virtual_pages");
  EXPECT_KVADDR_ERROR(pool.free_eager(std::vector<VirtualPage>{VirtualPage(1), VirtualPage(1)}), InvalidState,
                      "virtual_pages");
  EXPECT_KVADDR_ERROR(pool.free_lazy(std::vector<VirtualPage>{VirtualPage(2), VirtualPage(1), VirtualPage(2)}),
                      InvalidState, "virtual_pages");
  // a valid id followed by a double free: nothing is freed
  EXPECT_KVADDR_ERROR(pool.free_eager(std::vector<VirtualPage>{VirtualPage(1), VirtualPage(3)}), InvalidState,
                      "virtual_pages");
  EXPECT_KVADDR_ERROR(pool.free_eager(std::vector<VirtualPage>{VirtualPage(0)}), OutOfRange, "virtual_pages");
  EXPECT_KVADDR_ERROR(pool.free_eager(std::vector<VirtualPage>{VirtualPage(8)}), OutOfRange, "virtual_pages");
  EXPECT_KVADDR_ERROR(pool.free_eager(std::vector<VirtualPage>{VirtualPage(-1)}), OutOfRange, "virtual_pages");
  EXPECT_EQ(vec(pool.v2p()), before);
  EXPECT_TRUE(pool.check_invariants().empty());
}

TEST(SubPool, AllocValidationAndExhaustion) {
  SubPool pool(Geometry(2, 1, 4, 1, 1, 8));  // pages 1..3 usable
  EXPECT_KVADDR_ERROR(pool.alloc(0), InvalidArgument, "n_pages");
  EXPECT_KVADDR_ERROR(pool.alloc(-1), InvalidArgument, "n_pages");
  EXPECT_KVADDR_ERROR(pool.alloc(4), InvalidState, "n_pages");
  (void)pool.alloc(3);
  EXPECT_KVADDR_ERROR(pool.alloc(1), InvalidState, "n_pages");
  EXPECT_KVADDR_ERROR(pool.alloc_with_virtual(std::vector<VirtualPage>{VirtualPage(1)}), InvalidState, "id_owner");
  EXPECT_KVADDR_ERROR(SubPool(Geometry(2, 1, std::int64_t{1} << 40, 1, 1, 8)), InvalidArgument, "num_pages");
}

TEST(SubPool, StoreAccessValidation) {
  SubPool pool(Geometry(4, 3, 8, 3, 1, 8));
  (void)pool.alloc(1);
  EXPECT_KVADDR_ERROR(pool.write(0, VirtualToken(8), 1), InvalidState, "t");   // page 2 unbound
  EXPECT_KVADDR_ERROR(pool.write(0, VirtualToken(-1), 1), OutOfRange, "t");
  EXPECT_KVADDR_ERROR(pool.write(3, VirtualToken(4), 1), OutOfRange, "layer");
  EXPECT_KVADDR_ERROR(pool.read_kernel(0, KernelId(96)), OutOfRange, "d");     // kernel rows = 8*12
  EXPECT_KVADDR_ERROR(pool.read_physical(0, PhysicalToken(32)), OutOfRange, "x");
  SubPool odd(Geometry(4, 2, 8, 3, 1, 8));  // M != L and M != 1: no dense view model
  EXPECT_KVADDR_ERROR(odd.read_kernel(0, KernelId(0)), InvalidState, "multiplier");
}

TEST(SubPool, PagesZeroedAtHandOutOnlyWhenEnabled) {  // B07 context
  const Geometry g(2, 2, 4, 2, 1, 8);
  SubPool plain(g);
  SubPool zeroing(g, SubPoolOptions{.zero_on_alloc = true});
  for (SubPool* p : {&plain, &zeroing}) {
    p->fill(0xDEADull);  // poisoned pool
    (void)p->alloc(1);
  }
  EXPECT_EQ(plain.read_virtual(1, VirtualToken(3)), 0xDEADull);  // stale bytes visible
  EXPECT_EQ(zeroing.read_virtual(1, VirtualToken(3)), 0u);
  EXPECT_EQ(zeroing.read_kernel(1, zeroing.to_kernel(VirtualToken(2))), 0u);
  EXPECT_EQ(zeroing.read_physical(0, PhysicalToken(0)), 0xDEADull);  // the sink is not handed out
}

TEST(SubPool, UnpinnedTableExperimentReportsInvariantB) {  // §7 Q2 / E08
  SubPool pool(Geometry(1, 1, 4, 1, 1, 8), SubPoolOptions{.min_page_index = 0, .table = TableOptions{false}});
  EXPECT_EQ(values(pool.alloc(1)), (std::vector<std::int64_t>{0}));  // page 0 handed to a live request
  EXPECT_EQ(pool.v2p()[0], 0);
  bool saw_b = false;
  pool.free_eager(std::vector<VirtualPage>{VirtualPage(0)});
  for (const auto& v : pool.check_invariants()) saw_b = saw_b || v.invariant == 'b';
  EXPECT_TRUE(saw_b);
}

TEST(SubPool, LongScenarioKeepsEveryLiveTokenReadable) {
  // Deterministic interleaving of allocs and eager / lazy frees; after every step all live tokens
  // read their own tag back through kernel-facing ids and the invariants hold.
  SubPool pool(Geometry(2, 3, 20, 3, 1, 8));
  std::vector<std::vector<VirtualToken>> live;
  std::int64_t step = 0;
  auto all_live = [&] {
    std::vector<VirtualToken> out;
    for (const auto& r : live) out = concat(out, r);
    return out;
  };
  for (int round = 0; round < 12; ++round) {
    const std::int64_t n = 1 + round % 3;
    if (pool.free_physical_pages() >= n) {
      live.push_back(pool.alloc(n));
      write_all(pool, live.back());
    }
    if (round % 2 == 1 && live.size() > 1) {
      const std::size_t victim = static_cast<std::size_t>(round) % live.size();
      std::vector<VirtualPage> pages;
      for (std::size_t i = 0; i < live[victim].size(); i += 2) pages.push_back(VirtualPage(live[victim][i].value / 2));
      if (round % 4 == 1) pool.free_eager(pages);
      else pool.free_lazy(pages);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    if (round % 5 == 4) pool.flush();
    ++step;
    EXPECT_TRUE(pool.check_invariants().empty()) << "step " << step;
    expect_tags_via_kernel_ids(pool, all_live());
  }
  pool.flush();
  EXPECT_FALSE(pool.moves().empty());
  expect_tags_via_kernel_ids(pool, all_live());
}

TEST(SubPool, DenseMhaStoreReadsKBlockThroughKernelIds) {
  // ps 2, L 2, M = 2L = 4 (dense MHA): v1 -> P1, v2 -> P2. d(t = 5) = 2*8 + 1 = 17; K of layer 1 is
  // envelope row 2*1*2 + 17 = 21 = P2 block 2 slot 1 ((2*4 + 2)*2 + 1).
  SubPool pool(Geometry(2, 4, 4, 2, 1, 8));
  const auto ts = pool.alloc(2);
  write_all(pool, ts);
  EXPECT_EQ(pool.to_kernel(VirtualToken(5)).value, 17);
  expect_tags_via_kernel_ids(pool, ts);
  pool.free_eager(std::vector<VirtualPage>{VirtualPage(1)});
  EXPECT_EQ(pool.to_kernel(VirtualToken(5)).value, 9);  // moved to P1: 1*8 + 1
  expect_tags_via_kernel_ids(pool, {ts[2], ts[3]});
}
