#pragma once
// kvaddr lane arithmetic: the single source of every route's per-lane integer operations.
//
// Each function below computes what one lane (one output element) of a production route
// computes, exactly as the kernel does it (truncating division, explicit sign guards, masked
// loads with fill 0, clamps). It is written once, as a template over the integer type `I`, and
// instantiated three times:
//   * translate/ on the host, with a checked int64 (overflow and out-of-table reads throw);
//   * kernels/ on the device, with plain int64 (`KVADDR_HD` = __host__ __device__);
//   * proofs/ over Z3 bit-vectors, with a symbolic value type.
// model/ does not use this file: it is the independent statement of the spec that routes are
// compared against. To check a design change of a kernel, edit the lane function here.
//
// Requirements on `I`: constructible from std::int64_t; + - * and comparisons; comparisons
// yield a condition type `C` usable with ! && || ; and the customisation points kv_div, kv_rem,
// kv_shr, kv_pick, kv_narrow32 found by ordinary or argument-dependent lookup. For builtin
// integers they are defined here. `Gather` is a callable `g(I index, C mask) -> I` that models a
// masked load with fill value 0 (Triton's `tl.load(ptr + index, mask=mask, other=0)`): it reads
// the table only where `mask` holds.
#include <cstdint>
#include <type_traits>

#include "kvaddr/translate/variant.hpp"

namespace kvaddr::lanes {

// ---- customisation points for builtin integers --------------------------------------------
template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
KVADDR_HD constexpr I kv_div(I a, I b) { return a / b; }  // C/CUDA/Triton: truncates toward zero
template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
KVADDR_HD constexpr I kv_rem(I a, I b) { return a % b; }  // sign follows the dividend
template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
KVADDR_HD constexpr I kv_shr(I a, int s) { return a >> s; }  // arithmetic shift (floor for a < 0)
template <class I>
KVADDR_HD constexpr I kv_pick(bool c, I a, I b) { return c ? a : b; }
// Two's-complement wrap to 32 bits, sign-extended back to I (what an int32 store then load does).
template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
KVADDR_HD constexpr I kv_narrow32(I a) {
  return static_cast<I>(static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(a))));
}

// The silent wrap of an int32 store (int32_wrap). Builtin integers: the same as kv_narrow32; the
// host's checked integer overrides kv_narrow32 to raise, but kv_wrap32 always wraps.
template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
KVADDR_HD constexpr I kv_wrap32(I a) { return kv_narrow32(a); }

template <class I>
KVADDR_HD constexpr I kv_max0(I a) { return kv_pick(a < I(0), I(0), a); }

// Divisor parameters (page size, DCP size) of the token lanes have their own type D, not deduced
// from the argument: I itself by default, or a precomputed divisor (kvaddr::FastDivisor,
// kvaddr/translate/fast_div.hpp) whose kv_div / kv_rem give the same truncating quotient and
// remainder and whose value is I(d). Callers that name no D get I, as before.
template <class T>
struct divisor_arg {
  using type = T;
};
template <class T>
using divisor_arg_t = typename divisor_arg<T>::type;
// The type of the k-th divisor (k = 0, 1, ... in the order a route spec's lane() takes them) of a
// lane built with divisor family D: D itself for one type for all (int64, FastDivisor, Pow2Divisor,
// the checked and Z3 integers); a pack of compile-time powers of two (fast_div.hpp's Pow2Pack) gives
// each position its own constant.
template <class D, int K>
struct divisor_at {
  using type = divisor_arg_t<D>;
};
template <class D, int K>
using divisor_at_t = typename divisor_at<D, K>::type;

// ---- shared pieces -------------------------------------------------------------------------

// ceil(n / d) for n >= 0, d >= 1 (the `n_pages` of every page-granular route).
template <class I>
KVADDR_HD constexpr I ceil_div(I n, I d) { return kv_div(n + d - I(1), d); }

// Pages covering a KV length `len` >= 0: ceil(len / ps). E09 (PyTorch #160861 shape): floor, so a
// partial last page is never read.
template <class I>
KVADDR_HD constexpr I page_count(I len, I ps, Variant v) {
  return has(v, Behaviour::e09_floor_pages) ? kv_div(len, ps) : ceil_div(len, ps);
}

// §4.1 token_translate: t < 0 -> 0; else max(v2p[t / ps] * S + t % ps, 0), S = ps * M.
// The sign test comes first, so padding lanes never touch the table (spec I9).
template <class I, class D = I, class Gather>
KVADDR_HD constexpr I token_translate_lane(I t, Gather&& v2p, divisor_arg_t<D> ps, I stride, Variant v) {
  const auto live = !(t < I(0));
  const I page = kv_pick(live, kv_div(t, ps), I(0));
  const I off = kv_pick(live, kv_rem(t, ps), I(0));
  // B17: the docstring formula of translate_kv_loc_for_kernel, which omits the v2p gather.
  const I phys_page = has(v, Behaviour::b17_doc_formula) ? page : v2p(page, live);
  const I wide = phys_page * stride + off;
  // E03 (vLLM #57030 shape): the product is formed in int32 and wraps once it reaches 2^31.
  const I d = has(v, Behaviour::e03_int32_offset) ? kv_wrap32(wide) : wide;
  return kv_pick(live, kv_max0(d), I(0));
}

// §4.9 swa_translate: token_translate over the SWA table with S_swa = ps * M_swa.
// B11 (Era A pool-level SWA translate): no clamp, so an SWA tombstone yields a negative id.
template <class I, class D = I, class Gather>
KVADDR_HD constexpr I swa_translate_lane(I t, Gather&& swa_v2p, divisor_arg_t<D> ps, I stride, Variant v) {
  if (!has(v, Behaviour::b11_swa_no_clamp)) return token_translate_lane<I, D>(t, swa_v2p, ps, stride, Variant{});
  const auto live = !(t < I(0));
  const I page = kv_pick(live, kv_div(t, ps), I(0));
  const I off = kv_pick(live, kv_rem(t, ps), I(0));
  return kv_pick(live, swa_v2p(page, live) * stride + off, I(0));
}

// §2.3 / §4.2 / §4.3 / §4.4: the page-granular entry of the block entry for the page starting at
// virtual token `tok`:  page = 0 if tok < 0 else tok / ps;  entry = max(v2p[page] * M, 0).
//   b09_no_padding_guard: no sign test; truncating division (ps = 1: tok = -1 reads v2p[-1]).
//   era_b_unclamped:      no clamp; a tombstone yields -M (Era B flashmla block table).
//   e02_minus_one_sentinel: no clamp either (canonical table without it: the tombstone -1 leaks as -M).
// Behaviours compose: b09 + era_b_unclamped reads before the table AND leaks -M.
template <class I, class Gather>
KVADDR_HD constexpr I page_entry_lane(I tok, Gather&& v2p, I ps, I mult, Variant v) {
  const bool guard = !has(v, Behaviour::b09_no_padding_guard);
  const I page = guard ? kv_pick(tok < I(0), I(0), kv_div(tok, ps)) : kv_div(tok, ps);
  const I raw = v2p(page, tok == tok) * mult;  // mask always true: the lane is live, the load is not masked
  const bool unclamped = has(v, Behaviour::era_b_unclamped) || has(v, Behaviour::e02_minus_one_sentinel);
  return unclamped ? raw : kv_max0(raw);
}

// I10: the static (pre-unified) entry, v2p absent and M = 1: tok / ps.
template <class I>
KVADDR_HD constexpr I static_entry_lane(I tok, I ps) { return kv_div(tok, ps); }

// §4.5 decode_metadata (fa3 fused kernels): the page value is a shift, not a division.
//   page_value = page_index if ps == 1 else page_index >> log2(ps); Era B remap: v2p[value] * M.
// Production guards padding (page_index < 0 -> page 0) and clamps; b09 drops the guard (an
// arithmetic shift of -1 stays -1 at every ps, so the load lands before the table);
// era_b_unclamped drops the clamp.
// The static call (v2p absent, M = 1, I10): the page value alone, page_index >> log2(ps) (no guard:
// the arithmetic shift keeps a padding -1 at -1, as the pre-unified kernel wrote it).
template <class I>
KVADDR_HD constexpr I decode_static_lane(I page_index, int log2_ps) {
  return (log2_ps == 0) ? page_index : kv_shr(page_index, log2_ps);
}
template <class I, class Gather>
KVADDR_HD constexpr I decode_entry_lane(I page_index, Gather&& v2p, int log2_ps, I mult, Variant v) {
  const bool guard = !has(v, Behaviour::b09_no_padding_guard);
  const I value = decode_static_lane(page_index, log2_ps);
  const I page = guard ? kv_pick(page_index < I(0), I(0), value) : value;
  const I raw = v2p(page, page_index == page_index) * mult;
  return has(v, Behaviour::era_b_unclamped) ? raw : kv_max0(raw);
}

// §4.5 general path over a static SWA pool: the token-level full -> SWA slot map (0 = unmapped)
// gathered at the page-start token, then made a page by the shift: full_to_swa[page_index] >> log2(ps)
// (ps = 1: the slot itself). Production guards padding (page_index < 0 reads slot 0, the unmapped
// sink); b09 drops the guard (-1 reads before the map).
template <class I, class Gather>
KVADDR_HD constexpr I swa_slot_entry_lane(I page_index, Gather&& full_to_swa, int log2_ps, Variant v) {
  const bool guard = !has(v, Behaviour::b09_no_padding_guard);
  const I index = guard ? kv_pick(page_index < I(0), I(0), page_index) : page_index;
  const I slot = full_to_swa(index, page_index == page_index);
  return (log2_ps == 0) ? slot : kv_shr(slot, log2_ps);
}

// Number of live columns of a page-table row whose KV length is `len` (already widened by any
// seq_len_delta): ceil(len / ps), bounded by `max_pages` unless the variant drops the bound (B10,
// E01); E09 counts pages with floor division. grid_spill: the bound is the launch grid's column
// extent G * ceil(max_pages / G) (G = v.column_block), not max_pages.
template <class I>
KVADDR_HD constexpr I table_columns(I len, I ps, I max_pages, Variant v) {
  const I n_pages = page_count(len, ps, v);
  if (has(v, Behaviour::b10_no_max_pages_bound) || has(v, Behaviour::e01_no_column_bound)) return n_pages;
  const I g(static_cast<std::int64_t>(v.column_block));
  const I bound = has(v, Behaviour::grid_spill) ? ceil_div(max_pages, g) * g : max_pages;
  return kv_pick(n_pages < bound, n_pages, bound);
}

// An int32 store of a lane value: int32_wrap keeps the low 32 bits (two's complement, what the
// kernel's implicit cast does); otherwise the value is stored as is (the host checks it fits).
template <class I>
KVADDR_HD constexpr I store32_lane(I value, Variant v) {
  return has(v, Behaviour::int32_wrap) ? kv_wrap32(value) : value;
}

// §4.5: live pages of the fa3 kernel, by shift: ps == 1 ? len : (len + ps - 1) >> log2(ps), capped.
template <class I>
KVADDR_HD constexpr I decode_columns(I len, I ps, int log2_ps, I max_seq_pages) {
  const I live = (log2_ps == 0) ? len : kv_shr(len + ps - I(1), log2_ps);
  return kv_pick(live < max_seq_pages, live, max_seq_pages);
}

// §4.5 decode_metadata's KV length as the kernel holds it: len = seq_len + delta, or under
// int32_lengths its low 32 bits (seq_len.to(int32): every length, prefix sum and page count of the
// fa3 metadata kernel is then int32 arithmetic).
template <class I>
KVADDR_HD constexpr I decode_length(I len, Variant v) {
  return has(v, Behaviour::int32_lengths) ? kv_wrap32(len) : len;
}

// decode_metadata's page-table columns under a variant (len from decode_length):
//   production:            decode_columns (the live prefix, capped by max_seq_pages);
//   full_width_page_table: max_seq_pages in every row (the older kernel);
//   era_d_read_table:      the read-table grid's columns, min(n_pages, G * ceil(max_seq_pages / G));
//   int32_lengths:         (len + ps - 1) formed in int32 (wraps), so a wrapped length counts a
//                          negative number of pages and the row writes no column.
template <class I>
KVADDR_HD constexpr I decode_columns(I len, I ps, int log2_ps, I max_seq_pages, Variant v) {
  if (has(v, Behaviour::full_width_page_table)) return max_seq_pages;
  I bound = max_seq_pages;
  if (has(v, Behaviour::era_d_read_table)) {
    const I g(static_cast<std::int64_t>(v.column_block));
    bound = ceil_div(max_seq_pages, g) * g;
  }
  if (!has(v, Behaviour::int32_lengths)) return decode_columns(len, ps, log2_ps, bound);
  const I live = (log2_ps == 0) ? len : kv_shr(kv_wrap32(len + ps - I(1)), log2_ps);
  return kv_pick(live < bound, live, bound);
}

// The element lane i of a per-id launch (token_translate, write_loc) loads and stores: i, or under
// int32_lane_offsets its int32 wrap (offs = pid * BLOCK + arange formed in int32). Lanes [2^31, 2^32)
// then get a negative offset (the access lands before the buffer: their own element is not written)
// and lane i >= 2^32 lands on element i - 2^32 again (proofs: route.per_id.lane_offset,
// route.per_id.int32_lane_offsets). The host's lanes are all below 2^31, where both agree.
template <class I>
KVADDR_HD constexpr I launch_lane(I i, Variant v) {
  return has(v, Behaviour::int32_lane_offsets) ? kv_wrap32(i) : i;
}

// §4.4 packed CSR stream lane: token = entry * ps + pos % ps (pos >= 0).
template <class I>
KVADDR_HD constexpr I stream_lane(I entry, I pos, I ps) { return entry * ps + kv_rem(pos, ps); }

// §4.6 eager_funnel lane: token_translate of the page-start token, then div ps.
template <class I, class Gather>
KVADDR_HD constexpr I eager_funnel_lane(I tok, Gather&& v2p, I ps, I stride) {
  return kv_div(token_translate_lane(tok, v2p, ps, stride, Variant{}), ps);
}

// §4.8 write_loc: keep = loc > 0 and loc % dcp_size == dcp_rank; out = d(loc / dcp_size) if keep
// else 0. loc = 0 never loads v2p[0] (the load is masked by keep).
// E03: the kernel-facing id P*S + o is formed in int32 (wraps once >= 2^31; a wrapped negative id
// then clamps to the sink, a silent write to row 0). Other variants act outside the lane.
// D: the type of ps, E: the type of dcp_size (see divisor_arg).
template <class I, class D = I, class E = D, class Gather>
KVADDR_HD constexpr I write_loc_lane(I loc, Gather&& v2p, divisor_arg_t<D> ps, I stride, divisor_arg_t<E> dcp_size,
                                     I dcp_rank, Variant v) {
  const auto keep = (I(0) < loc) && (kv_rem(loc, dcp_size) == dcp_rank);
  const I t = kv_pick(keep, kv_div(loc, dcp_size), I(-1));
  const I page = kv_pick(keep, kv_div(t, ps), I(0));
  const I off = kv_pick(keep, kv_rem(t, ps), I(0));
  const I wide = v2p(page, keep) * stride + off;
  const I d = has(v, Behaviour::e03_int32_offset) ? kv_wrap32(wide) : wide;
  return kv_pick(keep, kv_max0(d), I(0));
}

// The production write_loc lane (no variant).
template <class I, class D = I, class E = D, class Gather>
KVADDR_HD constexpr I write_loc_lane(I loc, Gather&& v2p, divisor_arg_t<D> ps, I stride, divisor_arg_t<E> dcp_size,
                                     I dcp_rank) {
  return write_loc_lane<I, D, E>(loc, v2p, ps, stride, dcp_size, dcp_rank, Variant{});
}

// §4.10 mamba_translate: raw gather v2p[v] (no clamp upstream: a padding id -1 reads before the
// table, a tombstone gives -1). With `clamp` (the §7 Q3 parameter) padding ids are guarded before
// the load and tombstones clamp to the sink.
template <class I, class Gather>
KVADDR_HD constexpr I mamba_lane(I slot, Gather&& v2p, bool clamp) {
  if (!clamp) return v2p(slot, slot == slot);
  const auto live = !(slot < I(0));
  return kv_pick(live, kv_max0(v2p(slot, live)), I(0));
}

// §4.11 full_prefill_table entry: production rebuilds from the live v2p (page_entry_lane);
// B04 divides the virtual page-start token by ps without the remap.
template <class I, class Gather>
KVADDR_HD constexpr I full_prefill_entry_lane(I tok, Gather&& v2p, I ps, I mult, Variant v) {
  if (has(v, Behaviour::b04_prefill_no_remap)) return kv_pick(tok < I(0), I(0), kv_div(tok, ps));
  return page_entry_lane(tok, v2p, ps, mult, Variant{});
}

// §4.12 dcp_read_translate: translate_kv_loc(w / dcp_size); padding (w < 0) -> 0.
// B14: collapsed but never translated (the id stays virtual).
// D: the type of ps, E: the type of dcp_size (see divisor_arg).
template <class I, class D = I, class E = D, class Gather>
KVADDR_HD constexpr I dcp_read_lane(I w, Gather&& v2p, divisor_arg_t<D> ps, I stride, divisor_arg_t<E> dcp_size,
                                    Variant v) {
  const I t = kv_pick(w < I(0), I(-1), kv_div(w, dcp_size));
  if (has(v, Behaviour::b14_dcp_untranslated)) return kv_max0(t);
  return token_translate_lane<I, D>(t, v2p, ps, stride, Variant{});
}

// §4.13 transfer_ids: physical token of a virtual token for envelope transfer (PD, HiCache):
// phys(t) = max(v2p[t / ps] * ps + t % ps, 0). B16: the virtual id is used as the physical one.
template <class I, class D = I, class Gather>
KVADDR_HD constexpr I transfer_lane(I t, Gather&& v2p, divisor_arg_t<D> ps, Variant v) {
  if (has(v, Behaviour::b16_virtual_as_physical)) return kv_max0(t);
  return token_translate_lane<I, D>(t, v2p, ps, I(ps), Variant{});
}

// §4.13 HiCache: physical token -> kernel-facing row, phi(x) = (x / ps) * S + x % ps (x >= 0).
template <class I>
KVADDR_HD constexpr I phi_lane(I x, I ps, I stride) { return kv_div(x, ps) * stride + kv_rem(x, ps); }

// §4.13 move_kv_cache: the page of a page-major run's first physical token.
template <class I>
KVADDR_HD constexpr I run_page_lane(I first_token, I ps) { return kv_div(first_token, ps); }

}  // namespace kvaddr::lanes
