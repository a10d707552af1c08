// Token-granular host routes (spec §4.1, §4.7-§4.9, §4.13 move_kv_cache; token_translate,
// swa_translate and write_loc are entry points over the per-id runner of routes_per_id.ipp, which runs mamba_translate,
// dcp_read_translate and transfer_ids directly): one lane per id, every lane reads its input before
// writing its output, so exact aliasing of out and ids is safe.
// Included by routes_plain.cpp (hooks policy NoHooks) and by mutation/hooked.cpp
// (MutationHooks) inside namespace kvaddr::translate::detail::<policy namespace>, after
// validate_body.ipp; H, CI and TableGather are that namespace's policy types.

// The per-id runner (routes_per_id.ipp, included after this file).
template <class Spec, class A>
void run_per_id(const A& a);

// §4.1: out[i] = t < 0 ? 0 : max(v2p[t / ps] * ps * M + t % ps, 0) for i < ids.size; out's tail
// past ids.size is untouched. The spec's Lane on the per-id runner.
template <class Out>
void token_translate(const TokenTranslateArgs<Out>& a) {
  run_per_id<RouteSpec<Route::token_translate>>(a);
}

// §4.9: token_translate over swa_v2p with S_swa = ps * M_swa (B11: no clamp). The spec's Lane on
// the per-id runner.
template <class Out>
void swa_translate(const SwaTranslateArgs<Out>& a) {
  run_per_id<RouteSpec<Route::swa_translate>>(a);
}

// §4.7: n = kv_indptr[batch_size]; kv_indices[:n] <- int32(d(src[:n])) in place; tail untouched.
// B05 computes the same values into a fresh buffer and leaves kv_indices as it was.
void kv_indices_inplace(const KvIndicesInplaceArgs& a) {
  validate_args(a);
  const detail::Rollback rollback(a.kv_indices);
  [[maybe_unused]] const H::Scope scope(mutation::unit_of(Route::kv_indices_inplace));
  const std::int64_t n = read_vec(a.kv_indptr, a.batch_size, "kv_indptr");
  if (!H::rule(n >= 0)) {
    throw OutOfRange("kv_indptr", std::to_string(n), "kv_indptr[batch_size] is negative");
  }
  require_size(H::rule(n <= a.kv_indices.size), "kv_indices", a.kv_indices.size,
               "shorter than kv_indptr[batch_size] = " + std::to_string(n));
  const Vec<const std::int32_t> src = a.src.present() ? a.src : Vec<const std::int32_t>{a.kv_indices.data, a.kv_indices.size};
  if (a.src.present()) {
    require_size(H::rule(n <= a.src.size), "src", a.src.size,
                 "shorter than kv_indptr[batch_size] = " + std::to_string(n));
  }
  const TableGather g{a.v2p, "v2p"};
  const CI ps(a.page_size);
  const CI stride(H::alt(mutation::Site::stride, a.page_size * a.multiplier, a.page_size));
  std::vector<std::int32_t> fresh;
  std::int32_t* dst = a.kv_indices.data;
  std::int64_t dst_size = a.kv_indices.size;
  if (RouteSpec<Route::kv_indices_inplace>::rebinds_fresh(a.variant)) {
    fresh.resize(static_cast<std::size_t>(n));
    dst = fresh.data();
    dst_size = n;
  }
  rename_lane_overflow("kv_indices", [&] {
    for (std::int64_t i = 0; i < n; ++i) {
      H::lane(0);
      const CI t(read_vec(src, i, "src"));
      const CI d = lanes::token_translate_lane(t, g, ps, stride, Variant::production);
      put<H>(dst, dst_size, i, "kv_indices") = narrow_out<std::int32_t>(d, "kv_indices");
    }
  });
  // B05: `fresh` is dropped here; the bound buffer still holds virtual ids.
}

// §4.8: out[i] = keep(loc[i]) ? d(loc[i] / dcp_size) : 0 for i < N; out[N, out.size) = 0
// (B06: that tail is left stale; E02: filled with -1; E03: int32 id arithmetic in the lane). The
// spec's Lane and tail rule on the per-id runner.
void write_loc(const WriteLocArgs& a) { run_per_id<RouteSpec<Route::write_loc>>(a); }

// §4.13 move_kv_cache: run r covers tokens [r*ps, (r+1)*ps) of dst_tokens / src_tokens, which must
// be a page-aligned ascending run of physical tokens; its page is first / ps.
void envelope_moves(const EnvelopeMoveArgs& a) {
  validate_args(a);
  const detail::Rollback rollback(a.dst_pages, a.src_pages);
  [[maybe_unused]] const H::Scope scope(mutation::kUnitEnvelopeMoves);
  const std::int64_t ps = a.page_size;
  const std::int64_t runs = a.dst_tokens.size / ps;
  auto check_run = [ps](const Vec<const std::int64_t>& tok, std::int64_t r, const char* name) {
    const std::int64_t first = tok.data[r * ps];
    if (first < 0 || first % ps != 0) {
      throw InvalidArgument(name, std::to_string(first),
                            "run " + std::to_string(r) + " does not start at a page boundary");
    }
    for (std::int64_t k = 1; k < ps; ++k) {
      const std::int64_t want = checked_add(first, k, name);
      if (tok.data[r * ps + k] != want) {
        throw InvalidArgument(name, std::to_string(tok.data[r * ps + k]),
                              "run " + std::to_string(r) + " is not a page-major run (expected " +
                                  std::to_string(want) + ")");
      }
    }
  };
  for (std::int64_t r = 0; r < runs; ++r) {
    check_run(a.dst_tokens, r, "dst_tokens");
    check_run(a.src_tokens, r, "src_tokens");
  }
  for (std::int64_t r = 0; r < runs; ++r) {
    H::lane(0);
    const std::int64_t d = lanes::run_page_lane(CI(a.dst_tokens.data[r * ps]), CI(ps)).get();
    const std::int64_t s = lanes::run_page_lane(CI(a.src_tokens.data[r * ps]), CI(ps)).get();
    put<H>(a.dst_pages, r, "dst_pages") = d;
    put<H>(a.src_pages, r, "src_pages") = s;
  }
}

