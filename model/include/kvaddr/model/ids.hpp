#pragma once
// Strong id types: one type per id space (spec §1 "Id spaces"), so that a virtual token can never be
// passed where a physical token or a kernel-facing row is expected. There are no implicit conversions
// between spaces and no arithmetic across spaces; `.value` is the only way out.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>

namespace kvaddr::model {

template <class Tag>
class Id {
 public:
  std::int64_t value = 0;

  constexpr Id() noexcept = default;
  explicit constexpr Id(std::int64_t v) noexcept : value(v) {}

  friend constexpr bool operator==(Id, Id) noexcept = default;
  friend constexpr auto operator<=>(Id, Id) noexcept = default;

  friend std::ostream& operator<<(std::ostream& os, Id id) { return os << Tag::prefix << id.value; }
};

struct VirtualTokenTag { static constexpr const char* prefix = "t"; };
struct PhysicalTokenTag { static constexpr const char* prefix = "x"; };
struct KernelIdTag { static constexpr const char* prefix = "d"; };
struct VirtualPageTag { static constexpr const char* prefix = "p"; };
struct PhysicalPageTag { static constexpr const char* prefix = "P"; };
struct WidenedWriteLocTag { static constexpr const char* prefix = "w"; };

using VirtualToken = Id<VirtualTokenTag>;    // t: stable for the life of a slot
using PhysicalToken = Id<PhysicalTokenTag>;  // x = P*ps + o
using KernelId = Id<KernelIdTag>;            // d: row of a per-layer view (= x when M == 1)
using VirtualPage = Id<VirtualPageTag>;      // p = t div ps
using PhysicalPage = Id<PhysicalPageTag>;    // P = v2p[p]
// A DCP write loc before collapsing: `loc` carries dcp_size times the virtual token space
// (spec §4.8 and §7 Q9). Distinct from VirtualToken so the two DCP entry points cannot be mixed.
using WidenedWriteLoc = Id<WidenedWriteLocTag>;

}  // namespace kvaddr::model

template <class Tag>
struct std::hash<kvaddr::model::Id<Tag>> {
  std::size_t operator()(kvaddr::model::Id<Tag> id) const noexcept { return std::hash<std::int64_t>{}(id.value); }
};
