// Generator of the recorded example (see example.hpp and docs/replay.md). Every "after" buffer
// is computed by the host routes of translate/ on the "before" buffer, under the variant named
// in the comment of each call.
#include "kvaddr/replay/example.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"
#include "recorder.hpp"

namespace kvaddr::replay {

using detail::add_id_call;
using detail::add_table_call;
using detail::I32;
using detail::I64;
using detail::json;
using detail::Recorder;

namespace {
constexpr const char* kExampleDescription =
    "Recorded example made by kvaddr's host routes (replay/src/example.cpp). Pool: page_size 2, "
    "v2p = [0, 4, 1, -1, 2, 5, -1] (virtual page 3 is a tombstone, the last row is the sentinel).";
}  // namespace

void write_example(const std::filesystem::path& dir) {
  Recorder rec(dir);
  // The pool: ps = 2; virtual pages 0..5 plus the trailing sentinel row; page 3 is a tombstone.
  const I64 v2p = {0, 4, 1, -1, 2, 5, -1};
  // req_to_token, 3 pool rows x 8 columns (virtual token ids, -1 padding).
  const I32 r2t = {2, 3, 8, 9, 4, 5, -1, -1,    //
                   6, 7, 0, 1, 10, 11, -1, -1,  //
                   -1, -1, -1, -1, -1, -1, -1, -1};
  const I64 r2t_shape = {3, 8};
  const std::string v2p_file = rec.save64("pool.v2p.npy", {7}, v2p);
  const std::string r2t_file = rec.save32("pool.req_to_token.npy", r2t_shape, r2t);
  const auto R = cmat(r2t, 3, 8);
  const I64 rows = {1, 0};  // permuted pool rows
  const std::string rows_file = rec.save64("batch.req_pool_indices.npy", {2}, rows);
  const I64 seq = {5, 7};
  const std::string seq_file = rec.save64("batch.seq_lens.npy", {2}, seq);

  // The inputs of a table route: req_to_token, the batch's pool rows and lengths (named `lens`), and v2p.
  const auto batch_inputs = [&](const char* lens) {
    return json{{"req_to_token", r2t_file}, {"req_pool_indices", rows_file}, {lens, seq_file}, {"v2p", v2p_file}};
  };

  // 1. token_translate (kernel-facing, M = 3), int64 out: every lane written.
  add_id_call(rec,
              {{"name", "translate_kv_loc_for_kernel, M = 3"}, {"route", "token_translate"}, {"era", "C"},
               {"scalars", {{"page_size", 2}, {"multiplier", 3}}}},
              "c01", "ids", {7}, {5, 9, -1, 2, 7, 0, 11}, "v2p", v2p_file, I64(7, 0),
              [&](auto ids, auto out) { translate::token_translate<std::int64_t>({ids, cvec(v2p), 2, 3, out}); });
  // 2. token_translate, rank-2 ids, int32 out (translate_v2p narrowing on write), M = 1.
  add_id_call(rec,
              {{"name", "translate_v2p into an int32 buffer, rank-2 ids"}, {"route", "token_translate"},
               {"scalars", {{"page_size", 2}, {"multiplier", 1}}}},
              "c02", "ids", {2, 3}, {0, 1, 2, 3, 10, 11}, "v2p", v2p_file, I32(6, 7),
              [&](auto ids, auto out) { translate::token_translate<std::int32_t>({ids, cvec(v2p), 2, 1, out}); });
  // 3. flashmla_block_table, Era B (clamp_entries = false claimed): kv_indices prefilled with -1.
  add_table_call(rec,
                 {{"name", "Era B flashmla block table (unclamped, as upstream)"}, {"route", "flashmla_block_table"},
                  {"era", "B"}, {"flags", {{"clamp_entries", false}}},
                  {"scalars", {{"page_size", 2}, {"multiplier", 3}}}, {"inputs", batch_inputs("page_kernel_lens")}},
                 "c03", "kv_indices", 2, 4, -1, [&](auto out) {
                   translate::flashmla_block_table(
                       {R, cvec(rows), cvec(seq), {}, cvec(v2p), 2, 3, out, Variant::era_b_unclamped});
                 });
  // 4. The same recording, but claiming production: the tombstone lane carries -M, so the report
  //    must say it differs and matches era_b_unclamped.
  add_table_call(rec,
                 {{"name", "DELIBERATE: unclamped flashmla table recorded as production"},
                  {"route", "flashmla_block_table"}, {"variant", "production"},
                  {"scalars", {{"page_size", 2}, {"multiplier", 3}}}, {"inputs", batch_inputs("page_kernel_lens")}},
                 "c04", "kv_indices", 2, 4, -1, [&](auto out) {
                   translate::flashmla_block_table(
                       {R, cvec(rows), cvec(seq), {}, cvec(v2p), 2, 3, out, Variant::era_b_unclamped});
                 });
  // 5. canonical_page_table (Era C), prefix-only over a stale buffer.
  add_table_call(rec,
                 {{"name", "build_kernel_page_table, prefix-only"}, {"route", "canonical_page_table"}, {"era", "C"},
                  {"scalars", {{"page_size", 2}, {"multiplier", 3}, {"max_pages", 4}}},
                  {"inputs", batch_inputs("seq_lens")}},
                 "c05", "out", 2, 4, 99, [&](auto out) {
                   translate::canonical_page_table({R, cvec(rows), cvec(seq), cvec(v2p), 2, 3, 4, out});
                 });
  // 6. read_table, Era D (M = 1), zero tail, one padded graph row.
  add_table_call(rec,
                 {{"name", "KVIndexTranslator read table, zero tail"}, {"route", "read_table"}, {"era", "D"},
                  {"flags", {{"tail_policy", "zero_tail"}}},
                  {"scalars", {{"page_size", 2}, {"multiplier", 1}, {"max_pages", 4}, {"seq_len_delta", 0}}},
                  {"inputs", batch_inputs("seq_lens")}},
                 "c06", "out", 3, 4, 55, [&](auto out) {
                   translate::read_table({R, cvec(rows), cvec(seq), 0, 4, cvec(v2p), 2, 1, out, true});
                 });
  // 7. DELIBERATE B10: verify widening (delta 1) pushes n_pages (3 and 4) past max_pages = 2; the
  //    recorded kernel bounded columns by n_pages only and spilled into the next row / guard row.
  add_table_call(rec,
                 {{"name", "DELIBERATE: read table that spilled past max_pages (B10) recorded as production"},
                  {"route", "read_table"}, {"era", "C"}, {"variant", "production"},
                  {"scalars", {{"page_size", 2}, {"multiplier", 3}, {"max_pages", 2}, {"seq_len_delta", 1}}},
                  {"inputs", batch_inputs("seq_lens")}},
                 "c07", "out", 3, 2, 77, [&](auto out) {
                   translate::read_table(
                       {R, cvec(rows), cvec(seq), 1, 2, cvec(v2p), 2, 3, out, false, Variant::b10_no_max_pages_bound});
                 });
  // 8. decode_metadata, Era B remap in the fused fa3 kernel, delta 1.
  {
    I32 cs_b(3, -5), cu_b(4, -5), pt_b(2 * 5, 33);
    I32 cs = cs_b, cu = cu_b, pt = pt_b;
    DecodeMetadataArgs a = decode_batch(cvec(seq), R, cvec(rows), 4, 2);
    a.seq_len_delta = 1;
    a.v2p = cvec(v2p);
    a.multiplier = 3;
    set_decode_outputs(a, mvec(cs), mvec(cu), mmat(pt, 2, 5));
    translate::decode_metadata(a);
    rec.add({{"name", "fa3 normal_decode_set_metadata, Era B remap"},
             {"route", "decode_metadata"},
             {"era", "B"},
             {"scalars", {{"page_size", 2}, {"multiplier", 3}, {"max_seq_pages", 4}, {"seq_len_delta", 1}}},
             {"inputs", {{"seq_lens", seq_file}, {"req_to_token", r2t_file}, {"req_pool_indices", rows_file},
                         {"v2p", v2p_file}}},
             {"outputs", {{"cache_seqlens", rec.out("c08", "cache_seqlens", {3}, cs_b, cs)},
                          {"cu_seqlens_k", rec.out("c08", "cu_seqlens_k", {4}, cu_b, cu)},
                          {"page_table", rec.out("c08", "page_table", {2, 5}, pt_b, pt)}}}});
  }
  // 9. eager_funnel (fa3 Era B eager path): page-start tokens -> v2p[p] * M, 0 for tombstones.
  {
    const I64 table = {2, 8, 4, -1, 6, 0, 10, -1};
    I64 before(8, 0), after = before;
    translate::eager_funnel({cmat(table, 2, 4), cvec(v2p), 2, 3, mmat(after, 2, 4)});
    rec.add({{"name", "fa3 eager funnel"},
             {"route", "eager_funnel"},
             {"era", "B"},
             {"scalars", {{"page_size", 2}, {"multiplier", 3}}},
             {"inputs", {{"page_table", rec.save64("c09.page_table.npy", {2, 4}, table)}, {"v2p", v2p_file}}},
             {"outputs", {{"out", rec.out("c09", "out", {2, 4}, before, after)}}}});
  }
  // 10. kv_indices_inplace (flashinfer_mla updater): n = kv_indptr[2] = 5 lanes translated, stale
  //     tail (2^30) untouched.
  {
    const I32 indptr = {0, 3, 5};
    I32 before = {2, 3, 8, 6, 7, 1 << 30, 1 << 30, 1 << 30}, after = before;
    translate::kv_indices_inplace({mvec(after), cvec(indptr), 2, {}, cvec(v2p), 2, 3});
    rec.add({{"name", "flashinfer_mla kv_indices translated in place"},
             {"route", "kv_indices_inplace"},
             {"era", "B"},
             {"scalars", {{"page_size", 2}, {"multiplier", 3}, {"batch_size", 2}}},
             {"inputs", {{"kv_indptr", rec.save32("c10.kv_indptr.npy", {3}, indptr)}, {"v2p", v2p_file}}},
             {"outputs", {{"kv_indices", rec.out("c10", "kv_indices", {8}, before, after)}}}});
  }
  // 11. write_loc under DCP 2 (rank 1), out_width 8 > N = 5: stale capture tail zeroed.
  add_id_call(rec,
              {{"name", "write_loc_to_kernel_ids, DCP rank 1 of 2, zeroed tail"}, {"route", "write_loc"}, {"era", "C"},
               {"scalars", {{"page_size", 2}, {"multiplier", 3}, {"dcp_size", 2}, {"dcp_rank", 1}, {"out_width", 8}}}},
              "c11", "loc", {5}, {0, 5, 9, 4, 21}, "v2p", v2p_file, I64(8, 123),
              [&](auto loc, auto out) { translate::write_loc({loc, cvec(v2p), 2, 3, 2, 1, out}); });
  // 12. swa_translate: SWA table with its own tombstones, M_swa = 2, int64 out.
  const I64 swa_v2p = {0, -1, 3, -1, 1, 2, -1};
  add_id_call(rec,
              {{"name", "translate_loc_from_full_to_swa"}, {"route", "swa_translate"}, {"era", "C"},
               {"scalars", {{"page_size", 2}, {"swa_multiplier", 2}}}},
              "c12", "ids", {7}, {2, 3, 4, 8, 9, -1, 10}, "swa_v2p", rec.save64("c12.swa_v2p.npy", {7}, swa_v2p),
              I64(7, -9),
              [&](auto ids, auto out) { translate::swa_translate<std::int64_t>({ids, cvec(swa_v2p), 2, 2, out}); });
  // 13. mamba_translate: raw gather, int32.
  const I64 mamba_v2p = {0, 3, 1, 2, -1};
  add_id_call(rec, {{"name", "translate_mamba_indices"}, {"route", "mamba_translate"}}, "c13", "slots", {4},
              {1, 2, 3, 0}, "v2p", rec.save64("c13.v2p.npy", {5}, mamba_v2p), I32(4, 0),
              [&](auto slots, auto out) { translate::mamba_translate({slots, cvec(mamba_v2p), false, out}); });
  // 14. full_prefill_table (#37418), capture-stable buffer with stale values.
  add_table_call(rec,
                 {{"name", "fa3 FULL prefill graph table rebuilt from the live v2p"}, {"route", "full_prefill_table"},
                  {"era", "C"}, {"scalars", {{"page_size", 2}, {"multiplier", 3}, {"max_pages", 4}}},
                  {"inputs", batch_inputs("seq_lens")}},
                 "c14", "out", 3, 4, 44, [&](auto out) {
                   translate::full_prefill_table({R, cvec(rows), cvec(seq), cvec(v2p), 2, 3, 4, out});
                 });
  // 15. dcp_read_translate: ids collapsed by dcp_size 2, then translate_kv_loc (physical).
  add_id_call(rec,
              {{"name", "translate_dcp_read_ids, dcp_size 2"}, {"route", "dcp_read_translate"}, {"era", "D"},
               {"scalars", {{"page_size", 2}, {"multiplier", 1}, {"dcp_size", 2}}}},
              "c15", "ids", {6}, {4, 5, 18, 19, -1, 13}, "v2p", v2p_file, I64(6, 0),
              [&](auto ids, auto out) { translate::dcp_read_translate({ids, cvec(v2p), 2, 1, 2, out}); });
  // 16. transfer_ids: virtual -> physical ids for PD envelope transfer.
  add_id_call(rec,
              {{"name", "translate_kv_indices_for_transfer"}, {"route", "transfer_ids"},
               {"scalars", {{"page_size", 2}}}},
              "c16", "ids", {5}, {2, 3, 8, 9, 10}, "v2p", v2p_file, I64(5, 0),
              [&](auto ids, auto out) { translate::transfer_ids({ids, cvec(v2p), 2, out}); });
  rec.finish(kExampleDescription);
}

namespace {

// Records one decode_metadata call: `call` holds its name, variant and scalars, `inputs` its input entries;
// the outputs (cache_seqlens [B], cu_seqlens_k [B + 1] prefilled with -5, page_table and, with `swa`,
// swa_page_table [B, cols] prefilled with 33) are what run(args) writes after `set(args)` filled the rest.
template <class Set>
void add_decode_call(Recorder& rec, json call, const std::string& tag, json inputs, const I64& seq, std::int64_t cols,
                     bool swa, Set set) {
  const auto b = static_cast<std::int64_t>(seq.size());
  I32 cs_b(seq.size(), -5), cu_b(seq.size() + 1, -5), pt_b(static_cast<std::size_t>(b * cols), 33), swa_b = pt_b;
  I32 cs = cs_b, cu = cu_b, pt = pt_b, sw = swa_b;
  DecodeMetadataArgs a;
  a.seq_lens = cvec(seq);
  set_decode_outputs(a, mvec(cs), mvec(cu), mmat(pt, b, cols));
  if (swa) a.swa_page_table = mmat(sw, b, cols);
  set(a);
  translate::decode_metadata(a);
  json outs = {{"cache_seqlens", rec.out(tag, "cache_seqlens", {b}, cs_b, cs)},
               {"cu_seqlens_k", rec.out(tag, "cu_seqlens_k", {b + 1}, cu_b, cu)},
               {"page_table", rec.out(tag, "page_table", {b, cols}, pt_b, pt)}};
  if (swa) outs["swa_page_table"] = rec.out(tag, "swa_page_table", {b, cols}, swa_b, sw);
  call["route"] = "decode_metadata";
  call["inputs"] = std::move(inputs);
  call["outputs"] = std::move(outs);
  rec.add(std::move(call));
}

}  // namespace

void write_modes_example(const std::filesystem::path& dir) {
  Recorder rec(dir);
  // The pool of write_example without its v2p (a static pool: identity translation, multiplier 1).
  const I32 r2t = {2, 3, 8, 9, 4, 5, -1, -1,    //
                   6, 7, 0, 1, 10, 11, -1, -1,  //
                   -1, -1, -1, -1, -1, -1, -1, -1};
  const std::string r2t_file = rec.save32("pool.req_to_token.npy", {3, 8}, r2t);
  const auto R = cmat(r2t, 3, 8);
  const I64 rows = {1, 0}, seq = {5, 7};
  const std::string rows_file = rec.save64("batch.req_pool_indices.npy", {2}, rows);
  // int32 lengths, as engines keep them (the route widens them).
  const std::string seq_file = rec.save32("batch.seq_lens.npy", {2}, I32{5, 7});
  const auto batch_inputs = [&](const char* lens) {
    return json{{"req_to_token", r2t_file}, {"req_pool_indices", rows_file}, {lens, seq_file}};
  };
  // Canonical kernel page-table rows (the canonical-source mode copies their live prefixes).
  const I32 canonical = {10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33};
  const std::string canonical_file = rec.save32("pool.canonical_rows.npy", {3, 4}, canonical);
  // The token-level full -> SWA slot map (0 = unmapped) as a slice of a parent with one element before it,
  // the memory a gather without the padding guard reads for token -1.
  const I64 map_parent = {40, 0, 0, 14, 15, 6, 7, 0, 0, 2, 3, 8, 9};
  const I64 map(map_parent.begin() + 1, map_parent.end());
  const json map_entry = {{"file", rec.save64("pool.full_to_swa.parent.npy", {13}, map_parent)}, {"offset", 1}, {"size", 12}};
  const Vec<const std::int64_t> map_view{map_parent.data() + 1, 12, 1, 0};

  // 1-4. Every table route on the static pool (no v2p: entry tok / ps).
  add_table_call(rec,
                 {{"name", "static flashmla block table (v2p_ptr None)"}, {"route", "flashmla_block_table"},
                  {"scalars", {{"page_size", 2}}}, {"inputs", batch_inputs("page_kernel_lens")}},
                 "m01", "kv_indices", 2, 4, -1,
                 [&](auto out) { translate::flashmla_block_table({R, cvec(rows), cvec(seq), {}, {}, 2, 1, out}); });
  add_table_call(rec,
                 {{"name", "static build_kernel_page_table"}, {"route", "canonical_page_table"},
                  {"scalars", {{"page_size", 2}, {"max_pages", 4}}}, {"inputs", batch_inputs("seq_lens")}},
                 "m02", "out", 2, 4, 99,
                 [&](auto out) { translate::canonical_page_table({R, cvec(rows), cvec(seq), {}, 2, 1, 4, out}); });
  add_table_call(rec,
                 {{"name", "static build_kv_read_table, zero tail"}, {"route", "read_table"},
                  {"scalars", {{"page_size", 2}, {"max_pages", 4}, {"zero_tail", true}}},
                  {"inputs", batch_inputs("seq_lens")}},
                 "m03", "out", 3, 4, 55,
                 [&](auto out) { translate::read_table({R, cvec(rows), cvec(seq), 0, 4, {}, 2, 1, out, true}); });
  add_table_call(rec,
                 {{"name", "static full prefill table"}, {"route", "full_prefill_table"},
                  {"scalars", {{"page_size", 2}, {"max_pages", 4}}}, {"inputs", batch_inputs("seq_lens")}},
                 "m04", "out", 2, 4, 44,
                 [&](auto out) { translate::full_prefill_table({R, cvec(rows), cvec(seq), {}, 2, 1, 4, out}); });
  // 5-7. decode_metadata: the static call (tok >> log2 ps), the canonical-source mode, the token-level SWA map.
  const json dense_inputs = {{"seq_lens", seq_file}, {"req_to_token", r2t_file}, {"req_pool_indices", rows_file}};
  const auto statik = [&](DecodeMetadataArgs& a) {
    a.req_to_token = R;
    a.req_pool_indices = cvec(rows);
    a.max_seq_pages = 4;
    a.page_size = 2;
  };
  add_decode_call(rec, {{"name", "static normal_decode_set_metadata"}, {"scalars", {{"page_size", 2}, {"max_seq_pages", 4}}}},
                  "m05", dense_inputs, seq, 5, false, statik);
  const json src_inputs = {{"seq_lens", seq_file}, {"req_to_token", canonical_file}, {"req_pool_indices", rows_file}};
  const json src_scalars = {{"page_size", 2}, {"max_seq_pages", 4}, {"src_is_kernel_page_table", true}};
  const auto src = [&](Variant v) {
    return [&canonical, &rows, v](DecodeMetadataArgs& a) {
      a.req_to_token = cmat(canonical, 3, 4);
      a.req_pool_indices = cvec(rows);
      a.max_seq_pages = 4;
      a.page_size = 2;
      a.src_is_kernel_page_table = true;
      a.variant = v;
    };
  };
  add_decode_call(rec, {{"name", "normal_decode_set_metadata(src_is_kernel_page_table=True)"}, {"scalars", src_scalars}},
                  "m06", src_inputs, seq, 4, false, src(Variant{}));
  json map_inputs = dense_inputs;
  map_inputs["full_to_swa_index_mapping"] = map_entry;
  const auto token_map = [&](Variant v) {
    return [&, v](DecodeMetadataArgs& a) {
      statik(a);
      a.full_to_swa_index_mapping = map_view;
      a.variant = v;
    };
  };
  add_decode_call(rec, {{"name", "normal_decode_set_metadata with the token-level full -> SWA map"},
                        {"scalars", {{"page_size", 2}, {"max_seq_pages", 4}}}},
                  "m07", map_inputs, seq, 5, true, token_map(Variant{}));
  // 8-11. DELIBERATE: a bug's output recorded as production, one per mode; replay names the bug.
  add_decode_call(rec, {{"name", "DELIBERATE: canonical source read by batch position (E10) recorded as production"},
                        {"variant", "production"}, {"scalars", src_scalars}},
                  "m08", src_inputs, seq, 4, false, src(Variant::of(Behaviour::e10_batch_index_rows)));
  add_decode_call(rec, {{"name", "DELIBERATE: SWA map gathered without the padding guard recorded as production"},
                        {"variant", "production"}, {"scalars", {{"page_size", 2}, {"max_seq_pages", 4}}}},
                  "m09", map_inputs, seq, 5, true, token_map(Variant::of(Behaviour::swa_no_padding_guard)));
  add_decode_call(rec, {{"name", "DELIBERATE: static decode table written full width recorded as production"},
                        {"variant", "production"}, {"scalars", {{"page_size", 2}, {"max_seq_pages", 4}}}},
                  "m10", dense_inputs, seq, 5, false, [&](DecodeMetadataArgs& a) {
                    statik(a);
                    a.variant = Variant::of(Behaviour::full_width_page_table);
                  });
  // A static table with one lane no variant writes (out[1, 2] = 7 instead of 2): the difference is listed.
  add_table_call(rec,
                 {{"name", "DELIBERATE: static build_kernel_page_table with a wrong lane"}, {"route", "canonical_page_table"},
                  {"scalars", {{"page_size", 2}, {"max_pages", 4}}}, {"inputs", batch_inputs("seq_lens")}},
                 "m11", "out", 2, 4, 99, [&](auto out) {
                   translate::canonical_page_table({R, cvec(rows), cvec(seq), {}, 2, 1, 4, out});
                   out.data[1 * 4 + 2] = 7;
                 });
  rec.finish("Recordings of the upstream call modes made by kvaddr's host routes (replay/src/example.cpp, "
                "write_modes_example): static pools (no v2p) on every table route and decode_metadata, the canonical-"
                "source mode (src_is_kernel_page_table) and the token-level full -> SWA map of decode_metadata. "
                "page_size 2; the calls named DELIBERATE carry a bug's output while claiming production.", 2);
}

void write_large_example(const std::filesystem::path& dir, std::int64_t rows, std::int64_t pages) {
  if (rows < 1 || rows > (1 << 20) || pages < 1 || pages > (1 << 24)) {
    throw InvalidArgument("rows / pages", std::to_string(rows) + " / " + std::to_string(pages),
                          "a large example needs 1 <= rows <= 2^20 and 1 <= pages <= 2^24");
  }
  constexpr std::int64_t kCols = 16, kLen = 20;  // 20 pages of page size 1 per row: 4 past max_pages = 16
  Recorder rec(dir);
  // A batch of rows - 1 requests: the last row of the table is a padded row, so every spill stays
  // inside the table and each spilling variant runs (and its per-row stores are split for races).
  const std::int64_t batch = std::max<std::int64_t>(rows - 1, 1);
  I64 r2t(static_cast<std::size_t>(batch * kLen)), ids(static_cast<std::size_t>(batch)), lens(ids.size(), kLen);
  I64 v2p(static_cast<std::size_t>(pages));
  for (std::size_t i = 0; i < r2t.size(); ++i) r2t[i] = static_cast<std::int64_t>(i) % pages;
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i);
  for (std::size_t i = 0; i < v2p.size(); ++i) v2p[i] = (static_cast<std::int64_t>(i) * 7) % pages;
  // The recorded table: its "before" everywhere (no variant leaves a live column untouched) and one
  // lane holding a value no variant writes there.
  I64 table(static_cast<std::size_t>(rows * kCols), -9);
  I64 after = table;
  after[0] = 77777777;
  rec.add({{"name", "large read_table: rows spill past max_pages, the recording matches no variant"},
           {"route", "read_table"},
           {"era", "D"},
           {"scalars", {{"page_size", 1}, {"multiplier", 1}, {"max_pages", kCols}}},
           {"inputs",
            {{"req_to_token", rec.save("r2t.npy", NpyDtype::int32, {batch, kLen}, r2t)},
             {"req_pool_indices", rec.save64("rows.npy", {batch}, ids)},
             {"seq_lens", rec.save64("lens.npy", {batch}, lens)},
             {"v2p", rec.save64("v2p.npy", {pages}, v2p)}}},
           {"outputs",
            {{"out",
              {{"before", rec.save("out.before.npy", NpyDtype::int32, {rows, kCols}, table)},
               {"after", rec.save("out.after.npy", NpyDtype::int32, {rows, kCols}, after)}}}}}});
  rec.finish(kExampleDescription);
}

}  // namespace kvaddr::replay
