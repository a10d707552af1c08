#pragma once
// Private to the stateful simulation (stateful.cpp: configuration, commands, the property;
// stateful_checks.cpp: the post-state checks run after every command): the configuration, the
// abstract model and the system under test.
#include <cstdint>
#include <ostream>
#include <vector>

#include "check.hpp"
#include "kvaddr/gen/rng.hpp"
#include "kvaddr/model/pool.hpp"

namespace kvaddr::props::detail::sim {

using model::GrowDirection;
using model::SubPool;
using model::VirtualPage;
using model::VirtualToken;
using u64 = std::uint64_t;

struct SimConfig {
  i64 ps = 1, L = 1, M = 1, num_pages = 2, mpi = 1;
  bool grow_down = false;
  i64 swa_full_pages = 2, swa_pages = 2, swa_L = 1, swa_M = 1;
  bool swa_grow_down = false;
  i64 mamba_slots = 2;
  Variant variant = Variant::production;
};

inline std::ostream& operator<<(std::ostream& os, const SimConfig& c) {
  return os << "SimConfig{ps=" << c.ps << ", L=" << c.L << ", M=" << c.M << ", num_pages=" << c.num_pages
            << ", min_page_index=" << c.mpi << ", grow=" << (c.grow_down ? "down" : "up")
            << ", swa_full_pages=" << c.swa_full_pages << ", swa_pages=" << c.swa_pages << ", swa_L=" << c.swa_L
            << ", swa_M=" << c.swa_M << ", swa_grow=" << (c.swa_grow_down ? "down" : "up")
            << ", mamba_slots=" << c.mamba_slots << "}";
}

// ---- abstract model ---------------------------------------------------------------------------
struct ReqM {
  int uid = 0;
  i64 len = 0;
  i64 pages = 0;
  std::vector<u64> tags;  // per token of the allocated pages; 0 = never written
};
struct SwaReqM {
  int uid = 0;
  i64 pages = 0;
  i64 slid = 0;           // pages [0, slid) slid out of the window (SWA side freed)
  std::vector<u64> tags;  // per token
};
struct MambaM {
  int uid = 0;
  u64 tag = 0;
};
struct SimModel {
  SimConfig cfg;
  std::vector<ReqM> reqs;
  i64 full_live = 0;
  std::vector<SwaReqM> swa;
  i64 swa_full_live = 0, swa_swa_live = 0;
  std::vector<MambaM> mamba;
  int next_uid = 1;
  i64 full_cap() const { return cfg.num_pages - cfg.mpi; }
  i64 swa_full_cap() const { return cfg.swa_full_pages - cfg.mpi; }
  i64 swa_cap() const { return cfg.swa_pages - cfg.mpi; }
};

inline u64 make_tag(int uid, i64 token, u64 salt) {
  return (static_cast<u64>(uid) << 40) ^ (static_cast<u64>(token) << 12) ^ (salt & 0xfff) ^ (u64{1} << 63);
}
inline u64 layer_tag(u64 tag, i64 layer) { return tag ^ (static_cast<u64>(layer + 1) * kvaddr::gen::kGolden >> 1); }

// ---- system under test ------------------------------------------------------------------------
inline model::Geometry geometry(i64 ps, i64 M, i64 pages, i64 L) { return model::Geometry(ps, M, pages, L, 1, 1); }

struct Sim {
  explicit Sim(const SimConfig& c)
      : cfg(c),
        full(geometry(c.ps, c.M, c.num_pages, c.L),
             model::SubPoolOptions{c.mpi, c.grow_down ? GrowDirection::down : GrowDirection::up, true, std::nullopt,
                                   false, {}}),
        swa(geometry(c.ps, c.L, c.swa_full_pages, c.L), geometry(c.ps, c.swa_M, c.swa_pages, c.swa_L),
            model::SwaOptions{c.mpi, GrowDirection::up, c.swa_grow_down ? GrowDirection::down : GrowDirection::up,
                              false}),
        mamba(c.mamba_slots, 1, false) {}
  SimConfig cfg;
  SubPool full;
  std::vector<std::vector<VirtualPage>> req_pages;
  model::SwaComposite swa;
  std::vector<std::vector<VirtualPage>> swa_pages;
  model::MambaSlots mamba;
  std::vector<i64> mamba_ids;
};

// The whole post-state check (stateful_checks.cpp): fails the property (RC_FAIL) on the first
// violation.
void check_all(const SimModel& m, Sim& s);

}  // namespace kvaddr::props::detail::sim
