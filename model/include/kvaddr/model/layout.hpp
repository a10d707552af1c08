#pragma once
// Spec §3 byte / element layouts, int64 with overflow checks. Every index argument is validated
// against its range (OutOfRange naming it); every size argument against its domain (InvalidArgument).
#include <cstdint>
#include <span>
#include <vector>

#include "kvaddr/model/geometry.hpp"
#include "kvaddr/model/ids.hpp"

namespace kvaddr::model {

// ---- §3.1 page-major envelope --------------------------------------------------------------------
// elem_MLA(P, l, o) = P*(L*ps*D) + l*(ps*D) + o*D ; 0 <= P < num_pages, 0 <= l < L, 0 <= o < ps.
std::int64_t mla_envelope_elem(const Geometry& g, PhysicalPage P, std::int64_t l, std::int64_t o);

// MHA envelope [L0 K x ps | L0 V x ps | L1 K x ps | ...], rows in bytes.
class MhaEnvelope {
 public:
  MhaEnvelope(std::int64_t page_size, std::int64_t num_layers, std::int64_t k_row_bytes, std::int64_t v_row_bytes,
              std::int64_t num_pages);
  std::int64_t page_size() const noexcept { return ps_; }
  std::int64_t num_layers() const noexcept { return layers_; }
  std::int64_t k_row_bytes() const noexcept { return k_row_; }
  std::int64_t v_row_bytes() const noexcept { return v_row_; }
  std::int64_t num_pages() const noexcept { return num_pages_; }
  std::int64_t entry_bytes() const noexcept { return entry_bytes_; }  // L*(k_row + v_row)
  std::int64_t page_bytes() const noexcept { return page_bytes_; }    // ps*entry_bytes
  std::int64_t total_bytes() const noexcept { return total_bytes_; }  // num_pages*page_bytes
  std::int64_t byte_k(PhysicalPage P, std::int64_t l, std::int64_t o) const;
  std::int64_t byte_v(PhysicalPage P, std::int64_t l, std::int64_t o) const;
  // Origin (bytes) of layer l's K / V block inside page 0 (the strided views' origin, §3.2).
  std::int64_t k_origin_bytes(std::int64_t l) const;
  std::int64_t v_origin_bytes(std::int64_t l) const;

 private:
  void check(PhysicalPage P, std::int64_t l, std::int64_t o) const;
  std::int64_t ps_, layers_, k_row_, v_row_, num_pages_, entry_bytes_, page_bytes_, total_bytes_;
};

// ---- §3.2 strided 4-D view ----------------------------------------------------------------------
// elem(x) = origin + (x div ps)*(page_bytes/item) + (x mod ps)*(row_bytes/item); x >= 0;
// page_bytes and row_bytes must be multiples of item (InvalidArgument).
std::int64_t strided_view_elem(std::int64_t origin_elem, PhysicalToken x, std::int64_t ps, std::int64_t page_bytes,
                               std::int64_t row_bytes, std::int64_t item_bytes);

// ---- §3.3 dense per-layer MLA views --------------------------------------------------------------
// Built from a page-major geometry with M = L (one latent row per layer).
class DenseMlaLayout {
 public:
  explicit DenseMlaLayout(const Geometry& g);  // InvalidArgument "multiplier" unless M == L, page_major
  const Geometry& geometry() const noexcept { return g_; }
  std::int64_t view_rows() const noexcept { return view_rows_; }             // num_pages*L*ps
  std::int64_t view_origin_elem(std::int64_t l) const;                       // l*ps*D
  std::int64_t elem(std::int64_t l, KernelId d) const;                        // l*ps*D + d*D, 0 <= d < view_rows
  std::int64_t tail_pad_bytes() const noexcept { return g_.page_bytes(); }   // ps*entry_bytes
  std::int64_t total_bytes() const noexcept { return g_.total_bytes(); }     // num_pages*page_bytes
  std::int64_t buffer_bytes() const noexcept { return buffer_bytes_; }       // total + tail pad
  std::int64_t buffer_elems() const noexcept { return buffer_bytes_ / g_.item_bytes(); }
  std::int64_t pool_size() const noexcept { return view_rows_ - g_.page_size(); }  // UnifiedMLATokenToKVPool size
  std::int64_t max_slots() const noexcept { return g_.total_bytes() / g_.entry_bytes(); }  // pad ignored

 private:
  Geometry g_;
  std::int64_t view_rows_;
  std::int64_t buffer_bytes_;
};

// max_slots = total_bytes div entry_bytes (tail pad ignored); raw buffer = total + ps*entry.
std::int64_t max_slots(std::int64_t total_bytes, std::int64_t entry_bytes);
std::int64_t raw_buffer_bytes(std::int64_t total_bytes, std::int64_t ps, std::int64_t entry_bytes);

// Dense MHA (#34602, k_row = v_row = R bytes): 2L row blocks, K of layer l at block 2l, V at 2l + 1.
class DenseMhaLayout {
 public:
  DenseMhaLayout(std::int64_t page_size, std::int64_t num_layers, std::int64_t row_bytes, std::int64_t num_pages);
  std::int64_t multiplier() const noexcept { return 2 * layers_; }  // M = 2L
  std::int64_t view_rows() const noexcept { return view_rows_; }    // num_pages*2L*ps
  std::int64_t byte_k(std::int64_t l, KernelId d) const;            // (2l*ps + d)*R
  std::int64_t byte_v(std::int64_t l, KernelId d) const;            // ((2l + 1)*ps + d)*R

 private:
  std::int64_t ps_, layers_, row_, num_pages_, view_rows_;
};

// ---- §3.7 token-major entries (Era D) ------------------------------------------------------------
inline constexpr std::int64_t kEntryAlignBytes = 32;
inline constexpr std::int64_t kRowAlignBytes = 16;

struct TokenMajorPart {
  std::int64_t offset;        // bytes from the entry start, multiple of 16
  std::int64_t layer_stride;  // bytes between consecutive layers' rows, multiple of 16
  std::int64_t row_bytes;     // multiple of 16, >= 1
  std::int64_t num_layers;    // >= 1
};

class TokenMajorLayout {
 public:
  // Validates alignment and that no two rows (any part, any layer) overlap (InvalidArgument "parts").
  TokenMajorLayout(std::vector<TokenMajorPart> parts, std::int64_t num_slots, std::int64_t anchor_bytes = 0);
  // MHA law of #38592: K of layer l at l*(k + v), V at l*(k + v) + k.
  static TokenMajorLayout mha(std::int64_t num_layers, std::int64_t k_row_bytes, std::int64_t v_row_bytes,
                              std::int64_t num_slots);
  std::int64_t entry_bytes() const noexcept { return entry_bytes_; }  // rounded up to 32
  std::int64_t num_slots() const noexcept { return num_slots_; }
  std::span<const TokenMajorPart> parts() const noexcept { return parts_; }
  // byte(x, part, l) = anchor + x*entry_bytes + part.offset + l*part.layer_stride; 0 <= x < num_slots.
  std::int64_t byte(PhysicalToken x, std::size_t part, std::int64_t l) const;

 private:
  std::vector<TokenMajorPart> parts_;
  std::int64_t num_slots_;
  std::int64_t anchor_;
  std::int64_t entry_bytes_;
};

// ---- §3.4 reserved floor ------------------------------------------------------------------------
struct SubPoolSpec {
  std::int64_t entry_bytes;    // >= 1
  std::int64_t page_size = 1;  // >= 1; a Mamba spec must have page size 1
  bool is_mamba = false;
};

// Era C: max(max_s entry(s), max_{s not Mamba} ps*entry(s)).
std::int64_t reserved_floor_era_c(std::span<const SubPoolSpec> specs);
// Era A: max_s entry(s) only (bug B18: misses the page-0 envelope at ps > 1).
std::int64_t reserved_floor_era_a(std::span<const SubPoolSpec> specs);
std::int64_t min_slot_index(std::int64_t reserved_floor, const SubPoolSpec& spec);  // ceil(floor / entry)
std::int64_t min_page_index(std::int64_t reserved_floor, const SubPoolSpec& spec);  // ceil(min_slot / ps)
// Byte-interval obligation: [0, ps*entry(s)) lies within [0, min_slot_index(s)*entry(s)) for every s.
bool reserved_floor_covers_page0(std::int64_t reserved_floor, std::span<const SubPoolSpec> specs);

}  // namespace kvaddr::model
