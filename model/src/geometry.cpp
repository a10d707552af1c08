#include "kvaddr/model/geometry.hpp"

#include "kvaddr/model/errors.hpp"

namespace kvaddr::model {

std::string_view to_string(LayoutKind kind) noexcept {
  switch (kind) {
    case LayoutKind::page_major: return "page_major";
    case LayoutKind::token_major: return "token_major";
  }
  return "unknown";
}

namespace {
std::int64_t positive(std::int64_t v, std::string_view name) {
  require(v >= 1, name, v, "must be >= 1");
  return v;
}
}  // namespace

Geometry::Geometry(std::int64_t page_size, std::int64_t multiplier, std::int64_t num_pages, std::int64_t num_layers,
                   std::int64_t row_width, std::int64_t item_bytes, LayoutKind layout)
    : page_size_(positive(page_size, "page_size")),
      multiplier_(positive(multiplier, "multiplier")),
      num_pages_(positive(num_pages, "num_pages")),
      num_layers_(positive(num_layers, "num_layers")),
      row_width_(positive(row_width, "row_width")),
      item_bytes_(positive(item_bytes, "item_bytes")),
      layout_(layout),
      stride_(checked_mul(page_size, multiplier, "multiplier")),
      kernel_rows_(checked_mul(num_pages, stride_, "num_pages")),
      num_slots_(checked_mul(num_pages, page_size, "num_pages")),
      row_bytes_(checked_mul(row_width, item_bytes, "row_width")),
      entry_bytes_(checked_mul(num_layers, row_bytes_, "num_layers")),
      page_bytes_(checked_mul(page_size, entry_bytes_, "page_size")),
      total_bytes_(checked_mul(num_pages, page_bytes_, "num_pages")),
      kernel_view_elems_(checked_mul(kernel_rows_, row_width, "row_width")) {
  require(layout != LayoutKind::token_major || multiplier == 1, "multiplier", multiplier,
          "a token_major geometry has no multiplier (Era D): it must be 1");
  if (layout == LayoutKind::page_major) {
    // The dense views overhang the last envelope by one envelope (tail pad, spec §3.3).
    (void)checked_add(total_bytes_, page_bytes_, "num_pages");
  }
}

bool Geometry::kernel_ids_fit_int32() const noexcept { return kernel_rows_ < (std::int64_t{1} << 31); }

}  // namespace kvaddr::model
