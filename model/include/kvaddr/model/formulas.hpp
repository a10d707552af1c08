#pragma once
// The spec §2 formulas, stated once more independently of translate/. Every function validates its
// scalars (InvalidArgument naming the argument), computes in int64 with overflow checks (Overflow),
// and never reads outside the table it is given (OutOfRange naming the id). Padding ids (t < 0) map
// to 0 without touching the table (spec I9 obligation: explicit sign test).
#include <cstdint>
#include <span>
#include <vector>

#include "kvaddr/model/geometry.hpp"
#include "kvaddr/model/ids.hpp"

namespace kvaddr::model {

// ---- integer division helpers ---------------------------------------------------------------------
// floor_*: Python semantics (torch paths); trunc_*: C / Triton / CUDA semantics. divisor != 0
// (InvalidArgument "divisor"); INT64_MIN / -1 throws Overflow.
std::int64_t floor_div(std::int64_t a, std::int64_t b);
std::int64_t floor_mod(std::int64_t a, std::int64_t b);
std::int64_t trunc_div(std::int64_t a, std::int64_t b);
std::int64_t trunc_mod(std::int64_t a, std::int64_t b);
std::int64_t ceil_div(std::int64_t a, std::int64_t b);  // a >= 0, b >= 1

// ---- §2.1 / §2.2 token translates -------------------------------------------------------------------
// phys(t) = max(P(t)*ps + o(t), 0);  t < 0 -> 0.
PhysicalToken phys(std::span<const std::int64_t> v2p, std::int64_t ps, VirtualToken t);
// d(t) = max(P(t)*S + o(t), 0), S = ps*M;  t < 0 -> 0.
KernelId kernel_id(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, VirtualToken t);
KernelId kernel_id(std::span<const std::int64_t> v2p, const Geometry& g, VirtualToken t);
// P(t)*S + o(t) without the clamp (t >= 0 required: InvalidArgument "t"); a tombstone gives a value in
// [-S, -S + ps - 1] (spec §2.5).
std::int64_t kernel_id_unclamped(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, VirtualToken t);

// Division-semantics experiments (spec I9, §7 Q8). With padding_guard, t < 0 -> 0 (no table access).
// Without it the page is t div ps (floor or trunc) and the offset t mod ps (same kind); a negative page
// index wraps like torch indexing under `floor` (v2p[size + page]) and is an out-of-bounds load under
// `trunc` (OutOfRange "t", the B09 shape). The result is clamped at 0.
enum class DivKind { floor, trunc };
std::int64_t kernel_id_variant(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, VirtualToken t,
                               DivKind div, bool padding_guard);

// ---- §2.3 page-granular entries ------------------------------------------------------------------
std::int64_t block_entry(std::span<const std::int64_t> v2p, std::int64_t M, VirtualPage p);            // max(v2p[p]*M, 0)
std::int64_t block_entry_unclamped(std::span<const std::int64_t> v2p, std::int64_t M, VirtualPage p);  // v2p[p]*M
// entry*ps + o, 0 <= o < ps (InvalidArgument "o").
std::int64_t token_from_entry(std::int64_t entry, std::int64_t o, std::int64_t ps);

// φ(x) = (x div ps)*S + x mod ps: physical -> kernel-facing (x >= 0, InvalidArgument "x").
KernelId phi(PhysicalToken x, std::int64_t ps, std::int64_t M);

// ---- §4.8 write loc (DCP) ------------------------------------------------------------------------
// dcp_size >= 1, 0 <= dcp_rank < dcp_size.
bool write_loc_owned(WidenedWriteLoc loc, std::int64_t dcp_size, std::int64_t dcp_rank);
// keep = loc > 0 && loc mod dcp_size == dcp_rank;  d(loc div dcp_size) if keep, else 0.
KernelId write_loc(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M, std::int64_t dcp_size,
                   std::int64_t dcp_rank, WidenedWriteLoc loc);
// Whole launch: lanes [0, N) per write_loc, lanes [N, out_width) = 0. out_width >= N (BufferTooSmall).
std::vector<std::int64_t> write_loc_lanes(std::span<const std::int64_t> v2p, std::int64_t ps, std::int64_t M,
                                          std::int64_t dcp_size, std::int64_t dcp_rank,
                                          std::span<const WidenedWriteLoc> locs, std::int64_t out_width);

// ---- §4.9 SWA / §4.10 Mamba ----------------------------------------------------------------------
// swa_id(t) = max(swa_v2p[t div ps]*(ps*M_swa) + t mod ps, 0). A full-side id past swa_v2p (bug B12)
// throws OutOfRange "t".
KernelId swa_id(std::span<const std::int64_t> swa_v2p, std::int64_t ps, std::int64_t M_swa, VirtualToken t);
// Raw gather v2p[v] (page size 1). A tombstone gives -1 unless clamp (then 0). A padding id v < 0 gives
// -1 (0 with clamp) without reading the table; v past the table throws OutOfRange "v".
std::int64_t mamba_slot(std::span<const std::int64_t> v2p, std::int64_t v, bool clamp = false);

}  // namespace kvaddr::model
