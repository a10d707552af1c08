// Contract validation of every route (spec §4): scalars, sizes, strides and aliasing. Array
// contents are never read here, so the CUDA launchers can run the same checks on device views.
// Included by routes_plain.cpp (hooks policy NoHooks) and by mutation/hooked.cpp
// (MutationHooks) inside namespace kvaddr::translate::detail::<policy namespace>; H is that
// namespace's policy type. The public kvaddr::validate overloads run validate_args. The rules
// themselves are in validate_rules.ipp; the per-id routes' validation is routes_per_id.ipp's.
#include "validate_rules.ipp"

// The per-id routes' contract (routes_per_id.ipp, included after this file).
template <class Spec, class A>
void validate_per_id(const A& a);

// ---- §4.1 / §4.9: the per-id contract over the spec's field list and check_scalars -------------
template <class Out>
void validate_args(const TokenTranslateArgs<Out>& a) {
  validate_per_id<RouteSpec<Route::token_translate>>(a);
}

template <class Out>
void validate_args(const SwaTranslateArgs<Out>& a) {
  validate_per_id<RouteSpec<Route::swa_translate>>(a);
}

// A table route's v2p: a table, or absent for a static pool (spec I10: the entry tok / ps), which
// takes multiplier 1 and the production variant only.
namespace {
void check_static_pool(const Vec<const std::int64_t>& v2p, std::int64_t multiplier, Variant variant) {
  check_vec(v2p, "v2p");
  if (v2p.present()) return;
  rule_require(multiplier == 1, "multiplier", multiplier, "the static kernel (v2p absent) requires multiplier 1");
  if (variant != Variant::production) {
    throw InvalidArgument("variant", std::string(to_string(variant)), "bug variants need a v2p table");
  }
}
}  // namespace

// ---- §4.2 --------------------------------------------------------------------------------------
void validate_args(const FlashmlaBlockTableArgs& a) {
  const ValidateScope scope(mutation::unit_of(Route::flashmla_block_table));
  require_variant(Route::flashmla_block_table, a.variant);
  check_page_size(a.page_size);
  check_multiplier(a.multiplier);
  check_stride(a.page_size, a.multiplier);
  check_mat(a.req_to_token, "req_to_token");
  check_vec(a.req_pool_indices, "req_pool_indices");
  const std::int64_t b = a.req_pool_indices.size;
  check_at_least(a.page_kernel_lens, "page_kernel_lens", b);
  check_optional(a.kv_start_idx, "kv_start_idx", b);
  check_static_pool(a.v2p, a.multiplier, a.variant);
  check_out_mat(a.kv_indices, "kv_indices");
  check_shape_at_least(a.kv_indices, "kv_indices", b, 0);
  check_disjoint(a.kv_indices, a.req_to_token, "kv_indices", "req_to_token");
}

// The argument checks that canonical_page_table and full_prefill_table share (same contract shape:
// req_to_token rows picked by req_pool_indices, seq_lens, v2p, page_size, multiplier, max_pages).
// Returns the batch size B.
namespace {
template <class PageTableArgs>
std::int64_t check_page_table_args(const PageTableArgs& a, Route route) {
  require_variant(route, a.variant);
  check_page_size(a.page_size);
  check_multiplier(a.multiplier);
  check_stride(a.page_size, a.multiplier);
  check_nonneg(a.max_pages, "max_pages", "max_pages must be >= 0");
  check_mat(a.req_to_token, "req_to_token");
  check_vec(a.req_pool_indices, "req_pool_indices");
  const std::int64_t b = a.req_pool_indices.size;
  check_at_least(a.seq_lens, "seq_lens", b);
  check_static_pool(a.v2p, a.multiplier, a.variant);
  return b;
}
}  // namespace

// ---- §4.3 --------------------------------------------------------------------------------------
void validate_args(const CanonicalPageTableArgs& a) {
  const ValidateScope scope(mutation::unit_of(Route::canonical_page_table));
  const std::int64_t b = check_page_table_args(a, Route::canonical_page_table);
  const std::int64_t span = checked_mul(a.max_pages, a.page_size, "max_pages");
  rule_require_size(span <= a.req_to_token.cols, "req_to_token", a.req_to_token.cols,
               [&] { return "width < max_pages * page_size = " + s(span); });
  check_out_mat(a.out, "out");
  check_packed(a.out, "out");
  check_shape_at_least(a.out, "out", b, a.max_pages);
  check_disjoint(a.out, a.req_to_token, "out", "req_to_token");
}

// ---- §4.4 --------------------------------------------------------------------------------------
void validate_args(const ReadTableArgs& a) {
  const ValidateScope scope(mutation::unit_of(Route::read_table));
  require_variant(Route::read_table, a.variant);
  check_page_size(a.page_size);
  check_multiplier(a.multiplier);
  check_stride(a.page_size, a.multiplier);
  check_nonneg(a.max_pages, "max_pages", "max_pages must be >= 0");
  check_mat(a.req_to_token, "req_to_token");
  check_vec(a.row_ids, "row_ids");
  const std::int64_t b = a.row_ids.size;
  check_at_least(a.seq_lens, "seq_lens", b);
  check_static_pool(a.v2p, a.multiplier, a.variant);
  if (a.max_pages > 0) {
    const std::int64_t last = checked_mul(a.max_pages - 1, a.page_size, "max_pages");
    rule_require_size(last < a.req_to_token.cols, "req_to_token", a.req_to_token.cols,
                 [&] { return "width <= (max_pages - 1) * page_size = " + s(last); });
  }
  check_out_mat(a.out, "out");
  check_packed(a.out, "out");
  check_shape_at_least(a.out, "out", b, a.max_pages);
  check_disjoint(a.out, a.req_to_token, "out", "req_to_token");
}

void validate_args(const ReadStreamArgs& a) {
  const ValidateScope scope(mutation::kUnitReadStream);
  check_page_size(a.page_size);
  check_mat(a.table, "table");
  check_required(a.indptr, "indptr");
  const std::int64_t b = a.indptr.size - 1;
  rule_require_size(a.table.rows >= b, "table", a.table.rows, needs_at_least(b, "rows"));
  check_optional(a.kv_start_idx, "kv_start_idx", b);
  check_vec(a.stream, "stream");
  check_disjoint(a.stream, a.table, "stream", "table");
  check_disjoint(a.stream, a.indptr, "stream", "indptr");
}

// ---- §4.5 --------------------------------------------------------------------------------------
void validate_args(const DecodeMetadataArgs& a) {
  const ValidateScope scope(mutation::unit_of(Route::decode_metadata));
  require_variant(Route::decode_metadata, a.variant);
  check_page_size(a.page_size);
  rule_require(std::has_single_bit(static_cast<std::uint64_t>(a.page_size)), "page_size", a.page_size,
          "the fa3 metadata kernels require a power-of-two page size");
  check_multiplier(a.multiplier);
  check_stride(a.page_size, a.multiplier);
  check_nonneg(a.max_seq_pages, "max_seq_pages", "max_seq_pages must be >= 0");
  check_vec(a.seq_lens, "seq_lens");
  const std::int64_t b = a.seq_lens.size;
  check_at_least(a.cache_seqlens, "cache_seqlens", b);
  check_at_least(a.cu_seqlens_k, "cu_seqlens_k", b + 1);
  check_disjoint(a.cache_seqlens, a.cu_seqlens_k, "cache_seqlens", "cu_seqlens_k");
  // Every output apart from every input: rows are written before later rows' inputs are read, so an output over an
  // input would change what the call reads (and an entry read after a store would escape the checks above).
  const auto apart_from_inputs = [&a](const auto& out, std::string_view name) {
    check_disjoint(out, a.seq_lens, name, "seq_lens");
    check_disjoint(out, a.req_to_token, name, "req_to_token");
    check_disjoint(out, a.req_pool_indices, name, "req_pool_indices");
    check_disjoint(out, a.v2p, name, "v2p");
    check_disjoint(out, a.kernel_page_table, name, "kernel_page_table");
    check_disjoint(out, a.swa_v2p, name, "swa_v2p");
    check_disjoint(out, a.full_to_swa_index_mapping, name, "full_to_swa_index_mapping");
  };
  apart_from_inputs(a.cache_seqlens, "cache_seqlens");
  apart_from_inputs(a.cu_seqlens_k, "cu_seqlens_k");
  check_vec(a.v2p, "v2p");
  check_mat(a.kernel_page_table, "kernel_page_table");
  check_vec(a.swa_v2p, "swa_v2p");
  check_vec(a.full_to_swa_index_mapping, "full_to_swa_index_mapping");
  if (!a.v2p.present()) {
    rule_require(a.multiplier == 1, "multiplier", a.multiplier, "the static kernel (v2p absent) requires multiplier 1");
  }
  const bool copy = a.kernel_page_table.present();
  const bool src_rows = a.src_is_kernel_page_table;
  const bool swa_map = a.full_to_swa_index_mapping.present();
  const bool swa = a.swa_v2p.present() || swa_map;
  if (copy) {
    rule_require(!a.v2p.present(), "kernel_page_table", a.kernel_page_table.rows,
            "src_is_kernel_page_table excludes the in-kernel v2p remap");
    if (!a.skip_page_table) check_shape_at_least(a.kernel_page_table, "kernel_page_table", b, a.max_seq_pages);
  }
  if (src_rows) {
    // Era C's call form: the canonical rows arrive as req_to_token (read at column c, not c * ps).
    rule_require(!a.v2p.present(), "src_is_kernel_page_table", 1,
                 "the canonical table is already translated: v2p must be absent");
    rule_require(!copy, "src_is_kernel_page_table", 1, "kernel_page_table is the other form of the same copy");
    rule_require(!swa, "src_is_kernel_page_table", 1,
                 "the canonical rows hold no tokens for the SWA map (swa_v2p / full_to_swa_index_mapping)");
  }
  if (swa_map) {
    rule_require(!a.swa_v2p.present(), "full_to_swa_index_mapping", a.full_to_swa_index_mapping.size,
                 "the token-level map and swa_v2p are two forms of the SWA table: give one");
  } else if (swa) {
    check_multiplier(a.swa_multiplier, "swa_multiplier");
    check_stride(a.page_size, a.swa_multiplier, "swa_multiplier");
  }
  const bool needs_req_to_token = !a.skip_page_table && (!copy || swa);
  check_mat(a.req_to_token, "req_to_token");
  if (needs_req_to_token) {
    check_at_least(a.req_pool_indices, "req_pool_indices", b);
  } else {
    check_vec(a.req_pool_indices, "req_pool_indices");
  }
  if (src_rows && !a.skip_page_table) {
    rule_require_size(a.req_to_token.cols >= a.max_seq_pages, "req_to_token", a.req_to_token.cols,
                      [&] { return "canonical rows narrower than max_seq_pages = " + s(a.max_seq_pages); });
  }
  if (!a.skip_page_table) {
    check_out_mat(a.page_table, "page_table");
    check_shape_at_least(a.page_table, "page_table", b, a.max_seq_pages);
    apart_from_inputs(a.page_table, "page_table");
    check_disjoint(a.page_table, a.cache_seqlens, "page_table", "cache_seqlens");
    check_disjoint(a.page_table, a.cu_seqlens_k, "page_table", "cu_seqlens_k");
    if (swa) {
      check_out_mat(a.swa_page_table, "swa_page_table");
      check_shape_at_least(a.swa_page_table, "swa_page_table", b, a.max_seq_pages);
      check_disjoint(a.swa_page_table, a.page_table, "swa_page_table", "page_table");
      apart_from_inputs(a.swa_page_table, "swa_page_table");
      check_disjoint(a.swa_page_table, a.cache_seqlens, "swa_page_table", "cache_seqlens");
      check_disjoint(a.swa_page_table, a.cu_seqlens_k, "swa_page_table", "cu_seqlens_k");
    }
  }
}

// ---- §4.6 --------------------------------------------------------------------------------------
void validate_args(const EagerFunnelArgs& a) {
  const ValidateScope scope(mutation::unit_of(Route::eager_funnel));
  require_variant(Route::eager_funnel, a.variant);
  check_page_size(a.page_size);
  check_multiplier(a.multiplier);
  check_stride(a.page_size, a.multiplier);
  check_mat(a.page_table, "page_table");
  check_required(a.v2p, "v2p");
  check_out_mat(a.out, "out");
  check_shape_at_least(a.out, "out", a.page_table.rows, a.page_table.cols);
  // Exact alias (same origin and strides) or disjoint.
  if (overlaps(span_of(a.out), span_of(a.page_table))) {
    const bool exact = static_cast<const void*>(a.out.data) == static_cast<const void*>(a.page_table.data) &&
                       a.out.row_stride == a.page_table.row_stride && a.out.col_stride == a.page_table.col_stride;
    if (!H::rule(exact)) throw InvalidArgument("out", "overlapping buffer", "partially overlaps page_table");
  }
  check_disjoint(a.out, a.v2p, "out", "v2p");
}

// ---- §4.7 --------------------------------------------------------------------------------------
void validate_args(const KvIndicesInplaceArgs& a) {
  const ValidateScope scope(mutation::unit_of(Route::kv_indices_inplace));
  require_variant(Route::kv_indices_inplace, a.variant);
  check_page_size(a.page_size);
  check_multiplier(a.multiplier);
  check_stride(a.page_size, a.multiplier);
  check_nonneg(a.batch_size, "batch_size", "batch_size must be >= 0");
  check_vec(a.kv_indices, "kv_indices");
  check_at_least(a.kv_indptr, "kv_indptr", checked_add(a.batch_size, 1, "batch_size"));
  check_vec(a.src, "src");
  check_required(a.v2p, "v2p");
  check_disjoint(a.kv_indices, a.kv_indptr, "kv_indices", "kv_indptr");
  check_disjoint(a.kv_indices, a.v2p, "kv_indices", "v2p");
  if (a.src.present()) check_exact_alias_or_disjoint(a.kv_indices, a.src, "src", "kv_indices");
}

// ---- §4.8 --------------------------------------------------------------------------------------
void validate_args(const WriteLocArgs& a) { validate_per_id<RouteSpec<Route::write_loc>>(a); }

// ---- §4.11, §4.13 -----------------------------------------------------------------------------
void validate_args(const FullPrefillTableArgs& a) {
  const ValidateScope scope(mutation::unit_of(Route::full_prefill_table));
  const std::int64_t b = check_page_table_args(a, Route::full_prefill_table);
  check_out_mat(a.out, "out");
  check_shape_at_least(a.out, "out", b, a.max_pages);  // capacity guard: rows >= B
  check_disjoint(a.out, a.req_to_token, "out", "req_to_token");
}

void validate_args(const EnvelopeMoveArgs& a) {
  const ValidateScope scope(mutation::kUnitEnvelopeMoves);
  check_page_size(a.page_size);
  check_vec(a.dst_tokens, "dst_tokens");
  check_vec(a.src_tokens, "src_tokens");
  rule_require(a.src_tokens.size == a.dst_tokens.size, "src_tokens", a.src_tokens.size,
          [&] { return "must have as many tokens as dst_tokens (" + s(a.dst_tokens.size) + ")"; });
  rule_require(a.dst_tokens.size % a.page_size == 0, "dst_tokens", a.dst_tokens.size,
          [&] { return "not a whole number of page runs of " + s(a.page_size) + " tokens"; });
  const std::int64_t runs = a.dst_tokens.size / a.page_size;
  check_at_least(a.dst_pages, "dst_pages", runs);
  check_at_least(a.src_pages, "src_pages", runs);
  check_disjoint(a.dst_pages, a.src_pages, "dst_pages", "src_pages");
  check_disjoint(a.dst_pages, a.dst_tokens, "dst_pages", "dst_tokens");
  check_disjoint(a.dst_pages, a.src_tokens, "dst_pages", "src_tokens");
  check_disjoint(a.src_pages, a.dst_tokens, "src_pages", "dst_tokens");
  check_disjoint(a.src_pages, a.src_tokens, "src_pages", "src_tokens");
}

