#pragma once
// Private to the differential check (diff*.cpp): the context of one case (its stream, variant,
// device buffers, geometry text and comparisons) and the case-level wrappers of the shared
// generators (kvaddr/gen) that read the case's variant.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "device_compare.hpp"
#include "kvaddr/gen/builders.hpp"
#include "kvaddr/gen/edges.hpp"
#include "kvaddr/kernels/diff.hpp"
#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/lanes.hpp"

namespace kvaddr::gpu::diffcase {

using i64 = std::int64_t;
using i32 = std::int32_t;
using u64 = std::uint64_t;
using gen::Batch;
using gen::Pool;

inline std::size_t sz(i64 n) { return static_cast<std::size_t>(n); }
inline i64 ssz(std::size_t n) { return static_cast<i64>(n); }

inline void cuda_check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw CudaError(call, static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
}

// ---- device buffers ------------------------------------------------------------------------------
struct DevPool {
  std::vector<void*> ptrs;
  DevPool() = default;
  DevPool(const DevPool&) = delete;
  DevPool& operator=(const DevPool&) = delete;
  ~DevPool() {
    for (void* p : ptrs) (void)cudaFree(p);
  }
  template <class T>
  T* alloc(i64 n) {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, sz(std::max<i64>(n, 1)) * sizeof(T)), "cudaMalloc");
    ptrs.push_back(p);
    return static_cast<T*>(p);
  }
  // A v2p table preceded by one guard element holding kV2pGuard, in the same cudaMalloc; returns
  // the table (guard + 1). This is a deliberate detector, not a bug hider: a lane that reads
  // v2p[-1] (B09's unguarded padding token) gets kV2pGuard instead of whatever precedes the
  // allocation, i.e. a large wrong entry that the comparison with the model reports. Production
  // never reads v2p[-1], so memcheck stays clean; memcheck's own B09 detection uses
  // kernels/tools/b09_oob (no guard), see docs/sanitizers.md.
  static constexpr i64 kV2pGuard = i64(1) << 20;
  const i64* up_v2p(const std::vector<i64>& h) {
    std::vector<i64> g(h.size() + 1);
    g[0] = kV2pGuard;
    std::copy(h.begin(), h.end(), g.begin() + 1);
    return up(g) + 1;
  }
  // Whether `bytes` more device memory is free with a quarter of the device to spare.
  static bool fits(i64 bytes) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return false;
    return bytes > 0 && static_cast<std::size_t>(bytes) + total_b / 4 < free_b;
  }
  // A packed rows x cols int32 matrix placed at r * h.row_stride of a fresh parent (gen::HugeRows).
  Mat<const i32> up_rows(const std::vector<i32>& packed, const gen::HugeRows& h) {
    i32* d = alloc<i32>(h.parent_elements());
    cuda_check(cudaMemset(d, 0xff, sz(h.parent_elements()) * sizeof(i32)), "cudaMemset");
    for (i64 r = 0; r < h.rows; ++r)
      cuda_check(cudaMemcpy(d + r * h.row_stride, packed.data() + r * h.cols, sz(h.cols) * sizeof(i32), cudaMemcpyHostToDevice),
                 "cudaMemcpy H2D");
    return {d, h.rows, h.cols, h.row_stride, 1};
  }
  void release() {
    for (void* p : ptrs) (void)cudaFree(p);
    ptrs.clear();
  }
  // A v2p that is a slice of a parent allocation (gen::ParentV2p): the view with its before/after.
  Vec<const i64> up_parent(const gen::ParentV2p& pv) {
    const i64* d = up(pv.parent);
    return {d + pv.before, ssz(pv.parent.size()) - pv.before - pv.after, pv.before, pv.after};
  }
  template <class T>
  T* up(const std::vector<T>& h) {
    T* d = alloc<T>(ssz(h.size()));
    if (!h.empty()) cuda_check(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    return d;
  }
};

template <class T>
inline std::vector<T> down(const T* d, std::size_t n) {
  std::vector<T> h(n);
  if (n) cuda_check(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  return h;
}

// ---- one case ----------------------------------------------------------------------------------
struct Geometry {
  std::ostringstream s;
  template <class T>
  Geometry& kv(const char* k, T v) {
    s << k << '=' << v << ' ';
    return *this;
  }
};

struct CaseResult {
  i64 lanes = 0;           // translated lanes
  i64 compared = 0;        // elements compared GPU vs host
  i64 model_compared = 0;  // elements compared host vs model
  std::optional<Mismatch> mismatch;
};

struct Ctx {
  DiffKernel kernel;
  Variant variant = Variant::production;
  gen::SplitMix64 rng;
  i64 scale;
  bool production_only;
  bool compare_model;
  bool host_only = false;
  std::optional<Variant> forced;  // DiffOptions::force_variant
  bool forced_runs = false;       // the forced variant is this kernel's (kernel_carries): its cases run it
  DevPool dev;
  Geometry geo;
  CaseResult res;
  Mismatch proto;
  // Set when the host route threw on a planted variant during a GPU run: the expected outputs are
  // then the production host route's (the model semantics), so a GPU difference is a kill
  // "against model"; without one the host's exception is the kill ("error").
  std::string host_error;

  // Runs the host route `run(variant)` (which must first reset its outputs to the initial
  // contents). Host-only runs and production rethrow, as before.
  template <class F>
  void host_route(F&& run) {
    try {
      run(variant);
    } catch (const std::exception& e) {
      if (host_only || variant == Variant::production) throw;
      host_error = e.what();
      run(Variant::production);
    }
  }

  Ctx(DiffKernel k, u64 key, i64 sc, bool po, bool cm)
      : kernel(k), rng(key), scale(sc), production_only(po), compare_model(cm), edge(gen::substream(key, 1)) {}

  // The edge classes (kvaddr/gen/edges.hpp) this case drew, counted per kernel in the report.
  gen::SplitMix64 edge;  // the case's edge-class stream: its draws never shift `rng`'s
  bool edges = true;     // DiffOptions::edge_classes
  // Whether the case enters an edge class of probability p (never with edge classes off).
  bool edge_on(double p) { return edge.chance(edges ? p : 0.0); }
  std::vector<std::string> classes;
  void mark(const char* cls) {
    if (std::find(classes.begin(), classes.end(), cls) == classes.end()) classes.emplace_back(cls);
  }
  // Whether an unforced case may take a planted edge variant (not under --production-only).
  bool may_plant() const { return !production_only && !forced; }

  Variant choose_variant(std::initializer_list<Variant> extra) { return choose_variant(std::vector<Variant>(extra)); }
  Variant choose_variant(const std::vector<Variant>& extra) {
    // A forced variant runs whenever the kernel carries it, whether or not the case plants it by itself.
    if (forced) return forced_runs ? *forced : Variant::production;
    if (production_only || extra.size() == 0 || rng.chance(0.5)) return Variant::production;
    return *(extra.begin() + rng.uniform(0, ssz(extra.size()) - 1));
  }

  void fail(const char* against, std::vector<LaneDiff> lanes, i64 count, std::string detail = {}) {
    if (res.mismatch) return;
    Mismatch m = proto;
    m.against = against;
    m.lanes = std::move(lanes);
    m.differing_lanes = count;
    m.detail = std::move(detail);
    m.geometry = geo.s.str();
    res.mismatch = std::move(m);
  }

  // Compare a GPU buffer with the host expectation, element by element: the expectation is
  // uploaded and the differing elements are counted on the device (device_compare.cu, Thrust); the
  // output comes back to the host only when it differs, to list the first differing lanes.
  template <class T>
  void compare(const char* name, const std::vector<T>& expected, const T* device) {
    res.compared += ssz(expected.size());
    const auto d = detail::count_differences(dev.up(expected), device, ssz(expected.size()), nullptr);
    if (d.count == 0) return;
    const std::vector<T> got = down(device, expected.size());
    std::vector<LaneDiff> diffs;
    i64 count = 0;
    for (std::size_t i = sz(d.first); i < expected.size(); ++i) {
      if (expected[i] != got[i]) {
        if (diffs.size() < 8) diffs.push_back({name, ssz(i), static_cast<i64>(expected[i]), static_cast<i64>(got[i])});
        ++count;
      }
    }
    if (count != d.count) {  // the device count and the host recount must agree
      fail("error", std::move(diffs), count,
           "device comparison counted " + std::to_string(d.count) + " differences, the host " + std::to_string(count));
      return;
    }
    fail(host_error.empty() ? "host" : "model", std::move(diffs), count,
         host_error.empty() ? std::string() : "GPU kernel running the variant differs from production (host route threw: " + host_error + ")");
  }

  // Host route output vs an independent model value at one lane.
  void model_lane(const char* name, i64 index, i64 host, const std::function<i64()>& model) {
    if (!compare_model || (variant != Variant::production && !forced) || res.mismatch) return;
    ++res.model_compared;
    i64 want = 0;
    try {
      want = model();
    } catch (const std::exception& e) {
      fail("model", {{name, index, host, host}}, 1, std::string("model threw: ") + e.what());
      return;
    }
    if (want != host) fail("model", {{name, index, want, host}}, 1, "host route differs from model/");
  }
};


// ---- the shared generators, with the case's variant policy ---------------------------------------
inline i64 pick_ps(Ctx& c, bool pow2_only) { return gen::page_size(c.rng, pow2_only); }
inline i64 pick_m(Ctx& c) { return gen::multiplier(c.rng); }
inline i64 lanes_for(Ctx& c) { return gen::lanes(c.rng, c.scale); }
inline i64 token(Ctx& c, const Pool& p, double pad) { return gen::token(c.rng, p, pad); }
template <class T>
std::vector<T> stale(Ctx& c, i64 n) {
  return gen::stale<T>(c.rng, n);
}
inline i64 ragged_len(Ctx& c, i64 ps, i64 cap) { return gen::ragged_len(c.rng, ps, cap); }
inline i64 table_cols(Ctx& c, i64 ps) { return gen::table_cols(c.rng, c.scale, ps); }

// gen::pool with the case's offset policy: may_offset (int64-output routes only) offsets the bound
// pages in 25% of the cases; an unforced E03 case never (host and device both wrap P * S + o to
// int32 under E03, so either way the two sides are comparable), a forced E03 (a kill run) in 75%.
inline Pool make_pool(Ctx& c, i64 ps, i64 M, i64 want_pages, bool int32_outputs, bool may_offset = false) {
  gen::PoolSpec s{ps, M, want_pages, int32_outputs, std::nullopt};
  const bool e03 = c.variant == Variant::e03_int32_offset;
  if (may_offset && (!e03 || c.forced)) s.offset_rate = e03 ? 0.75 : 0.25;
  Pool p = gen::pool(c.rng, s);
  c.geo.kv("ps", ps).kv("M", M).kv("num_pages", p.num_pages).kv("num_virtual", p.num_virtual).kv("tombstone_rate", p.tombstone_rate);
  if (p.page_offset) {
    c.geo.kv("page_offset", p.page_offset);
    c.mark("values_past_2^31");
  }
  return p;
}

// gen::batch with the case's variant policy: E02 cases get tombstone pages at rate 0.3, E10 cases
// more pool rows than batch rows and never arange(B).
inline Batch make_batch(Ctx& c, const Pool& p, i64 cols, i64 len_cap, double pad, std::optional<i64> rows = std::nullopt) {
  gen::BatchSpec s;
  s.rows = rows;
  s.scale = c.scale;
  s.cols = cols;
  s.len_cap = len_cap;
  s.pad = pad;
  if (c.variant == Variant::e02_minus_one_sentinel) s.tomb = 0.3;
  s.avoid_identity_rows = c.variant == Variant::e10_batch_index_rows;
  Batch b = gen::batch(c.rng, p, s);
  c.geo.kv("B", b.B).kv("R", b.R).kv("C", b.C).kv("pad", pad).kv("tomb", b.tomb).kv("rows_kind", static_cast<int>(b.rows_kind));
  return b;
}

// ---- page-table helpers ------------------------------------------------------------------------
inline i64 model_entry(const Pool& p, i64 tok) {  // spec §4.3/§4.4: page = 0 if tok < 0 else tok div ps
  return model::block_entry(p.v2p, p.M, model::VirtualPage(tok < 0 ? 0 : tok / p.ps));
}

// B09 differs from production only where a padding page-start token -1 is divided (ps = 1:
// -1 / 1 = -1 reads v2p[-1]; decode's shift reads it at every ps). Forced B09 cases (the bug zoo's
// kill runs) mostly run ps = 1 and always get padding in live prefixes: the host route then
// throws (OutOfRange v2p) and the GPU kernel reads the guard before the table (DevPool::up_v2p).
// Unforced B09 cases (GPU vs host agreement) keep ps = 1 padding-free, since the host cannot run them.
inline bool b09_kill(const Ctx& c) { return c.variant == Variant::b09_no_padding_guard && c.forced.has_value(); }
inline i64 b09_ps(Ctx& c, i64 ps) { return (b09_kill(c) && c.rng.chance(0.7)) ? 1 : ps; }
// A parent-sliced v2p (gen::ParentV2p) lets the host run B09's reads before the table, so those
// cases keep their padding at every page size.
inline double table_pad(Ctx& c, i64 ps, bool every_ps = false, bool parent_sliced = false) {
  if (b09_kill(c)) return c.rng.pick<double>({0.05, 0.2});
  if (c.variant == Variant::b09_no_padding_guard && (ps == 1 || every_ps) && !parent_sliced) return 0.0;
  return c.rng.pick<double>({0.0, 0.05});
}

// Columns that B10 / E01 (no max_pages bound) read and write past max_pages; 0 otherwise.
// grid_spill: up to two columns past the grid extent G * ceil(max_pages / G) (where it stops).
inline i64 spill_cols(Ctx& c, i64 max_pages) {
  if (has(c.variant, Behaviour::grid_spill)) {
    c.mark("grid_spill");
    return gen::grid_extent(max_pages, c.variant.column_block) - max_pages + 2;
  }
  const bool unbounded = c.variant == Variant::b10_no_max_pages_bound || c.variant == Variant::e01_no_column_bound;
  return unbounded ? c.rng.uniform(1, 4) : 0;
}

// With a spill (extra_cols > 0), about a third of the rows get a length whose page count (after
// + delta) lands in (max_pages, max_pages + extra_cols]: the columns the unbounded variants write.
inline void spill_lens(Ctx& c, Batch& b, i64 max_pages, i64 extra_cols, i64 ps, i64 delta) {
  if (extra_cols <= 0) return;
  for (auto& l : b.lens)
    if (c.rng.chance(0.35)) l = std::max<i64>(0, max_pages * ps + c.rng.uniform(1, extra_cols * ps) - delta);
}


// ---- edge classes of the page-table cases (gen/edges.hpp), from the case's edge stream ----------
// An unforced production case of a route with grid_spill takes it (a random column block) in 20%.
inline void plant_grid_spill(Ctx& c) {
  if (c.may_plant() && c.variant == Variant::production && c.edge_on(0.2))
    c.variant = with_column_block(Variant::grid_spill, static_cast<i32>(gen::column_block(c.edge)));
  if (c.forced && has(*c.forced, Behaviour::grid_spill) && c.forced->size() == 1) c.variant = *c.forced;
}
// Wide entries (P * M >= 2^31) in 12% of the unforced production cases; 60% of those (when
// planting is allowed) run int32_wrap, the others must raise Overflow on the host (expect_overflow).
struct Wide {
  bool on = false;
  bool expect_overflow = false;
};
// A forced int32_wrap (a kill run) takes wide entries in half of its cases.
inline Wide draw_wide(Ctx& c) {
  Wide w;
  if (c.forced && *c.forced == Variant::int32_wrap) {
    if (!c.edge_on(0.5)) return w;
    c.variant = Variant::int32_wrap;
    c.mark("wide_entries_wrap");
    w.on = true;
    return w;
  }
  if (c.variant != Variant::production || c.forced || !c.edge_on(0.12)) return w;
  w.on = true;
  if (c.may_plant() && c.edge.chance(0.6)) {
    c.variant = Variant::int32_wrap;
    c.mark("wide_entries_wrap");
  } else {
    w.expect_overflow = true;
    c.mark("wide_entries_overflow");
  }
  return w;
}
// A parent-sliced v2p in 25% of the cases.
inline std::optional<gen::ParentV2p> draw_parent_v2p(Ctx& c, const Pool& p) {
  if (!c.edge_on(0.25)) return std::nullopt;
  c.mark("parent_v2p");
  auto pv = gen::parent_v2p(c.edge, p);
  c.geo.kv("v2p_before", pv.before).kv("v2p_after", pv.after);
  return pv;
}
// Replaces every -1 page-start token of req_to_token by a padding token whose page is -1..-k
// (k <= max_k): with the parent-sliced v2p, what a guard-less kernel reads stays in the parent.
inline void deepen_padding(Ctx& c, Batch& b, i64 ps, i64 max_k) {
  for (i64 r = 0; r < std::max<i64>(b.R, 1); ++r)
    for (i64 j = 0; j < b.C; j += ps) {
      i32& t = b.r2t[sz(r * b.C + j)];
      if (t == -1) {
        t = static_cast<i32>(gen::padding_token(c.edge, ps, max_k));
        if (t < -1) c.mark("padding_before_table");
      }
    }
}
// Output / input placements: slices of a wider parent in 30% of the cases.
inline gen::Layout out_layout(Ctx& c, i64 rows, i64 cols) {
  const auto l = gen::layout(c.edge, rows, cols, c.edges ? 0.3 : 0.0);
  if (l.strided()) c.mark("strided_out");
  return l;
}
inline gen::Layout in_layout(Ctx& c, i64 rows, i64 cols) {
  const auto l = gen::layout(c.edge, rows, cols, c.edges ? 0.3 : 0.0);
  if (l.strided()) c.mark("strided_in");
  return l;
}
template <class T>
Mat<T> view(T* parent, const gen::Layout& l) {
  return {parent + l.offset, l.rows, l.cols, l.row_stride, 1};
}
// Model check of a table output placed in a parent buffer: parent elements outside the matrix and
// row r's columns [written(r), cols) keep their initial contents.
template <class T, class Written>
void untouched_layout(Ctx& c, const char* name, const std::vector<T>& out, const std::vector<T>& initial,
                      const gen::Layout& l, Written&& written) {
  for (i64 i = 0; i < ssz(out.size()) && !c.res.mismatch; ++i) {
    if (l.inside(i)) {
      const i64 rel = i - l.offset;
      if (rel % l.row_stride < written(rel / l.row_stride)) continue;
    }
    c.model_lane(name, i, out[sz(i)], [&] { return static_cast<i64>(initial[sz(i)]); });
  }
}
// Page-start classes of a case: non-power-of-two and odd page sizes.
inline void mark_ps(Ctx& c, i64 ps) {
  if ((ps & (ps - 1)) != 0) c.mark("non_pow2_ps");
  if (ps > 1 && ps % 2 == 1) c.mark("odd_ps");
}

// ---- the cases (diff_cases_token.cpp, diff_cases_table.cpp) --------------------------------------
template <class Out>
void case_token(Ctx& c, bool swa);
void case_per_id(Ctx& c, Route r);  // a per-id route of the list, from its spec
void case_write_loc(Ctx& c);
void case_kv_inplace(Ctx& c);
void case_envelope(Ctx& c);
void case_canonical(Ctx& c, bool full_prefill);
void case_read_table(Ctx& c);
void case_flashmla(Ctx& c);
void case_read_stream(Ctx& c);
void case_eager(Ctx& c);
void case_decode(Ctx& c);

}  // namespace kvaddr::gpu::diffcase
