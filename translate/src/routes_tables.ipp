// Page-granular host routes (spec §4.2-§4.6, §4.11): one lane per (row, column) of the kernel's
// grid, writing exactly the columns the production kernel writes.
// Included by routes_plain.cpp (hooks policy NoHooks), by mutation/hooked.cpp (MutationHooks) and by
// standalone_runners.hpp, inside namespace kvaddr::translate::detail::<policy namespace>, after
// validate_body.ipp; H, CI and TableGather are that namespace's policy types.

namespace {


// A request-pool row id, checked against the rows of req_to_token.
std::int64_t pool_row(const Vec<const std::int64_t>& rows, std::int64_t b, const Mat<const std::int32_t>& r2t,
                      std::string_view name) {
  const std::int64_t row = H::alt(mutation::Site::row, read_vec(rows, b, name), b);
  if (row < 0 || row >= r2t.rows) {
    throw OutOfRange(std::string(name), std::to_string(row),
                     "row id outside req_to_token's " + std::to_string(r2t.rows) + " rows (batch lane " +
                         std::to_string(b) + ")");
  }
  return row;
}

// The req_to_token row of batch lane b, as the route's spec chooses it (Spec::row): the checked
// pool row rows[b] in production; E10 uses b itself (the batch position), which names another
// request's row whenever the pool rows are not 0..B-1.
template <class Spec>
std::int64_t batch_row(const Vec<const std::int64_t>& rows, std::int64_t b, const Mat<const std::int32_t>& r2t,
                       std::string_view name, Variant v) {
  const std::int64_t row = Spec::row(b, [&](std::int64_t lane) { return pool_row(rows, lane, r2t, name); }, v);
  if (!has(v, Behaviour::e10_batch_index_rows)) return row;
  (void)read_vec(rows, b, name);  // the lane still exists
  if (row >= r2t.rows) {
    throw OutOfRange("req_to_token", "row " + std::to_string(b),
                     "batch position used as a row id lies outside req_to_token's " + std::to_string(r2t.rows) +
                         " rows (E10)");
  }
  return row;
}

// Flat element offset and extent of a matrix: what an unmasked kernel address computes. A
// column past the row width lands in the next row; past the extent it is outside the buffer.
template <class T>
std::int64_t flat_index(const Mat<T>& m, std::int64_t r, std::int64_t c, std::string_view name) {
  return checked_add(checked_mul(r, m.row_stride, name), checked_mul(c, m.col_stride, name), name);
}
template <class T>
std::int64_t flat_extent(const Mat<T>& m) {
  return (m.rows == 0 || m.cols == 0) ? 0 : (m.rows - 1) * m.row_stride + (m.cols - 1) * m.col_stride + 1;
}

// E01: the req_to_token load without the column bound (flat address, bounded by the buffer only).
std::int64_t unbounded_load(const Mat<const std::int32_t>& r2t, std::int64_t row, std::int64_t col) {
  const std::int64_t flat = flat_index(r2t, row, col, "req_to_token");
  if (flat < 0 || flat >= flat_extent(r2t)) {
    throw OutOfRange("req_to_token", "row " + std::to_string(row) + " column " + std::to_string(col),
                     "unmasked load past the end of the req_to_token buffer of " +
                         std::to_string(flat_extent(r2t)) + " elements (E01)");
  }
  return r2t.data[flat];
}

// A table store at the flat address of (b, c): beyond the row width it lands in the next row
// (B10 / E01 spill); past the buffer it is OutOfRange naming the output.
void flat_store(const Mat<std::int32_t>& out, std::int64_t b, std::int64_t c, std::int32_t value, std::string_view name) {
  const std::int64_t flat = flat_index(out, b, c, name);
  if (flat >= flat_extent(out)) {
    throw OutOfRange(std::string(name), "row " + std::to_string(b) + " column " + std::to_string(c),
                     "write past the end of the table buffer of " + std::to_string(flat_extent(out)) + " elements");
  }
  put<H>(out.data, flat_extent(out), flat, name) = value;
}

// A KV length (sequence length plus delta); negative lengths are rejected naming the field.
std::int64_t kv_length(const Vec<const std::int64_t>& lens, std::int64_t b, std::int64_t delta, std::string_view name) {
  const std::int64_t len = checked_add(read_vec(lens, b, name), delta, name);
  if (len < 0) {
    throw OutOfRange(std::string(name), std::to_string(len), "negative KV length at batch lane " + std::to_string(b));
  }
  return len;
}

// The virtual token at the start of page column c (column kv_start + c * ps of the row).
std::int64_t page_start_token(const Mat<const std::int32_t>& r2t, std::int64_t row, std::int64_t kv_start,
                              std::int64_t c, std::int64_t ps) {
  const std::int64_t col = checked_add(kv_start, checked_mul(c, ps, "req_to_token"), "req_to_token");
  return read_mat<H>(r2t, row, col, "req_to_token");
}

}  // namespace

// The table runner of every page-table route whose spec inherits spec_rules::TableRoute (§4.2
// flashmla_block_table, §4.3 canonical_page_table, §4.4 read_table, §4.11 full_prefill_table):
// batch lane b reads req_to_token row Spec::row(b) from KV column start_b, and columns
// c < Spec::clip(r, Spec::live(r, len_b + r.len_delta, ps)) (r = Spec::row_args(a)) get
// spec_rules::table_entry<Spec>(page-start token of column start_b + c * ps: the static entry without a
// v2p), stored through the int32 store rule;
// with r.tail, columns [live, Spec::written(r, 0)) of each row and [0, Spec::written(r, 0)) of rows
// [B, out.rows) get Spec::tail_fill (the kernel's Spec::written(r, live) ends the same tail). Every
// other column keeps the caller's value. Loads and stores at flat addresses where the spec says so
// (a column past the row lands in the next row; past the buffer is an OutOfRange).
template <class Spec>
void run_table(const typename Spec::Args& a) {
  validate_args(a);
  const auto& out = Spec::out(a);
  constexpr std::string_view out_name = Spec::out_name;
  const detail::Rollback rollback(out);
  [[maybe_unused]] const H::Scope scope(mutation::unit_of(Spec::id));
  const TableGather g{a.v2p, "v2p"};
  const CI ps(a.page_size);
  const CI mult(a.multiplier);
  const bool remap = a.v2p.present();
  const bool flat_loads = Spec::flat_loads(a.variant);
  const bool flat_stores = Spec::flat_stores(a.variant);
  const auto& rows = Spec::row_ids(a);
  const Vec<const std::int64_t> starts = Spec::starts(a);
  const std::int64_t batch = rows.size;
  const spec_rules::TableRowArgs row_args = Spec::row_args(a);
  const bool tail = row_args.tail;
  const std::int64_t tail_cols = Spec::written(row_args, std::int64_t{0});  // the end of the tail columns
  const auto fill = Spec::template tail_fill<std::int32_t>(a.variant);
  rename_lane_overflow(out_name, [&] {
    for (std::int64_t b = 0; b < batch; ++b) {
      H::lane(0);
      const std::int64_t row = batch_row<Spec>(rows, b, a.req_to_token, Spec::rows_name, a.variant);
      const std::int64_t start = starts.present() ? read_vec(starts, b, Spec::starts_name) : 0;
      if (start < 0) throw OutOfRange(std::string(Spec::starts_name), std::to_string(start), "negative KV start");
      const std::int64_t len = kv_length(Spec::lens(a), b, row_args.len_delta, Spec::lens_name);
      const std::int64_t n = H::bound(Spec::clip(row_args, Spec::live(row_args, CI(len), ps).get()));
      for (std::int64_t c = 0; c < n; ++c) {
        H::lane(1);
        const std::int64_t col = checked_add(start, checked_mul(c, a.page_size, "req_to_token"), "req_to_token");
        const CI tok(flat_loads ? unbounded_load(a.req_to_token, row, col) : read_mat<H>(a.req_to_token, row, col, "req_to_token"));
        const std::int32_t e = narrow_out<std::int32_t>(spec_rules::table_entry<Spec>(tok, g, ps, mult, a.variant, remap), out_name, a.variant);
        if (flat_stores) {
          flat_store(out, b, c, e, out_name);
        } else {
          put<H>(out, b, c, out_name) = e;
        }
      }
      H::resume(0);  // the row's tail bound is a per-row site whatever n is
      if (tail) {
        for (std::int64_t c = H::bound(n); c < tail_cols; ++c) put<H>(out, b, c, out_name) = fill;
      }
    }
  });
  H::lane(2);  // epilogue: the padded rows
  if (tail) {
    // tail_cols > 0: a table of 0 columns costs nothing however many rows it has (no loop over them).
    for (std::int64_t b = H::bound(batch); tail_cols > 0 && b < out.rows; ++b)
      for (std::int64_t c = 0; c < tail_cols; ++c) put<H>(out, b, c, out_name) = fill;
  }
}

void flashmla_block_table(const FlashmlaBlockTableArgs& a) { run_table<RouteSpec<Route::flashmla_block_table>>(a); }
void canonical_page_table(const CanonicalPageTableArgs& a) { run_table<RouteSpec<Route::canonical_page_table>>(a); }
void read_table(const ReadTableArgs& a) { run_table<RouteSpec<Route::read_table>>(a); }
void full_prefill_table(const FullPrefillTableArgs& a) { run_table<RouteSpec<Route::full_prefill_table>>(a); }

// §4.4 packed CSR stream: stream[j] = table[b, pos / ps] * ps + pos % ps for
// indptr[b] <= j < indptr[b + 1], pos = kv_start_b + (j - indptr[b]); lanes >= indptr[B] untouched.
void read_stream(const ReadStreamArgs& a) {
  validate_args(a);
  const detail::Rollback rollback(a.stream);
  [[maybe_unused]] const H::Scope scope(mutation::kUnitReadStream);
  const std::int64_t batch = a.indptr.size - 1;
  std::int64_t prev = 0;
  for (std::int64_t b = 0; b <= batch; ++b) {
    const std::int64_t v = a.indptr.data[b];
    if (!H::rule(v >= prev)) {
      throw OutOfRange("indptr", std::to_string(v),
                       "indptr must start >= 0 and be non-decreasing (entry " + std::to_string(b) + ")");
    }
    prev = v;
  }
  require_size(H::rule(prev <= a.stream.size), "stream", a.stream.size,
               "shorter than indptr[B] = " + std::to_string(prev));
  const CI ps(a.page_size);
  rename_lane_overflow("stream", [&] {
    for (std::int64_t b = 0; b < batch; ++b) {
      H::lane(0);
      const std::int64_t start = a.kv_start_idx.present() ? read_vec(a.kv_start_idx, b, "kv_start_idx") : 0;
      if (start < 0) throw OutOfRange("kv_start_idx", std::to_string(start), "negative KV start");
      const std::int64_t lo = a.indptr.data[b];
      for (std::int64_t j = lo; j < a.indptr.data[b + 1]; ++j) {
        H::lane(1);
        const std::int64_t pos = checked_add(start, j - lo, "kv_start_idx");
        const CI entry(read_mat<H>(a.table, b, pos / a.page_size, "table"));
        put<H>(a.stream, j, "stream") = narrow_out<std::int32_t>(lanes::stream_lane(entry, CI(pos), ps), "stream");
      }
    }
  });
}

// §4.5: cache_seqlens[b] = int32(seq_b + delta), cu_seqlens_k = exclusive prefix sum (B + 1
// entries); unless skip_page_table, page_table[b, c] for c < live_b (prefix-only) from
// kernel_page_table or the req_to_token rows themselves (src_is_kernel_page_table: Era C copies),
// v2p (Era B remap) or the static shift; swa_page_table likewise, through swa_v2p or the token-level
// full_to_swa_index_mapping. int32_wrap: the int32 lengths, sums and entries wrap silently. An empty
// batch launches nothing: nothing is written, cu_seqlens_k[0] keeps its old value.
void decode_metadata(const DecodeMetadataArgs& a) {
  using Spec = RouteSpec<Route::decode_metadata>;
  validate_args(a);
  // The tables are outputs (and validated) only when the page table is built.
  const Mat<std::int32_t> none{};
  const bool tables = !a.skip_page_table;
  const bool swa_map = a.full_to_swa_index_mapping.present();
  const bool swa = a.swa_v2p.present() || swa_map;
  const detail::Rollback rollback(a.cache_seqlens, a.cu_seqlens_k, tables ? a.page_table : none,
                                  tables && swa ? a.swa_page_table : none);
  [[maybe_unused]] const H::Scope scope(mutation::unit_of(Route::decode_metadata));
  const std::int64_t batch = a.seq_lens.size;
  if (batch == 0) return;
  // Program (0, 0): lengths and prefix sums.
  // int32_lengths: the lengths are int32 (lanes::decode_length) and so is their running sum.
  const bool len32 = has(a.variant, Behaviour::int32_lengths);
  std::int64_t total = 0;
  put<H>(a.cu_seqlens_k, 0, "cu_seqlens_k") = 0;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t len =
        lanes::decode_length(CI(kv_length(a.seq_lens, b, a.seq_len_delta, "seq_lens")), a.variant).get();
    put<H>(a.cache_seqlens, b, "cache_seqlens") = narrow_out<std::int32_t>(CI(len), "cache_seqlens", a.variant);
    total = len32 ? lanes::kv_wrap32(total + len) : checked_add(total, len, "cu_seqlens_k");
    put<H>(a.cu_seqlens_k, b + 1, "cu_seqlens_k") = narrow_out<std::int32_t>(CI(total), "cu_seqlens_k", a.variant);
  }
  if (a.skip_page_table) return;

  const int log2_ps = std::countr_zero(static_cast<std::uint64_t>(a.page_size));
  const CI ps(a.page_size);
  const TableGather g{a.v2p, "v2p"};
  const TableGather swa_g = swa_map ? TableGather{a.full_to_swa_index_mapping, "full_to_swa_index_mapping"}
                                    : TableGather{a.swa_v2p, "swa_v2p"};
  const bool copy = a.kernel_page_table.present();
  const bool src_rows = a.src_is_kernel_page_table;  // req_to_token rows are the canonical table's
  const bool reads_rows = !copy || swa;
  const bool flat = Spec::flat_addresses(a.variant);  // era_d_read_table: the read-table grid's addresses
  const Variant swa_variant = Spec::swa_entry_variant(a.variant);
  // A page-table store at (b, c): at the flat address under era_d_read_table (past the row: the next
  // row; past the buffer: OutOfRange), else checked against the row.
  const auto store = [&](const Mat<std::int32_t>& t, std::int64_t b, std::int64_t c, std::int32_t e,
                         std::string_view name) {
    if (flat) flat_store(t, b, c, e, name);
    else put<H>(t, b, c, name) = e;
  };
  for (std::int64_t b = 0; b < batch; ++b) {
    H::lane(0);
    const CI len = lanes::decode_length(CI(kv_length(a.seq_lens, b, a.seq_len_delta, "seq_lens")), a.variant);
    const std::int64_t live = H::bound(Spec::columns(len, ps, log2_ps, CI(a.max_seq_pages), a.variant).get());
    const std::int64_t row =
        reads_rows ? batch_row<Spec>(a.req_pool_indices, b, a.req_to_token, "req_pool_indices", a.variant) : 0;
    for (std::int64_t c = 0; c < live; ++c) {
      H::lane(1);
      CI page_index(0);
      if (src_rows) {
        page_index = CI(read_mat<H>(a.req_to_token, row, c, "req_to_token"));
      } else if (reads_rows) {
        page_index = CI(flat ? unbounded_load(a.req_to_token, row, checked_mul(c, a.page_size, "req_to_token"))
                             : page_start_token(a.req_to_token, row, 0, c, a.page_size));
      }
      rename_lane_overflow("page_table", [&] {
        CI value(0);
        if (copy) {
          value = CI(read_mat<H>(a.kernel_page_table, b, c, "kernel_page_table"));
        } else if (src_rows) {
          value = page_index;
        } else if (a.v2p.present()) {
          value = lanes::decode_entry_lane(page_index, g, log2_ps, CI(a.multiplier), a.variant);
        } else {
          value = lanes::decode_static_lane(page_index, log2_ps);
        }
        store(a.page_table, b, c, narrow_out<std::int32_t>(value, "page_table", a.variant), "page_table");
      });
      if (swa) {
        rename_lane_overflow("swa_page_table", [&] {
          const CI sv = swa_map ? lanes::swa_slot_entry_lane(page_index, swa_g, log2_ps, swa_variant)
                                : lanes::decode_entry_lane(page_index, swa_g, log2_ps, CI(a.swa_multiplier), swa_variant);
          store(a.swa_page_table, b, c, narrow_out<std::int32_t>(sv, "swa_page_table"), "swa_page_table");
        });
      }
    }
  }
}

// §4.6: out[r, c] = d(page_table[r, c]) / ps for every element (B02: at ps = 1 the rank-2 table
// reaches a 1-D-only index_select and the call fails).
void eager_funnel(const EagerFunnelArgs& a) {
  validate_args(a);
  const detail::Rollback rollback(a.out);
  if (has(a.variant, Behaviour::b02_rank2_index_select) && a.page_size == 1) {
    throw InvalidArgument("page_table", "rank 2 [" + std::to_string(a.page_table.rows) + ", " +
                                            std::to_string(a.page_table.cols) + "]",
                          "index_select at page_size 1 accepts only a 1-D index (bug B02)");
  }
  [[maybe_unused]] const H::Scope scope(mutation::unit_of(Route::eager_funnel));
  const TableGather g{a.v2p, "v2p"};
  const CI ps(a.page_size);
  const CI stride(H::alt(mutation::Site::stride, a.page_size * a.multiplier, a.page_size));
  rename_lane_overflow("out", [&] {
    for (std::int64_t r = 0; a.page_table.cols > 0 && r < a.page_table.rows; ++r) {  // 0 columns: no row loop
      for (std::int64_t c = 0; c < a.page_table.cols; ++c) {
        H::lane(1);
        const CI tok(read_mat<H>(a.page_table, r, c, "page_table"));
        put<H>(a.out, r, c, "out") = lanes::eager_funnel_lane(tok, g, ps, stride).get();
      }
    }
  });
}
