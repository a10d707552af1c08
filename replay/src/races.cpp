// Racing writes of spilling variants (kvaddr/replay/races.hpp).
#include "kvaddr/replay/races.hpp"

#include <algorithm>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::replay {

using I64 = std::vector<std::int64_t>;

bool rows_leave_their_own(const I64& lens, std::int64_t delta, std::int64_t page_size, std::int64_t stride) {
  return std::any_of(lens.begin(), lens.end(), [&](std::int64_t len) {
    std::int64_t kv = 0;
    if (__builtin_add_overflow(len, delta, &kv) || kv < 0 || page_size < 1) return true;  // the route decides
    return kv / page_size + (kv % page_size != 0 ? 1 : 0) > stride;
  });
}

std::vector<std::optional<std::int64_t>> stored_lanes(const I64& before, const std::function<I64(const I64&)>& run) {
  I64 flipped = before;
  for (auto& x : flipped) x ^= 1;  // stays inside int32 for int32 buffers; differs in every lane
  const I64 a = run(before);
  const I64 b = run(flipped);
  std::vector<std::optional<std::int64_t>> out(before.size());
  for (std::size_t i = 0; i < before.size() && i < a.size() && i < b.size(); ++i)
    if (a[i] == b[i]) out[i] = a[i];
  return out;
}

void add_writes(LaneWrites& w, const std::vector<std::optional<std::int64_t>>& stored, std::int64_t writer) {
  w.resize(std::max(w.size(), stored.size()));
  for (std::size_t i = 0; i < stored.size(); ++i)
    if (stored[i]) w[i].push_back({writer, *stored[i]});
}

I64 last_write_wins(const I64& before, const LaneWrites& w) {
  I64 out = before;
  for (std::size_t i = 0; i < out.size() && i < w.size(); ++i)
    if (!w[i].empty()) out[i] = w[i].back().value;
  return out;
}

I64 possible_values(const std::vector<RaceWrite>& writes) {
  I64 v;
  for (const auto& x : writes) v.push_back(x.value);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::optional<LaneWrites> split_writes(const I64& before, const RowSplit& s, const PartRun& run_part,
                                       const I64& whole) {
  // Each part runs twice over the whole buffer (four times with zero_tail): a bound on the work.
  const auto parts = static_cast<double>(s.batch + 1) * (s.zero_tail ? 4 : 2);
  if (parts * static_cast<double>(before.size()) > kMaxRaceLanes || s.stride < 1) return std::nullopt;
  const auto part = [&](std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill) {
    return stored_lanes(before, [&](const I64& prefill) { return run_part(row0, b0, b1, fill, prefill); });
  };
  LaneWrites w(before.size());
  try {
    for (std::int64_t b = 0; b < s.batch; ++b) {
      auto stored = part(b, b, b + 1, s.zero_tail);
      if (s.zero_tail) {
        // A one-row part also fills rows [b + 1, R) as its padded rows: take the row's own lanes from this run
        // and its spill into later rows from a run without the fill.
        const auto spill = part(b, b, b + 1, false);
        for (std::size_t i = 0; i < stored.size(); ++i)
          if (static_cast<std::int64_t>(i) / s.stride != b) stored[i] = spill[i];
      }
      add_writes(w, stored, b);
    }
    if (s.zero_tail && s.batch < s.table_rows) add_writes(w, part(s.batch, s.batch, s.batch, true), -1);
    // The parts in the host's order must give the whole call's output, or the split is wrong.
    if (last_write_wins(before, w) != whole) return std::nullopt;
  } catch (const kvaddr::Error&) {
    return std::nullopt;
  }
  return w;
}

bool matches_up_to_race(const I64& host, const I64& actual, const LaneWrites& writes) {
  if (host.size() != actual.size()) return false;
  bool contested = false;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const I64 possible = i < writes.size() ? possible_values(writes[i]) : I64{};
    if (possible.size() < 2) {
      if (actual[i] != host[i]) return false;
      continue;
    }
    contested = true;
    if (!std::binary_search(possible.begin(), possible.end(), actual[i])) return false;
  }
  return contested;
}

}  // namespace kvaddr::replay
