#pragma once
// v2p / p2v page tables of one sub-pool allocator (spec §1 "v2p / p2v tables", §4.14 invariants a-c).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kvaddr/model/ids.hpp"

namespace kvaddr::model {

struct TableOptions {
  // Spec §7 Q2: false builds the cleared table WITHOUT v2p[0] = 0 / p2v[0] = 0 (open-question
  // experiments); check_invariants() then reports invariant (b).
  bool v2p0_pinned = true;
};

struct InvariantViolation {
  char invariant;      // 'a', 'b' or 'c' (spec §4.14)
  std::string detail;  // human-readable description naming the offending index
};

class PageTables {
 public:
  // num_pages >= 1 physical pages; num_virtual_ids >= 1 (defaults to num_pages: an id owner; a
  // non-owner is sized by the owner's id count); 0 <= min_page_index <= min(num_pages, num_virtual_ids).
  explicit PageTables(std::int64_t num_pages, std::optional<std::int64_t> num_virtual_ids = std::nullopt,
                      std::int64_t min_page_index = 1, TableOptions options = {});

  std::int64_t num_pages() const noexcept { return num_pages_; }
  std::int64_t num_virtual_ids() const noexcept { return num_virtual_ids_; }
  std::int64_t min_page_index() const noexcept { return min_page_index_; }
  const TableOptions& options() const noexcept { return options_; }

  // Cleared state: all -1, then the sink pin (if enabled), trailing sentinel rows stay -1.
  void clear();

  // bind: v in [min_page_index, num_virtual_ids) (OutOfRange "v"), P in [min_page_index, num_pages)
  // (OutOfRange "P"); both must be free (InvalidState). Writes v2p[v] = P and p2v[P] = v.
  void bind(VirtualPage v, PhysicalPage P);
  // unbind: v must be bound (InvalidState "v" otherwise: double free); tombstones both sides and
  // returns the physical page it held.
  PhysicalPage unbind(VirtualPage v);
  // Relocate the virtual page bound at src onto the free physical page dst (compaction step):
  // v2p[p2v[src]] = dst, p2v[dst] = p2v[src], p2v[src] = -1.
  void relocate(PhysicalPage src, PhysicalPage dst);

  // Lookups; OutOfRange when the index lies outside the table (sentinel rows included in range).
  std::int64_t v2p_at(VirtualPage v) const;
  std::int64_t p2v_at(PhysicalPage P) const;
  std::optional<PhysicalPage> physical_of(VirtualPage v) const;  // nullopt on a tombstone
  std::optional<VirtualPage> virtual_of(PhysicalPage P) const;
  bool is_bound(VirtualPage v) const { return physical_of(v).has_value(); }

  std::span<const std::int64_t> v2p() const noexcept { return v2p_; }  // length num_virtual_ids + 1
  std::span<const std::int64_t> p2v() const noexcept { return p2v_; }  // length num_pages + 1

  // Raw writes for planted-bug / open-question experiments: no validation beyond the index range.
  void set_v2p_raw(std::int64_t index, std::int64_t value);
  void set_p2v_raw(std::int64_t index, std::int64_t value);

  // Lists every violated invariant (spec §4.14 a-c); empty when the tables are consistent. Never throws
  // for inconsistent contents.
  std::vector<InvariantViolation> check_invariants() const;

 private:
  std::int64_t num_pages_;
  std::int64_t num_virtual_ids_;
  std::int64_t min_page_index_;
  TableOptions options_;
  std::vector<std::int64_t> v2p_;
  std::vector<std::int64_t> p2v_;
};

}  // namespace kvaddr::model
