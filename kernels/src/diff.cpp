// Differential GPU check: see kvaddr/kernels/diff.hpp.
#include "kvaddr/kernels/diff.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <functional>
#include <nlohmann/json.hpp>
#include <numeric>
#include <span>
#include <sstream>

#include "kvaddr/kernels/launch.hpp"
#include "device_compare.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/lanes.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::gpu {
namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;
using u64 = std::uint64_t;

std::size_t sz(i64 n) { return static_cast<std::size_t>(n); }
i64 ssz(std::size_t n) { return static_cast<i64>(n); }

constexpr std::array<std::string_view, kDiffKernelCount> kNames = {
    "token_translate_i64", "token_translate_i32", "flashmla_block_table", "canonical_page_table",
    "read_table",          "read_stream",         "decode_metadata",      "eager_funnel",
    "kv_indices_inplace",  "write_loc",           "swa_translate_i64",    "swa_translate_i32",
    "mamba_translate",     "full_prefill_table",  "dcp_read_translate",   "transfer_ids",
    "envelope_moves"};

void cuda_check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw CudaError(call, static_cast<int>(e), cudaGetErrorName(e), cudaGetErrorString(e));
}

// ---- deterministic generator -----------------------------------------------------------------------
struct Rng {
  u64 s;
  explicit Rng(u64 seed) : s(seed) {}
  u64 next() {
    u64 z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  i64 uniform(i64 lo, i64 hi) {  // inclusive
    if (hi <= lo) return lo;
    return lo + static_cast<i64>(next() % static_cast<u64>(hi - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0) < p; }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return *(xs.begin() + uniform(0, ssz(xs.size()) - 1));
  }
};

u64 case_key(u64 seed, i64 idx, i64 scale) {
  Rng r(seed ^ 0x6A09E667F3BCC909ull);
  u64 k = r.next() ^ (static_cast<u64>(idx) * 0xD1B54A32D192ED03ull);
  k ^= static_cast<u64>(scale) * 0x9E3779B97F4A7C15ull;
  return Rng(k).next();
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
  template <class T>
  T* up(const std::vector<T>& h) {
    T* d = alloc<T>(ssz(h.size()));
    if (!h.empty()) cuda_check(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
    return d;
  }
};

template <class T>
std::vector<T> down(const T* d, std::size_t n) {
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
  Rng rng;
  i64 scale;
  bool production_only;
  bool compare_model;
  bool host_only = false;
  std::optional<Variant> forced;  // DiffOptions::force_variant
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

  Ctx(DiffKernel k, u64 key, i64 sc, bool po, bool cm) : kernel(k), rng(key), scale(sc), production_only(po), compare_model(cm) {}

  Variant choose_variant(std::initializer_list<Variant> extra) {
    if (forced) return std::find(extra.begin(), extra.end(), *forced) != extra.end() ? *forced : Variant::production;
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

// ---- shared input builders ------------------------------------------------------------------------
struct Pool {
  i64 ps = 1, M = 1, num_pages = 2, num_virtual = 2;
  std::vector<i64> v2p;  // num_virtual + 1
};

i64 pick_ps(Rng& r, bool pow2_only) {
  if (pow2_only) return r.pick<i64>({1, 1, 2, 4, 8, 16, 32, 64, 64, 128, 256});
  return r.pick<i64>({1, 1, 2, 3, 4, 5, 7, 8, 16, 24, 32, 64, 64, 100, 128, 256});
}
i64 pick_m(Rng& r) { return r.pick<i64>({1, 1, 2, 3, 5, 8, 16, 24, 24, 48, 64, r.uniform(1, 64)}); }

// A v2p of a sub-pool: v2p[0] = 0 (sink), trailing sentinel -1, bound pages a random injection into
// physical pages [1, num_pages), tombstones at rate q. int32_outputs bounds num_pages*ps*M < 2^31.
// may_offset (int64-output routes only): in some cases every bound physical page is offset so that
// P * S + o straddles 2^31 (values near 2^31 / (ps * M), e.g. ~2^21 at ps 64, M 24): the table stays
// small, only its values are large (E03 wraps them in int32).
Pool make_pool(Ctx& c, i64 ps, i64 M, i64 want_pages, bool int32_outputs, bool may_offset = false) {
  Pool p;
  p.ps = ps;
  p.M = M;
  i64 np = std::max<i64>(2, want_pages);
  if (int32_outputs) np = std::min<i64>(np, std::max<i64>(2, ((i64(1) << 31) - 1) / (ps * M) - 1));
  p.num_pages = np;
  p.num_virtual = c.rng.chance(0.3) ? np + c.rng.uniform(0, np) : np;  // non-owner tables are larger
  if (int32_outputs) p.num_virtual = std::min<i64>(p.num_virtual, ((i64(1) << 31) - 1) / ps - 2);
  const double q = c.rng.pick<double>({0.0, 0.02, 0.1, 0.4});
  std::vector<i64> phys(sz(np - 1));
  std::iota(phys.begin(), phys.end(), i64(1));
  for (std::size_t i = phys.size(); i > 1; --i) std::swap(phys[i - 1], phys[sz(c.rng.uniform(0, ssz(i) - 1))]);
  p.v2p.assign(sz(p.num_virtual + 1), -1);
  p.v2p[0] = 0;
  std::size_t next = 0;
  for (i64 v = 1; v < p.num_virtual; ++v) {
    if (next < phys.size() && !c.rng.chance(q)) p.v2p[sz(v)] = phys[next++];
  }
  i64 offset = 0;
  // An unforced E03 case does not take the offset; forced E03 (a kill run) takes it often. Host and
  // device both wrap P * S + o to int32 under E03, so either way the two sides are comparable.
  const bool e03 = c.variant == Variant::e03_int32_offset;
  if (!int32_outputs && may_offset && (!e03 || c.forced) && c.rng.chance(e03 ? 0.75 : 0.25)) {
    const i64 pivot = ((i64(1) << 31) + ps * M - 1) / (ps * M);  // first page with P * S >= 2^31
    offset = std::max<i64>(0, pivot - c.rng.uniform(0, np));    // some pages below 2^31, most above
    for (i64 v = 1; v < p.num_virtual; ++v)
      if (p.v2p[sz(v)] > 0) p.v2p[sz(v)] += offset;
  }
  c.geo.kv("ps", ps).kv("M", M).kv("num_pages", np).kv("num_virtual", p.num_virtual).kv("tombstone_rate", q);
  if (offset) c.geo.kv("page_offset", offset);
  return p;
}

// A virtual token id: padding -1 at rate pad, else any token of the table's pages (sentinel row
// included, so the trailing -1 is exercised too).
i64 token(Ctx& c, const Pool& p, double pad) {
  if (c.rng.chance(pad)) return -1;
  return c.rng.uniform(0, (p.num_virtual + 1) * p.ps - 1);
}

i64 lanes_for(Ctx& c) {
  const i64 s = c.scale;
  switch (c.rng.uniform(0, 5)) {
    case 0: return c.rng.uniform(0, 3);
    case 1: return c.rng.uniform(1, 1024);
    default: return std::max<i64>(1, s >> c.rng.uniform(0, 3));
  }
}

template <class T>
std::vector<T> stale(Ctx& c, i64 n) {
  std::vector<T> v(sz(n));
  const T base = static_cast<T>(c.rng.pick<i64>({-7, 0x5A5A5A5, 1 << 30}));
  for (auto& x : v) x = c.rng.chance(0.5) ? base : static_cast<T>(c.rng.uniform(-3, 1 << 20));
  return v;
}

// A request table: R rows of C int32 virtual tokens, pages of the pool laid out page-major,
// padding -1 at rate pad (at any position, page starts included), and at rate `tomb` a page that
// is a tombstone of the pool (v2p = -1: unbound pages and the trailing sentinel), so tombstones
// land inside live prefixes.
std::vector<i32> make_req_to_token(Ctx& c, const Pool& p, i64 R, i64 C, double pad, double tomb) {
  std::vector<i64> tombs;
  for (i64 v = 1; v < ssz(p.v2p.size()); ++v)
    if (p.v2p[sz(v)] < 0) tombs.push_back(v);
  std::vector<i32> r2t(sz(R * C));
  for (i64 r = 0; r < R; ++r) {
    i64 vpage = 0;
    for (i64 j = 0; j < C; ++j) {
      if (j % p.ps == 0)
        vpage = (!tombs.empty() && c.rng.chance(tomb)) ? tombs[sz(c.rng.uniform(0, ssz(tombs.size()) - 1))]
                                                        : c.rng.uniform(0, p.num_virtual);
      const i64 t = c.rng.chance(pad) ? -1 : vpage * p.ps + j % p.ps;
      r2t[sz(r * C + j)] = static_cast<i32>(t);
    }
  }
  return r2t;
}

// req_pool_indices / row_ids: 0 arange(B) (rare), 1 distinct rows in random order (permuted,
// non-contiguous), 2 rows drawn with repetition, 3 a reversed or shifted window. Under E10 the
// rows are never arange(B) (R > B always holds there), so the batch position names another row.
std::vector<i64> pool_rows(Ctx& c, i64 B, i64 R, int& kind) {
  kind = static_cast<int>(c.rng.pick<i64>({0, 1, 1, 2, 2, 3}));
  std::vector<i64> rows(sz(R));
  std::iota(rows.begin(), rows.end(), i64(0));
  if (kind == 1) {
    for (std::size_t i = rows.size(); i > 1; --i) std::swap(rows[i - 1], rows[sz(c.rng.uniform(0, ssz(i) - 1))]);
  } else if (kind == 2) {
    for (auto& r : rows) r = c.rng.uniform(0, R - 1);
  } else if (kind == 3) {
    const i64 shift = c.rng.uniform(0, R - B);
    for (i64 b = 0; b < R; ++b) rows[sz(b)] = b < B ? (c.rng.chance(0.5) ? shift + B - 1 - b : shift + b) : b;
  }
  rows.resize(sz(B));
  if (c.variant == Variant::e10_batch_index_rows && B > 0) {
    bool identity = true;
    for (i64 b = 0; b < B; ++b) identity = identity && rows[sz(b)] == b;
    if (identity) rows[0] = B;  // R > B under E10
  }
  return rows;
}

// Ragged lengths: 0, 1, exact page multiples, multiples +- 1, random up to `cap`.
i64 ragged_len(Ctx& c, i64 ps, i64 cap) {
  const i64 k = c.rng.uniform(0, std::max<i64>(0, cap / ps));
  i64 len = 0;
  switch (c.rng.uniform(0, 5)) {
    case 0: len = c.rng.pick<i64>({0, 1}); break;
    case 1: len = k * ps; break;
    case 2: len = k * ps + 1; break;
    case 3: len = std::max<i64>(0, k * ps - 1); break;
    default: len = c.rng.uniform(0, cap);
  }
  return std::min(len, cap);
}

// ---- token-granular kernels ------------------------------------------------------------------------
template <class Out>
void case_token(Ctx& c, bool swa) {
  const bool i32out = std::is_same_v<Out, i32>;
  c.variant = swa ? c.choose_variant({Variant::b11_swa_no_clamp}) : c.choose_variant({Variant::b17_doc_formula, Variant::e03_int32_offset});
  const i64 ps = pick_ps(c.rng, false);
  const i64 M = pick_m(c.rng);
  const i64 n = lanes_for(c);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), i32out, !i32out);
  const double pad = c.rng.pick<double>({0.0, 0.01, 0.2});
  std::vector<i64> ids(sz(n));
  for (auto& t : ids) t = token(c, p, pad);
  // b17 ignores v2p, so its ids must keep the result in range of the output type.
  if (c.variant == Variant::b17_doc_formula && i32out)
    for (auto& t : ids) t = std::min<i64>(t, ((i64(1) << 31) - 1) / M - ps);
  const bool alias = !i32out && c.rng.chance(0.35);
  const i64 slack = alias ? 0 : c.rng.uniform(0, 70);
  c.geo.kv("N", n).kv("alias", alias).kv("slack", slack).kv("pad", pad);

  std::vector<Out> host_out;
  std::vector<i64> host_ids = ids;
  if constexpr (std::is_same_v<Out, i64>) {
    if (alias) host_out = ids;
  }
  if (!alias) host_out = stale<Out>(c, n + slack);
  const std::vector<Out> initial = host_out;
  {
    const Vec<const i64> hid{alias ? reinterpret_cast<const i64*>(host_out.data()) : host_ids.data(), n};
    const Vec<Out> hout{host_out.data(), ssz(host_out.size())};
    if (swa) translate::swa_translate(SwaTranslateArgs<Out>{hid, cvec(p.v2p), ps, M, hout, c.variant});
    else translate::token_translate(TokenTranslateArgs<Out>{hid, cvec(p.v2p), ps, M, hout, c.variant});
  }
  if (!c.host_only) {
  Out* d_out = c.dev.up(initial);
  const i64* d_ids = alias ? reinterpret_cast<const i64*>(d_out) : c.dev.up(ids);
  const i64* d_v2p = c.dev.up_v2p(p.v2p);
  const Vec<const i64> did{d_ids, n};
  const Vec<Out> dout{d_out, ssz(initial.size())};
  if (swa) launch_swa_translate(SwaTranslateArgs<Out>{did, {d_v2p, ssz(p.v2p.size())}, ps, M, dout, c.variant}, nullptr);
  else launch_token_translate(TokenTranslateArgs<Out>{did, {d_v2p, ssz(p.v2p.size())}, ps, M, dout, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", host_out, d_out);
  }
  c.res.lanes += n;
  const std::span<const i64> v2p(p.v2p);
  for (i64 i = 0; i < n && !c.res.mismatch; ++i) {
    c.model_lane("out", i, static_cast<i64>(host_out[sz(i)]), [&] {
      const i64 d = swa ? model::swa_id(v2p, ps, M, model::VirtualToken(ids[sz(i)])).value
                        : model::kernel_id(v2p, ps, M, model::VirtualToken(ids[sz(i)])).value;
      return i32out ? static_cast<i64>(static_cast<i32>(d)) : d;
    });
  }
}

void case_mamba(Ctx& c) {
  c.variant = Variant::production;
  const i64 n = lanes_for(c);
  Pool p = make_pool(c, 1, 1, c.rng.uniform(2, c.scale + 2), true);
  const bool clamp = c.rng.chance(0.3);
  std::vector<i64> slots(sz(n));
  for (auto& s : slots) s = c.rng.uniform(0, p.num_virtual);
  const i64 slack = c.rng.uniform(0, 40);
  c.geo.kv("N", n).kv("clamp", clamp).kv("slack", slack);
  std::vector<i32> host_out = stale<i32>(c, n + slack);
  const std::vector<i32> initial = host_out;
  translate::mamba_translate({cvec(slots), cvec(p.v2p), clamp, mvec(host_out)});
  if (!c.host_only) {
  i32* d_out = c.dev.up(initial);
  launch_mamba_translate({{c.dev.up(slots), n}, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, clamp, {d_out, ssz(initial.size())}}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", host_out, d_out);
  }
  c.res.lanes += n;
  for (i64 i = 0; i < n && !c.res.mismatch; ++i)
    c.model_lane("out", i, host_out[sz(i)], [&] { return model::mamba_slot(p.v2p, slots[sz(i)], clamp); });
}

void case_dcp_read(Ctx& c) {
  c.variant = c.choose_variant({Variant::b14_dcp_untranslated});
  const i64 ps = pick_ps(c.rng, false), M = pick_m(c.rng), n = lanes_for(c);
  const i64 dcp = c.rng.pick<i64>({1, 2, 4, 8, 14, 16});
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), false, true);
  std::vector<i64> ids(sz(n));
  for (auto& w : ids) {
    const i64 t = token(c, p, 0.05);
    w = t < 0 ? -1 : t * dcp + c.rng.uniform(0, dcp - 1);
  }
  c.geo.kv("N", n).kv("dcp_size", dcp);
  std::vector<i64> host_out = stale<i64>(c, n + 5);
  const std::vector<i64> initial = host_out;
  translate::dcp_read_translate({cvec(ids), cvec(p.v2p), ps, M, dcp, mvec(host_out), c.variant});
  if (!c.host_only) {
  i64* d_out = c.dev.up(initial);
  launch_dcp_read_translate({{c.dev.up(ids), n}, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, dcp, {d_out, ssz(initial.size())}, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", host_out, d_out);
  }
  c.res.lanes += n;
  for (i64 i = 0; i < n && !c.res.mismatch; ++i)
    c.model_lane("out", i, host_out[sz(i)], [&] {
      const i64 w = ids[sz(i)];
      return model::kernel_id(p.v2p, ps, M, model::VirtualToken(w < 0 ? -1 : w / dcp)).value;
    });
}

void case_transfer(Ctx& c) {
  c.variant = c.choose_variant({Variant::b16_virtual_as_physical});
  const i64 ps = pick_ps(c.rng, false), n = lanes_for(c);
  Pool p = make_pool(c, ps, 1, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), false, true);
  std::vector<i64> ids(sz(n));
  for (auto& t : ids) t = token(c, p, 0.05);
  c.geo.kv("N", n);
  std::vector<i64> host_out = stale<i64>(c, n + 3);
  const std::vector<i64> initial = host_out;
  translate::transfer_ids({cvec(ids), cvec(p.v2p), ps, mvec(host_out), c.variant});
  if (!c.host_only) {
  i64* d_out = c.dev.up(initial);
  launch_transfer_ids({{c.dev.up(ids), n}, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, {d_out, ssz(initial.size())}, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", host_out, d_out);
  }
  c.res.lanes += n;
  for (i64 i = 0; i < n && !c.res.mismatch; ++i)
    c.model_lane("out", i, host_out[sz(i)], [&] { return model::phys(p.v2p, ps, model::VirtualToken(ids[sz(i)])).value; });
}

void case_write_loc(Ctx& c) {
  c.variant = c.choose_variant({Variant::b06_stale_tail, Variant::e02_minus_one_sentinel, Variant::e03_int32_offset});
  const i64 ps = pick_ps(c.rng, false), M = pick_m(c.rng), n = lanes_for(c);
  const i64 dcp = c.rng.pick<i64>({1, 1, 2, 4, 14, 16});
  const i64 rank = c.rng.uniform(0, dcp - 1);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), false, true);
  std::vector<i64> loc(sz(n));
  for (auto& l : loc) {
    const i64 t = token(c, p, 0.1);
    l = t < 0 ? c.rng.pick<i64>({0, -1}) : t * dcp + c.rng.uniform(0, dcp - 1);
  }
  const i64 width = n + c.rng.uniform(0, 300);  // out_width: stale tail to zero
  c.geo.kv("N", n).kv("out_width", width).kv("dcp_size", dcp).kv("dcp_rank", rank);
  std::vector<i64> host_out = stale<i64>(c, width);
  const std::vector<i64> initial = host_out;
  translate::write_loc({cvec(loc), cvec(p.v2p), ps, M, dcp, rank, mvec(host_out), c.variant});
  if (!c.host_only) {
  i64* d_out = c.dev.up(initial);
  launch_write_loc({{c.dev.up(loc), n}, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, dcp, rank, {d_out, width}, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", host_out, d_out);
  }
  c.res.lanes += width;
  if (c.compare_model && (c.variant == Variant::production || c.forced) && !c.res.mismatch) {
    std::vector<model::WidenedWriteLoc> w(loc.size());
    for (std::size_t i = 0; i < loc.size(); ++i) w[i] = model::WidenedWriteLoc(loc[i]);
    std::vector<i64> want;
    try {
      want = model::write_loc_lanes(p.v2p, ps, M, dcp, rank, w, width);
    } catch (const std::exception& e) {
      c.fail("model", {}, 1, std::string("model threw: ") + e.what());
      return;
    }
    for (i64 i = 0; i < width && !c.res.mismatch; ++i)
      c.model_lane("out", i, host_out[sz(i)], [&] { return want[sz(i)]; });
  }
}

void case_kv_inplace(Ctx& c) {
  c.variant = c.choose_variant({Variant::b05_rebind_fresh});
  const i64 ps = pick_ps(c.rng, false), M = pick_m(c.rng);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), true);
  const i64 bs = c.rng.uniform(0, 64);
  const i64 total = lanes_for(c);
  std::vector<i32> indptr(sz(bs + 1 + c.rng.uniform(0, 3)), 0);
  for (i64 b = 1; b <= bs; ++b) indptr[sz(b)] = static_cast<i32>(b == bs ? total : std::min<i64>(total, c.rng.uniform(indptr[sz(b - 1)], total)));
  for (std::size_t b = sz(bs + 1); b < indptr.size(); ++b) indptr[b] = indptr[sz(bs)] + 1000;  // past bs: never read
  const i64 n = bs == 0 ? 0 : total;
  const i64 tail = c.rng.uniform(0, 3) * n + c.rng.uniform(0, 16);
  const bool separate_src = c.rng.chance(0.5);
  std::vector<i32> virt(sz(n));
  for (auto& t : virt) t = static_cast<i32>(token(c, p, 0.05));
  std::vector<i32> buf(sz(n + tail), 1 << 30);  // stale ids outside the table in the tail
  if (!separate_src) std::copy(virt.begin(), virt.end(), buf.begin());
  c.geo.kv("batch_size", bs).kv("n", n).kv("tail", tail).kv("separate_src", separate_src);
  const std::vector<i32> initial = buf;
  translate::kv_indices_inplace({mvec(buf), cvec(indptr), bs, separate_src ? cvec(virt) : Vec<const i32>{}, cvec(p.v2p), ps, M, c.variant});
  if (!c.host_only) {
  i32* d_buf = c.dev.up(initial);
  const Vec<const i32> dsrc = separate_src ? Vec<const i32>{c.dev.up(virt), n} : Vec<const i32>{};
  launch_kv_indices_inplace({{d_buf, ssz(initial.size())}, {c.dev.up(indptr), ssz(indptr.size())}, bs, dsrc, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("kv_indices", buf, d_buf);
  }
  c.res.lanes += n;
  for (i64 i = 0; i < n && !c.res.mismatch; ++i)
    c.model_lane("kv_indices", i, buf[sz(i)], [&] {
      return static_cast<i64>(static_cast<i32>(model::kernel_id(p.v2p, ps, M, model::VirtualToken(virt[sz(i)])).value));
    });
}

void case_envelope(Ctx& c) {
  c.variant = Variant::production;
  const i64 ps = pick_ps(c.rng, false);
  const i64 runs = std::max<i64>(0, lanes_for(c) / ps);
  std::vector<i64> dst(sz(runs * ps)), src(sz(runs * ps));
  for (i64 r = 0; r < runs; ++r) {
    const i64 dp = c.rng.uniform(0, 1 << 20), sp = c.rng.uniform(0, 1 << 20);
    for (i64 k = 0; k < ps; ++k) {
      dst[sz(r * ps + k)] = dp * ps + k;
      src[sz(r * ps + k)] = sp * ps + k;
    }
  }
  c.geo.kv("ps", ps).kv("runs", runs);
  std::vector<i64> hd = stale<i64>(c, runs + 4), hs = stale<i64>(c, runs + 4);
  const std::vector<i64> id = hd, is = hs;
  translate::envelope_moves({cvec(dst), cvec(src), ps, mvec(hd), mvec(hs)});
  if (!c.host_only) {
  i64* dd = c.dev.up(id);
  i64* ds = c.dev.up(is);
  launch_envelope_moves({{c.dev.up(dst), ssz(dst.size())}, {c.dev.up(src), ssz(src.size())}, ps, {dd, ssz(id.size())}, {ds, ssz(is.size())}}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("dst_pages", hd, dd);
  c.compare("src_pages", hs, ds);
  }
  c.res.lanes += 2 * runs;
}

// ---- page-granular kernels -------------------------------------------------------------------------
struct Batch {
  i64 B = 0, R = 0, C = 0;
  std::vector<i32> r2t;
  std::vector<i64> rows, lens;
};

// A batch whose page-start tokens stay inside req_to_token for `cols` columns.
Batch make_batch(Ctx& c, const Pool& p, i64 cols, i64 len_cap, double pad) {
  Batch b;
  const i64 budget = std::max<i64>(1, c.scale);
  b.B = c.rng.uniform(1, std::max<i64>(1, std::min<i64>(256, budget / std::max<i64>(1, cols))));
  if (c.rng.chance(0.1)) b.B = c.rng.uniform(0, 2);
  b.R = b.B + c.rng.uniform(c.variant == Variant::e10_batch_index_rows ? 1 : 0, 8);
  b.C = cols * p.ps + c.rng.uniform(0, p.ps);
  const double tomb = c.variant == Variant::e02_minus_one_sentinel ? 0.3 : c.rng.pick<double>({0.0, 0.0, 0.05, 0.2});
  b.r2t = make_req_to_token(c, p, std::max<i64>(b.R, 1), b.C, pad, tomb);
  int kind = 0;
  b.rows = pool_rows(c, b.B, b.R, kind);
  b.lens.resize(sz(b.B));
  for (auto& l : b.lens) l = ragged_len(c, p.ps, len_cap);
  c.geo.kv("B", b.B).kv("R", b.R).kv("C", b.C).kv("pad", pad).kv("tomb", tomb).kv("rows_kind", kind);
  return b;
}

// Columns of a table kernel so that B x cols stays near the case scale and req_to_token small.
i64 table_cols(Ctx& c, i64 ps) {
  const i64 by_elems = std::max<i64>(1, (i64(1) << 22) / ps);
  return c.rng.uniform(0, std::max<i64>(1, std::min<i64>(c.scale, std::min<i64>(by_elems, 4096))));
}

i64 model_entry(const Pool& p, i64 tok) {  // spec §4.3/§4.4: page = 0 if tok < 0 else tok div ps
  return model::block_entry(p.v2p, p.M, model::VirtualPage(tok < 0 ? 0 : tok / p.ps));
}

// B09 differs from production only where a padding page-start token -1 is divided (ps = 1:
// -1 / 1 = -1 reads v2p[-1]; decode's shift reads it at every ps). Forced B09 cases (the bug zoo's
// kill runs) mostly run ps = 1 and always get padding in live prefixes: the host route then
// throws (OutOfRange v2p) and the GPU kernel reads the guard before the table (DevPool::up_v2p).
// Unforced B09 cases (GPU vs host agreement) keep ps = 1 padding-free, since the host cannot run them.
bool b09_kill(const Ctx& c) { return c.variant == Variant::b09_no_padding_guard && c.forced.has_value(); }
i64 b09_ps(Ctx& c, i64 ps) { return (b09_kill(c) && c.rng.chance(0.7)) ? 1 : ps; }
double table_pad(Ctx& c, i64 ps, bool every_ps = false) {
  if (b09_kill(c)) return c.rng.pick<double>({0.05, 0.2});
  if (c.variant == Variant::b09_no_padding_guard && (ps == 1 || every_ps)) return 0.0;
  return c.rng.pick<double>({0.0, 0.05});
}

// Columns that B10 / E01 (no max_pages bound) read and write past max_pages; 0 otherwise.
i64 spill_cols(Ctx& c) {
  const bool unbounded = c.variant == Variant::b10_no_max_pages_bound || c.variant == Variant::e01_no_column_bound;
  return unbounded ? c.rng.uniform(1, 4) : 0;
}

// With a spill (extra_cols > 0), about a third of the rows get a length whose page count (after
// + delta) lands in (max_pages, max_pages + extra_cols]: the columns the unbounded variants write.
void spill_lens(Ctx& c, Batch& b, i64 max_pages, i64 extra_cols, i64 ps, i64 delta) {
  if (extra_cols <= 0) return;
  for (auto& l : b.lens)
    if (c.rng.chance(0.35)) l = std::max<i64>(0, max_pages * ps + c.rng.uniform(1, extra_cols * ps) - delta);
}

// Model check of the lanes a table route must leave alone: row r's columns [written(r), cols)
// (rows past the batch: written(r) = 0) keep their initial contents.
template <class T, class Written>
void untouched_model(Ctx& c, const char* name, const std::vector<T>& out, const std::vector<T>& initial, i64 rows,
                     i64 cols, Written&& written) {
  for (i64 r = 0; r < rows && !c.res.mismatch; ++r)
    for (i64 col = written(r); col < cols && !c.res.mismatch; ++col) {
      const i64 i = r * cols + col;
      c.model_lane(name, i, out[sz(i)], [&] { return static_cast<i64>(initial[sz(i)]); });
    }
}

void case_canonical(Ctx& c, bool full_prefill) {
  c.variant = full_prefill ? c.choose_variant({Variant::b04_prefill_no_remap})
                           : c.choose_variant({Variant::b09_no_padding_guard, Variant::e02_minus_one_sentinel,
                                               Variant::e10_batch_index_rows, Variant::e01_no_column_bound});
  const i64 ps = b09_ps(c, pick_ps(c.rng, false)), M = pick_m(c.rng);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  const i64 max_pages = table_cols(c, ps);
  const double pad = table_pad(c, ps);
  // E01 (no column bound) reads and writes up to n_pages > max_pages: those extra columns stay
  // inside req_to_token and inside the row's guard columns (see case_read_table for why).
  const i64 extra_cols = spill_cols(c);
  Batch b = extra_cols > 0 ? make_batch(c, p, max_pages + extra_cols, (max_pages + extra_cols) * ps, pad)
                           : make_batch(c, p, max_pages, max_pages * ps + 2 * ps, pad);
  spill_lens(c, b, max_pages, extra_cols, ps, 0);
  const i64 gr = c.rng.uniform(0, 2), gc = c.rng.uniform(extra_cols, extra_cols + 8);
  const i64 orows = b.B + gr, ocols = max_pages + gc;
  c.geo.kv("max_pages", max_pages).kv("out", std::to_string(orows) + "x" + std::to_string(ocols));
  std::vector<i32> out = stale<i32>(c, orows * ocols);
  const std::vector<i32> initial = out;
  const Mat<const i32> hr2t{b.r2t.data(), b.R, b.C, b.C, 1};
  c.host_route([&](Variant v) {
    out = initial;
    if (full_prefill) translate::full_prefill_table({hr2t, cvec(b.rows), cvec(b.lens), cvec(p.v2p), ps, M, max_pages, {out.data(), orows, ocols, ocols, 1}, v});
    else translate::canonical_page_table({hr2t, cvec(b.rows), cvec(b.lens), cvec(p.v2p), ps, M, max_pages, {out.data(), orows, ocols, ocols, 1}, v});
  });
  if (!c.host_only) {
  i32* d_out = c.dev.up(initial);
  const Mat<const i32> dr2t{c.dev.up(b.r2t), b.R, b.C, b.C, 1};
  const Vec<const i64> drows{c.dev.up(b.rows), b.B}, dlens{c.dev.up(b.lens), b.B}, dv2p{c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
  if (full_prefill) launch_full_prefill_table({dr2t, drows, dlens, dv2p, ps, M, max_pages, {d_out, orows, ocols, ocols, 1}, c.variant}, nullptr);
  else launch_canonical_page_table({dr2t, drows, dlens, dv2p, ps, M, max_pages, {d_out, orows, ocols, ocols, 1}, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", out, d_out);
  }
  // The model side uses the production column count (a forced E01 spill shows up as touched guard columns).
  const auto live = [&](i64 r) {
    return r < b.B ? lanes::table_columns<i64>(b.lens[sz(r)], ps, max_pages, Variant::production) : i64(0);
  };
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 n = live(r);
    c.res.lanes += n;
    for (i64 col = 0; col < n && !c.res.mismatch; ++col) {
      const i64 tok = b.r2t[sz(b.rows[sz(r)] * b.C + col * ps)];
      c.model_lane("out", r * ocols + col, out[sz(r * ocols + col)], [&] { return model_entry(p, tok); });
    }
  }
  // Prefix-only: every other element (columns past the live prefix, guard rows) keeps its contents.
  untouched_model(c, "out", out, initial, orows, ocols, live);
}

void case_read_table(Ctx& c) {
  c.variant = c.choose_variant({Variant::b09_no_padding_guard, Variant::b10_no_max_pages_bound,
                                Variant::e02_minus_one_sentinel, Variant::e10_batch_index_rows,
                                Variant::e01_no_column_bound, Variant::e09_floor_pages});
  const i64 ps = b09_ps(c, pick_ps(c.rng, false)), M = pick_m(c.rng);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  const i64 max_pages = std::max<i64>(1, table_cols(c, ps));
  const i64 delta = c.rng.pick<i64>({0, 0, 1, ps + 1, 2 * ps});
  const double pad = table_pad(c, ps);
  // B10 / E01 read (and write) past max_pages: their extra columns stay inside the row's guard
  // columns. A spill into the next row would be written by two GPU blocks (that row's own column
  // 0.. and this row's spill) in no fixed order, so GPU and host could disagree by a race, not by
  // a bug (seen: seed 1, case 227 on an H200).
  const i64 extra_cols = spill_cols(c);
  const i64 gc = c.rng.uniform(extra_cols, extra_cols + 7);
  const i64 ocols = max_pages + gc;
  // Lengths so that every read column (B10: up to max_pages + extra_cols) stays inside req_to_token.
  Batch b = make_batch(c, p, max_pages + extra_cols, (max_pages + extra_cols) * ps - delta, pad);
  for (auto& l : b.lens) l = std::max<i64>(0, l);
  spill_lens(c, b, max_pages, extra_cols, ps, delta);
  const bool zero_tail = c.rng.chance(0.4);
  const i64 orows = b.B + 1 + c.rng.uniform(0, 2);  // guard rows
  c.geo.kv("max_pages", max_pages).kv("delta", delta).kv("zero_tail", zero_tail)
      .kv("out", std::to_string(orows) + "x" + std::to_string(ocols));
  std::vector<i32> out = stale<i32>(c, orows * ocols);
  const std::vector<i32> initial = out;
  c.host_route([&](Variant v) {
    out = initial;
    translate::read_table({{b.r2t.data(), b.R, b.C, b.C, 1}, cvec(b.rows), cvec(b.lens), delta, max_pages, cvec(p.v2p), ps, M,
                           {out.data(), orows, ocols, ocols, 1}, zero_tail, v});
  });
  if (!c.host_only) {
  i32* d_out = c.dev.up(initial);
  launch_read_table({{c.dev.up(b.r2t), b.R, b.C, b.C, 1}, {c.dev.up(b.rows), b.B}, {c.dev.up(b.lens), b.B}, delta, max_pages,
                     {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, {d_out, orows, ocols, ocols, 1}, zero_tail, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", out, d_out);
  }
  // The model side uses the production column count: a forced E09 (floor) then misses the last
  // partial page, and B10 / E01 spills show up as touched guard columns.
  const auto live = [&](i64 r) {
    return r < b.B ? lanes::table_columns<i64>(b.lens[sz(r)] + delta, ps, max_pages, Variant::production) : i64(0);
  };
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 n = live(r);
    c.res.lanes += n;
    for (i64 col = 0; col < n && !c.res.mismatch; ++col) {
      const i64 tok = b.r2t[sz(b.rows[sz(r)] * b.C + col * ps)];
      c.model_lane("out", r * ocols + col, out[sz(r * ocols + col)], [&] { return model_entry(p, tok); });
    }
    // §4.4 zero_tail: the sink 0 on [live, max_pages) (E02 fills the pad -1).
    if (zero_tail)
      for (i64 col = n; col < max_pages && !c.res.mismatch; ++col)
        c.model_lane("out", r * ocols + col, out[sz(r * ocols + col)], [] { return i64(0); });
  }
  if (zero_tail)  // and on every column < max_pages of the padded rows [B, out.rows)
    for (i64 r = b.B; r < orows && !c.res.mismatch; ++r)
      for (i64 col = 0; col < max_pages && !c.res.mismatch; ++col)
        c.model_lane("out", r * ocols + col, out[sz(r * ocols + col)], [] { return i64(0); });
  // Every element outside the live prefix (and outside [0, max_pages) with zero_tail) is untouched.
  untouched_model(c, "out", out, initial, orows, ocols, [&](i64 r) { return zero_tail ? max_pages : live(r); });
}

void case_flashmla(Ctx& c) {
  c.variant = c.choose_variant({Variant::era_b_unclamped, Variant::b09_no_padding_guard, Variant::e10_batch_index_rows,
                                Variant::e09_floor_pages});
  const bool static_kernel = c.variant == Variant::production && c.rng.chance(0.2);
  const i64 ps = b09_ps(c, pick_ps(c.rng, false)), M = static_kernel ? 1 : pick_m(c.rng);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  const i64 W = std::max<i64>(1, table_cols(c, ps));
  const double pad = table_pad(c, ps);
  Batch b = make_batch(c, p, W + 2, (W + 1) * ps, pad);  // lengths may exceed W pages: bounded by W
  const bool with_start = c.rng.chance(0.5);
  std::vector<i64> start(sz(b.B), 0);
  if (with_start)
    for (auto& s : start) s = c.rng.uniform(0, ps);
  c.geo.kv("W", W).kv("kv_start_idx", with_start).kv("static", static_kernel);
  std::vector<i32> out(sz(b.B * W), -1);  // prefilled with -1 by the backend
  const std::vector<i32> initial = out;
  const Vec<const i64> hv2p = static_kernel ? Vec<const i64>{} : cvec(p.v2p);
  c.host_route([&](Variant v) {
    out = initial;
    translate::flashmla_block_table({{b.r2t.data(), b.R, b.C, b.C, 1}, cvec(b.rows), cvec(b.lens), with_start ? cvec(start) : Vec<const i64>{},
                                     hv2p, ps, M, {out.data(), b.B, W, W, 1}, v});
  });
  if (!c.host_only) {
  i32* d_out = c.dev.up(initial);
  const Vec<const i64> dv2p = static_kernel ? Vec<const i64>{} : Vec<const i64>{c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
  launch_flashmla_block_table({{c.dev.up(b.r2t), b.R, b.C, b.C, 1}, {c.dev.up(b.rows), b.B}, {c.dev.up(b.lens), b.B},
                               with_start ? Vec<const i64>{c.dev.up(start), b.B} : Vec<const i64>{}, dv2p, ps, M,
                               {d_out, b.B, W, W, 1}, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("kv_indices", out, d_out);
  }
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 n = std::min<i64>(lanes::ceil_div<i64>(b.lens[sz(r)], ps), W);
    c.res.lanes += n;
    for (i64 col = 0; col < n && !c.res.mismatch; ++col) {
      const i64 tok = b.r2t[sz(b.rows[sz(r)] * b.C + start[sz(r)] + col * ps)];
      c.model_lane("kv_indices", r * W + col, out[sz(r * W + col)],
                   [&] { return static_kernel ? tok / ps : model_entry(p, tok); });  // static: trunc division (I10)
    }
  }
  untouched_model(c, "kv_indices", out, initial, b.B, W,
                  [&](i64 r) { return std::min<i64>(lanes::ceil_div<i64>(b.lens[sz(r)], ps), W); });
}

void case_read_stream(Ctx& c) {
  c.variant = Variant::production;
  const i64 ps = pick_ps(c.rng, false);
  const i64 cols = std::max<i64>(1, std::min<i64>(512, c.scale / ps));
  const i64 B = c.rng.uniform(0, 64);
  const i64 trows = B + c.rng.uniform(0, 2);
  std::vector<i32> table(sz(std::max<i64>(trows, 1) * cols));
  for (auto& e : table) e = c.rng.chance(0.1) ? 0 : static_cast<i32>(c.rng.uniform(0, 1 << 16));
  const bool with_start = c.rng.chance(0.5);
  std::vector<i64> start(sz(B), 0);
  std::vector<i32> indptr(sz(B + 1), 0);
  for (i64 b = 0; b < B; ++b) {
    if (with_start) start[sz(b)] = c.rng.uniform(0, 2 * ps);
    const i64 len = ragged_len(c, ps, std::max<i64>(0, cols * ps - start[sz(b)]));
    indptr[sz(b + 1)] = static_cast<i32>(indptr[sz(b)] + len);
  }
  const i64 total = indptr[sz(B)];
  const i64 slack = c.rng.uniform(0, 50);
  c.geo.kv("ps", ps).kv("B", B).kv("table_cols", cols).kv("kv_start_idx", with_start).kv("lanes", total);
  std::vector<i32> stream = stale<i32>(c, total + slack);
  const std::vector<i32> initial = stream;
  const i64 tr = std::max<i64>(trows, 1);
  translate::read_stream({{table.data(), tr, cols, cols, 1}, cvec(indptr), with_start ? cvec(start) : Vec<const i64>{}, ps, mvec(stream)});
  if (!c.host_only) {
  i32* d_stream = c.dev.up(initial);
  launch_read_stream({{c.dev.up(table), tr, cols, cols, 1}, {c.dev.up(indptr), B + 1},
                      with_start ? Vec<const i64>{c.dev.up(start), B} : Vec<const i64>{}, ps, {d_stream, ssz(initial.size())}}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("stream", stream, d_stream);
  }
  c.res.lanes += total;
}

void case_eager(Ctx& c) {
  c.variant = c.choose_variant({Variant::b02_rank2_index_select});
  i64 ps = pick_ps(c.rng, false);
  if (c.variant == Variant::b02_rank2_index_select && ps == 1) ps = 2;  // ps = 1 throws: tested separately
  const i64 M = pick_m(c.rng);
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, std::max<i64>(2, c.scale / ps + 2)), false);
  const i64 cols = std::max<i64>(1, table_cols(c, ps));
  const i64 rows = c.rng.uniform(0, std::max<i64>(1, std::min<i64>(256, c.scale / cols)));
  const bool alias = c.rng.chance(0.3);
  std::vector<i64> pt(sz(rows * cols));
  for (auto& t : pt) {
    t = token(c, p, 0.05);
    if (t > 0) t -= t % ps;  // page-start tokens
  }
  c.geo.kv("rows", rows).kv("cols", cols).kv("alias", alias);
  std::vector<i64> out = alias ? pt : stale<i64>(c, rows * cols);
  const std::vector<i64> initial = out;
  const std::vector<i64> pt_host = pt;
  translate::eager_funnel({{alias ? out.data() : pt_host.data(), rows, cols, cols, 1}, cvec(p.v2p), ps, M, {out.data(), rows, cols, cols, 1}, c.variant});
  if (!c.host_only) {
  i64* d_out = c.dev.up(initial);
  const i64* d_pt = alias ? d_out : c.dev.up(pt);
  launch_eager_funnel({{d_pt, rows, cols, cols, 1}, {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())}, ps, M, {d_out, rows, cols, cols, 1}, c.variant}, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("out", out, d_out);
  }
  c.res.lanes += rows * cols;
  for (i64 i = 0; i < rows * cols && !c.res.mismatch; ++i)
    c.model_lane("out", i, out[sz(i)], [&] { return model::kernel_id(p.v2p, ps, M, model::VirtualToken(pt[sz(i)])).value / ps; });
}

void case_decode(Ctx& c) {
  c.variant = c.choose_variant({Variant::era_b_unclamped, Variant::b09_no_padding_guard, Variant::e10_batch_index_rows});
  const i64 ps = pick_ps(c.rng, true);
  int log2 = 0;
  while ((i64(1) << log2) < ps) ++log2;
  // Modes: 0 static, 1 Era B remap, 2 Era C copy, 3 Era D prefix sums only.
  i64 mode = c.variant == Variant::production ? c.rng.uniform(0, 3) : 1;
  const i64 M = mode == 1 ? pick_m(c.rng) : 1;
  Pool p = make_pool(c, ps, M, c.rng.uniform(2, 1 << 16), true);
  const bool swa = mode != 3 && c.rng.chance(0.3);
  Pool sp = swa ? make_pool(c, ps, pick_m(c.rng), c.rng.uniform(2, 1 << 14), true) : Pool{};
  if (swa) sp.v2p.resize(p.v2p.size() > sp.v2p.size() ? p.v2p.size() : sp.v2p.size(), -1);  // owner-sized (B12)
  if (swa) sp.v2p.back() = -1;
  const i64 max_seq_pages = table_cols(c, ps);
  const i64 delta = c.rng.pick<i64>({0, 0, 1, ps});
  Batch b = make_batch(c, p, max_seq_pages, std::max<i64>(0, max_seq_pages * ps + ps - delta), table_pad(c, ps, true));
  const i64 gc = c.rng.uniform(0, 5);
  const i64 pcols = max_seq_pages + gc;
  c.geo.kv("mode", mode).kv("swa", swa).kv("max_seq_pages", max_seq_pages).kv("delta", delta);
  std::vector<i32> kpt;  // Era C canonical table to copy
  if (mode == 2) {
    kpt.resize(sz(std::max<i64>(b.B, 1) * max_seq_pages));
    for (auto& e : kpt) e = static_cast<i32>(c.rng.uniform(0, 1 << 20));
  }
  std::vector<i32> cache = stale<i32>(c, b.B + 2), cu = stale<i32>(c, b.B + 3);
  std::vector<i32> pt = stale<i32>(c, std::max<i64>(b.B, 1) * pcols), spt = stale<i32>(c, std::max<i64>(b.B, 1) * pcols);
  const auto i_cache = cache, i_cu = cu, i_pt = pt, i_spt = spt;
  DecodeMetadataArgs h;
  h.seq_lens = cvec(b.lens);
  h.req_to_token = {b.r2t.data(), b.R, b.C, b.C, 1};
  h.req_pool_indices = cvec(b.rows);
  h.max_seq_pages = max_seq_pages;
  h.seq_len_delta = delta;
  h.page_size = ps;
  if (mode == 1) h.v2p = cvec(p.v2p);
  h.multiplier = M;
  if (mode == 2) h.kernel_page_table = {kpt.data(), std::max<i64>(b.B, 1), max_seq_pages, max_seq_pages, 1};
  h.skip_page_table = mode == 3;
  h.cache_seqlens = mvec(cache);
  h.cu_seqlens_k = mvec(cu);
  h.page_table = {pt.data(), std::max<i64>(b.B, 1), pcols, pcols, 1};
  if (swa) {
    h.swa_v2p = cvec(sp.v2p);
    h.swa_multiplier = sp.M;
    h.swa_page_table = {spt.data(), std::max<i64>(b.B, 1), pcols, pcols, 1};
  }
  c.host_route([&](Variant v) {
    std::copy(i_cache.begin(), i_cache.end(), cache.begin());  // in place: h points into these
    std::copy(i_cu.begin(), i_cu.end(), cu.begin());
    std::copy(i_pt.begin(), i_pt.end(), pt.begin());
    std::copy(i_spt.begin(), i_spt.end(), spt.begin());
    h.variant = v;
    translate::decode_metadata(h);
  });
  h.variant = c.variant;

  if (!c.host_only) {
  DecodeMetadataArgs d = h;
  d.seq_lens = {c.dev.up(b.lens), b.B};
  d.req_to_token.data = c.dev.up(b.r2t);
  d.req_pool_indices = {c.dev.up(b.rows), b.B};
  if (mode == 1) d.v2p = {c.dev.up_v2p(p.v2p), ssz(p.v2p.size())};
  if (mode == 2) d.kernel_page_table.data = c.dev.up(kpt);
  i32* d_cache = c.dev.up(i_cache);
  i32* d_cu = c.dev.up(i_cu);
  i32* d_pt = c.dev.up(i_pt);
  i32* d_spt = c.dev.up(i_spt);
  d.cache_seqlens.data = d_cache;
  d.cu_seqlens_k.data = d_cu;
  d.page_table.data = d_pt;
  if (swa) {
    d.swa_v2p = {c.dev.up_v2p(sp.v2p), ssz(sp.v2p.size())};
    d.swa_page_table.data = d_spt;
  }
  launch_decode_metadata(d, nullptr);
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  c.compare("cache_seqlens", cache, d_cache);
  c.compare("cu_seqlens_k", cu, d_cu);
  c.compare("page_table", pt, d_pt);
  if (swa) c.compare("swa_page_table", spt, d_spt);
  }
  i64 total = 0;
  for (i64 r = 0; r < b.B && !c.res.mismatch; ++r) {
    const i64 len = b.lens[sz(r)] + delta;
    total += len;
    c.model_lane("cu_seqlens_k", r + 1, cu[sz(r + 1)], [&] { return total; });
    if (mode == 3) continue;
    const i64 n = lanes::decode_columns<i64>(len, ps, log2, max_seq_pages);
    c.res.lanes += n * (swa ? 2 : 1);
    for (i64 col = 0; col < n && !c.res.mismatch; ++col) {
      const i64 tok = b.r2t[sz(b.rows[sz(r)] * b.C + col * ps)];
      c.model_lane("page_table", r * pcols + col, pt[sz(r * pcols + col)], [&]() -> i64 {
        if (mode == 2) return kpt[sz(r * max_seq_pages + col)];
        if (mode == 0) return tok < 0 ? -1 : tok / ps;  // static: arithmetic shift of the token
        return model_entry(p, tok);
      });
    }
  }
  c.res.lanes += b.B;
}

void run_kernel_case(Ctx& c) {
  switch (c.kernel) {
    case DiffKernel::token_translate_i64: return case_token<i64>(c, false);
    case DiffKernel::token_translate_i32: return case_token<i32>(c, false);
    case DiffKernel::swa_translate_i64: return case_token<i64>(c, true);
    case DiffKernel::swa_translate_i32: return case_token<i32>(c, true);
    case DiffKernel::flashmla_block_table: return case_flashmla(c);
    case DiffKernel::canonical_page_table: return case_canonical(c, false);
    case DiffKernel::full_prefill_table: return case_canonical(c, true);
    case DiffKernel::read_table: return case_read_table(c);
    case DiffKernel::read_stream: return case_read_stream(c);
    case DiffKernel::decode_metadata: return case_decode(c);
    case DiffKernel::eager_funnel: return case_eager(c);
    case DiffKernel::kv_indices_inplace: return case_kv_inplace(c);
    case DiffKernel::write_loc: return case_write_loc(c);
    case DiffKernel::mamba_translate: return case_mamba(c);
    case DiffKernel::dcp_read_translate: return case_dcp_read(c);
    case DiffKernel::transfer_ids: return case_transfer(c);
    case DiffKernel::envelope_moves: return case_envelope(c);
  }
}

std::string replay_line(const DiffOptions& o, i64 idx) {
  std::ostringstream s;
  s << "kvaddr diff --seed " << o.seed << " --first-case " << idx << " --cases 1 --case-lanes " << o.max_case_lanes;
  if (o.force_variant) s << " --force-variant " << kvaddr::to_string(*o.force_variant);
  if (o.force_route) s << " --force-route " << kvaddr::to_string(*o.force_route);
  if (o.only) s << " --kernel " << to_string(*o.only);
  if (o.production_only) s << " --production-only";
  if (o.host_only) s << " --host-only";
  return s.str();
}

void check_shard(const DiffOptions& o) {
  if (o.shard_count < 1) throw InvalidArgument("shard_count", std::to_string(o.shard_count), "must be at least 1");
  if (o.shard_index < 0 || o.shard_index >= o.shard_count) {
    throw InvalidArgument("shard_index", std::to_string(o.shard_index),
                          "must be in [0, " + std::to_string(o.shard_count - 1) + "]");
  }
  if (o.shard_count > 1 && o.min_lanes > 0) {
    throw InvalidArgument("min_lanes", std::to_string(o.min_lanes), "cannot be combined with shards (use --cases)");
  }
}

}  // namespace

std::string_view to_string(DiffKernel k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  return i < kNames.size() ? kNames[i] : "unknown";
}
std::optional<DiffKernel> parse_diff_kernel(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<DiffKernel>(i);
  return std::nullopt;
}
Route route_of(DiffKernel k) noexcept {
  switch (k) {
    case DiffKernel::token_translate_i64:
    case DiffKernel::token_translate_i32: return Route::token_translate;
    case DiffKernel::flashmla_block_table: return Route::flashmla_block_table;
    case DiffKernel::canonical_page_table: return Route::canonical_page_table;
    case DiffKernel::read_table:
    case DiffKernel::read_stream: return Route::read_table;
    case DiffKernel::decode_metadata: return Route::decode_metadata;
    case DiffKernel::eager_funnel: return Route::eager_funnel;
    case DiffKernel::kv_indices_inplace: return Route::kv_indices_inplace;
    case DiffKernel::write_loc: return Route::write_loc;
    case DiffKernel::swa_translate_i64:
    case DiffKernel::swa_translate_i32: return Route::swa_translate;
    case DiffKernel::mamba_translate: return Route::mamba_translate;
    case DiffKernel::full_prefill_table: return Route::full_prefill_table;
    case DiffKernel::dcp_read_translate: return Route::dcp_read_translate;
    case DiffKernel::transfer_ids:
    case DiffKernel::envelope_moves: return Route::transfer_ids;
  }
  return Route::token_translate;
}

DiffReport run_differential(const DiffOptions& o) {
  check_shard(o);
  DiffReport rep;
  rep.seed = o.seed;
  std::string why;
  if (!o.host_only && !gpu_available(&why)) {
    rep.skipped = true;
    rep.skip_reason = "no CUDA GPU: " + why;
    return rep;
  }
  rep.per_kernel.resize(kDiffKernelCount);
  for (int k = 0; k < kDiffKernelCount; ++k) rep.per_kernel[sz(k)].kernel = static_cast<DiffKernel>(k);
  for (i64 n = 0;; ++n) {
    const bool more_cases = n < o.cases;
    const bool more_lanes = rep.lanes_translated < o.min_lanes && n < o.max_cases;
    if (!more_cases && !more_lanes) break;
    const i64 idx = o.first_case + n;
    if (idx % o.shard_count != o.shard_index) continue;
    const u64 key = case_key(o.seed, idx, o.max_case_lanes);
    DiffKernel kernel = o.only ? *o.only : static_cast<DiffKernel>(static_cast<i64>(key % kDiffKernelCount));
    if (!o.only && o.force_route) {
      std::vector<DiffKernel> of_route;
      for (int k = 0; k < kDiffKernelCount; ++k)
        if (route_of(static_cast<DiffKernel>(k)) == *o.force_route) of_route.push_back(static_cast<DiffKernel>(k));
      if (!of_route.empty()) kernel = of_route[static_cast<std::size_t>(key % of_route.size())];
    }
    Ctx c(kernel, key, std::max<i64>(1, o.max_case_lanes), o.production_only, o.compare_model);
    c.host_only = o.host_only;
    c.forced = o.force_variant;
    c.proto.kernel = kernel;
    c.proto.route = route_of(kernel);
    c.proto.seed = o.seed;
    c.proto.case_index = idx;
    c.proto.max_case_lanes = o.max_case_lanes;
    c.proto.replay = replay_line(o, idx);
    try {
      run_kernel_case(c);
      // The host route threw on the planted variant and the GPU kernel still matched production:
      // the host's exception is the kill, as in host-only runs.
      if (!c.res.mismatch && !c.host_error.empty()) c.fail("error", {}, 0, c.host_error);
    } catch (const std::exception& e) {
      c.proto.variant = c.variant;
      c.fail("error", {}, 0, e.what());
    }
    if (c.res.mismatch) c.res.mismatch->variant = c.variant;
    ++rep.cases_run;
    rep.lanes_translated += c.res.lanes;
    rep.lanes_compared += c.res.compared;
    rep.model_lanes_compared += c.res.model_compared;
    auto& pk = rep.per_kernel[static_cast<std::size_t>(kernel)];
    ++pk.cases;
    pk.lanes += c.res.lanes;
    if (c.res.mismatch) {
      rep.first_mismatch = std::move(c.res.mismatch);
      break;
    }
  }
  return rep;
}

DiffReport replay_case(u64 seed, i64 case_index, i64 max_case_lanes) {
  DiffOptions o;
  o.seed = seed;
  o.first_case = case_index;
  o.cases = 1;
  o.max_case_lanes = max_case_lanes;
  return run_differential(o);
}

std::string to_json(const DiffReport& r) {
  nlohmann::json j;
  j["skipped"] = r.skipped;
  if (r.skipped) j["skip_reason"] = r.skip_reason;
  j["ok"] = r.ok();
  j["seed"] = r.seed;
  j["cases_run"] = r.cases_run;
  j["lanes_translated"] = r.lanes_translated;
  j["lanes_compared"] = r.lanes_compared;
  j["model_lanes_compared"] = r.model_lanes_compared;
  auto& pk = j["per_kernel"] = nlohmann::json::object();
  for (const auto& k : r.per_kernel) pk[std::string(to_string(k.kernel))] = {{"cases", k.cases}, {"lanes", k.lanes}};
  if (r.first_mismatch) {
    const Mismatch& m = *r.first_mismatch;
    nlohmann::json mm{{"kernel", to_string(m.kernel)}, {"route", to_string(m.route)}, {"variant", to_string(m.variant)},
                      {"seed", m.seed}, {"case_index", m.case_index}, {"max_case_lanes", m.max_case_lanes},
                      {"against", m.against}, {"geometry", m.geometry}, {"differing_lanes", m.differing_lanes},
                      {"detail", m.detail}, {"replay", m.replay}};
    auto& lanes = mm["lanes"] = nlohmann::json::array();
    for (const auto& l : m.lanes)
      lanes.push_back({{"buffer", l.buffer}, {"index", l.index}, {"expected", l.expected}, {"actual", l.actual}});
    j["first_mismatch"] = mm;
  } else {
    j["first_mismatch"] = nullptr;
  }
  return j.dump();
}

std::string to_text(const DiffReport& r) {
  std::ostringstream s;
  if (r.skipped) {
    s << "gpu diff: skipped (" << r.skip_reason << ")\n";
    return s.str();
  }
  s << "gpu diff: seed " << r.seed << ", " << r.cases_run << " cases, " << r.lanes_translated << " translated lanes, "
    << r.lanes_compared << " elements compared GPU vs host, " << r.model_lanes_compared << " host lanes vs model: "
    << (r.ok() ? "OK" : "MISMATCH") << "\n";
  for (const auto& k : r.per_kernel)
    if (k.cases) s << "  " << to_string(k.kernel) << ": " << k.cases << " cases, " << k.lanes << " lanes\n";
  if (r.first_mismatch) {
    const Mismatch& m = *r.first_mismatch;
    s << "first mismatch (" << m.against << "): kernel " << to_string(m.kernel) << ", route " << to_string(m.route)
      << ", variant " << to_string(m.variant) << ", seed " << m.seed << ", case " << m.case_index << "\n  geometry: "
      << m.geometry << "\n  differing lanes: " << m.differing_lanes << "\n";
    for (const auto& l : m.lanes)
      s << "    " << l.buffer << "[" << l.index << "]: expected " << l.expected << ", got " << l.actual << "\n";
    if (!m.detail.empty()) s << "  detail: " << m.detail << "\n";
    s << "  replay: " << m.replay << "\n";
  }
  return s.str();
}

}  // namespace kvaddr::gpu
