// Lifecycle simulator: names, the fault table, configuration, buffers, leases, compaction gates.
// The decode / speculative step lives in lifecycle_step.cpp, the rules in lifecycle_check.cpp.
#include "kvaddr/model/lifecycle.hpp"

#include <algorithm>
#include <array>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"

namespace kvaddr::model::lifecycle {

namespace {
constexpr std::array<FaultInfo, 16> kFaults{{
    {Fault::replay_rebuilds_eager_buffer, "replay_rebuilds_eager_buffer", "SGLang #37975",
     "the replay updater rebuilds kv_indptr in the eager buffer; the graph reads capture-time boundaries", ViolationClass::capture},
    {Fault::graph_reads_freed_table, "graph_reads_freed_table", "ROCm aiter #4587",
     "the split-offset workspace is freed and reallocated after capture; the graph keeps the freed one", ViolationClass::capture},
    {Fault::hicache_virtual_ids, "hicache_virtual_ids", "SGLang #36731 / #37496 / #39479",
     "HiCache write-back receives virtual token ids where it indexes physical envelopes", ViolationClass::lease},
    {Fault::mamba_checkpoint_virtual_ids, "mamba_checkpoint_virtual_ids", "SGLang #38229",
     "Mamba checkpoint destinations are handed as virtual slot ids", ViolationClass::lease},
    {Fault::compaction_under_closed_gate, "compaction_under_closed_gate", "SGLang #39982",
     "compaction moves pages while a consumer's lease (the disaggregation gate) is still open", ViolationClass::lease},
    {Fault::shared_completion_event, "shared_completion_event", "SGLang #39982",
     "every move batch of one compaction records the same completion event: the gate waits for the last only", ViolationClass::lease},
    {Fault::dcp_rewrite_replicated_group, "dcp_rewrite_replicated_group", "vLLM #57260",
     "the DCP owner/local rewrite (id div dcp_size) is applied to replicated sub-pools too", ViolationClass::subpool},
    {Fault::min_block_size_column, "min_block_size_column", "vLLM #55601",
     "a sub-pool's column is pos div min_s ps(s) instead of pos div its own ps", ViolationClass::subpool},
    {Fault::draft_pool_sized_before_adjust, "draft_pool_sized_before_adjust", "SGLang #17630",
     "the draft sub-pool is sized before the adjustment, then indexed by the target's ids", ViolationClass::subpool},
    {Fault::sink_freed_by_segment_free, "sink_freed_by_segment_free", "SGLang #38519 / #38269",
     "unmapped columns map to the sink and the free path frees page 0", ViolationClass::sink},
    {Fault::padding_to_last_state_row, "padding_to_last_state_row", "SGLang #36885 / #36880",
     "padding -1 of the state indices wraps to the last state row instead of the sink", ViolationClass::sink},
    {Fault::unclamped_unified_branch, "unclamped_unified_branch", "SGLang #36477",
     "the unified branch loads v2p without the clamp: -1 (or a recycled page) lands in the SWA page table", ViolationClass::sink},
    {Fault::capture_width_from_context, "capture_width_from_context", "SGLang #35985 / #29665",
     "capture tables are sized from the context length; a speculative step reads seq + draft tokens", ViolationClass::capacity},
    {Fault::int32_offset_times_stride, "int32_offset_times_stride", "vLLM #50427",
     "byte offset = int32 page index times the page stride, formed in int32", ViolationClass::offset},
    {Fault::int32_times_uint32_offset, "int32_times_uint32_offset", "FlashInfer #3130",
     "byte offset = int32 page index times a uint32 stride: the product wraps at 2^32", ViolationClass::offset},
    {Fault::zeroing_from_view_origin, "zeroing_from_view_origin", "vLLM #50276",
     "page zeroing starts at one layer view's origin with the whole envelope's stride", ViolationClass::offset},
}};
std::string str(std::int64_t v) { return std::to_string(v); }
// names[e]: `names` lists the enumerators of E in declaration order (values 0, 1, ...); "?" for any
// other value.
template <class E, std::size_t N>
std::string_view name_in(E e, const std::string_view (&names)[N]) noexcept {
  const auto i = static_cast<std::size_t>(e);
  return i < N ? names[i] : "?";
}
std::size_t uz(std::int64_t v) { return static_cast<std::size_t>(v); }
int pi(Pool p) { return static_cast<int>(p); }
}  // namespace

std::string_view to_string(IdSpace s) noexcept { return name_in(s, {"virtual", "physical", "kernel-facing"}); }

std::string_view to_string(ViolationClass c) noexcept {
  return name_in(c, {"capture", "lease", "subpool", "sink", "capacity", "offset"});
}

std::string Violation::describe() const {
  return std::string(to_string(cls)) + "/" + rule + " " + object + ": value " + str(value) + ", expected/limit " +
         str(limit);
}

std::span<const FaultInfo> all_faults() noexcept { return kFaults; }

std::string_view to_string(Fault f) noexcept {
  if (f == Fault::none) return "none";
  for (const auto& i : kFaults)
    if (i.fault == f) return i.name;
  return "?";
}

std::optional<Fault> fault_from_string(std::string_view name) noexcept {
  if (name == "none") return Fault::none;
  for (const auto& i : kFaults)
    if (i.name == name) return i.fault;
  return std::nullopt;
}

std::string_view to_string(Pool p) noexcept { return name_in(p, {"full", "swa", "state", "draft"}); }

std::string_view to_string(Consumer c) noexcept {
  return name_in(c, {"hicache_writeback", "pd_transfer", "mamba_checkpoint", "radix_cache"});
}

IdSpace required_space(Consumer c) noexcept {
  return c == Consumer::radix_cache ? IdSpace::virtual_id : IdSpace::physical_id;
}
Pool consumer_pool(Consumer c) noexcept { return c == Consumer::mamba_checkpoint ? Pool::state : Pool::full; }

std::string_view to_string(Command c) noexcept {
  return name_in(c, {"admit", "step", "spec_step", "slide", "finish", "flush", "capture", "realloc_workspace", "lease",
                     "complete", "sync"});
}

void SimConfig::validate() const {
  require(ps_full >= 1 && ps_full <= 64, "ps_full", ps_full, "must lie in [1, 64]");
  require(swa_ratio >= 1 && swa_ratio <= 8, "swa_ratio", swa_ratio, "must lie in [1, 8]");
  require(layers >= 1 && layers <= 8, "layers", layers, "must lie in [1, 8]");
  require(dcp_size >= 1 && dcp_size <= 8, "dcp_size", dcp_size, "must lie in [1, 8]");
  require(max_draft >= 0 && max_draft <= 16, "max_draft", max_draft, "must lie in [0, 16]");
  require(context_pages >= 1 && context_pages <= 32, "context_pages", context_pages, "must lie in [1, 32]");
  require(batch >= 1 && batch <= 16, "batch", batch, "must lie in [1, 16]");
  require(swa_window_pages >= 1, "swa_window_pages", swa_window_pages, "must be >= 1");
  require(full_pages >= 8 && full_pages <= 4096, "full_pages", full_pages, "must lie in [8, 4096]");
  require(log2_full_page_bytes >= 4 && log2_full_page_bytes <= 40, "log2_full_page_bytes", log2_full_page_bytes,
          "must lie in [4, 40]");
}

namespace {
SubPoolOptions opts(GrowDirection g) {
  SubPoolOptions o;
  o.grow = g;
  return o;
}
}  // namespace

LifecycleSim::LifecycleSim(const SimConfig& config, Fault fault) : cfg_(config), fault_(fault) {
  cfg_.validate();
  require(fault == Fault::none || to_string(fault) != "?", "fault", static_cast<std::int64_t>(fault),
          "not a lifecycle fault");
  const std::int64_t ps_swa = cfg_.ps_full * cfg_.swa_ratio;
  const std::int64_t swa_pages = 8 * (cfg_.swa_window_pages + 2);
  const std::int64_t state_slots = 24;
  auto& full = params_[pi(Pool::full)];
  full = {cfg_.ps_full, cfg_.layers, cfg_.dcp_size > 1, cfg_.full_pages * cfg_.ps_full * cfg_.layers,
          cfg_.full_pages, std::int64_t{1} << cfg_.log2_full_page_bytes, cfg_.layers};
  params_[pi(Pool::swa)] = {ps_swa, 1, false, swa_pages * ps_swa, swa_pages, std::int64_t{1} << 16, 1};
  params_[pi(Pool::state)] = {1, 1, false, state_slots, state_slots, std::int64_t{1} << 20, 1};
  auto& draft = params_[pi(Pool::draft)];
  draft = full;
  // The draft pool shares the target's ids; sized before the adjustment it holds half the rows.
  if (fault_ == Fault::draft_pool_sized_before_adjust) draft.len = full.len / 2;
  buffer_bytes_ = checked_mul(full.num_pages, full.page_bytes, "log2_full_page_bytes");
  pools_.emplace_back(Geometry(full.page_size, full.multiplier, full.num_pages, cfg_.layers, 1, 1),
                      opts(GrowDirection::down));
  pools_.emplace_back(Geometry(ps_swa, 1, swa_pages, 1, 1, 1), opts(GrowDirection::up));
  pools_.emplace_back(Geometry(1, 1, state_slots, 1, 1, 1), opts(GrowDirection::up));
  for (const char* role : {"kv_indptr", "page_table", "swa_table", "state_indices", "write_loc", "workspace"}) {
    eager_.push_back({role, new_buffer(role, 1, IdSpace::kernel_facing)});
  }
}

const SubPoolParams& LifecycleSim::params(Pool p) const {
  require(pi(p) < kPools, "pool", pi(p), "not a sub-pool");
  return params_[pi(p)];
}
const SubPool& LifecycleSim::pool(Pool p) const {
  require(pi(p) < kPools, "pool", pi(p), "not a sub-pool");
  return pools_[uz(p == Pool::draft ? 0 : pi(p))];
}
SubPool& LifecycleSim::mut_pool(Pool p) noexcept { return pools_[uz(p == Pool::draft ? 0 : pi(p))]; }

const Buffer* LifecycleSim::buffer(std::int64_t id) const noexcept {
  for (const auto& b : buffers_)
    if (b.id == id) return &b;
  return nullptr;
}
Buffer* LifecycleSim::mut_buffer(std::int64_t id) noexcept {
  for (auto& b : buffers_)
    if (b.id == id) return &b;
  return nullptr;
}

std::int64_t LifecycleSim::new_buffer(std::string role, std::int64_t width, IdSpace space) {
  Buffer b;
  b.id = next_id_++;
  b.role = std::move(role);
  b.width = width;
  b.space = space;
  buffers_.push_back(std::move(b));
  return buffers_.back().id;
}

// ---- routes (where the planted faults live) ----------------------------------------------------------

std::int64_t LifecycleSim::span_start(Pool p, std::int64_t page, bool zeroing) const {
  const auto& s = params(p);
  const std::int64_t exact = page * s.page_bytes;  // pages < 4096, page_bytes <= 2^40: no int64 overflow
  switch (fault_) {
    case Fault::int32_offset_times_stride:
      return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(exact) & 0xffffffffu));
    case Fault::int32_times_uint32_offset:
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(exact) & 0xffffffffu);
    case Fault::zeroing_from_view_origin:
      // The span starts at layer 1's view origin (one layer block in) instead of the raw base.
      return zeroing ? exact + s.page_bytes / std::max<std::int64_t>(s.layers, 2) : exact;
    default: return exact;
  }
}

// Kernel-facing id of a token of sub-pool p. Sharded sub-pools receive the widened loc (t * dcp_size on
// the owning rank) and collapse it; replicated ones receive t itself.
std::int64_t LifecycleSim::route_token(Pool p, std::int64_t token) const {
  const auto& s = params(p);
  const std::int64_t dcp = cfg_.dcp_size;
  const std::int64_t loc = s.dcp_sharded ? token * dcp : token;
  const bool collapse = s.dcp_sharded || fault_ == Fault::dcp_rewrite_replicated_group;
  const std::int64_t t = collapse ? loc / dcp : loc;
  const auto v2p = pool(p).v2p();
  const std::int64_t vp = t / s.page_size;
  if (vp < 0 || vp >= static_cast<std::int64_t>(v2p.size()) || v2p[uz(vp)] < 0) return 0;
  return v2p[uz(vp)] * s.page_size * s.multiplier + t % s.page_size;
}

std::int64_t LifecycleSim::route_page_entry(Pool p, std::int64_t vpage, bool mapped) const {
  const auto& s = params(p);
  const bool clamp = fault_ != Fault::unclamped_unified_branch;
  if (!mapped && clamp) return 0;
  const std::int64_t P = vpage < 0 ? -1 : pool(p).v2p()[uz(vpage)];
  if (P < 0) return clamp ? 0 : P;  // unclamped: the tombstone -1 lands in the table
  return P * s.multiplier;
}

std::int64_t LifecycleSim::route_state(std::int64_t slot) const {
  if (slot < 0) return fault_ == Fault::padding_to_last_state_row ? params(Pool::state).len - 1 : 0;
  return route_token(Pool::state, slot);
}

// ---- completion gate -------------------------------------------------------------------------------------

// Opening the gate waits on every distinct completion event once; waiting completes the latest batch
// that recorded the event.
void LifecycleSim::sync(Effects& fx) {
  std::vector<std::int64_t> waited;
  for (auto it = pending_batches_.rbegin(); it != pending_batches_.rend();) {
    if (std::find(waited.begin(), waited.end(), *it) == waited.end()) {
      waited.push_back(*it);
      it = decltype(it)(pending_batches_.erase(std::next(it).base()));
    } else {
      ++it;
    }
  }
  fx.gate_opened = true;
  fx.in_flight_after_gate = static_cast<std::int64_t>(pending_batches_.size());
  pending_batches_.clear();  // the stragglers finish later (the violation is already on record)
}

void LifecycleSim::flush(std::uint64_t pick, Effects& fx) {
  const Pool p = static_cast<Pool>(pick % 3);
  bool leased = false;
  for (const auto& l : leases_) leased = leased || (consumer_pool(l.consumer) == p && l.space != IdSpace::virtual_id);
  if (leased && fault_ != Fault::compaction_under_closed_gate) return;  // gate closed: compaction deferred
  SubPool& sp = mut_pool(p);
  sp.flush();
  const std::int64_t shared = next_event_++;
  for (std::size_t i = 0; i < sp.moves().size(); ++i)
    pending_batches_.push_back(fault_ == Fault::shared_completion_event ? shared : next_event_++);
  fx.moves = static_cast<std::int64_t>(sp.moves().size());
  sp.clear_moves();
}

// ---- leases ------------------------------------------------------------------------------------------------

void LifecycleSim::lease(std::uint64_t pick, Effects& fx) {
  if (requests_.empty()) return;
  Request& r = requests_[uz(static_cast<std::int64_t>(pick % requests_.size()))];
  if (r.leased) return;
  const auto consumer = static_cast<Consumer>((pick / 7) % 4);
  const Pool p = consumer_pool(consumer);
  const SubPool& sp = pool(p);
  Lease l;
  l.id = next_id_++;
  l.consumer = consumer;
  l.request = r.id;
  l.space = required_space(consumer);
  if (consumer == Consumer::mamba_checkpoint) {
    l.sources.push_back(r.state_slot);
  } else {
    for (std::int64_t pos = 0; pos < r.seq; ++pos)
      l.sources.push_back(r.full_pages[uz(pos / cfg_.ps_full)] * cfg_.ps_full + pos % cfg_.ps_full);
  }
  const bool virtual_ids = (consumer == Consumer::hicache_writeback && fault_ == Fault::hicache_virtual_ids) ||
                           (consumer == Consumer::mamba_checkpoint && fault_ == Fault::mamba_checkpoint_virtual_ids);
  for (std::int64_t t : l.sources) {
    const std::int64_t x = phys(sp.v2p(), sp.geometry().page_size(), VirtualToken(t)).value;
    l.pinned.push_back(x);
    l.ids.push_back(virtual_ids || l.space == IdSpace::virtual_id ? t : x);
    fx.uses.push_back({p, false, l.space, t, l.ids.back(), false, "lease " + str(l.id) + " grant"});
  }
  r.leased = true;
  leases_.push_back(std::move(l));
}

void LifecycleSim::complete(std::uint64_t pick, Effects& fx) {
  if (leases_.empty()) return;
  const auto idx = static_cast<std::ptrdiff_t>(pick % leases_.size());
  const Lease l = leases_[uz(idx)];
  leases_.erase(leases_.begin() + idx);
  const Pool p = consumer_pool(l.consumer);
  const std::int64_t ps = params(p).page_size;
  std::int64_t last_page = -1;
  for (std::size_t i = 0; i < l.ids.size(); ++i) {
    fx.uses.push_back({p, false, l.space, l.sources[i], l.ids[i], l.consumer == Consumer::mamba_checkpoint,
                       "lease " + str(l.id) + " " + std::string(to_string(l.consumer))});
    const std::int64_t page = l.ids[i] / ps;
    if (l.space != IdSpace::virtual_id && page != last_page && page >= 0 && page < params(p).num_pages)
      fx.spans.push_back({p, page, span_start(p, page, false), params(p).page_bytes, "transfer"});
    last_page = page;
  }
  for (auto& r : requests_)
    if (r.id == l.request) r.leased = false;
}

// ---- capture ------------------------------------------------------------------------------------------------

void LifecycleSim::rebind() {
  bindings_.clear();
  for (const auto& b : buffers_) {
    if (!b.alive) continue;
    bool eager = false;
    for (const auto& e : eager_) eager = eager || e.buffer_id == b.id;
    if (!eager) bindings_.push_back({b.role, b.id});
  }
}

void LifecycleSim::capture(Effects&) {
  if (!bindings_.empty()) {  // recapture over the same persistent buffers
    rebind();
    return;
  }
  const std::int64_t bs = cfg_.batch;
  const std::int64_t tokens =
      fault_ == Fault::capture_width_from_context ? context_len() : context_len() + 1 + cfg_.max_draft;
  const std::int64_t ps_swa = params(Pool::swa).page_size;
  new_buffer("kv_indptr", bs + 1, IdSpace::kernel_facing);
  new_buffer("page_table", (tokens + cfg_.ps_full - 1) / cfg_.ps_full, IdSpace::kernel_facing);
  new_buffer("swa_table", (tokens + ps_swa - 1) / ps_swa, IdSpace::kernel_facing);
  new_buffer("state_indices", bs, IdSpace::kernel_facing);
  new_buffer("write_loc", 1 + cfg_.max_draft, IdSpace::kernel_facing);
  new_buffer("workspace", bs + 1, IdSpace::kernel_facing);
  captured_batch_ = bs;
  rebind();
}

Effects LifecycleSim::run(Command c, std::uint64_t pick) {
  require(static_cast<int>(c) < kCommands, "command", static_cast<int>(c),
          "not a lifecycle command");
  Effects fx;
  ++epoch_;
  switch (c) {
    case Command::admit: admit(pick, fx); break;
    case Command::step: step(0, pick, fx); break;
    case Command::spec_step: step(cfg_.max_draft == 0 ? 0 : 1 + static_cast<std::int64_t>(pick % uz(cfg_.max_draft)), pick / 3, fx); break;
    case Command::slide:
      if (!requests_.empty()) {
        Request& r = requests_[uz(static_cast<std::int64_t>(pick % requests_.size()))];
        if (!r.leased) slide_window(r, true);
      }
      break;
    case Command::finish: finish(pick, fx); break;
    case Command::flush: flush(pick, fx); break;
    case Command::capture: capture(fx); break;
    case Command::realloc_workspace:
      for (auto& b : buffers_) {
        if (b.role != "workspace" || !b.alive || b.id == eager_.back().buffer_id) continue;
        b.alive = false;
        new_buffer("workspace", cfg_.batch + 1, IdSpace::kernel_facing);
        if (fault_ != Fault::graph_reads_freed_table) rebind();  // production recaptures
        break;
      }
      break;
    case Command::lease: lease(pick, fx); break;
    case Command::complete: complete(pick, fx); break;
    case Command::sync: sync(fx); break;
  }
  return fx;
}

}  // namespace kvaddr::model::lifecycle
