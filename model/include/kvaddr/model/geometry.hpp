#pragma once
// Validated geometry of one sub-pool (spec §0.4, §1 "L and M", §3). Every derived product is
// computed once, with int64 overflow checks, at construction; accessors are then noexcept.
#include <cstdint>
#include <string_view>

namespace kvaddr::model {

enum class LayoutKind { page_major, token_major };
std::string_view to_string(LayoutKind kind) noexcept;

class Geometry {
 public:
  // Throws kvaddr::InvalidArgument naming the argument for a value outside its domain
  // (page_size, multiplier, num_pages, num_layers, row_width, item_bytes >= 1; token_major needs
  // multiplier == 1), and kvaddr::Overflow naming the argument whose product leaves int64.
  Geometry(std::int64_t page_size, std::int64_t multiplier, std::int64_t num_pages, std::int64_t num_layers,
           std::int64_t row_width, std::int64_t item_bytes, LayoutKind layout = LayoutKind::page_major);

  std::int64_t page_size() const noexcept { return page_size_; }    // ps (pool_page_size)
  std::int64_t multiplier() const noexcept { return multiplier_; }  // M
  std::int64_t num_pages() const noexcept { return num_pages_; }    // physical pages incl. reserved ones
  std::int64_t num_layers() const noexcept { return num_layers_; }  // L
  std::int64_t row_width() const noexcept { return row_width_; }    // D, elements per row
  std::int64_t item_bytes() const noexcept { return item_bytes_; }  // bytes per element
  LayoutKind layout() const noexcept { return layout_; }

  std::int64_t stride() const noexcept { return stride_; }              // S = ps*M
  std::int64_t kernel_rows() const noexcept { return kernel_rows_; }    // num_pages*ps*M (I8 n_rows)
  std::int64_t num_slots() const noexcept { return num_slots_; }        // num_pages*ps physical tokens
  std::int64_t row_bytes() const noexcept { return row_bytes_; }        // D*item
  std::int64_t entry_bytes() const noexcept { return entry_bytes_; }    // L*D*item (page-major MLA entry)
  std::int64_t page_bytes() const noexcept { return page_bytes_; }      // ps*entry_bytes
  std::int64_t total_bytes() const noexcept { return total_bytes_; }    // num_pages*page_bytes
  std::int64_t kernel_view_elems() const noexcept { return kernel_view_elems_; }  // kernel_rows*D

  // Spec I8: every kernel-facing id (and page entry, packed stream token) fits int32 iff n_rows < 2^31.
  bool kernel_ids_fit_int32() const noexcept;

  friend bool operator==(const Geometry&, const Geometry&) = default;

 private:
  std::int64_t page_size_;
  std::int64_t multiplier_;
  std::int64_t num_pages_;
  std::int64_t num_layers_;
  std::int64_t row_width_;
  std::int64_t item_bytes_;
  LayoutKind layout_;
  std::int64_t stride_;
  std::int64_t kernel_rows_;
  std::int64_t num_slots_;
  std::int64_t row_bytes_;
  std::int64_t entry_bytes_;
  std::int64_t page_bytes_;
  std::int64_t total_bytes_;
  std::int64_t kernel_view_elems_;
};

}  // namespace kvaddr::model
