// backend_gate (spec §4.15) end to end: the detection rule decides whether the block table is
// translated; on a single full-attention-layer rank (M = 1) after compaction, only the
// production rule reads the right pages (bug B03).
#include <fmt/format.h>

#include "grid.hpp"
#include "kvaddr/model/pool.hpp"
#include "kvaddr/model/wiring.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr::cli {

// Returns the number of live slots that read a wrong tag when the block table is built under
// `variant`'s detection rule on a compacted M = 1 pool.
std::int64_t wrong_reads_after_compaction(model::DetectVariant variant) {
  const std::int64_t ps = 4;
  model::SubPool pool(model::Geometry(ps, 1, 16, 1, 8, 2));
  std::vector<std::vector<model::VirtualToken>> reqs;
  for (int r = 0; r < 3; ++r) reqs.push_back(pool.alloc(2));
  for (const auto& req : reqs)
    for (auto t : req) pool.write(0, t, static_cast<std::uint64_t>(t.value + 1000));
  std::vector<model::VirtualPage> middle;
  for (auto t : reqs[1])
    if (t.value % ps == 0) middle.emplace_back(t.value / ps);
  pool.free_eager(middle);
  // A new request takes the vacated band and overwrites it: stale reads now see its data.
  for (auto t : pool.alloc(2)) pool.write(0, t, static_cast<std::uint64_t>(t.value + 5000));

  const model::PoolHooks hooks{true, 1};  // unified pool, one full-attention layer on this rank
  const auto hook_set = model::unified_mla_hooks(hooks, variant);
  const auto& live = reqs[2];
  std::vector<std::int32_t> rtt;
  for (auto t : live) rtt.push_back(static_cast<std::int32_t>(t.value));
  const auto width = static_cast<std::int64_t>(rtt.size());
  std::vector<std::int64_t> rows{0}, lens{width};
  const std::int64_t n_pages = width / ps;
  std::vector<std::int32_t> table(static_cast<std::size_t>(n_pages), -1);
  const auto v2p = pool.v2p();
  FlashmlaBlockTableArgs a;
  a.req_to_token = {rtt.data(), 1, width, width, 1};
  a.req_pool_indices = cvec(rows);
  a.page_kernel_lens = cvec(lens);
  if (hook_set.has_v2p) a.v2p = {v2p.data(), static_cast<std::int64_t>(v2p.size())};
  a.page_size = ps;
  a.multiplier = hook_set.multiplier;
  a.kv_indices = mmat(table, 1, n_pages);
  translate::flashmla_block_table(a);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < width; ++i) {
    const auto entry = table[static_cast<std::size_t>(i / ps)];
    const auto got = pool.read_kernel(0, model::KernelId(entry * ps + i % ps));
    wrong += (got != static_cast<std::uint64_t>(live[static_cast<std::size_t>(i)].value + 1000)) ? 1 : 0;
  }
  return wrong;
}

}  // namespace kvaddr::cli
