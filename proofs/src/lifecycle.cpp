// Lifecycle obligations (issue 14): the sentinel rules of every sub-pool, the sub-pool parameter
// rules, the capture-capacity rule and the 64-bit byte-offset rules, restated from model/lifecycle
// (model/ works on concrete int64 values). Each production obligation has one refuted twin per planted
// lifecycle fault of its shape, named "<obligation>.<fault name>" (model::lifecycle::to_string(Fault)).
#include <string>
#include <vector>

#include "common.hpp"

namespace kvaddr::proofs {
namespace {

// One sub-pool of the unified pool: page size, multiplier, physical pages (page 0 = sink, reserved
// floor min_page_index >= 1) and len = N*ps*M rows per view.
struct Sub {
  std::string name;
  std::int64_t ps = 0;  // 0: symbolic in [1, 2^16]
  std::int64_t M = 0;   // 0: symbolic in [1, 4096]
};
const Sub kSubs[] = {{"full", 0, 0}, {"swa", 0, 1}, {"state", 1, 1}, {"draft", 0, 0}};

// Live ids of sub-pool s: for a bound page P in [min, N) and offset o in [0, ps), the kernel-facing id
// P*ps*M + o lies past the sink page's rows [0, ps*M) and below len(s). For the draft sub-pool the
// ids are the target's (len(full)) and len(draft) is its own (production: len(draft) = len(full)).
Outcome live_ids(const Sub& s, bool draft_half, const RunOptions& opt) {
  // ps and M are numerals per query (the products stay linear): the sub-pool's fixed value, else a sweep.
  const std::vector<std::int64_t> pss = s.ps ? std::vector<std::int64_t>{s.ps} : std::vector<std::int64_t>{1, 2, 4, 16, 64, kMaxPs};
  const std::vector<std::int64_t> ms = s.M ? std::vector<std::int64_t>{s.M} : std::vector<std::int64_t>{1, 2, 24, 61, kMaxM};
  std::vector<std::int64_t> strides;
  for (auto a : pss)
    for (auto b : ms) strides.push_back(a * kMaxM * 2 + b);  // (ps, M) packed
  return sweep(strides, [&](std::int64_t packed) {
    const std::int64_t ps = packed / (kMaxM * 2), M = packed % (kMaxM * 2);
    return check_integer(opt.timeout_ms, {"N", "P", "o"}, [&](Query& q, const auto& v) {
      const auto& [N, P, o] = v;
      const Sym mn = var("min_page_index");
      const Sym S(ps * M);
      q.header = "sub_pool=" + s.name + " ps=" + std::to_string(ps) + " M=" + std::to_string(M);
      q.require(N >= Sym(2) && mn >= Sym(1) && mn < N && P >= mn && P < N && o >= Sym(0) && o < Sym(ps));
      const Sym len = N * S;
      const Sym own_len = draft_half ? floor_div(len, Sym(2)) : len;
      const Sym id = P * S + o;
      q.show({{"id", id}, {"len", own_len}});
      q.ensure("past_sink_page", id >= S);
      q.ensure("below_len", id < own_len);
    });
  });
}

// No-location lanes (padding -1, an unmapped / slid-out column) of every sub-pool resolve to the sink
// (0), never to a negative entry or a live row. The state route maps slot < 0 to 0 (variant: len - 1);
// table entries are clamp(v2p[v]) * M with v2p entries in {-1} U [min, N) (variant: no clamp).
Outcome no_location(const Sub& s, bool last_row, bool unclamped, const RunOptions& opt) {
  z3::context ctx;
  Env env(ctx, Mode::integer);
  const Sym ps = s.ps ? Sym(s.ps) : var("ps"), M = s.M ? Sym(s.M) : var("M");
  const Sym N = var("N"), e = var("v2p_entry"), mapped = var("mapped"), slot = var("slot");
  Query q;
  q.header = "sub_pool=" + s.name;
  q.require(ps >= Sym(1) && M >= Sym(1) && M <= Sym(kMaxM) && N >= Sym(2));
  q.require(e == Sym(-1) || (e >= Sym(1) && e < N));
  q.require(mapped == Sym(0) || mapped == Sym(1));
  q.require(implies(mapped == Sym(1), e >= Sym(1)));
  const Sym len = N * ps * M;
  const Sym clamped = kv_pick(mapped == Sym(1) && e >= Sym(0), e * M, Sym(0));
  const Sym entry = unclamped ? e * M : clamped;
  const Sym pad = last_row ? len - Sym(1) : Sym(0);
  q.require(slot == Sym(-1));
  q.show({{"ps", ps}, {"M", M}, {"N", N}, {"v2p_entry", e}, {"mapped", mapped}, {"entry", entry}, {"pad", pad}});
  q.ensure("entry_not_negative", entry >= Sym(0));
  q.ensure("no_location_entry_is_sink", implies(mapped == Sym(0), entry == Sym(0)));
  q.ensure("padding_slot_is_sink", pad == Sym(0));
  return check(q, opt.timeout_ms);
}

// The free path never frees the sink: pages freed at request end are the mapped table entries
// (virtual pages >= min_page_index); the variant frees unmapped entries read as the sink.
Outcome free_path(bool sink_freed, const RunOptions& opt) {
  return check_integer(opt.timeout_ms, {"virtual_page", "mapped", "min_page_index"}, [&](Query& q, const auto& s) {
    const auto& [v, mapped, mn] = s;
    const Sym NV = var("NV");
    q.header = "route=page_lifecycle free";
    q.require(mn >= Sym(1) && NV > mn && (mapped == Sym(0) || mapped == Sym(1)));
    q.require(implies(mapped == Sym(1), v >= mn && v < NV));
    const Sym freed = kv_pick(mapped == Sym(1), v, sink_freed ? Sym(0) : Sym(-1));  // -1: nothing freed
    q.show("freed", freed);
    q.ensure("sink_never_freed", freed == Sym(-1) || freed >= mn);
  });
}

// A replicated sub-pool's route receives t itself; only dcp-sharded ones collapse loc div dcp.
Outcome replicated_route(bool rewrite_all, const RunOptions& opt) {
  return sweep({1, 2, 4, 8}, [&](std::int64_t dcp) {
    return check_integer(opt.timeout_ms, {"t"}, [&](Query& q, const auto& v) {
      const Sym& t = v[0];
      q.header = "dcp_size=" + std::to_string(dcp) + " sub_pool=state (replicated)";
      q.require(t >= Sym(0) && t < Sym(kTwo31));
      const Sym in = rewrite_all ? kv_div(t, Sym(dcp)) : t;
      q.show("route_input", in);
      q.ensure("replicated_ids_unchanged", in == t);
    });
  });
}

// Columns of sub-pool s are pos div ps(s); the variant divides by the smallest page size of all groups.
Outcome own_page_size(bool min_block, const RunOptions& opt) {
  return sweep({1, 2, 4, 8, 16}, [&](std::int64_t ps_full) {
    return check_integer(opt.timeout_ms, {"pos", "swa_ratio"}, [&](Query& q, const auto& v) {
      const auto& [pos, r] = v;
      q.header = "ps_full=" + std::to_string(ps_full);
      q.require(pos >= Sym(0) && pos < Sym(kTwo31) && r >= Sym(1) && r <= Sym(8));
      const Sym ps_swa = Sym(ps_full) * r;
      const Sym used = min_block ? Sym(ps_full) : ps_swa;  // min(ps_full, ps_swa) = ps_full
      q.ensure("column_uses_own_page_size", floor_div(pos, used) == floor_div(pos, ps_swa));
    });
  });
}

// Capture tables are as wide as a step reads: a request with seq < context_len reads seq + 1 + k tokens
// (k <= max_draft draft tokens); width = ceil((context_len + 1 + max_draft) / ps) (variant: from the
// context length only).
Outcome capture_width(bool from_context, const RunOptions& opt) {
  return sweep({1, 2, 4, 8, 16, 64}, [&](std::int64_t ps) {
    return check_integer(opt.timeout_ms, {"context_pages", "max_draft", "seq", "k"}, [&](Query& q, const auto& v) {
      const auto& [cp, kmax, seq, k] = v;
      q.header = "ps=" + std::to_string(ps);
      const Sym P(ps);
      const Sym context = cp * P;
      q.require(cp >= Sym(1) && cp <= Sym(1 << 20) && kmax >= Sym(0) && kmax <= Sym(64));
      q.require(seq >= Sym(0) && seq < context && k >= Sym(0) && k <= kmax);
      const Sym width = from_context ? floor_div(context + P - Sym(1), P) : floor_div(context + kmax + P, P);
      const Sym needed = floor_div(seq + k + P, P);  // ceil((seq + 1 + k) / ps)
      q.show({{"width", width}, {"needed", needed}});
      q.ensure("width_covers_the_step", needed <= width);
    });
  });
}

enum class OffsetForm { int64, int32, uint32, view_origin };
Outcome offsets_main(OffsetForm form, const RunOptions& opt);

// Lemma used as a hint below: a >= 0, b >= 0 => a*b >= 0 (proved here, then instantiated).
Outcome nonneg_product_lemma(const RunOptions& opt) {
  return check_integer(opt.timeout_ms, {"a", "b"}, [](Query& q, const auto& v) {
    const auto& [a, b] = v;
    q.header = "lemma=nonneg_product";
    q.require(a >= Sym(0) && b >= Sym(0));
    q.ensure("nonneg", a * b >= Sym(0));
  });
}

// Byte spans over the whole shared buffer: span(P) = [P*page_bytes, (P+1)*page_bytes) from the raw
// base, formed in 64 bits; with N*page_bytes <= 2^62 the offset is exact, inside the buffer and equal
// to P's envelope. Variants: the product narrowed to int32 / uint32, or started at a layer view's origin.
Outcome offsets(OffsetForm form, const RunOptions& opt) {
  Outcome lemma = nonneg_product_lemma(opt);
  if (lemma.verdict != Verdict::proved) return lemma;
  Outcome main = offsets_main(form, opt);
  main.seconds += lemma.seconds;
  main.queries += lemma.queries;
  return main;
}

Outcome offsets_main(OffsetForm form, const RunOptions& opt) {
  return check_integer(opt.timeout_ms, {"P", "page_bytes", "N", "layers"}, [&](Query& q, const auto& v) {
    const auto& [P, pb, N, L] = v;
    q.header = "offset form";
    q.require(N >= Sym(1) && N <= Sym(std::int64_t{1} << 22) && pb >= Sym(1) && pb <= Sym(std::int64_t{1} << 40));
    q.require(P >= Sym(0) && P < N && L >= Sym(2) && L <= Sym(64));
    const Sym exact = P * pb;
    // Instances of nonneg_product_lemma: (N - P - 1)*pb >= 0 and P*pb >= 0.
    q.require((N - P - Sym(1)) * pb >= Sym(0) && P * pb >= Sym(0));
    q.require(N * pb <= Sym(std::int64_t{1} << 62));
    Sym start = exact;
    switch (form) {
      case OffsetForm::int64: break;
      case OffsetForm::int32: start = kv_narrow32(exact); break;
      case OffsetForm::uint32: start = floor_mod(exact, Sym(std::int64_t{1} << 32)); break;
      case OffsetForm::view_origin: start = exact + floor_div(pb, L); break;
    }
    q.show({{"start", start}, {"exact", exact}});
    q.ensure("fits_int64", start < Sym(std::int64_t{1} << 62) && start >= Sym(0));
    q.ensure("starts_at_the_envelope", start == exact);
    q.ensure("inside_the_buffer", start + pb <= N * pb);
  });
}

// An obligation and its fault twin `<name>.<fault>` (exemplar `exemplar`): the same domain,
// preconditions "as production; " + `how`, conclusion "as production", refuted; run(fault, o)
// checks either.
void add_with_fault(std::vector<Def>& out, ObligationInfo info, const std::string& fault, std::string exemplar,
                    const std::string& how, Outcome (*run)(bool, const RunOptions&)) {
  ObligationInfo twin{info.name + "." + fault, std::move(exemplar), "as production; " + how, "as production",
                      info.domain, Verdict::refuted};
  out.push_back(make(std::move(info), [run](const RunOptions& o) { return run(false, o); }));
  out.push_back(make(std::move(twin), [run](const RunOptions& o) { return run(true, o); }));
}

}  // namespace

void add_lifecycle_obligations(std::vector<Def>& out) {
  using enum Verdict;
  const std::string sym_dom = "unbounded integers; ps in [1, 2^16] and M in [1, 4096] symbolic unless fixed";
  for (const Sub& s : kSubs) {
    const bool draft = s.name == "draft";
    const std::string live_dom = "unbounded integers; N, P, o symbolic; (ps, M) = " +
                                 std::string(s.ps ? "its fixed values" : "each of ps {1,2,4,16,64,2^16} x M {1,2,24,61,4096}");
    out.push_back(make({"lifecycle.sink.live_ids." + s.name, "§1 sink page, §3.4, issue 14 (per sub-pool)",
                        "page P in [min_page_index, N), min_page_index >= 1, 0 <= o < ps(s)" +
                            std::string(draft ? "; len(draft) = len(full)" : ""),
                        "a live kernel-facing id P*ps*M + o is past the sink page's rows and below len(s)", live_dom,
                        proved},
                       [s](const RunOptions& o) { return live_ids(s, false, o); }));
    out.push_back(make({"lifecycle.sink.no_location." + s.name, "§2.5, §7 Q3 / Q7, issue 14 (per sub-pool)",
                        "v2p entries in {-1} U [1, N); padding slot -1; mapped column => bound entry",
                        "table entries >= 0; unmapped columns and padding lanes resolve to the sink 0", sym_dom,
                        proved},
                       [s](const RunOptions& o) { return no_location(s, false, false, o); }));
  }
  out.push_back(make({"lifecycle.sink.live_ids.draft.draft_pool_sized_before_adjust", "SGLang #17630",
                      "as lifecycle.sink.live_ids.draft with len(draft) = len(full) div 2", "as production",
                      sym_dom, refuted},
                     [](const RunOptions& o) { return live_ids(kSubs[3], true, o); }));
  out.push_back(make({"lifecycle.sink.no_location.state.padding_to_last_state_row", "SGLang #36885 / #36880",
                      "as production; the padding slot maps to len(state) - 1", "as production", sym_dom, refuted},
                     [](const RunOptions& o) { return no_location(kSubs[2], true, false, o); }));
  out.push_back(make({"lifecycle.sink.no_location.swa.unclamped_unified_branch", "SGLang #36477",
                      "as production; entries are v2p[v] * M without the clamp", "as production", sym_dom, refuted},
                     [](const RunOptions& o) { return no_location(kSubs[1], false, true, o); }));
  add_with_fault(out,
                 {"lifecycle.sink.free_path", "§4.14, SGLang #38519 fix", "mapped entries are bound pages >= min",
                  "no freed page lies below min_page_index (the sink is never freed)", "unbounded integers", proved},
                 "sink_freed_by_segment_free", "SGLang #38519 / #38269", "unmapped entries are read as the sink and freed",
                 free_path);
  add_with_fault(out,
                 {"lifecycle.subpool.replicated_route", "§1 DCP, vLLM #57260 fix", "0 <= t < 2^31",
                  "a replicated sub-pool's route input is t (no owner/local rewrite)", "dcp_size in {1, 2, 4, 8}",
                  proved},
                 "dcp_rewrite_replicated_group", "vLLM #57260", "every group is rewritten t div dcp_size",
                 replicated_route);
  add_with_fault(out,
                 {"lifecycle.subpool.own_page_size", "issue 14 per-sub-pool ps(s), vLLM #55601 fix",
                  "ps(swa) = ps(full) * r, 1 <= r <= 8, 0 <= pos < 2^31", "a sub-pool's column is pos div its own ps",
                  "ps_full in {1, 2, 4, 8, 16}", proved},
                 "min_block_size_column", "vLLM #55601", "the column divides by min_s ps(s)", own_page_size);
  add_with_fault(out,
                 {"lifecycle.capacity.capture_width", "issue 14 capacity, SGLang #35985 fix",
                  "seq < context_len = context_pages * ps, 0 <= k <= max_draft <= 64",
                  "ceil((seq + 1 + k) / ps) <= capture width", "ps in {1, 2, 4, 8, 16, 64}", proved},
                 "capture_width_from_context", "SGLang #35985 / #29665", "width = ceil(context_len / ps)", capture_width);
  const std::string off_pre = "1 <= N <= 2^22 pages, 1 <= page_bytes <= 2^40, buffer N*page_bytes <= 2^62, 0 <= P < N, 2 <= layers <= 64";
  const std::string off_concl = "start = P*page_bytes exactly (from the raw base), < 2^62, span inside the buffer";
  out.push_back(make({"lifecycle.offset.span64", "§3, §7 Q6, issue 14 offsets", off_pre, off_concl,
                      "unbounded integers, all symbolic", proved},
                     [](const RunOptions& o) { return offsets(OffsetForm::int64, o); }));
  struct OffsetTwin {
    OffsetForm form;
    const char* fault;
    const char* exemplar;
    const char* how;
  };
  for (const OffsetTwin& t : {OffsetTwin{OffsetForm::int32, "int32_offset_times_stride", "vLLM #50427", "int32 product"},
                              OffsetTwin{OffsetForm::uint32, "int32_times_uint32_offset", "FlashInfer #3130",
                                         "product wrapped to uint32"},
                              OffsetTwin{OffsetForm::view_origin, "zeroing_from_view_origin", "vLLM #50276",
                                         "span starts at layer 1's view origin"}}) {
    out.push_back(make({std::string("lifecycle.offset.span64.") + t.fault, t.exemplar, off_pre + "; " + t.how,
                        off_concl, "unbounded integers, all symbolic", refuted},
                       [form = t.form](const RunOptions& o) { return offsets(form, o); }));
  }
}

}  // namespace kvaddr::proofs
