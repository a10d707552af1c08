// Exact values at the boundaries the source-level mutation campaign (scripts/mutate-source.py)
// found untested: the pinned sink's physical page, relocation from a page holding the sentinel
// row's id, invariant (c) at num_pages, the lifecycle config's context_pages range and the capture
// width's "+ 1" for the token being decoded.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "kvaddr/model/lifecycle.hpp"
#include "kvaddr/model/tables.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::InvalidArgument;
using kvaddr::InvalidState;

using kvaddr::model::testing::has;

// v2p[0] = 0 is a binding like any other: physical page 0, not a tombstone.
TEST(Boundaries, PinnedSinkIsBoundToPhysicalPageZero) {
  PageTables t(5, std::nullopt, 2);
  const auto p0 = t.physical_of(VirtualPage(0));
  ASSERT_TRUE(p0.has_value());
  EXPECT_EQ(p0->value, 0);
  EXPECT_TRUE(t.is_bound(VirtualPage(0)));
  const auto v0 = t.virtual_of(PhysicalPage(0));  // and p2v[0] = 0 names virtual page 0
  ASSERT_TRUE(v0.has_value());
  EXPECT_EQ(v0->value, 0);
  EXPECT_FALSE(t.virtual_of(PhysicalPage(1)).has_value());
  EXPECT_FALSE(t.physical_of(VirtualPage(1)).has_value());  // reserved, never bound: -1
}

// relocate() moves the virtual page p2v[src] names; an id equal to num_virtual_ids is the sentinel
// row, not a virtual page, and must be refused before v2p's sentinel is overwritten.
TEST(Boundaries, RelocateRefusesASourceNamingTheSentinelRow) {
  PageTables t(5, std::nullopt, 2);
  ASSERT_EQ(t.num_virtual_ids(), 5);
  t.bind(VirtualPage(4), PhysicalPage(3));  // the last virtual page: admitted
  t.relocate(PhysicalPage(3), PhysicalPage(4));
  EXPECT_EQ(t.v2p_at(VirtualPage(4)), 4);
  EXPECT_EQ(t.p2v_at(PhysicalPage(3)), -1);
  EXPECT_EQ(t.p2v_at(PhysicalPage(4)), 4);

  PageTables u(5, std::nullopt, 2);
  u.set_p2v_raw(3, 5);  // one past the last virtual page
  EXPECT_KVADDR_ERROR(u.relocate(PhysicalPage(3), PhysicalPage(4)), InvalidState, "src");
  EXPECT_EQ(u.v2p_at(VirtualPage(5)), -1);  // the sentinel row is untouched
  EXPECT_EQ(u.p2v_at(PhysicalPage(4)), -1);
}

// Invariant (c): a v2p entry must lie in [min_page_index, num_pages); num_pages itself is the
// sentinel row of p2v.
TEST(Boundaries, InvariantCReportsAnEntryEqualToNumPages) {
  PageTables t(5, std::nullopt, 2);
  t.bind(VirtualPage(2), PhysicalPage(4));  // the last physical page: admitted
  EXPECT_TRUE(t.check_invariants().empty());
  t.unbind(VirtualPage(2));
  t.set_v2p_raw(2, 5);
  EXPECT_TRUE(has(t.check_invariants(), 'c'));
}

// SimConfig::validate: context_pages lies in [1, 32].
TEST(Boundaries, LifecycleContextPagesOnBothSidesOfItsRange) {
  lifecycle::SimConfig c;
  for (const std::int64_t ok : {1, 32}) {
    c.context_pages = ok;
    EXPECT_NO_THROW(c.validate()) << ok;
  }
  for (const std::int64_t bad : {0, 33}) {
    c.context_pages = bad;
    EXPECT_KVADDR_ERROR(c.validate(), InvalidArgument, "context_pages");
  }
}

// Capture widths cover context + 1 (the token being decoded) + max_draft. With ps 4 and context
// 24: max_draft 0 needs ceil(25 / 4) = 7 columns (without the + 1 it would be 6), max_draft 4
// needs ceil(29 / 4) = 8 (not 7).
TEST(Boundaries, CaptureWidthCountsTheDecodedToken) {
  for (const auto& [draft, want] : {std::pair<std::int64_t, std::int64_t>{0, 7}, {4, 8}}) {
    lifecycle::SimConfig c;
    c.ps_full = 4;
    c.swa_ratio = 1;
    c.layers = 2;
    c.dcp_size = 1;
    c.max_draft = draft;
    c.context_pages = 6;
    c.batch = 2;
    c.swa_window_pages = 2;
    c.full_pages = 64;
    c.log2_full_page_bytes = 27;
    lifecycle::LifecycleSim sim(c);
    sim.run(lifecycle::Command::capture, 0);
    std::int64_t pt = 0, swa = 0;
    for (const auto& b : sim.buffers()) {
      if (!b.alive) continue;
      if (b.role == "page_table") pt = b.width;
      if (b.role == "swa_table") swa = b.width;
    }
    EXPECT_EQ(pt, want) << "max_draft " << draft;
    EXPECT_EQ(swa, want) << "max_draft " << draft;  // ps(swa) = 4 * swa_ratio 1
  }
}
