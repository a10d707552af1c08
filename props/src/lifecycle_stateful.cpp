// Stateful lifecycle campaign: random configurations and command histories, swarm weights, the
// lifecycle rules after every command.
#include "kvaddr/props/lifecycle.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <string>

#include "kvaddr/gen/rng.hpp"
#include "kvaddr/model/errors.hpp"

namespace kvaddr::props::lifecycle {

namespace {

// gen/'s stream; every range below is non-empty, drawn with between() (one draw each).
using Rng = kvaddr::gen::SplitMix64;

lc::SimConfig random_config(Rng& rng) {
  lc::SimConfig c;
  constexpr std::int64_t ps[] = {1, 2, 4, 8};
  c.ps_full = ps[rng.between(0, 3)];
  c.swa_ratio = rng.between(1, 3);
  c.layers = rng.between(1, 4);
  c.dcp_size = rng.between(1, 2);
  c.max_draft = rng.between(0, 3);
  c.context_pages = rng.between(2, 6);
  c.batch = rng.between(1, 4);
  c.swa_window_pages = rng.between(2, 3);
  c.full_pages = 64;
  c.log2_full_page_bytes = rng.between(24, 28);
  return c;
}

std::string describe(const lc::SimConfig& c) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "ps_full=%lld swa_ratio=%lld layers=%lld dcp=%lld max_draft=%lld context_pages=%lld batch=%lld "
                "window=%lld log2_page_bytes=%lld",
                static_cast<long long>(c.ps_full), static_cast<long long>(c.swa_ratio),
                static_cast<long long>(c.layers), static_cast<long long>(c.dcp_size),
                static_cast<long long>(c.max_draft), static_cast<long long>(c.context_pages),
                static_cast<long long>(c.batch), static_cast<long long>(c.swa_window_pages),
                static_cast<long long>(c.log2_full_page_bytes));
  return buf;
}

// Command weights of one run. Swarm: each kind is on with probability 1/2 (admit and a step kind always
// on, so that requests exist and run), with a weight in 1..8.
std::array<std::uint32_t, lc::kCommands> weights(Rng& rng, bool swarm) {
  std::array<std::uint32_t, lc::kCommands> w{};
  for (auto& x : w) x = 2;
  w[static_cast<std::size_t>(lc::Command::step)] = 4;
  w[static_cast<std::size_t>(lc::Command::spec_step)] = 4;
  if (!swarm) return w;
  for (auto& x : w) x = (rng.next() & 1) ? static_cast<std::uint32_t>(rng.between(1, 8)) : 0;
  w[static_cast<std::size_t>(lc::Command::admit)] = static_cast<std::uint32_t>(rng.between(1, 8));
  if (w[static_cast<std::size_t>(lc::Command::step)] == 0 && w[static_cast<std::size_t>(lc::Command::spec_step)] == 0)
    w[static_cast<std::size_t>(rng.between(0, 1) ? lc::Command::step : lc::Command::spec_step)] = 4;
  return w;
}

lc::Command draw(Rng& rng, const std::array<std::uint32_t, lc::kCommands>& w, std::uint32_t total) {
  auto r = static_cast<std::uint32_t>(rng.next() % total);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (r < w[i]) return static_cast<lc::Command>(i);
    r -= w[i];
  }
  return lc::Command::step;
}

}  // namespace

CampaignReport run_campaign(const CampaignOptions& o) {
  require(o.total_steps >= 1, "total_steps", o.total_steps, "must be >= 1");
  require(o.run_length >= 1, "run_length", o.run_length, "must be >= 1");
  require(o.shard_count >= 1, "shard_count", o.shard_count, "must be >= 1");
  require(o.shard_index >= 0 && o.shard_index < o.shard_count, "shard_index", o.shard_index,
          "must be in [0, shard_count - 1]");
  CampaignReport rep;
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t runs = o.total_steps / o.run_length + (o.total_steps % o.run_length != 0 ? 1 : 0);
  for (std::int64_t r = o.shard_index; r < runs; r = runs - r > o.shard_count ? r + o.shard_count : runs) {
    // Run r's stream is seeded with draw r of the campaign stream SplitMix64(seed): what run r gets unsharded.
    Rng rng(kvaddr::gen::nth(o.seed, static_cast<std::uint64_t>(r)));
    const std::int64_t length = std::min(o.run_length, o.total_steps - r * o.run_length);
    const lc::SimConfig cfg = random_config(rng);
    const auto w = weights(rng, o.swarm);
    std::uint32_t total = 0;
    for (auto x : w) total += x;
    lc::LifecycleSim sim(cfg, o.fault);
    std::deque<std::string> history;
    ++rep.runs;
    for (std::int64_t i = 0; i < length; ++i) {
      const lc::Command c = draw(rng, w, total);
      const std::uint64_t pick = rng.next();
      const lc::Effects fx = sim.run(c, pick);
      ++rep.steps;
      ++rep.commands[static_cast<std::size_t>(c)];
      rep.moves += fx.moves;
      rep.replays += fx.replayed ? 1 : 0;
      rep.uses += static_cast<std::int64_t>(fx.uses.size());
      history.push_back(std::string(lc::to_string(c)) + "(" + std::to_string(pick % 1000) + ")");
      if (history.size() > 12) history.pop_front();
      const auto v = lc::check_lifecycle(sim, fx);
      if (v.empty()) continue;
      rep.violations += static_cast<std::int64_t>(v.size());
      if (!rep.first) {
        rep.first = v.front();
        rep.first_run = r;
        std::string h;
        for (const auto& s : history) h += (h.empty() ? "" : " ") + s;
        rep.failure = v.front().describe() + "\n  fault " + std::string(lc::to_string(o.fault)) + ", campaign seed " +
                      std::to_string(o.seed) + ", run " + std::to_string(r + 1) + ", step " +
                      std::to_string(i + 1) + " of the run\n  config: " + describe(cfg) +
                      "\n  last commands: " + h;
      }
      if (o.stop_at_first) break;
    }
    if (o.stop_at_first && rep.first) break;
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

std::string summary(const CampaignReport& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "lifecycle: %lld steps, %lld runs, %lld moves, %lld replays, %lld ids judged, %.2f s, "
                "%.0f steps/s: %s",
                static_cast<long long>(r.steps), static_cast<long long>(r.runs), static_cast<long long>(r.moves),
                static_cast<long long>(r.replays), static_cast<long long>(r.uses), r.seconds, r.steps_per_second(),
                r.passed() ? "ok" : "VIOLATION");
  return buf;
}

}  // namespace kvaddr::props::lifecycle
