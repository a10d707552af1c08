// PageTables: cleared state, bind / unbind / relocate, invariant reporting (spec §1, §4.14 a-c).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kvaddr/model/tables.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::model::testing::vec;
using kvaddr::InvalidArgument;
using kvaddr::InvalidState;
using kvaddr::OutOfRange;
using kvaddr::Overflow;

namespace {
using kvaddr::model::testing::has;
}  // namespace

TEST(PageTables, ClearedStateOwner) {
  const PageTables t(5);
  EXPECT_EQ(t.num_pages(), 5);
  EXPECT_EQ(t.num_virtual_ids(), 5);
  EXPECT_EQ(t.min_page_index(), 1);
  EXPECT_EQ(vec(t.v2p()), (std::vector<std::int64_t>{0, -1, -1, -1, -1, -1}));
  EXPECT_EQ(vec(t.p2v()), (std::vector<std::int64_t>{0, -1, -1, -1, -1, -1}));
  EXPECT_TRUE(t.check_invariants().empty());
}

TEST(PageTables, NonOwnerSizedByOwnerIds) {
  const PageTables t(3, 8);
  EXPECT_EQ(t.v2p().size(), 9u);  // owner id count + 1
  EXPECT_EQ(t.p2v().size(), 4u);  // own pages + 1
  EXPECT_EQ(t.v2p()[8], -1);      // trailing sentinel
}

TEST(PageTables, WithoutPinReportsInvariantB) {
  const PageTables t(4, std::nullopt, 1, TableOptions{false});
  EXPECT_EQ(vec(t.v2p()), (std::vector<std::int64_t>{-1, -1, -1, -1, -1}));
  const auto v = t.check_invariants();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].invariant, 'b');
  EXPECT_EQ(v[1].invariant, 'b');
}

TEST(PageTables, BindUnbindRelocate) {
  PageTables t(5);
  t.bind(VirtualPage(2), PhysicalPage(3));
  t.bind(VirtualPage(1), PhysicalPage(4));
  EXPECT_EQ(vec(t.v2p()), (std::vector<std::int64_t>{0, 4, 3, -1, -1, -1}));
  EXPECT_EQ(vec(t.p2v()), (std::vector<std::int64_t>{0, -1, -1, 2, 1, -1}));
  EXPECT_EQ(t.physical_of(VirtualPage(2)), PhysicalPage(3));
  EXPECT_EQ(t.virtual_of(PhysicalPage(4)), VirtualPage(1));
  EXPECT_FALSE(t.physical_of(VirtualPage(3)).has_value());
  EXPECT_TRUE(t.check_invariants().empty());

  t.relocate(PhysicalPage(4), PhysicalPage(1));
  EXPECT_EQ(vec(t.v2p()), (std::vector<std::int64_t>{0, 1, 3, -1, -1, -1}));
  EXPECT_EQ(vec(t.p2v()), (std::vector<std::int64_t>{0, 1, -1, 2, -1, -1}));
  EXPECT_TRUE(t.check_invariants().empty());

  EXPECT_EQ(t.unbind(VirtualPage(2)), PhysicalPage(3));
  EXPECT_EQ(vec(t.v2p()), (std::vector<std::int64_t>{0, 1, -1, -1, -1, -1}));
  EXPECT_EQ(vec(t.p2v()), (std::vector<std::int64_t>{0, 1, -1, -1, -1, -1}));
  EXPECT_KVADDR_ERROR(t.unbind(VirtualPage(2)), InvalidState, "v");  // double free
  EXPECT_TRUE(t.check_invariants().empty());
}

TEST(PageTables, BindRejections) {
  PageTables t(5);
  t.bind(VirtualPage(2), PhysicalPage(3));
  EXPECT_KVADDR_ERROR(t.bind(VirtualPage(2), PhysicalPage(1)), InvalidState, "v");  // v already bound
  EXPECT_KVADDR_ERROR(t.bind(VirtualPage(4), PhysicalPage(3)), InvalidState, "P");  // P already bound
  EXPECT_KVADDR_ERROR(t.bind(VirtualPage(5), PhysicalPage(1)), OutOfRange, "v");    // the sentinel row
  EXPECT_KVADDR_ERROR(t.bind(VirtualPage(0), PhysicalPage(1)), OutOfRange, "v");    // reserved
  EXPECT_KVADDR_ERROR(t.bind(VirtualPage(1), PhysicalPage(0)), OutOfRange, "P");    // the sink
  EXPECT_KVADDR_ERROR(t.bind(VirtualPage(1), PhysicalPage(5)), OutOfRange, "P");
  EXPECT_KVADDR_ERROR(t.bind(VirtualPage(-1), PhysicalPage(1)), OutOfRange, "v");
  EXPECT_KVADDR_ERROR(t.relocate(PhysicalPage(1), PhysicalPage(2)), InvalidState, "src");  // nothing at 1
  EXPECT_KVADDR_ERROR(t.relocate(PhysicalPage(3), PhysicalPage(3)), InvalidState, "dst");
  EXPECT_KVADDR_ERROR(t.v2p_at(VirtualPage(6)), OutOfRange, "v");
  EXPECT_KVADDR_ERROR(t.p2v_at(PhysicalPage(-1)), OutOfRange, "P");
  EXPECT_EQ(t.v2p_at(VirtualPage(5)), -1);  // the sentinel is readable
}

TEST(PageTables, ConstructorValidation) {
  EXPECT_KVADDR_ERROR(PageTables(0), InvalidArgument, "num_pages");
  EXPECT_KVADDR_ERROR(PageTables(-2), InvalidArgument, "num_pages");
  EXPECT_KVADDR_ERROR(PageTables(4, 0), InvalidArgument, "num_virtual_ids");
  EXPECT_KVADDR_ERROR(PageTables(4, 4, -1), InvalidArgument, "min_page_index");
  EXPECT_KVADDR_ERROR(PageTables(4, 4, 5), InvalidArgument, "min_page_index");
  EXPECT_KVADDR_ERROR(PageTables(std::numeric_limits<std::int64_t>::max()), Overflow, "num_pages");
  EXPECT_KVADDR_ERROR(PageTables(4, std::numeric_limits<std::int64_t>::max()), Overflow, "num_virtual_ids");
}

TEST(PageTables, InvariantViolationsAreReportedNotThrown) {
  PageTables t(5, std::nullopt, 2);
  t.bind(VirtualPage(2), PhysicalPage(3));
  // (a): v2p points at a page whose p2v disagrees.
  t.set_v2p_raw(3, 4);
  auto v = t.check_invariants();
  EXPECT_TRUE(has(v, 'a'));
  t.set_v2p_raw(3, -1);
  EXPECT_TRUE(t.check_invariants().empty());
  // (a): two virtual pages aliasing one physical page (E04 shape).
  t.set_v2p_raw(4, 3);
  EXPECT_TRUE(has(t.check_invariants(), 'a'));
  t.set_v2p_raw(4, -1);
  // (b): the trailing sentinel overwritten.
  t.set_v2p_raw(5, 1);
  EXPECT_TRUE(has(t.check_invariants(), 'b'));
  t.set_v2p_raw(5, -1);
  // (c): a reserved virtual page (1 < min_page_index 2) bound consistently.
  t.set_v2p_raw(1, 4);
  t.set_p2v_raw(4, 1);
  v = t.check_invariants();
  EXPECT_TRUE(has(v, 'c'));
  EXPECT_FALSE(has(v, 'a'));
  // Out-of-range values are reported, not read.
  t.set_v2p_raw(1, 99);
  t.set_p2v_raw(4, -1);
  EXPECT_TRUE(has(t.check_invariants(), 'a'));
  EXPECT_KVADDR_ERROR(t.set_v2p_raw(6, 0), OutOfRange, "index");
  t.clear();
  EXPECT_TRUE(t.check_invariants().empty());
  EXPECT_EQ(vec(t.v2p()), (std::vector<std::int64_t>{0, -1, -1, -1, -1, -1}));
}
