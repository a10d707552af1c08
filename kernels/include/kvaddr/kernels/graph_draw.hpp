#pragma once
// The value draws of graph mode's fast loop (python/kvaddr/graph_fast.py, docs/harness.md "Graph mode"):
// every lane of every input a captured call reads is a pure function of (seed, case index k, the array's
// job, the lane's row and column). The same functions run on the host (kvaddr._core.graph_draw: the CPU
// tests and the rebuild of a failing case) and on the device (kvaddr._gpu graph kernels, which read k from
// a device-resident counter so that one captured launch draws a new case per replay). Integer arithmetic
// only, so host and device agree bit for bit. The hash is gen/'s SplitMix64 step (gen::mix_step).
//
// The distributions follow kvaddr.graph.redraw at the captured shapes:
//   v2p         a permuted pool (an affine permutation of [0, 2 * num_pages)), tombstones -1 at a rate
//               drawn per case from {0, 0, 10 %, 50 %}, the trailing padding entry -1; mode 1 (mamba)
//               turns tombstones into page 0, mode 2 reduces live pages modulo `mod` (int32 tables).
//   ids         token ids in [0, (num_pages + 1) * ps), 5 % padding -1, 1 % the negative -ps - 1;
//               mode 1 (mamba): negatives -> 0, then modulo num_pages + 1; mode 2 (dcp): live ids * dcp.
//   loc         write locations in [0, (num_pages + 1) * ps * dcp), 10 % of them 0 (the sink).
//   page_table  page-start tokens (page in [0, num_pages]) * ps.
//   r2t         page-major req_to_token rows: each run of ps columns holds one random virtual page
//               (page * ps + offset); a fraction ppm / 10^6 of the page-start tokens is -1.
//   rows        the first lanes of an affine permutation of [0, num_rows) (distinct row ids).
//   lens        lengths in [0, hi].
#include <cstdint>

#include "kvaddr/gen/rng.hpp"

#define KVADDR_GRAPH_HD KVADDR_GEN_HD inline

namespace kvaddr::graph_draw {

enum Kind : std::int32_t { kV2p = 1, kIds = 2, kLoc = 3, kPageTable = 4, kR2t = 5, kRows = 6, kLens = 7 };

// One drawn array: its kind, a tag that makes the arrays of one case independent, and four parameters
// (per kind, in the order of the header comment: v2p {num_pages, mode, mod}; ids {num_pages, ps, mode,
// dcp}; loc {num_pages, ps, dcp}; page_table {num_pages, ps}; r2t {num_pages, ps, padding ppm};
// rows {num_rows}; lens {hi}).
struct Job {
  std::int32_t kind = 0;
  std::int32_t tag = 0;
  std::int64_t p[4] = {0, 0, 0, 0};
};

using gen::mix_step;

// Why job j cannot be drawn (its kind or a parameter outside the range every draw below stays defined in: no
// division by zero, no signed overflow), or nullptr when it can. The bindings (kvaddr._core.graph_draw,
// kvaddr._gpu.graph_draw) refuse such a job with InvalidArgument before drawing anything. The ranges hold every
// job kvaddr.graph_fast plans: num_pages and num_rows <= 2^31, page size <= 2^20 (the generator's bound),
// dcp <= 2^10, ppm <= 10^6, lens' hi <= 2^62.
inline const char* job_error(const Job& j) {
  constexpr std::int64_t kPages = std::int64_t{1} << 31, kPs = std::int64_t{1} << 20, kDcp = std::int64_t{1} << 10;
  const auto in = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return v >= lo && v <= hi; };
  switch (j.kind) {
    case kV2p:
      if (!in(j.p[0], 0, kPages)) return "v2p: num_pages (params[0]) must be in [0, 2^31]";
      if (!in(j.p[1], 0, 2)) return "v2p: mode (params[1]) must be 0, 1 or 2";
      if (!in(j.p[2], 0, kPages)) return "v2p: mod (params[2]) must be in [0, 2^31]";
      return nullptr;
    case kIds:
      if (!in(j.p[0], 0, kPages)) return "ids: num_pages (params[0]) must be in [0, 2^31]";
      if (!in(j.p[1], 1, kPs)) return "ids: page size (params[1]) must be in [1, 2^20]";
      if (!in(j.p[2], 0, 2)) return "ids: mode (params[2]) must be 0, 1 or 2";
      if (!in(j.p[3], 0, kDcp)) return "ids: dcp (params[3]) must be in [0, 2^10]";
      return nullptr;
    case kLoc:
      if (!in(j.p[0], 0, kPages)) return "loc: num_pages (params[0]) must be in [0, 2^31]";
      if (!in(j.p[1], 0, kPs)) return "loc: page size (params[1]) must be in [0, 2^20]";
      if (!in(j.p[2], 0, kDcp)) return "loc: dcp (params[2]) must be in [0, 2^10]";
      return nullptr;
    case kPageTable:
      if (!in(j.p[0], 0, kPages)) return "page_table: num_pages (params[0]) must be in [0, 2^31]";
      if (!in(j.p[1], 0, kPs)) return "page_table: page size (params[1]) must be in [0, 2^20]";
      return nullptr;
    case kR2t:
      if (!in(j.p[0], 0, kPages)) return "r2t: num_pages (params[0]) must be in [0, 2^31]";
      if (!in(j.p[1], 1, kPs)) return "r2t: page size (params[1]) must be in [1, 2^20]";
      if (!in(j.p[2], 0, 1000000)) return "r2t: padding ppm (params[2]) must be in [0, 10^6]";
      return nullptr;
    case kRows: return in(j.p[0], 0, kPages) ? nullptr : "rows: num_rows (params[0]) must be in [0, 2^31]";
    case kLens: return in(j.p[0], 0, std::int64_t{1} << 62) ? nullptr : "lens: hi (params[0]) must be in [0, 2^62]";
    default: return "kind must be a graph_draw kind (1..7)";
  }
}

// The key of one array of case k.
KVADDR_GRAPH_HD std::uint64_t case_key(std::uint64_t seed, std::int64_t k, std::int32_t tag) {
  return mix_step(mix_step(mix_step(seed) ^ static_cast<std::uint64_t>(k)) ^ static_cast<std::uint64_t>(tag));
}

// An independent 64-bit word per (key, salt, lane).
KVADDR_GRAPH_HD std::uint64_t word(std::uint64_t key, std::uint32_t salt, std::uint64_t lane) {
  return mix_step(key ^ mix_step(lane * 16u + salt));
}

// True with probability ppm / 10^6.
KVADDR_GRAPH_HD bool hit(std::uint64_t w, std::int64_t ppm) {
  return static_cast<std::int64_t>((w >> 24) % 1000000u) < ppm;
}

KVADDR_GRAPH_HD std::uint64_t gcd(std::uint64_t a, std::uint64_t b) {
  while (b != 0) {
    const std::uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// Lane i of an affine permutation of [0, m) chosen by `key`: (a * i + b) mod m with gcd(a, m) = 1.
KVADDR_GRAPH_HD std::int64_t permute(std::uint64_t key, std::int64_t m, std::int64_t i) {
  if (m <= 1) return 0;
  const auto um = static_cast<std::uint64_t>(m);
  std::uint64_t a = 1 + word(key, 1, 0) % (um - 1);
  while (gcd(a, um) != 1) a = a + 1 == um ? 1 : a + 1;
  const std::uint64_t b = word(key, 2, 0) % um;
  return static_cast<std::int64_t>((a * static_cast<std::uint64_t>(i) + b) % um);
}

KVADDR_GRAPH_HD std::int64_t below(std::uint64_t w, std::int64_t n) {
  return n <= 0 ? 0 : static_cast<std::int64_t>(w % static_cast<std::uint64_t>(n));
}

// The value of lane (r, c) of job j in case k of `seed` (1-D arrays: r = 0, c = the lane).
KVADDR_GRAPH_HD std::int64_t value(const Job& j, std::uint64_t seed, std::int64_t k, std::int64_t r, std::int64_t c) {
  const std::uint64_t key = case_key(seed, k, j.tag);
  switch (j.kind) {
    case kV2p: {
      const std::int64_t pages = j.p[0];
      if (c >= pages) return -1;  // the trailing padding entry
      const std::int64_t rates[4] = {0, 0, 100000, 500000};
      const std::int64_t rate = rates[word(key, 3, 0) % 4u];
      std::int64_t v = permute(key, pages * 2 > 1 ? pages * 2 : 1, c);
      if (hit(word(key, 4, static_cast<std::uint64_t>(c)), rate)) v = -1;
      if (j.p[1] == 1 && v < 0) v = 0;
      if (j.p[1] == 2 && v >= 0) v %= (j.p[2] > 1 ? j.p[2] : 1);
      return v;
    }
    case kIds: {
      const std::int64_t pages = j.p[0], ps = j.p[1];
      const auto lane = static_cast<std::uint64_t>(c);
      std::int64_t v = below(word(key, 5, lane), (pages + 1) * ps);
      if (hit(word(key, 6, lane), 50000)) v = -1;
      if (hit(word(key, 7, lane), 10000)) v = -ps - 1;
      if (j.p[2] == 1) v = (v < 0 ? 0 : v) % (pages + 1);
      if (j.p[2] == 2 && v >= 0) v *= j.p[3];
      return v;
    }
    case kLoc: {
      const auto lane = static_cast<std::uint64_t>(c);
      const std::int64_t v = below(word(key, 5, lane), (j.p[0] + 1) * j.p[1] * j.p[2]);
      return hit(word(key, 6, lane), 100000) ? 0 : v;
    }
    case kPageTable: {
      const auto lane = (static_cast<std::uint64_t>(r) << 32) | static_cast<std::uint64_t>(c);
      return below(word(key, 5, lane), j.p[0] + 1) * j.p[1];
    }
    case kR2t: {
      const std::int64_t ps = j.p[1];
      const auto page = (static_cast<std::uint64_t>(r) << 32) | static_cast<std::uint64_t>(c / ps);
      const std::int64_t off = c % ps;
      if (off == 0 && hit(word(key, 6, page), j.p[2])) return -1;
      return below(word(key, 5, page), j.p[0] + 1) * ps + off;
    }
    case kRows: return permute(key, j.p[0], c);
    case kLens: return below(word(key, 5, static_cast<std::uint64_t>(c)), j.p[0] + 1);
    default: return 0;
  }
}

}  // namespace kvaddr::graph_draw
