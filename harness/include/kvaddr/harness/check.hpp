#pragma once
// C++ form of kvaddr.check (docs/harness.md) for kernel authors: a callable over the route's argument
// struct (contracts.hpp) is run on seeded cases, every lane of its output buffer (guard regions before
// and after included) is compared with the host route, the first failure is shrunk and named by the
// catalogue variants that reproduce it. Usable from GoogleTest:
//
//   auto r = kvaddr::harness::check_read_table(
//       [](const kvaddr::ReadTableArgs& a) { my_launch(a, /*stream=*/nullptr); },
//       {.cases = 200, .seed = 1, .memory = kvaddr::harness::Memory::device});
//   EXPECT_TRUE(r.ok) << r.to_text();
//
// With Memory::device the struct's pointers are device pointers (cudaMalloc'ed by the harness) and the
// harness synchronises the device after the call; Memory::host gives host pointers. Device memory
// needs a build with CUDA (otherwise InvalidArgument "memory"). Cases come from a SplitMix64 stream of
// (seed, case index); they are not the Python harness's cases.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kvaddr/translate/contracts.hpp"

namespace kvaddr::harness {

enum class Memory { host, device };

struct Options {
  std::int64_t cases = 100;
  std::uint64_t seed = 0;
  std::int64_t max_lanes = 4096;  // upper bound of a case's output lanes (sizes are log-uniform)
  Variant variant = Variant::production;  // the behaviour the kernel claims
  Memory memory = Memory::host;
  bool shrink = true;
};

struct Lane {
  std::string output;  // the output buffer's name (out, kv_indices, cache_seqlens, cu_seqlens_k, page_table)
  std::string region;  // "out", "past_width", "guard_before", "guard_after"
  std::int64_t row = 0;
  std::int64_t col = 0;  // the element index for 1-D outputs (guards: offset from the buffer's edge)
  std::int64_t expected = 0;
  std::int64_t actual = 0;
  bool matrix = false;  // a lane of a 2-D output (row, col); else col alone is the index
};

struct Report {
  std::string route;
  bool ok = true;
  std::int64_t cases = 0;
  std::int64_t rejected = 0;  // drawn cases the contract rejects under the claimed variant
  std::int64_t lanes = 0;     // checked lanes (buffers and guards)
  std::string kind;           // "mismatch", "out_of_bounds", "raised" (empty when ok)
  std::string detail;
  std::int64_t case_index = -1;
  std::int64_t differing = 0;
  std::int64_t shrink_steps = 0;
  std::vector<Lane> first;                // up to 8
  std::vector<std::string> behaves_like;  // variants whose host output equals the kernel's
  std::string minimal_case;               // the shrunk case, as text
  std::string to_text() const;
};

using TokenTranslateKernel = std::function<void(const TokenTranslateArgs<std::int64_t>&)>;
using ReadTableKernel = std::function<void(const ReadTableArgs&)>;
using WriteLocKernel = std::function<void(const WriteLocArgs&)>;
using CanonicalPageTableKernel = std::function<void(const CanonicalPageTableArgs&)>;
using FlashmlaBlockTableKernel = std::function<void(const FlashmlaBlockTableArgs&)>;
using DecodeMetadataKernel = std::function<void(const DecodeMetadataArgs&)>;
using KvIndicesInplaceKernel = std::function<void(const KvIndicesInplaceArgs&)>;
using SwaTranslateKernel = std::function<void(const SwaTranslateArgs<std::int64_t>&)>;
using TokenTranslateKernel32 = std::function<void(const TokenTranslateArgs<std::int32_t>&)>;
using SwaTranslateKernel32 = std::function<void(const SwaTranslateArgs<std::int32_t>&)>;
using DcpReadTranslateKernel = std::function<void(const DcpReadTranslateArgs&)>;
using TransferIdsKernel = std::function<void(const TransferIdsArgs&)>;
using MambaTranslateKernel = std::function<void(const MambaTranslateArgs&)>;
using FullPrefillTableKernel = std::function<void(const FullPrefillTableArgs&)>;
using EagerFunnelKernel = std::function<void(const EagerFunnelArgs&)>;
// The kernel type of route R: a callable over its spec's Args struct (the int64-out form where the
// output type is a parameter).
template <Route R>
using KernelOf = std::function<void(const typename RouteSpec<R>::Args&)>;

Report check_token_translate(const TokenTranslateKernel& kernel, const Options& options = {});
Report check_read_table(const ReadTableKernel& kernel, const Options& options = {});
Report check_write_loc(const WriteLocKernel& kernel, const Options& options = {});
// out [rows >= B, stride >= max_pages] (out.cols = max_pages, out.row_stride may be larger).
Report check_canonical_page_table(const CanonicalPageTableKernel& kernel, const Options& options = {});
// kv_indices [B, stride >= W] (kv_indices.cols = W covers every row's pages); kv_start_idx in some cases.
Report check_flashmla_block_table(const FlashmlaBlockTableKernel& kernel, const Options& options = {});
// The fa3 fused decode metadata with the Era-B v2p remap: outputs cache_seqlens [B], cu_seqlens_k [B + 1]
// and page_table [B, stride >= max_seq_pages]; page_size a power of two.
Report check_decode_metadata(const DecodeMetadataKernel& kernel, const Options& options = {});
// kv_indices holds the virtual ids [0, kv_indptr[batch_size]) and a stale tail that must stay untouched;
// kv_indptr may be longer than batch_size + 1 (padded graph rows); src is absent (in place).
Report check_kv_indices_inplace(const KvIndicesInplaceKernel& kernel, const Options& options = {});
// The id routes: ids (slots for mamba) [N] -> out [>= N]; lanes of out past N (a tail in some cases) stay
// untouched. swa_translate: swa_v2p, swa_multiplier, int64 out; dcp_read_translate: ids widened by dcp_size;
// transfer_ids: no multiplier; mamba_translate: int32 out, a raw gather of v2p[slot] (clamp in some cases; no
// padding slots when clamp is false, where padding reads outside the table).
Report check_swa_translate(const SwaTranslateKernel& kernel, const Options& options = {});
Report check_dcp_read_translate(const DcpReadTranslateKernel& kernel, const Options& options = {});
Report check_transfer_ids(const TransferIdsKernel& kernel, const Options& options = {});
Report check_mamba_translate(const MambaTranslateKernel& kernel, const Options& options = {});
// token_translate and swa_translate with int32 out (translate_kv_loc_for_kernel's int32 form): kernel ids
// that fit int32 (no out == ids: the element types differ).
Report check_token_translate_i32(const TokenTranslateKernel32& kernel, const Options& options = {});
Report check_swa_translate_i32(const SwaTranslateKernel32& kernel, const Options& options = {});
// out [rows >= B, stride >= max_pages] (out.cols = max_pages), prefix-only like canonical_page_table.
Report check_full_prefill_table(const FullPrefillTableKernel& kernel, const Options& options = {});
// page_table [rows, cols] of page-start tokens (row stride >= cols) -> out of the same shape (int64,
// out.cols = cols, row stride >= cols).
Report check_eager_funnel(const EagerFunnelKernel& kernel, const Options& options = {});

// The check of route R by its enumerator: check<Route::write_loc>(kernel) is check_write_loc(kernel).
// Defined for every route of the route list.
template <Route R>
Report check(const KernelOf<R>& kernel, const Options& options = {});

}  // namespace kvaddr::harness
