// CUDA kernels of the row-shaped routes (page tables, read stream, decode metadata, eager funnel) and
// of kv_indices_inplace and the envelope moves.
#include <cstddef>

#include "kernel_common.cuh"

namespace kvaddr::gpu {
using namespace detail;
namespace {

// ---- table routes: rows on grid.y (strided); block x owns an equal slice of the row's columns,
// written in passes of ILP columns per thread ----
// Body::row(b) -> RowCtx (the row's per-batch loads, issued together so that they are not a chain
// of dependent DRAM accesses: .n = number of columns of row b to write, plus whatever the lanes
// need, e.g. the req_to_token row); Body::lane(ctx, b, c) -> value; Body::store(b, c, value).
struct RowCtx {
  i64 n = 0;    // columns to write
  i64 row = 0;  // req_to_token row (or any per-row value the body needs)
};

// A body with `static constexpr bool kStaged = true` splits its lane into token(ctx, b, c) (the
// req_to_token / page-table load) and entry(ctx, b, c, token, gather) (the one-gather lane), with
// lane(ctx, b, c) == entry(ctx, b, c, token(ctx, b, c), Gather{table()}); row_slice then issues
// the ILP token loads together and the ILP gathers together (staged_lanes) when `staged`.
template <class B, class = void>
struct StagedBody : std::false_type {};
template <class B>
struct StagedBody<B, std::void_t<decltype(B::kStaged)>> : std::bool_constant<B::kStaged> {};

template <int ILP, class Body>
__device__ __forceinline__ void row_slice(const Body& body, i64 b, bool staged) {
  const auto ctx = body.row(b);
  const i64 n = ctx.n;
  i64 lo = 0, hi = 0;
  block_slice(n, blockIdx.x, gridDim.x, lo, hi);
  for (i64 c0 = lo + threadIdx.x; c0 < hi; c0 += kThreads * ILP) {
    i64 r[ILP];
    bool direct = true;
    if constexpr (StagedBody<Body>::value) {
      if (staged) {
        direct = false;
        i64 tok[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
          const i64 c = c0 + k * kThreads;
          tok[k] = c < hi ? body.token(ctx, b, c) : 0;
        }
        staged_lanes<ILP>(
            body.table(),
            [&](int k, const auto& g) {
              const i64 c = c0 + k * kThreads;
              return c < hi ? body.entry(ctx, b, c, tok[k], g) : i64(0);
            },
            r);
      }
    }
    if (direct) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const i64 c = c0 + k * kThreads;
        r[k] = c < hi ? body.lane(ctx, b, c) : 0;
      }
    }
#pragma unroll
    for (int k = 0; k < ILP; ++k) {
      const i64 c = c0 + k * kThreads;
      if (c < hi) body.store(b, c, r[k]);
    }
  }
}

template <class Body, int ILP>
__global__ void __launch_bounds__(kThreads) k_rows(Body body, i64 rows, bool staged) {
  for (i64 b = blockIdx.y; b < rows; b += gridDim.y) row_slice<ILP>(body, b, staged);
}

// Rows b0, b0 + step_rows, ... below `rows` (b0 < rows), one column a thread (narrow rows): column
// c of row b goes to thread c mod kThreads of block (c / kThreads) mod gridDim.x, a grid-stride loop
// over the row's columns instead of row_slice's equal slices, so a thread's first column needs no
// slice division and the common case (the grid spans the row) is one pass: the row's loads, one
// req_to_token load, one gather, one store. The first row and column are peeled out of the loops:
// `rows` is read only after the first pass, off the lane's chain (measured faster; docs/performance.md,
// stop 28).
template <class Body>
__device__ __forceinline__ void row_columns(const Body& body, i64 b0, i64 step_rows, i64 rows) {
  const i64 step = static_cast<i64>(gridDim.x) * kThreads;
  i64 b = b0;
  do {
    const auto ctx = body.row(b);
    const i64 c0 = static_cast<i64>(blockIdx.x) * kThreads + threadIdx.x;
    if (c0 < ctx.n) {
      body.store(b, c0, body.lane(ctx, b, c0));
      for (i64 c = c0 + step; c < ctx.n; c += step) body.store(b, c, body.lane(ctx, b, c));
    }
    b += step_rows;
  } while (b < rows);
}

// grid_rows makes gridDim.y <= rows, so row blockIdx.y exists.
template <class Body>
__global__ void __launch_bounds__(kThreads) k_row_columns(Body body, i64 rows) {
  row_columns(body, blockIdx.y, gridDim.y, rows);
}

template <class Body, int ILP>
void launch_rows_ilp(const Body& body, i64 rows, i64 max_cols, cudaStream_t s) {
  const void* k = reinterpret_cast<const void*>(&k_rows<Body, ILP>);
  k_rows<Body, ILP><<<grid_rows(max_cols, rows, ILP, g_shape.resident_grid, k), kThreads, 0, s>>>(body, rows,
                                                                                                g_shape.staged);
}

// Lanes per thread: LaunchShape::lanes_per_thread (8 or 4), except that rows no wider than one block
// of 4-lane threads take one column a thread (LaunchShape::table_narrow_rows, k_row_columns): more
// blocks, each thread one chain of dependent loads instead of several.
template <class Body>
void launch_rows(const Body& body, i64 rows, i64 max_cols, cudaStream_t s, const char* name) {
  if (rows <= 0) return;
  if (g_shape.lanes_per_thread >= kIlpWide) {
    launch_rows_ilp<Body, kIlpWide>(body, rows, max_cols, s);
  } else if (g_shape.table_narrow_rows && max_cols <= i64(kThreads) * kIlpNarrow) {
    const void* k = reinterpret_cast<const void*>(&k_row_columns<Body>);
    k_row_columns<Body><<<grid_rows(max_cols, rows, 1, g_shape.resident_grid, k), kThreads, 0, s>>>(body, rows);
  } else {
    launch_rows_ilp<Body, kIlpNarrow>(body, rows, max_cols, s);
  }
  check_launch(name);
}

// The req_to_token row of batch lane b, as route Spec chooses it (Spec::row): rows[b]; E10 plants
// the batch position b itself.
template <class Spec>
__device__ __forceinline__ i64 batch_row(const i64* rows, i64 b, Variant v) {
  return Spec::row(b, [rows](i64 lane) { return rows[lane]; }, v);
}

// A matrix view as a kernel addresses it: data and strides (elements).
template <class T>
struct Strided {
  T* data = nullptr;
  i64 row_stride = 0;
  i64 col_stride = 1;
  __device__ T* at(i64 row, i64 col) const { return data + row * row_stride + col * col_stride; }
};
template <class T>
Strided<T> strided(const Mat<T>& m) {
  return {m.data, m.row_stride, m.col_stride};
}

// Page-start token of column c of a req_to_token row (int32 ids widened to int64).
__device__ __forceinline__ i64 token_at(const Strided<const i32>& m, i64 row, i64 col) {
  return ld_stream(m.at(row, col));
}

// Table entry c of row b, narrowed to the int32 the kernels store (streaming store).
__device__ __forceinline__ void store_entry(const Strided<i32>& m, i64 b, i64 c, i64 v) {
  st_stream(m.at(b, c), static_cast<i32>(L::kv_narrow32<i64>(v)));
}

// A page-table call as the row kernel reads it: the row rules' scalars (Spec::row_args) first, then
// the pointers and strides of the views in the order a lane uses them, 112 bytes before the rarely
// used rest; not the whole Args (208 bytes for canonical_page_table). The parameter block is read
// through the constant cache, and a field past its first ~112 bytes costs one more constant-cache
// miss on the lane's chain of dependent loads (docs/performance.md, "Table kernels: the row load, one
// column a thread, a small parameter block").
struct TableView {
  spec_rules::TableRowArgs rules;
  const i64* row_ids = nullptr;
  const i64* lens = nullptr;
  Strided<const i32> req_to_token;
  const i64* v2p = nullptr;
  i64 multiplier = 1;
  Strided<i32> out;
  const i64* starts = nullptr;  // null: every row from column 0
  i64 page_size = 1;
  i64 batch = 0;  // B: rows [B, rows) are padded rows (a tail only)
};
static_assert(offsetof(TableView, starts) <= 112, "the fields a lane reads stay in the first 112 bytes");

template <class Spec>
TableView table_view(const typename Spec::Args& a) {
  return TableView{Spec::row_args(a),
                   Spec::row_ids(a).data,
                   Spec::lens(a).data,
                   strided(a.req_to_token),
                   a.v2p.data,
                   a.multiplier,
                   strided(Spec::out(a)),
                   Spec::starts(a).data,
                   a.page_size,
                   Spec::row_ids(a).size};
}

// The row kernel's body of every page-table route whose spec inherits spec_rules::TableRoute
// (flashmla_block_table, canonical_page_table, read_table, full_prefill_table) over its TableView v:
// row b < B reads req_to_token row Spec::row(b) from KV column start_b; its live columns
// c < Spec::clip(r, Spec::live(r, len_b + r.len_delta, ps)) (r = v.rules) get Spec::entry of their
// page-start token; with a tail (r.tail), columns [live, Spec::written(r, live)) of every row and
// [0, Spec::written(r, 0)) of the padded rows [B, rows) get Spec::tail_fill. Stores and loads use the
// flat address of (row, column), like the host runner under E01 / B10. PS: the page size when known
// at compile time (dispatch_ps).
template <i64 PS, class Spec>
struct TableBody {
  static constexpr bool kTail = Spec::kMayHaveTail;
  TableView v;
  // n: columns written; live: the live prefix; row: the req_to_token row (0 for a padded row).
  struct Ctx : RowCtx {
    i64 live = 0;
    i64 start = 0;
  };
  __device__ i64 ps() const { return page_size<PS>(v.page_size); }
  // The batch row is read first: written after the length-dependent arithmetic, its load was
  // scheduled behind the length's round trip (four dependent accesses a lane instead of three).
  // Without a tail the launch has rows = B, so only a call with a tail reads v.batch (past the
  // first 112 bytes).
  __device__ Ctx row(i64 b) const {
    Ctx r;
    if (!kTail || !v.rules.tail || b < v.batch) {
      r.row = batch_row<Spec>(v.row_ids, b, v.rules.variant);
      if constexpr (Spec::kHasStarts) r.start = v.starts != nullptr ? v.starts[b] : 0;
      r.live = Spec::clip(v.rules, Spec::live(v.rules, v.lens[b] + v.rules.len_delta, ps()));
    }
    r.n = Spec::written(v.rules, r.live);
    return r;
  }
  static constexpr bool kStaged = true;
  __device__ const i64* table() const { return v.v2p; }
  __device__ i64 token(const Ctx& r, i64, i64 c) const {
    if (kTail && c >= r.live) return 0;
    if constexpr (Spec::kHasStarts) return token_at(v.req_to_token, r.row, r.start + c * ps());
    else return token_at(v.req_to_token, r.row, c * ps());
  }
  template <class G>
  __device__ i64 entry(const Ctx& r, i64, i64 c, i64 tok, const G& g) const {
    if (kTail && c >= r.live) return Spec::template tail_fill<i64>(v.rules.variant);
    return spec_rules::table_entry<Spec>(tok, g, ps(), v.multiplier, v.rules.variant, v.v2p != nullptr);
  }
  __device__ i64 lane(const Ctx& r, i64 b, i64 c) const { return entry(r, b, c, token(r, b, c), Gather{table()}); }
  __device__ void store(i64 b, i64 c, i64 x) const { store_entry(v.out, b, c, x); }
};

struct EagerFunnelBody {
  EagerFunnelArgs a;
  __device__ RowCtx row(i64) const { return {a.page_table.cols, 0}; }
  static constexpr bool kStaged = true;
  __device__ const i64* table() const { return a.v2p.data; }
  __device__ i64 token(const RowCtx&, i64 b, i64 c) const {
    return a.page_table.data[b * a.page_table.row_stride + c * a.page_table.col_stride];
  }
  template <class G>
  __device__ i64 entry(const RowCtx&, i64, i64, i64 tok, const G& g) const {
    return L::eager_funnel_lane<i64>(tok, g, a.page_size, a.page_size * a.multiplier);
  }
  __device__ i64 lane(const RowCtx& r, i64 b, i64 c) const { return entry(r, b, c, token(r, b, c), Gather{table()}); }
  __device__ void store(i64 b, i64 c, i64 v) const { a.out.data[b * a.out.row_stride + c * a.out.col_stride] = v; }
};

struct ReadStreamBody {
  ReadStreamArgs a;
  // row: the row's first kv position (kv_start_idx, or 0)
  __device__ RowCtx row(i64 b) const {
    return {static_cast<i64>(a.indptr.data[b + 1]) - a.indptr.data[b],
            (a.kv_start_idx.data != nullptr) ? a.kv_start_idx.data[b] : 0};
  }
  __device__ i64 lane(const RowCtx& r, i64 b, i64 j) const {
    const i64 pos = r.row + j;
    const i64 col = L::kv_div<i64>(pos, a.page_size);
    const i64 entry = a.table.data[b * a.table.row_stride + col * a.table.col_stride];
    return L::stream_lane<i64>(entry, pos, a.page_size);
  }
  __device__ void store(i64 b, i64 j, i64 v) const {
    a.stream.data[a.indptr.data[b] + j] = static_cast<i32>(L::kv_narrow32<i64>(v));
  }
};

// ---- decode_metadata -----------------------------------------------------------------------------
// What the decode kernel's page-table rows read, first in its parameter block (112 bytes, as
// TableView: fields past the first ~112 bytes of the parameters cost a constant-cache miss on the
// lane's chain); the Args after it serve the prefix-sum block and the Era C copy and SWA paths.
struct DecodeView {
  Variant variant;
  int log2_ps = 0;  // log2(page_size): decode_metadata's page size is a power of two (validate)
  bool skip_page_table = false;
  const i64* seq_lens = nullptr;
  i64 seq_len_delta = 0;
  const i64* req_pool_indices = nullptr;
  i64 max_seq_pages = 0;
  Strided<const i32> req_to_token;
  const i64* v2p = nullptr;
  i64 multiplier = 1;
  Strided<i32> page_table;
};
static_assert(sizeof(DecodeView) <= 112, "the decode view stays in the first 112 bytes of the parameters");

struct DecodeParams {
  DecodeView v;
  DecodeMetadataArgs a;
};

int log2_exact(i64 ps) {
  int l = 0;
  while ((i64(1) << l) < ps) ++l;
  return l;
}

DecodeParams decode_params(const DecodeMetadataArgs& a) {
  DecodeParams p{};
  p.v.variant = a.variant;
  p.v.log2_ps = log2_exact(a.page_size);
  p.v.skip_page_table = a.skip_page_table;
  p.v.seq_lens = a.seq_lens.data;
  p.v.seq_len_delta = a.seq_len_delta;
  p.v.req_pool_indices = a.req_pool_indices.data;
  p.v.max_seq_pages = a.max_seq_pages;
  p.v.req_to_token = strided(a.req_to_token);
  p.v.v2p = a.v2p.data;
  p.v.multiplier = a.multiplier;
  p.v.page_table = strided(a.page_table);
  p.a = a;
  return p;
}

// Block x = 0 of the last grid row writes cache_seqlens and the exclusive prefix sums cu_seqlens_k[0..B] (int32, the
// kernel's own accumulator width), by a block-wide scan over chunks of kThreads rows.
__device__ void decode_prefix_sums(const DecodeParams& p) {
  __shared__ i32 scan[kThreads];
  __shared__ i32 carry;
  const i64 B = p.a.seq_lens.size;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (i64 base = 0; base < B; base += kThreads) {
    const i64 b = base + threadIdx.x;
    const i32 len = b < B ? static_cast<i32>(L::kv_narrow32<i64>(p.a.seq_lens.data[b] + p.a.seq_len_delta)) : 0;
    if (b < B) p.a.cache_seqlens.data[b] = len;
    scan[threadIdx.x] = len;
    __syncthreads();
    for (int off = 1; off < kThreads; off <<= 1) {  // Hillis-Steele inclusive scan
      const i32 add = threadIdx.x >= static_cast<unsigned>(off) ? scan[threadIdx.x - off] : 0;
      __syncthreads();
      scan[threadIdx.x] = static_cast<i32>(static_cast<std::uint32_t>(scan[threadIdx.x]) + static_cast<std::uint32_t>(add));
      __syncthreads();
    }
    const i32 c0 = carry;
    if (b < B) p.a.cu_seqlens_k.data[b + 1] = static_cast<i32>(static_cast<std::uint32_t>(c0) + static_cast<std::uint32_t>(scan[threadIdx.x]));
    __syncthreads();
    if (threadIdx.x == kThreads - 1) carry = static_cast<i32>(static_cast<std::uint32_t>(c0) + static_cast<std::uint32_t>(scan[kThreads - 1]));
    __syncthreads();
  }
  if (threadIdx.x == 0) p.a.cu_seqlens_k.data[0] = 0;
}

// The page-table path of one decode_metadata launch, fixed at compile time so that each kernel
// carries only its own loads (one kernel with every path needed 79 registers at 4 lanes per
// thread): COPY = Era C (copy kernel_page_table, or with src_is_kernel_page_table the req_to_token
// rows at column c), SWA = also write the SWA table (through swa_v2p or the token-level
// full_to_swa_index_mapping), REMAP = Era B v2p (otherwise the static shift), LOG2 = log2(ps) when
// known at compile time, else -1.
template <bool COPY, bool SWA, bool REMAP, int LOG2>
struct DecodeBody {
  using Spec = RouteSpec<Route::decode_metadata>;
  DecodeParams p;
  __device__ int log2_ps() const { return LOG2 >= 0 ? LOG2 : p.v.log2_ps; }
  __device__ i64 ps() const { return i64(1) << log2_ps(); }
  // Era C's call form: the req_to_token rows are the canonical table's (validate: no SWA then).
  __device__ bool src_rows() const { return COPY && p.a.src_is_kernel_page_table; }
  __device__ RowCtx row(i64 b) const {
    if (p.v.skip_page_table) return {0, 0};
    // Era C from kernel_page_table without SWA reads no req_to_token row. The row is read before the
    // length (TableBody::row).
    const i64 r = (!COPY || SWA || src_rows()) ? batch_row<Spec>(p.v.req_pool_indices, b, p.v.variant) : 0;
    const i64 len = L::decode_length<i64>(p.v.seq_lens[b] + p.v.seq_len_delta, p.v.variant);
    const i64 n = Spec::columns<i64>(len, ps(), log2_ps(), p.v.max_seq_pages, p.v.variant);
    return {n, r};
  }
  // The Era-B remap without SWA is one token load and one gather: staged (row_slice).
  static constexpr bool kStaged = REMAP && !COPY && !SWA;
  __device__ const i64* table() const { return p.v.v2p; }
  __device__ i64 token(const RowCtx& r, i64, i64 c) const { return token_at(p.v.req_to_token, r.row, c * ps()); }
  template <class G>
  __device__ i64 entry(const RowCtx&, i64, i64, i64 page_index, const G& g) const {
    return L::decode_entry_lane<i64>(page_index, g, log2_ps(), p.v.multiplier, p.v.variant);
  }
  __device__ i64 lane(const RowCtx& r, i64 b, i64 c) const {
    const DecodeMetadataArgs& a = p.a;
    const i64 page_index = (!COPY || SWA) ? token(r, b, c) : 0;
    if constexpr (SWA) {
      const Variant sv_variant = Spec::swa_entry_variant(p.v.variant);
      const i64 sv = a.full_to_swa_index_mapping.data != nullptr
                         ? L::swa_slot_entry_lane<i64>(page_index, Gather{a.full_to_swa_index_mapping.data}, log2_ps(),
                                                       sv_variant)
                         : L::decode_entry_lane<i64>(page_index, Gather{a.swa_v2p.data}, log2_ps(), a.swa_multiplier,
                                                     sv_variant);
      a.swa_page_table.data[b * a.swa_page_table.row_stride + c * a.swa_page_table.col_stride] =
          static_cast<i32>(L::kv_narrow32<i64>(sv));
    }
    if constexpr (COPY) {
      if (src_rows()) return token_at(p.v.req_to_token, r.row, c);
      return a.kernel_page_table.data[b * a.kernel_page_table.row_stride + c * a.kernel_page_table.col_stride];
    } else if constexpr (REMAP) {
      return entry(r, b, c, page_index, Gather{table()});
    } else {
      return L::decode_static_lane<i64>(page_index, log2_ps());  // static: the shift only (I10)
    }
  }
  __device__ void store(i64 b, i64 c, i64 x) const { store_entry(p.v.page_table, b, c, x); }
};

// The grid has one extra row of blocks (y = gridDim.y - 1): its block x = 0 writes the prefix
// sums, concurrently with the page-table rows, so that the scan (one more dependent DRAM access
// plus the block-wide barriers) is not added to the critical path of a page-table block.
template <class Body, int ILP>
__global__ void __launch_bounds__(kThreads) k_decode_metadata(Body body, i64 rows, bool staged) {
  const unsigned table_rows = gridDim.y - 1;
  if (blockIdx.y == table_rows) {
    if (blockIdx.x == 0) decode_prefix_sums(body.p);
    return;
  }
  for (i64 b = blockIdx.y; b < rows; b += table_rows) row_slice<ILP>(body, b, staged);
}

// The same grid with one column a thread (rows of at most 1024 columns, as k_row_columns).
template <class Body>
__global__ void __launch_bounds__(kThreads) k_decode_columns(Body body, i64 rows) {
  const unsigned table_rows = gridDim.y - 1;
  if (blockIdx.y == table_rows) {
    if (blockIdx.x == 0) decode_prefix_sums(body.p);
    return;
  }
  row_columns(body, blockIdx.y, table_rows, rows);
}

// Grid of the page-table rows (capped one below the y limit) plus the prefix-sum row.
dim3 decode_grid(i64 cols, i64 rows, int ilp, const void* kernel) {
  dim3 g = grid_rows(cols, rows < kMaxGridY ? rows : kMaxGridY - 1, ilp, g_shape.decode_resident_grid, kernel);
  g.y += 1;
  return g;
}

template <class Body>
void launch_decode_body(const Body& body, i64 rows, cudaStream_t s) {
  const i64 cols = body.p.v.max_seq_pages;
  if (g_shape.decode_lanes_per_thread >= kIlpWide) {
    const void* k = reinterpret_cast<const void*>(&k_decode_metadata<Body, kIlpWide>);
    k_decode_metadata<Body, kIlpWide><<<decode_grid(cols, rows, kIlpWide, k), kThreads, 0, s>>>(body, rows, g_shape.staged);
  } else if (g_shape.table_narrow_rows && cols <= i64(kThreads) * kIlpNarrow) {
    const void* k = reinterpret_cast<const void*>(&k_decode_columns<Body>);
    k_decode_columns<Body><<<decode_grid(cols, rows, 1, k), kThreads, 0, s>>>(body, rows);
  } else {
    const void* k = reinterpret_cast<const void*>(&k_decode_metadata<Body, kIlpNarrow>);
    k_decode_metadata<Body, kIlpNarrow><<<decode_grid(cols, rows, kIlpNarrow, k), kThreads, 0, s>>>(body, rows, g_shape.staged);
  }
}

// ---- kv_indices_inplace: fixed grid, n read on the device, grid-stride over [0, n) ---------------
constexpr unsigned kInplaceBlocks = 1024;
__global__ void __launch_bounds__(kThreads) k_kv_indices_inplace(KvIndicesInplaceArgs a) {
  i64 n = a.kv_indptr.data[a.batch_size];
  if (n > a.kv_indices.size) n = a.kv_indices.size;  // never past the buffer (the host route rejects it)
  if ((a.src.data != nullptr) && n > a.src.size) n = a.src.size;
  const i32* src = (a.src.data != nullptr) ? a.src.data : a.kv_indices.data;
  const Gather g{a.v2p.data};
  const i64 stride = a.page_size * a.multiplier;
  for (i64 i = static_cast<i64>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += static_cast<i64>(gridDim.x) * kThreads) {
    const i64 t = src[i];
    a.kv_indices.data[i] = static_cast<i32>(L::kv_narrow32<i64>(L::token_translate_lane<i64>(t, g, a.page_size, stride, Variant{})));
  }
}

// ---- envelope moves: page of the first token of each page-major run -------------------------------
__global__ void __launch_bounds__(kThreads) k_envelope_moves(EnvelopeMoveArgs a) {
  // grid_1d caps the grid at kMaxGridX blocks: the grid-stride loop covers runs past kMaxGridX * kThreads.
  const i64 runs = a.dst_tokens.size / a.page_size;
  const i64 step = static_cast<i64>(gridDim.x) * kThreads;
  for (i64 r = static_cast<i64>(blockIdx.x) * kThreads + threadIdx.x; r < runs; r += step) {
    a.dst_pages.data[r] = L::run_page_lane<i64>(a.dst_tokens.data[r * a.page_size], a.page_size);
    a.src_pages.data[r] = L::run_page_lane<i64>(a.src_tokens.data[r * a.page_size], a.page_size);
  }
}

}  // namespace

// Every page-table route of spec_rules::TableRoute: one launcher over TableBody, rows [0, B) (and the
// padded rows [B, out.rows) when the call has a tail), the grid's columns from Spec::grid_columns
// (the grid-stride loop covers rows wider than it).
template <class Spec>
void launch_table(const typename Spec::Args& a, cudaStream_t s) {
  validate(a);
  const TableView view = table_view<Spec>(a);
  const i64 rows = view.rules.tail ? Spec::out(a).rows : view.batch;
  dispatch_ps(a.page_size, [&](auto ps_c) {
    const TableBody<decltype(ps_c)::value, Spec> body{view};
    launch_rows(body, rows, Spec::grid_columns(a), s, Spec::name.data());
  });
}

void launch_flashmla_block_table(const FlashmlaBlockTableArgs& a, cudaStream_t s) {
  launch_table<RouteSpec<Route::flashmla_block_table>>(a, s);
}
void launch_canonical_page_table(const CanonicalPageTableArgs& a, cudaStream_t s) {
  launch_table<RouteSpec<Route::canonical_page_table>>(a, s);
}
void launch_read_table(const ReadTableArgs& a, cudaStream_t s) { launch_table<RouteSpec<Route::read_table>>(a, s); }
void launch_full_prefill_table(const FullPrefillTableArgs& a, cudaStream_t s) {
  launch_table<RouteSpec<Route::full_prefill_table>>(a, s);
}

void launch_read_stream(const ReadStreamArgs& a, cudaStream_t s) {
  validate(a);
  const i64 batch = a.indptr.size - 1;
  launch_rows(ReadStreamBody{a}, batch, a.table.cols * a.page_size, s, "read_stream");
}

void launch_decode_metadata(const DecodeMetadataArgs& a, cudaStream_t s) {
  validate(a);
  const DecodeParams p = decode_params(a);
  const i64 rows = a.seq_lens.size;
  if (rows == 0) return;  // an empty batch launches nothing: cu_seqlens_k[0] keeps its old value
  const bool copy = a.kernel_page_table.data != nullptr || a.src_is_kernel_page_table;
  const bool swa = a.swa_v2p.data != nullptr || a.full_to_swa_index_mapping.data != nullptr;
  const bool remap = a.v2p.data != nullptr;
  if (copy && swa) launch_decode_body(DecodeBody<true, true, false, -1>{p}, rows, s);
  else if (copy) launch_decode_body(DecodeBody<true, false, false, -1>{p}, rows, s);
  else if (swa && remap) launch_decode_body(DecodeBody<false, true, true, -1>{p}, rows, s);
  else if (swa) launch_decode_body(DecodeBody<false, true, false, -1>{p}, rows, s);
  else if (!remap) launch_decode_body(DecodeBody<false, false, false, -1>{p}, rows, s);
  else if (p.v.log2_ps == 0) launch_decode_body(DecodeBody<false, false, true, 0>{p}, rows, s);  // the benchmarked
  else if (p.v.log2_ps == 6) launch_decode_body(DecodeBody<false, false, true, 6>{p}, rows, s);  // Era B shapes
  else launch_decode_body(DecodeBody<false, false, true, -1>{p}, rows, s);
  check_launch("decode_metadata");
}

void launch_eager_funnel(const EagerFunnelArgs& a, cudaStream_t s) {
  validate(a);
  if (has(a.variant, Behaviour::b02_rank2_index_select) && a.page_size == 1) {
    // Same failure as the host route: the rank-2 table reaches a 1-D-only index_select.
    throw InvalidArgument("page_table", "rank 2 [" + std::to_string(a.page_table.rows) + ", " +
                                            std::to_string(a.page_table.cols) + "]",
                          "index_select at page_size 1 accepts only a 1-D index (bug B02)");
  }
  launch_rows(EagerFunnelBody{a}, a.page_table.rows, a.page_table.cols, s, "eager_funnel");
}

void launch_kv_indices_inplace(const KvIndicesInplaceArgs& a, cudaStream_t s) {
  validate(a);
  // B05: the result went to a fresh tensor; the bound buffer keeps its virtual ids. A launcher
  // cannot allocate, so the planted variant writes nothing at all (the observable effect).
  if (RouteSpec<Route::kv_indices_inplace>::rebinds_fresh(a.variant)) return;
  k_kv_indices_inplace<<<kInplaceBlocks, kThreads, 0, s>>>(a);
  check_launch("kv_indices_inplace");
}

void launch_envelope_moves(const EnvelopeMoveArgs& a, cudaStream_t s) {
  validate(a);
  const i64 runs = a.dst_tokens.size / a.page_size;
  if (runs <= 0) return;
  k_envelope_moves<<<grid_1d(runs, kThreads), kThreads, 0, s>>>(a);
  check_launch("envelope_moves");
}

}  // namespace kvaddr::gpu
