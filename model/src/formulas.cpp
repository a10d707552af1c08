#include "kvaddr/model/formulas.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::model {

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

void check_divisor(std::int64_t a, std::int64_t b) {
  require(b != 0, "divisor", b, "division by zero");
  if (a == kMin && b == -1) throw Overflow("divisor", std::to_string(a) + " / -1", "quotient does not fit int64");
}

void check_ps(std::int64_t ps) { require(ps >= 1, "page_size", ps, "must be >= 1"); }
void check_m(std::int64_t M, const char* name = "multiplier") { require(M >= 1, name, M, "must be >= 1"); }

std::int64_t size_of(std::span<const std::int64_t> table) { return static_cast<std::int64_t>(table.size()); }

// Reads table[index] after checking the index lies inside the table; never reads out of bounds.
std::int64_t gather(std::span<const std::int64_t> table, std::int64_t index, const char* id_name, std::int64_t id_value,
                    const char* table_name) {
  if (index < 0 || index >= size_of(table)) {
    throw OutOfRange(id_name, std::to_string(id_value),
                     "reads " + std::string(table_name) + "[" + std::to_string(index) + "] outside the table of length " +
                         std::to_string(table.size()));
  }
  return table[static_cast<std::size_t>(index)];
}

// max(P*stride + o, 0) with checked arithmetic.
std::int64_t clamp_row(std::int64_t P, std::int64_t stride, std::int64_t o) {
  return std::max<std::int64_t>(checked_add(checked_mul(P, stride, "v2p"), o, "v2p"), 0);
}

std::int64_t translate(std::span<const std::int64_t> table, std::int64_t ps, std::int64_t M, std::int64_t t,
                       const char* table_name, const char* m_name) {
  check_ps(ps);
  check_m(M, m_name);
  const std::int64_t stride = checked_mul(ps, M, m_name);
  if (t < 0) return 0;  // padding: explicit sign test, no table access
  const std::int64_t P = gather(table, t / ps, "t", t, table_name);
  return clamp_row(P, stride, t % ps);
}

}  // namespace

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  check_divisor(a, b);
  const std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  require(b != 0, "divisor", b, "division by zero");
  if (b == -1) return 0;
  const std::int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

std::int64_t trunc_div(std::int64_t a, std::int64_t b) {
  check_divisor(a, b);
  return a / b;
}

std::int64_t trunc_mod(std::int64_t a, std::int64_t b) {
  require(b != 0, "divisor", b, "division by zero");
  if (b == -1) return 0;
  return a % b;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  require(a >= 0, "numerator", a, "must be >= 0");
  require(b >= 1, "divisor", b, "must be >= 1");
  return a / b + (a % b != 0 ? 1 : 0);
}

PhysicalToken phys(std::span<const std::int64_t> v2p, std::int64_t ps, VirtualToken t) {
  return PhysicalToken(translate(v2p, ps, 1, t.value, "v2p", "multiplier"));
}

KernelId kernel_id(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, VirtualToken t) {
  return KernelId(translate(v2p, ps, M, t.value, "v2p", "multiplier"));
}

KernelId kernel_id(std::span<const std::int64_t> v2p, const Geometry& g, VirtualToken t) {
  return kernel_id(v2p, g.page_size(), g.multiplier(), t);
}

std::int64_t kernel_id_unclamped(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, VirtualToken t) {
  check_ps(ps);
  check_m(M);
  require(t.value >= 0, "t", t.value, "the unclamped form is defined for t >= 0 only");
  const std::int64_t stride = checked_mul(ps, M, "multiplier");
  const std::int64_t P = gather(v2p, t.value / ps, "t", t.value, "v2p");
  return checked_add(checked_mul(P, stride, "v2p"), t.value % ps, "v2p");
}

std::int64_t kernel_id_variant(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, VirtualToken t,
                               DivKind div, bool padding_guard) {
  check_ps(ps);
  check_m(M);
  const std::int64_t stride = checked_mul(ps, M, "multiplier");
  if (padding_guard && t.value < 0) return 0;
  std::int64_t page = 0;
  std::int64_t o = 0;
  if (div == DivKind::floor) {
    page = floor_div(t.value, ps);
    o = floor_mod(t.value, ps);
  } else {
    page = trunc_div(t.value, ps);
    o = trunc_mod(t.value, ps);
  }
  std::int64_t index = page;
  if (page < 0 && div == DivKind::floor) index = size_of(v2p) + page;  // torch negative indexing wraps
  const std::int64_t P = gather(v2p, index, "t", t.value, "v2p");
  return clamp_row(P, stride, o);
}

std::int64_t block_entry_unclamped(std::span<const std::int64_t> v2p, std::int64_t M, VirtualPage p) {
  check_m(M);
  const std::int64_t P = gather(v2p, p.value, "p", p.value, "v2p");
  return checked_mul(P, M, "v2p");
}

std::int64_t block_entry(std::span<const std::int64_t> v2p, std::int64_t M, VirtualPage p) {
  return std::max<std::int64_t>(block_entry_unclamped(v2p, M, p), 0);
}

std::int64_t token_from_entry(std::int64_t entry, std::int64_t o, std::int64_t ps) {
  check_ps(ps);
  require(o >= 0 && o < ps, "o", o, "offset must lie in [0, page_size)");
  return checked_add(checked_mul(entry, ps, "entry"), o, "entry");
}

KernelId phi(PhysicalToken x, std::int64_t ps, std::int64_t M) {
  check_ps(ps);
  check_m(M);
  require(x.value >= 0, "x", x.value, "a physical token id is >= 0");
  const std::int64_t stride = checked_mul(ps, M, "multiplier");
  return KernelId(checked_add(checked_mul(x.value / ps, stride, "x"), x.value % ps, "x"));
}

bool write_loc_owned(WidenedWriteLoc loc, std::int64_t dcp_size, std::int64_t dcp_rank) {
  require(dcp_size >= 1, "dcp_size", dcp_size, "must be >= 1");
  require(dcp_rank >= 0 && dcp_rank < dcp_size, "dcp_rank", dcp_rank, "must lie in [0, dcp_size)");
  return floor_mod(loc.value, dcp_size) == dcp_rank;
}

KernelId write_loc(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, std::int64_t dcp_size,
                   std::int64_t dcp_rank, WidenedWriteLoc loc) {
  check_ps(ps);
  check_m(M);
  const bool owned = write_loc_owned(loc, dcp_size, dcp_rank);
  if (!(loc.value > 0 && owned)) return KernelId(0);  // loc = 0 never loads v2p[0] (§2.5)
  return kernel_id(v2p, ps, M, VirtualToken(floor_div(loc.value, dcp_size)));
}

std::vector<std::int64_t> write_loc_lanes(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M,
                                          std::int64_t dcp_size, std::int64_t dcp_rank,
                                          std::span<const WidenedWriteLoc> locs, std::int64_t out_width) {
  const std::int64_t n = static_cast<std::int64_t>(locs.size());
  require_size(out_width >= n, "out_width", out_width, "must be >= the number of write locs (" + std::to_string(n) + ")");
  std::vector<std::int64_t> out(static_cast<std::size_t>(out_width), 0);
  for (std::size_t i = 0; i < locs.size(); ++i) out[i] = write_loc(v2p, ps, M, dcp_size, dcp_rank, locs[i]).value;
  return out;
}

KernelId swa_id(std::span<const std::int64_t> swa_v2p, std::int64_t ps, std::int64_t M_swa, VirtualToken t) {
  return KernelId(translate(swa_v2p, ps, M_swa, t.value, "swa_v2p", "M_swa"));
}

std::int64_t mamba_slot(std::span<const std::int64_t> v2p, std::int64_t v, bool clamp) {
  const std::int64_t raw = v < 0 ? -1 : gather(v2p, v, "v", v, "v2p");
  return clamp ? std::max<std::int64_t>(raw, 0) : raw;
}

}  // namespace kvaddr::model
