// Generator of the recorded example of the inferred behaviours (example.hpp, docs/variants.md): one call per
// behaviour, each claiming production, whose "after" buffers the host routes computed under the behaviour
// named in the call (or, for an input read with another stride, on the input as the kernel read it).
#include <cstdint>
#include <string>
#include <vector>

#include "kvaddr/replay/example.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"
#include "recorder.hpp"

namespace kvaddr::replay {

using detail::I32;
using detail::I64;
using detail::json;
using detail::Recorder;

namespace {

constexpr std::int64_t kTwo31 = std::int64_t{1} << 31;
constexpr std::int32_t kStale = 999934797;

// A decode_metadata call at page size ps over one or two rows (rows 0..B-1 of req_to_token [B, cols]),
// max_seq_pages 2, a [B, 2] page table of kStale and prefix sums of 9, run under `v` by the host route.
// `swa_parent` non-empty: the SWA map is its view from lane 2 (two parent lanes before it), and the call
// records a [B, 2] swa_page_table too.
void add_decode_call(Recorder& rec, const std::string& tag, const std::string& name, std::int64_t ps, const I64& lens,
                     const I32& r2t, std::int64_t cols, const I64& v2p, Variant v, const I64& swa_parent = {}) {
  const auto b = static_cast<std::int64_t>(lens.size());
  I64 rows;
  for (std::int64_t i = 0; i < b; ++i) rows.push_back(i);
  const I32 cache_b(static_cast<std::size_t>(b), 9), cu_b(static_cast<std::size_t>(b + 1), 9),
      pt_b(static_cast<std::size_t>(2 * b), kStale);
  I32 cache = cache_b, cu = cu_b, pt = pt_b, swa = pt_b;
  DecodeMetadataArgs a = decode_batch(cvec(lens), cmat(r2t, b, cols), cvec(rows), 2, ps);
  a.v2p = cvec(v2p);
  a.variant = v;
  set_decode_outputs(a, mvec(cache), mvec(cu), mmat(pt, b, 2));
  json inputs = {{"seq_lens", rec.save64(tag + ".seq_lens.npy", {b}, lens)},
                 {"req_to_token", rec.save32(tag + ".req_to_token.npy", {b, cols}, r2t)},
                 {"req_pool_indices", rec.save64(tag + ".req_pool_indices.npy", {b}, rows)},
                 {"v2p", rec.save64(tag + ".v2p.npy", {static_cast<std::int64_t>(v2p.size())}, v2p)}};
  if (!swa_parent.empty()) {
    const auto n = static_cast<std::int64_t>(swa_parent.size());
    a.swa_v2p = {swa_parent.data() + 2, n - 2, 2, 0};
    a.swa_page_table = mmat(swa, b, 2);
    inputs["swa_v2p"] = {{"file", rec.save64(tag + ".swa_v2p_parent.npy", {n}, swa_parent)}, {"offset", 2}, {"size", n - 2}};
  }
  translate::decode_metadata(a);
  json outputs = {{"cache_seqlens", rec.out(tag, "cache_seqlens", {b}, cache_b, cache)},
                  {"cu_seqlens_k", rec.out(tag, "cu_seqlens_k", {b + 1}, cu_b, cu)},
                  {"page_table", rec.out(tag, "page_table", {b, 2}, pt_b, pt)}};
  if (!swa_parent.empty()) outputs["swa_page_table"] = rec.out(tag, "swa_page_table", {b, 2}, pt_b, swa);
  rec.add({{"name", name},
           {"route", "decode_metadata"},
           {"scalars", {{"page_size", ps}, {"max_seq_pages", 2}}},
           {"inputs", inputs},
           {"outputs", outputs}});
}

// A token_translate call at ps 1 over v2p = {10, 11, 12, 13}: the ids entry as recorded (`ids`), the
// kernel run by the host route on the ids it actually read (`read`).
void add_ids_call(Recorder& rec, const std::string& tag, const std::string& name, const json& ids, const I64& read) {
  const I64 v2p = {10, 11, 12, 13};
  const I64 before(read.size(), 0);
  I64 after = before;
  translate::token_translate<std::int64_t>({cvec(read), cvec(v2p), 1, 1, mvec(after)});
  rec.add({{"name", name},
           {"route", "token_translate"},
           {"scalars", {{"page_size", 1}}},
           {"inputs", {{"ids", ids}, {"v2p", rec.save64(tag + ".v2p.npy", {4}, v2p)}}},
           {"outputs", {{"out", rec.out(tag, "out", {static_cast<std::int64_t>(read.size())}, before, after)}}}});
}

}  // namespace

void write_inferred_example(const std::filesystem::path& dir) {
  Recorder rec(dir);
  const I64 v2p = {10, 11, 12, 13, 14, 15, 16, 17};  // ps 1: page t -> 10 + t
  // 1. grid_spill@2: canonical_page_table, max_pages 1, rows of 1 and 5 pages; a [2, 1] table with 3 guard
  //    lanes after it (before: -1 in the view, -7 in the guard). The host route runs on the whole 5 lanes.
  {
    const I32 r2t = {0, 1, 2, 3, 4, 3, 4, 5, 6, 7};
    const I64 rows = {0, 1}, lens = {1, 5};
    const I32 before = {-1, -1, -7, -7, -7};
    I32 after = before;
    translate::canonical_page_table(
        {cmat(r2t, 2, 5), cvec(rows), cvec(lens), cvec(v2p), 1, 1, 1, mmat(after, 5, 1), parse_variant("grid_spill@2")});
    json out = rec.out("i1", "out", {5}, before, after);
    out["offset"] = 0;
    out["size"] = 2;
    out["shape"] = {2, 1};
    rec.add({{"name", "grid_spill@2: the last row spills past max_pages = 1 into the guard, up to column 2"},
             {"route", "canonical_page_table"},
             {"scalars", {{"page_size", 1}, {"max_pages", 1}}},
             {"inputs",
              {{"req_to_token", rec.save32("i1.req_to_token.npy", {2, 5}, r2t)},
               {"req_pool_indices", rec.save64("i1.req_pool_indices.npy", {2}, rows)},
               {"seq_lens", rec.save64("i1.seq_lens.npy", {2}, lens)},
               {"v2p", rec.save64("i1.v2p.npy", {8}, v2p)}}},
             {"outputs", {{"out", out}}}});
  }
  // 2. era_d_read_table: ps 1, lens {3, 0}: row 0's column 2 lands at page_table[1, 0].
  add_decode_call(rec, "i2", "era_d_read_table: the Era D page table spills past max_seq_pages into the next row", 1,
                  {3, 0}, {0, 1, 2, 3, 0, 0, 0, 0}, 4, v2p, Variant::era_d_read_table);
  // 3. int32_lengths: seq_len 2^31 - 1 at ps 2: the int32 page count wraps, the row stays stale.
  add_decode_call(rec, "i3", "int32_lengths: seq_len 2^31 - 1 at ps 2 writes no column", 2, {kTwo31 - 1},
                  {0, 1, 2, 3}, 4, v2p, Variant::int32_lengths);
  // 4. full_width_page_table: ps 2, len 2: column 1 written past the live prefix.
  add_decode_call(rec, "i4", "full_width_page_table: every column below max_seq_pages written", 2, {2}, {0, 1, 2, 3},
                  4, v2p, Variant::full_width_page_table);
  // 5. swa_no_padding_guard: ps 16, tokens -17 and -1 at the page starts; the SWA map's parent holds 100, 200
  //    before it: the unguarded gather stores swa_v2p[-2] = 100 and swa_v2p[-1] = 200.
  {
    I32 r2t(32, 0);
    r2t[0] = -17;
    r2t[16] = -1;
    add_decode_call(rec, "i5", "swa_no_padding_guard: padding reads the SWA map at -2 and -1", 16, {32}, r2t, 32,
                    {0, 5, 7, -1}, Variant::swa_no_padding_guard, {100, 200, 0, 5, 7, -1});
  }
  // 6. stride_ignored(ids): ids recorded as every third element of {0, 1, 2, 3, 0, 1}; the kernel read {0, 1}.
  const std::string parent = rec.save64("i6.ids_parent.npy", {6}, {0, 1, 2, 3, 0, 1});
  add_ids_call(rec, "i6", "stride_ignored(ids): ids presented with stride 3, read packed",
               {{"file", parent}, {"offset", 0}, {"shape", {2}}, {"strides", {3}}}, {0, 1});
  // 7. stride0(ids): ids {2, 3} recorded packed; the kernel read ids[0] in every lane.
  add_ids_call(rec, "i7", "stride0(ids): every lane read the first id", rec.save64("i7.ids.npy", {2}, {2, 3}), {2, 2});
  rec.finish(
      "Recorded example of the inferred behaviours (issue 33, docs/variants.md), made by kvaddr's host routes "
      "(replay/src/example_inferred.cpp): one call per behaviour, each claiming production; `kvaddr replay` names "
      "or infers each, and claimed as named each is equal.");
}

}  // namespace kvaddr::replay
