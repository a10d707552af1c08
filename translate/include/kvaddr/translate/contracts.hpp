#pragma once
// Route contracts: the argument set of every production route of spec §4.1-4.13 (a per-id route
// run by the per-id runner holds its own in its spec header, routes/<name>.hpp), shared by the
// host routes (translate/) and the CUDA launchers (kernels/). The structs hold raw pointers and
// int64 sizes only, so the same struct describes host memory (translate/) or device memory
// (kernels/). `validate_*` checks everything that can be checked without reading the arrays
// (sizes, strides, scalars, aliasing); content checks (ids inside tables) happen lane by lane.
//
// Conventions: a Vec with size 0 and data == nullptr is "absent" where a field is optional.
// Mat is row-major with element strides (row_stride, col_stride).
//
// The contracts know no route list: the route specs (routes/<name>.hpp) include this header, and
// route_list.hpp includes the specs. Code that needs the list (visit_route, route_accepts, the
// per-id routes' argument structs) includes route_list.hpp, host_routes.hpp or routes.hpp.
#include <cstdint>
#include <vector>

#include "kvaddr/translate/variant.hpp"

namespace kvaddr {

// A Vec may be a slice of a larger parent allocation: `before` elements of the parent lie before
// data[0] and `after` elements after data[size - 1] (both 0 for a standalone buffer). Only a
// table load of a variant that reads outside the view (b09: v2p[-1]) ever touches them; the host
// reads them like the kernel does, and a read outside the parent is still an OutOfRange.
template <class T>
struct Vec {
  T* data = nullptr;
  std::int64_t size = 0;
  std::int64_t before = 0;
  std::int64_t after = 0;
  constexpr bool present() const { return data != nullptr; }
};

template <class T>
struct Mat {
  T* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t row_stride = 0;  // elements between rows
  std::int64_t col_stride = 1;  // elements between columns (1 = packed rows)
  constexpr bool present() const { return data != nullptr; }
};

// Host conveniences (views over std::vector; the vector must outlive the view).
template <class T>
Vec<const T> cvec(const std::vector<T>& v) { return {v.data(), static_cast<std::int64_t>(v.size())}; }
template <class T>
Vec<T> mvec(std::vector<T>& v) { return {v.data(), static_cast<std::int64_t>(v.size())}; }
template <class T>
Mat<const T> cmat(const std::vector<T>& v, std::int64_t rows, std::int64_t cols) { return {v.data(), rows, cols, cols, 1}; }
template <class T>
Mat<T> mmat(std::vector<T>& v, std::int64_t rows, std::int64_t cols) { return {v.data(), rows, cols, cols, 1}; }

// §4.1 token_translate (translate_kv_loc, translate_kv_loc_for_kernel, fused translate_v2p).
// out may alias ids exactly (same pointer, same size); partial overlap is rejected.
template <class Out>
struct TokenTranslateArgs {
  Vec<const std::int64_t> ids;
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  Vec<Out> out;
  Variant variant = Variant::production;
};

// §4.2 flashmla_block_table (create_flashmla_kv_indices_triton with v2p_ptr and PAGE_MULT).
// v2p absent -> static kernel (entry = tok / ps, multiplier must be 1, spec I10).
struct FlashmlaBlockTableArgs {
  Mat<const std::int32_t> req_to_token;
  Vec<const std::int64_t> req_pool_indices;  // [B]
  Vec<const std::int64_t> page_kernel_lens;  // [B] sequence lengths
  Vec<const std::int64_t> kv_start_idx;      // [B] or absent
  Vec<const std::int64_t> v2p;               // or absent
  std::int64_t page_size = 64;
  std::int64_t multiplier = 1;
  Mat<std::int32_t> kv_indices;              // [B, W], prefilled with -1 by the caller
  Variant variant = Variant::production;
};

// §4.3 canonical_page_table (build_kernel_page_table): prefix-only, int32, packed rows.
struct CanonicalPageTableArgs {
  Mat<const std::int32_t> req_to_token;
  Vec<const std::int64_t> req_pool_indices;  // [B]
  Vec<const std::int64_t> seq_lens;          // [B]
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  std::int64_t max_pages = 0;
  Mat<std::int32_t> out;                     // [>= B, >= max_pages]
  Variant variant = Variant::production;
};

// §4.4 read_table (build_kv_read_table; Era D KVIndexTranslator when multiplier = 1).
struct ReadTableArgs {
  Mat<const std::int32_t> req_to_token;
  Vec<const std::int64_t> row_ids;           // [B] rows of req_to_token
  Vec<const std::int64_t> seq_lens;          // [B]
  std::int64_t seq_len_delta = 0;
  std::int64_t max_pages = 0;
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  Mat<std::int32_t> out;                     // [rows >= B, cols >= max_pages], packed
  bool zero_tail = false;                    // Era D: sink 0 from the live prefix to max_pages, rows [B, rows) zeroed
  Variant variant = Variant::production;
};

// §4.4 packed CSR stream over a built table: lane j of row b (indptr[b] <= j < indptr[b+1]) has
// pos = kv_start_idx[b] + (j - indptr[b]) and token = table[b, pos / ps] * ps + pos % ps.
struct ReadStreamArgs {
  Mat<const std::int32_t> table;
  Vec<const std::int32_t> indptr;            // [B + 1]
  Vec<const std::int64_t> kv_start_idx;      // [B] or absent (0)
  std::int64_t page_size = 1;
  Vec<std::int32_t> stream;                  // [>= indptr[B]]
};

// §4.5 decode_metadata (fa3 normal_decode_set_metadata fused kernels).
struct DecodeMetadataArgs {
  Vec<const std::int64_t> seq_lens;          // [B]
  Mat<const std::int32_t> req_to_token;      // strides s0, s1
  Vec<const std::int64_t> req_pool_indices;  // [B]
  std::int64_t max_seq_pages = 0;
  std::int64_t seq_len_delta = 0;
  std::int64_t page_size = 1;                // power of two
  Vec<const std::int64_t> v2p;               // Era B remap; absent = static
  std::int64_t multiplier = 1;
  Mat<const std::int32_t> kernel_page_table; // Era C: src_is_kernel_page_table (rows = arange(B)); absent otherwise
  bool skip_page_table = false;              // Era D: prefix sums only
  Vec<std::int32_t> cache_seqlens;           // [B]
  Vec<std::int32_t> cu_seqlens_k;            // [B + 1]
  Mat<std::int32_t> page_table;              // [B, >= max_seq_pages]
  Vec<const std::int64_t> swa_v2p;           // general path with SWA (#35000); absent = no SWA
  std::int64_t swa_multiplier = 1;
  Mat<std::int32_t> swa_page_table;          // [B, >= max_seq_pages] when swa_v2p present
  Variant variant = Variant::production;
};

// §4.6 eager_funnel (fa3 Era B eager path): page-start tokens [B, P] -> v2p[p] * M.
struct EagerFunnelArgs {
  Mat<const std::int64_t> page_table;        // token ids at page starts
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  Mat<std::int64_t> out;                     // same shape
  Variant variant = Variant::production;
};

// §4.7 kv_indices_inplace (flashinfer_mla updaters): kv_indices[:n] <- int32(d(src[:n])),
// n = kv_indptr[batch_size]; src absent means src = kv_indices (aliasing, not idempotent).
struct KvIndicesInplaceArgs {
  Vec<std::int32_t> kv_indices;
  Vec<const std::int32_t> kv_indptr;         // [>= batch_size + 1]
  std::int64_t batch_size = 0;
  Vec<const std::int32_t> src;               // or absent
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  Variant variant = Variant::production;
};

// §4.8 write_loc (write_loc_to_kernel_ids): out has out_width = out.size >= loc.size lanes.
struct WriteLocArgs {
  Vec<const std::int64_t> loc;               // widened by dcp_size under DCP
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  std::int64_t dcp_size = 1;
  std::int64_t dcp_rank = 0;
  Vec<std::int64_t> out;
  Variant variant = Variant::production;
};

// §4.9 swa_translate (full-side virtual ids through the SWA v2p, M_swa).
template <class Out>
struct SwaTranslateArgs {
  Vec<const std::int64_t> ids;
  Vec<const std::int64_t> swa_v2p;           // sized by the owner's id space + 1 (B12)
  std::int64_t page_size = 1;
  std::int64_t swa_multiplier = 1;
  Vec<Out> out;
  Variant variant = Variant::production;
};

// §4.10 mamba_translate: int32(v2p[v]), raw gather; `clamp` is spec §7 Q3's mamba_clamp.
struct MambaTranslateArgs {
  Vec<const std::int64_t> slots;
  Vec<const std::int64_t> v2p;
  bool clamp = false;
  Vec<std::int32_t> out;
};

// §4.11 full_prefill_table (fa3/fa4 FULL prefill graph tables, #37418).
struct FullPrefillTableArgs {
  Mat<const std::int32_t> req_to_token;
  Vec<const std::int64_t> req_pool_indices;
  Vec<const std::int64_t> seq_lens;
  Vec<const std::int64_t> v2p;
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;
  std::int64_t max_pages = 0;
  Mat<std::int32_t> out;                     // capture-stable; capacity guard rows >= B
  Variant variant = Variant::production;
};

// §4.13 move_kv_cache: physical page-major runs (dst, src) -> whole-envelope page moves.
struct EnvelopeMoveArgs {
  Vec<const std::int64_t> dst_tokens;
  Vec<const std::int64_t> src_tokens;
  std::int64_t page_size = 1;
  Vec<std::int64_t> dst_pages;               // [n_runs]
  Vec<std::int64_t> src_pages;               // [n_runs]
};

}  // namespace kvaddr
