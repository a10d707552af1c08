#include "kvaddr/model/layout.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"

namespace kvaddr::model {

namespace {
void positive(std::int64_t v, const char* name) { require(v >= 1, name, v, "must be >= 1"); }
void in_range(std::int64_t v, std::int64_t hi, const char* name, const char* what) {
  require_range(v >= 0 && v < hi, name, v, std::string("must lie in [0, ") + what + " = " + std::to_string(hi) + ")");
}
}  // namespace

// ---- §3.1 ---------------------------------------------------------------------------------------
std::int64_t mla_envelope_elem(const Geometry& g, PhysicalPage P, std::int64_t l, std::int64_t o) {
  require(g.layout() == LayoutKind::page_major, "layout", static_cast<std::int64_t>(g.layout()),
          "the envelope address needs a page_major geometry");
  in_range(P.value, g.num_pages(), "P", "num_pages");
  in_range(l, g.num_layers(), "l", "num_layers");
  in_range(o, g.page_size(), "o", "page_size");
  const std::int64_t D = g.row_width();
  const std::int64_t page_elems = checked_mul(g.num_layers(), checked_mul(g.page_size(), D, "row_width"), "num_layers");
  std::int64_t e = checked_mul(P.value, page_elems, "P");
  e = checked_add(e, checked_mul(l, checked_mul(g.page_size(), D, "row_width"), "l"), "l");
  return checked_add(e, checked_mul(o, D, "o"), "o");
}

MhaEnvelope::MhaEnvelope(std::int64_t page_size, std::int64_t num_layers, std::int64_t k_row_bytes,
                         std::int64_t v_row_bytes, std::int64_t num_pages)
    : ps_(page_size), layers_(num_layers), k_row_(k_row_bytes), v_row_(v_row_bytes), num_pages_(num_pages) {
  positive(ps_, "page_size");
  positive(layers_, "num_layers");
  positive(k_row_, "k_row_bytes");
  positive(v_row_, "v_row_bytes");
  positive(num_pages_, "num_pages");
  entry_bytes_ = checked_mul(layers_, checked_add(k_row_, v_row_, "v_row_bytes"), "num_layers");
  page_bytes_ = checked_mul(ps_, entry_bytes_, "page_size");
  total_bytes_ = checked_mul(num_pages_, page_bytes_, "num_pages");
}

void MhaEnvelope::check(PhysicalPage P, std::int64_t l, std::int64_t o) const {
  in_range(P.value, num_pages_, "P", "num_pages");
  in_range(l, layers_, "l", "num_layers");
  in_range(o, ps_, "o", "page_size");
}

std::int64_t MhaEnvelope::k_origin_bytes(std::int64_t l) const {
  in_range(l, layers_, "l", "num_layers");
  return l * ps_ * (k_row_ + v_row_);  // < page_bytes, cannot overflow
}

std::int64_t MhaEnvelope::v_origin_bytes(std::int64_t l) const { return k_origin_bytes(l) + ps_ * k_row_; }

std::int64_t MhaEnvelope::byte_k(PhysicalPage P, std::int64_t l, std::int64_t o) const {
  check(P, l, o);
  return P.value * page_bytes_ + k_origin_bytes(l) + o * k_row_;  // < total_bytes
}

std::int64_t MhaEnvelope::byte_v(PhysicalPage P, std::int64_t l, std::int64_t o) const {
  check(P, l, o);
  return P.value * page_bytes_ + v_origin_bytes(l) + o * v_row_;
}

// ---- §3.2 ---------------------------------------------------------------------------------------
std::int64_t strided_view_elem(std::int64_t origin_elem, PhysicalToken x, std::int64_t ps, std::int64_t page_bytes,
                               std::int64_t row_bytes, std::int64_t item_bytes) {
  positive(ps, "page_size");
  positive(page_bytes, "page_bytes");
  positive(row_bytes, "row_bytes");
  positive(item_bytes, "item_bytes");
  require(origin_elem >= 0, "origin_elem", origin_elem, "must be >= 0");
  require(page_bytes % item_bytes == 0, "page_bytes", page_bytes, "must be a multiple of item_bytes");
  require(row_bytes % item_bytes == 0, "row_bytes", row_bytes, "must be a multiple of item_bytes");
  require(x.value >= 0, "x", x.value, "a physical token id is >= 0");
  const std::int64_t page_term = checked_mul(x.value / ps, page_bytes / item_bytes, "x");
  const std::int64_t slot_term = checked_mul(x.value % ps, row_bytes / item_bytes, "row_bytes");
  return checked_add(checked_add(origin_elem, page_term, "x"), slot_term, "x");
}

// ---- §3.3 ---------------------------------------------------------------------------------------
DenseMlaLayout::DenseMlaLayout(const Geometry& g) : g_(g), view_rows_(g.kernel_rows()), buffer_bytes_(0) {
  require(g.layout() == LayoutKind::page_major, "layout", static_cast<std::int64_t>(g.layout()),
          "dense views need a page_major geometry");
  require(g.multiplier() == g.num_layers(), "multiplier", g.multiplier(),
          "dense MLA views need multiplier == num_layers (one latent row per layer)");
  buffer_bytes_ = checked_add(g.total_bytes(), g.page_bytes(), "num_pages");  // checked by Geometry too
}

std::int64_t DenseMlaLayout::view_origin_elem(std::int64_t l) const {
  in_range(l, g_.num_layers(), "l", "num_layers");
  return l * g_.page_size() * g_.row_width();  // < page elems
}

std::int64_t DenseMlaLayout::elem(std::int64_t l, KernelId d) const {
  const std::int64_t origin = view_origin_elem(l);
  in_range(d.value, view_rows_, "d", "view_rows");
  return origin + d.value * g_.row_width();  // < kernel_view_elems + page elems (checked by Geometry)
}

std::int64_t max_slots(std::int64_t total_bytes, std::int64_t entry_bytes) {
  require(total_bytes >= 0, "total_bytes", total_bytes, "must be >= 0");
  positive(entry_bytes, "entry_bytes");
  return total_bytes / entry_bytes;
}

std::int64_t raw_buffer_bytes(std::int64_t total_bytes, std::int64_t ps, std::int64_t entry_bytes) {
  require(total_bytes >= 0, "total_bytes", total_bytes, "must be >= 0");
  positive(ps, "page_size");
  positive(entry_bytes, "entry_bytes");
  return checked_add(total_bytes, checked_mul(ps, entry_bytes, "entry_bytes"), "total_bytes");
}

DenseMhaLayout::DenseMhaLayout(std::int64_t page_size, std::int64_t num_layers, std::int64_t row_bytes,
                               std::int64_t num_pages)
    : ps_(page_size), layers_(num_layers), row_(row_bytes), num_pages_(num_pages), view_rows_(0) {
  positive(ps_, "page_size");
  positive(layers_, "num_layers");
  positive(row_, "row_bytes");
  positive(num_pages_, "num_pages");
  const std::int64_t m = checked_mul(2, layers_, "num_layers");
  view_rows_ = checked_mul(num_pages_, checked_mul(ps_, m, "num_layers"), "num_pages");
  // Largest byte: ((2L - 1)*ps + view_rows)*R must fit (the view of the last V block).
  (void)checked_mul(checked_add(view_rows_, checked_mul(m, ps_, "num_layers"), "num_pages"), row_, "row_bytes");
}

std::int64_t DenseMhaLayout::byte_k(std::int64_t l, KernelId d) const {
  in_range(l, layers_, "l", "num_layers");
  in_range(d.value, view_rows_, "d", "view_rows");
  return (2 * l * ps_ + d.value) * row_;
}

std::int64_t DenseMhaLayout::byte_v(std::int64_t l, KernelId d) const {
  in_range(l, layers_, "l", "num_layers");
  in_range(d.value, view_rows_, "d", "view_rows");
  return ((2 * l + 1) * ps_ + d.value) * row_;
}

// ---- §3.7 ---------------------------------------------------------------------------------------
TokenMajorLayout::TokenMajorLayout(std::vector<TokenMajorPart> parts, std::int64_t num_slots, std::int64_t anchor_bytes)
    : parts_(std::move(parts)), num_slots_(num_slots), anchor_(anchor_bytes), entry_bytes_(0) {
  require(!parts_.empty(), "parts", 0, "a token-major entry needs at least one part");
  positive(num_slots_, "num_slots");
  require(anchor_ >= 0, "anchor_bytes", anchor_, "must be >= 0");
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;  // [begin, end) of every (part, layer) row
  std::int64_t end_max = 0;
  for (const TokenMajorPart& p : parts_) {
    require(p.offset >= 0 && p.offset % kRowAlignBytes == 0, "offset", p.offset, "must be a non-negative multiple of 16");
    require(p.layer_stride >= 0 && p.layer_stride % kRowAlignBytes == 0, "layer_stride", p.layer_stride,
            "must be a non-negative multiple of 16");
    require(p.row_bytes >= 1 && p.row_bytes % kRowAlignBytes == 0, "row_bytes", p.row_bytes,
            "must be a positive multiple of 16");
    positive(p.num_layers, "num_layers");
    for (std::int64_t l = 0; l < p.num_layers; ++l) {
      const std::int64_t begin = checked_add(p.offset, checked_mul(l, p.layer_stride, "layer_stride"), "offset");
      const std::int64_t end = checked_add(begin, p.row_bytes, "row_bytes");
      rows.emplace_back(begin, end);
      end_max = std::max(end_max, end);
    }
  }
  std::sort(rows.begin(), rows.end());
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].first < rows[i - 1].second) {
      throw InvalidArgument("parts", std::to_string(rows[i].first),
                            "rows overlap inside the entry (a row starts before the previous one ends)");
    }
  }
  entry_bytes_ = checked_mul(ceil_div(end_max, kEntryAlignBytes), kEntryAlignBytes, "parts");
  (void)checked_add(anchor_, checked_mul(num_slots_, entry_bytes_, "num_slots"), "anchor_bytes");
}

TokenMajorLayout TokenMajorLayout::mha(std::int64_t num_layers, std::int64_t k_row_bytes, std::int64_t v_row_bytes,
                                       std::int64_t num_slots) {
  positive(num_layers, "num_layers");
  positive(k_row_bytes, "k_row_bytes");
  positive(v_row_bytes, "v_row_bytes");
  const std::int64_t stride = checked_add(k_row_bytes, v_row_bytes, "v_row_bytes");
  return TokenMajorLayout({TokenMajorPart{0, stride, k_row_bytes, num_layers},
                           TokenMajorPart{k_row_bytes, stride, v_row_bytes, num_layers}},
                          num_slots);
}

std::int64_t TokenMajorLayout::byte(PhysicalToken x, std::size_t part, std::int64_t l) const {
  require_range(part < parts_.size(), "part", static_cast<std::int64_t>(part), "no such part");
  const TokenMajorPart& p = parts_[part];
  in_range(x.value, num_slots_, "x", "num_slots");
  in_range(l, p.num_layers, "l", "num_layers");
  return anchor_ + x.value * entry_bytes_ + p.offset + l * p.layer_stride;  // < anchor + num_slots*entry
}

// ---- §3.4 ---------------------------------------------------------------------------------------
namespace {
void check_spec(const SubPoolSpec& s) {
  positive(s.entry_bytes, "entry_bytes");
  positive(s.page_size, "page_size");
  require(!s.is_mamba || s.page_size == 1, "page_size", s.page_size, "a Mamba sub-pool has page size 1");
}
void check_specs(std::span<const SubPoolSpec> specs) {
  require(!specs.empty(), "specs", 0, "needs at least one sub-pool spec");
  for (const SubPoolSpec& s : specs) check_spec(s);
}
}  // namespace

std::int64_t reserved_floor_era_a(std::span<const SubPoolSpec> specs) {
  check_specs(specs);
  std::int64_t floor = 0;
  for (const SubPoolSpec& s : specs) floor = std::max(floor, s.entry_bytes);
  return floor;
}

std::int64_t reserved_floor_era_c(std::span<const SubPoolSpec> specs) {
  std::int64_t floor = reserved_floor_era_a(specs);
  for (const SubPoolSpec& s : specs) {
    if (!s.is_mamba) floor = std::max(floor, checked_mul(s.page_size, s.entry_bytes, "page_size"));
  }
  return floor;
}

std::int64_t min_slot_index(std::int64_t reserved_floor, const SubPoolSpec& spec) {
  check_spec(spec);
  require(reserved_floor >= 0, "reserved_floor", reserved_floor, "must be >= 0");
  return ceil_div(reserved_floor, spec.entry_bytes);
}

std::int64_t min_page_index(std::int64_t reserved_floor, const SubPoolSpec& spec) {
  return ceil_div(min_slot_index(reserved_floor, spec), spec.page_size);
}

bool reserved_floor_covers_page0(std::int64_t reserved_floor, std::span<const SubPoolSpec> specs) {
  check_specs(specs);
  for (const SubPoolSpec& s : specs) {
    const std::int64_t page0_end = checked_mul(s.page_size, s.entry_bytes, "page_size");
    const std::int64_t first_live = checked_mul(min_slot_index(reserved_floor, s), s.entry_bytes, "entry_bytes");
    if (page0_end > reserved_floor || first_live < std::max(page0_end, reserved_floor)) return false;
  }
  return true;
}

}  // namespace kvaddr::model
