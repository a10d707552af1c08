#include "common.hpp"

namespace kvaddr::proofs {
using sym::Sym;
using sym::SymBool;

std::string_view variant_name(Variant v) {
  switch (v) {
    case Variant::production: return "production";
    case Variant::b02_rank2_index_select: return "b02_rank2_index_select";
    case Variant::b04_prefill_no_remap: return "b04_prefill_no_remap";
    case Variant::b05_rebind_fresh: return "b05_rebind_fresh";
    case Variant::b06_stale_tail: return "b06_stale_tail";
    case Variant::b09_no_padding_guard: return "b09_no_padding_guard";
    case Variant::b10_no_max_pages_bound: return "b10_no_max_pages_bound";
    case Variant::b11_swa_no_clamp: return "b11_swa_no_clamp";
    case Variant::b14_dcp_untranslated: return "b14_dcp_untranslated";
    case Variant::b16_virtual_as_physical: return "b16_virtual_as_physical";
    case Variant::b17_doc_formula: return "b17_doc_formula";
    case Variant::era_b_unclamped: return "era_b_unclamped";
    case Variant::e01_no_column_bound: return "e01_no_column_bound";
    case Variant::e02_minus_one_sentinel: return "e02_minus_one_sentinel";
    case Variant::e03_int32_offset: return "e03_int32_offset";
    case Variant::e09_floor_pages: return "e09_floor_pages";
    case Variant::e10_batch_index_rows: return "e10_batch_index_rows";
  }
  return "?";
}

std::string_view route_name(Route r) {
  switch (r) {
    case Route::token_translate: return "token_translate";
    case Route::flashmla_block_table: return "flashmla_block_table";
    case Route::canonical_page_table: return "canonical_page_table";
    case Route::read_table: return "read_table";
    case Route::decode_metadata: return "decode_metadata";
    case Route::eager_funnel: return "eager_funnel";
    case Route::kv_indices_inplace: return "kv_indices_inplace";
    case Route::write_loc: return "write_loc";
    case Route::swa_translate: return "swa_translate";
    case Route::mamba_translate: return "mamba_translate";
    case Route::full_prefill_table: return "full_prefill_table";
    case Route::dcp_read_translate: return "dcp_read_translate";
    case Route::transfer_ids: return "transfer_ids";
  }
  return "?";
}

namespace {
Sym ps_of(std::int64_t v) { return v > 0 ? Sym(v) : Sym::var("ps"); }
}  // namespace

SymPool::SymPool(std::int64_t ps_value, const std::string& table)
    : ps(ps_of(ps_value)),
      M(Sym::var("M")),
      N(Sym::var("num_pages")),
      NV(Sym::var("num_virtual_ids")),
      v2p(table, Sym::var("num_virtual_ids") + Sym(1)) {}

SymBool SymPool::entry_ok(const Sym& idx, const Sym& v, bool pinned) const {
  SymBool ok = (v == Sym(-1)) || (v >= Sym(0) && v < N);
  if (pinned) ok = ok && sym::implies(idx == Sym(0), v == Sym(0));
  return ok && sym::implies(idx == NV, v == Sym(-1));
}

void SymPool::constrain(Query& q, bool pinned) const {
  q.require(ps >= Sym(1));
  q.require(ps <= Sym(kMaxPs));
  q.require(M >= Sym(1));
  q.require(M <= Sym(kMaxM));
  q.require(N >= Sym(1));
  q.require(NV >= Sym(1));
  q.require(N * ps * M < Sym(kTwo31));  // I8 (Era C _assert_kernel_id_bound)
  q.require(NV * ps < Sym(kTwo31));     // virtual token ids live in int32 req_to_token
  q.require(v2p.loaded_entries([this, pinned](const Sym& i, const Sym& v) { return entry_ok(i, v, pinned); }));
}

void SymPool::show(Query& q) const {
  q.show("ps", ps);
  q.show("M", M);
  q.show("num_pages", N);
  q.show("num_virtual_ids", NV);
}

SymBool admitted_token(const SymPool& p, const Sym& tok) {
  return (tok == Sym(-1)) || (tok >= Sym(0) && tok < p.NV * p.ps);
}

}  // namespace kvaddr::proofs
