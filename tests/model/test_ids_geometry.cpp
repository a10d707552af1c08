// Strong ids and validated geometry.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <type_traits>
#include <unordered_set>

#include "kvaddr/model/geometry.hpp"
#include "kvaddr/model/ids.hpp"
#include "test_util.hpp"

using namespace kvaddr::model;
using kvaddr::InvalidArgument;
using kvaddr::Overflow;

// ---- ids ------------------------------------------------------------------------------------------
static_assert(!std::is_convertible_v<std::int64_t, VirtualToken>, "construction from int64 must be explicit");
static_assert(std::is_constructible_v<VirtualToken, std::int64_t>);
static_assert(!std::is_convertible_v<VirtualToken, PhysicalToken>);
static_assert(!std::is_convertible_v<PhysicalToken, KernelId>);
static_assert(!std::is_convertible_v<KernelId, PhysicalToken>);
static_assert(!std::is_convertible_v<VirtualPage, PhysicalPage>);
static_assert(!std::is_convertible_v<WidenedWriteLoc, VirtualToken>);
static_assert(!std::is_convertible_v<VirtualToken, WidenedWriteLoc>);
static_assert(!std::is_convertible_v<VirtualToken, std::int64_t>);
static_assert(!std::is_same_v<WidenedWriteLoc, VirtualToken>);
namespace {
template <class A, class B>
concept EqualityComparableWith = requires(A a, B b) { a == b; };
template <class A, class B>
concept Addable = requires(A a, B b) { a + b; };
template <class A, class B>
concept Subtractable = requires(A a, B b) { a - b; };
}  // namespace
static_assert(EqualityComparableWith<VirtualToken, VirtualToken>);
static_assert(!EqualityComparableWith<VirtualToken, PhysicalToken>, "no comparison across spaces");
static_assert(!EqualityComparableWith<KernelId, std::int64_t>, "no comparison with raw integers");
static_assert(!Addable<VirtualToken, VirtualToken>, "no arithmetic on ids");
static_assert(!Addable<VirtualToken, PhysicalToken>, "no arithmetic across spaces");
static_assert(!Addable<VirtualToken, std::int64_t>);
static_assert(!Subtractable<PhysicalToken, KernelId>);
static_assert(VirtualToken(3) < VirtualToken(5));
static_assert(KernelId(7) == KernelId(7));
static_assert(PhysicalPage(2).value == 2);

TEST(Ids, ComparisonAndHash) {
  std::unordered_set<KernelId> ids{KernelId(1), KernelId(2), KernelId(1)};
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_NE(VirtualPage(1), VirtualPage(2));
  EXPECT_EQ(VirtualToken().value, 0);
}

// ---- geometry -------------------------------------------------------------------------------------
TEST(Geometry, DerivedProductsHandComputed) {
  // ps 4, M 3, 6 pages, L 3, D 8, bf16
  const Geometry g(4, 3, 6, 3, 8, 2);
  EXPECT_EQ(g.page_size(), 4);
  EXPECT_EQ(g.multiplier(), 3);
  EXPECT_EQ(g.num_pages(), 6);
  EXPECT_EQ(g.num_layers(), 3);
  EXPECT_EQ(g.row_width(), 8);
  EXPECT_EQ(g.item_bytes(), 2);
  EXPECT_EQ(g.layout(), LayoutKind::page_major);
  EXPECT_EQ(g.stride(), 12);
  EXPECT_EQ(g.kernel_rows(), 72);
  EXPECT_EQ(g.num_slots(), 24);
  EXPECT_EQ(g.row_bytes(), 16);
  EXPECT_EQ(g.entry_bytes(), 48);  // L*D*2 (test_entry_bytes_and_dim)
  EXPECT_EQ(g.page_bytes(), 192);
  EXPECT_EQ(g.total_bytes(), 1152);
  EXPECT_EQ(g.kernel_view_elems(), 576);
  EXPECT_TRUE(g.kernel_ids_fit_int32());
}

TEST(Geometry, RejectsNonPositiveArgumentsNamingThem) {
  EXPECT_KVADDR_ERROR(Geometry(0, 1, 1, 1, 1, 1), InvalidArgument, "page_size");
  EXPECT_KVADDR_ERROR(Geometry(-4, 1, 1, 1, 1, 1), InvalidArgument, "page_size");
  EXPECT_KVADDR_ERROR(Geometry(1, 0, 1, 1, 1, 1), InvalidArgument, "multiplier");
  EXPECT_KVADDR_ERROR(Geometry(1, 1, 0, 1, 1, 1), InvalidArgument, "num_pages");
  EXPECT_KVADDR_ERROR(Geometry(1, 1, -3, 1, 1, 1), InvalidArgument, "num_pages");
  EXPECT_KVADDR_ERROR(Geometry(1, 1, 1, 0, 1, 1), InvalidArgument, "num_layers");
  EXPECT_KVADDR_ERROR(Geometry(1, 1, 1, 1, 0, 1), InvalidArgument, "row_width");  // kv_lora_rank = 0 analogue
  EXPECT_KVADDR_ERROR(Geometry(1, 1, 1, 1, 1, 0), InvalidArgument, "item_bytes");
}

TEST(Geometry, TokenMajorNeedsMultiplierOne) {
  EXPECT_KVADDR_ERROR(Geometry(4, 2, 8, 2, 8, 2, LayoutKind::token_major), InvalidArgument, "multiplier");
  const Geometry g(4, 1, 8, 2, 8, 2, LayoutKind::token_major);
  EXPECT_EQ(g.stride(), 4);
  EXPECT_EQ(g.kernel_rows(), 32);
}

TEST(Geometry, OverflowNamesTheArgument) {
  constexpr std::int64_t big = std::int64_t{1} << 62;
  EXPECT_KVADDR_ERROR(Geometry(4, big, 1, 1, 1, 1), Overflow, "multiplier");   // ps*M
  EXPECT_KVADDR_ERROR(Geometry(4, 3, big, 1, 1, 1), Overflow, "num_pages");    // num_pages*ps*M
  EXPECT_KVADDR_ERROR(Geometry(1, 1, 1, 1, big, 8), Overflow, "row_width");    // D*item
  EXPECT_KVADDR_ERROR(Geometry(1, 1, 1, big, 8, 1), Overflow, "num_layers");   // L*row_bytes
  EXPECT_KVADDR_ERROR(Geometry(big, 1, 1, 1, 8, 1), Overflow, "page_size");    // ps*entry_bytes
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  EXPECT_KVADDR_ERROR(Geometry(1, 1, max, 1, 1, 1), Overflow, "num_pages");    // total + tail pad
}

TEST(Geometry, Int32KernelIdBound) {
  // L = 24 full MLA layers at ps 1: 2^31 / 24 = 89478485.33 token slots per rank (spec I8).
  EXPECT_TRUE(Geometry(1, 24, 89478485, 24, 1, 1).kernel_ids_fit_int32());   // 2147483640 rows
  EXPECT_FALSE(Geometry(1, 24, 89478486, 24, 1, 1).kernel_ids_fit_int32());  // 2147483664 rows
  // exactly 2^31 rows does not fit (n_rows < 2^31)
  EXPECT_FALSE(Geometry(1, 1, std::int64_t{1} << 31, 1, 1, 1).kernel_ids_fit_int32());
  EXPECT_TRUE(Geometry(1, 1, (std::int64_t{1} << 31) - 1, 1, 1, 1).kernel_ids_fit_int32());
}
