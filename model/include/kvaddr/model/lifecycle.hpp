#pragma once
// The pool's lifecycle around the lane arithmetic (issue 14, spec §1, §3.4, §4.14-4.15, §6, §7 Q3/Q7):
// capture-bound buffers with identity, width, id space and epoch; leases of asynchronous consumers;
// per-sub-pool parameters ps(s), M(s), dcp_sharded(s), len(s); the sink and sentinel rules; buffer
// capacity; byte-offset spans over the whole shared buffer.
//
// LifecycleSim runs one unified pool of four sub-pools through commands (admit, decode / speculative
// steps under a captured graph, SWA slide, finish, compaction, leases, completion gates). Every
// command returns its Effects (what the step bound, read, handed out, wrote, freed and spanned);
// check_lifecycle (lifecycle_check.cpp) judges the Effects and the state against the rules. The
// checker never sees which planted Fault (if any) runs: it knows the rules, not the bugs.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/model/pool.hpp"

namespace kvaddr::model::lifecycle {

enum class IdSpace : std::uint8_t { virtual_id, physical_id, kernel_facing };
std::string_view to_string(IdSpace s) noexcept;

// The six classes of issue 14; every violation belongs to one.
enum class ViolationClass : std::uint8_t { capture, lease, subpool, sink, capacity, offset };
std::string_view to_string(ViolationClass c) noexcept;

struct Violation {
  ViolationClass cls = ViolationClass::capture;
  std::string rule;        // e.g. "replay.epoch", "lease.moved", "sink.freed"
  std::string object;      // the buffer / lease / sub-pool / row it names
  std::int64_t value = 0;  // the offending number
  std::int64_t limit = 0;  // what it was checked against
  std::string describe() const;  // "<class>/<rule> <object>: value <v>, expected/limit <l>"
};

// ---- planted lifecycle faults (separate from the route Variant enum) ---------------------------------
enum class Fault : std::uint8_t {
  none,
  replay_rebuilds_eager_buffer,    // SGLang #37975
  graph_reads_freed_table,         // ROCm aiter #4587
  hicache_virtual_ids,             // SGLang #36731 / #37496 / #39479
  mamba_checkpoint_virtual_ids,    // SGLang #38229
  compaction_under_closed_gate,    // SGLang #39982 (compaction while the gate is closed)
  shared_completion_event,         // SGLang #39982 (move batches share one completion event)
  dcp_rewrite_replicated_group,    // vLLM #57260
  min_block_size_column,           // vLLM #55601
  draft_pool_sized_before_adjust,  // SGLang #17630
  sink_freed_by_segment_free,      // SGLang #38519 / #38269
  padding_to_last_state_row,       // SGLang #36885 / #36880
  unclamped_unified_branch,        // SGLang #36477
  capture_width_from_context,      // SGLang #35985 / #29665
  int32_offset_times_stride,       // vLLM #50427
  int32_times_uint32_offset,       // FlashInfer #3130
  zeroing_from_view_origin,        // vLLM #50276
};

struct FaultInfo {
  Fault fault;
  std::string_view name;
  std::string_view exemplar;  // upstream reference
  std::string_view summary;   // what the planted code does
  ViolationClass cls;         // the class of issue 14 it belongs to
};
std::span<const FaultInfo> all_faults() noexcept;  // every fault except none
std::string_view to_string(Fault f) noexcept;
std::optional<Fault> fault_from_string(std::string_view name) noexcept;

// ---- sub-pools ------------------------------------------------------------------------------------------
enum class Pool : std::uint8_t { full = 0, swa = 1, state = 2, draft = 3 };
inline constexpr int kPools = 4;
std::string_view to_string(Pool p) noexcept;

struct SubPoolParams {
  std::int64_t page_size = 1;   // ps(s)
  std::int64_t multiplier = 1;  // M(s)
  bool dcp_sharded = false;     // dcp_sharded(s): ids arrive widened by dcp_size
  std::int64_t len = 0;         // len(s): rows of the sub-pool's per-layer view
  std::int64_t num_pages = 0;   // physical pages (page 0 = the sink)
  std::int64_t page_bytes = 0;  // envelope bytes of one page, from the raw base of the shared buffer
  std::int64_t layers = 1;      // layer blocks per envelope (a view's origin is l * page_bytes / layers)
};

struct SimConfig {
  std::int64_t ps_full = 4;           // ps(full); ps(draft) = ps(full)
  std::int64_t swa_ratio = 2;         // ps(swa) = ps_full * swa_ratio
  std::int64_t layers = 2;            // M(full) = M(draft) = layers (dense MLA views)
  std::int64_t dcp_size = 1;          // full and draft are DCP-sharded when dcp_size > 1
  std::int64_t max_draft = 2;         // speculative draft tokens per step
  std::int64_t context_pages = 6;     // context_len = context_pages * ps_full
  std::int64_t batch = 4;             // capture batch width
  std::int64_t swa_window_pages = 2;  // SWA pages a request keeps mapped
  std::int64_t full_pages = 64;       // physical pages of the full sub-pool (grows down)
  std::int64_t log2_full_page_bytes = 27;  // full envelopes: the buffer passes 2^32 bytes
  // Throws InvalidArgument naming the first field outside its domain.
  void validate() const;
};

// ---- buffers, captures, leases --------------------------------------------------------------------------
struct Buffer {
  std::int64_t id = 0;
  std::string role;        // "page_table", "kv_indptr", ...
  std::int64_t width = 0;  // entries per lane (columns), or total entries for 1-D buffers
  IdSpace space = IdSpace::kernel_facing;
  std::int64_t epoch = -1;  // the step that last rebuilt it
  bool alive = true;
  std::vector<std::int64_t> data;
};

struct Binding {
  std::string role;
  std::int64_t buffer_id = 0;
};

// HiCache write-back, PD transfer and Mamba checkpoints copy envelopes / slots (physical ids); the radix
// cache keeps virtual token ids, which compaction never rewrites, so its lease does not pin pages.
enum class Consumer : std::uint8_t { hicache_writeback, pd_transfer, mamba_checkpoint, radix_cache };
std::string_view to_string(Consumer c) noexcept;
IdSpace required_space(Consumer c) noexcept;  // the space each consumer indexes
Pool consumer_pool(Consumer c) noexcept;

struct Lease {
  std::int64_t id = 0;
  Consumer consumer = Consumer::hicache_writeback;
  IdSpace space = IdSpace::physical_id;  // the space the ids were handed in
  std::vector<std::int64_t> sources;     // virtual token ids (state: virtual slots)
  std::vector<std::int64_t> ids;         // what the consumer received
  std::vector<std::int64_t> pinned;      // physical ids of the sources at grant time
  std::int64_t request = 0;
};

// ---- the effects of one command -------------------------------------------------------------------------
// An id a kernel or a consumer uses: `source` is the virtual id it stands for (page-granular for
// table entries, token-granular otherwise); -1 = no location (padding lane, unmapped column).
struct IdUse {
  Pool pool = Pool::full;
  bool page_granular = false;
  IdSpace space = IdSpace::kernel_facing;
  std::int64_t source = -1;
  std::int64_t id = 0;
  bool write = false;  // a store (a write through a padding lane must land on the sink)
  std::string what;    // "page_table[lane 2][col 5]", "lease 7", ...
};
struct GraphRead {
  std::string role;
  std::int64_t buffer_id = 0;
  std::int64_t needed = 0;  // width the step reads (columns / entries)
};
struct ByteSpan {
  Pool pool = Pool::full;
  std::int64_t page = 0;   // the physical page the span claims to cover
  std::int64_t start = 0;  // byte offset from the raw base, as formed by the code
  std::int64_t length = 0;
  std::string what;        // "zero", "transfer"
};
struct FreedPage {
  Pool pool = Pool::full;
  std::int64_t virtual_page = 0;
};

struct Effects {
  bool replayed = false;   // a captured graph ran
  std::vector<GraphRead> reads;
  std::vector<IdUse> uses;
  std::vector<ByteSpan> spans;
  std::vector<FreedPage> freed;
  bool gate_opened = false;
  std::int64_t in_flight_after_gate = 0;  // move batches not complete when the gate reopened
  std::int64_t moves = 0;                 // compaction page moves
};

enum class Command : std::uint8_t {
  admit, step, spec_step, slide, finish, flush, capture, realloc_workspace, lease, complete, sync,
};
inline constexpr int kCommands = 11;
std::string_view to_string(Command c) noexcept;

struct Request {
  std::int64_t id = 0;
  std::int64_t seq = 0;                  // tokens held
  std::vector<std::int64_t> full_pages;  // virtual pages of full (and draft) per column
  std::vector<std::int64_t> swa_pages;   // virtual pages of swa per column (kept after a slide)
  std::vector<char> swa_mapped;          // per column: 0 = slid out of the window (unmapped)
  std::int64_t state_slot = 0;           // virtual slot of state
  bool leased = false;
};

class LifecycleSim {
 public:
  // Validates the configuration (SimConfig::validate) and the fault (InvalidArgument "fault").
  explicit LifecycleSim(const SimConfig& config, Fault fault = Fault::none);

  // Runs one command; `pick` chooses among candidates (request, batch size, draft tokens...). A
  // command with nothing to act on is a no-op. A value outside Command throws InvalidArgument
  // "command"; otherwise it throws only on an internal model error.
  Effects run(Command c, std::uint64_t pick);

  // ---- state the checker reads ----
  const SimConfig& config() const noexcept { return cfg_; }
  // A value outside Pool throws InvalidArgument "pool".
  const SubPoolParams& params(Pool p) const;
  const SubPool& pool(Pool p) const;  // draft shares full's tables
  std::int64_t epoch() const noexcept { return epoch_; }
  std::int64_t buffer_bytes() const noexcept { return buffer_bytes_; }
  const std::vector<Buffer>& buffers() const noexcept { return buffers_; }
  const Buffer* buffer(std::int64_t id) const noexcept;
  const std::vector<Binding>& bindings() const noexcept { return bindings_; }
  const std::vector<Lease>& leases() const noexcept { return leases_; }
  const std::vector<Request>& requests() const noexcept { return requests_; }
  std::int64_t context_len() const noexcept { return cfg_.context_pages * cfg_.ps_full; }

 private:
  friend struct SimOps;
  std::int64_t span_start(Pool p, std::int64_t page, bool zeroing) const;
  std::int64_t route_token(Pool p, std::int64_t token) const;
  std::int64_t route_page_entry(Pool p, std::int64_t vpage, bool mapped) const;
  std::int64_t route_state(std::int64_t slot) const;
  std::int64_t new_buffer(std::string role, std::int64_t width, IdSpace space);
  Buffer* mut_buffer(std::int64_t id) noexcept;
  void sync(Effects& fx);
  bool alloc_pages(Pool p, std::int64_t n, std::vector<std::int64_t>& out, Effects& fx);
  void slide_window(Request& r, bool one);
  void capture(Effects& fx);
  void step(std::int64_t draft, std::uint64_t pick, Effects& fx);
  void admit(std::uint64_t pick, Effects& fx);
  void finish(std::uint64_t pick, Effects& fx);
  void flush(std::uint64_t pick, Effects& fx);
  void lease(std::uint64_t pick, Effects& fx);
  void complete(std::uint64_t pick, Effects& fx);
  void rebind();
  SubPool& mut_pool(Pool p) noexcept;
  SimConfig cfg_;
  Fault fault_;
  SubPoolParams params_[kPools];
  std::vector<SubPool> pools_;  // full, swa, state
  std::int64_t buffer_bytes_ = 0;
  std::int64_t epoch_ = 0;
  std::int64_t next_id_ = 1;
  std::vector<Buffer> buffers_;
  std::vector<Binding> bindings_;
  std::int64_t captured_batch_ = 0;
  std::vector<Lease> leases_;
  std::vector<Request> requests_;
  std::vector<Binding> eager_;                 // the eager path's own buffers, one per role
  std::vector<std::int64_t> pending_batches_;  // completion event of each in-flight move batch
  std::int64_t next_event_ = 1;
};

// Judges one command's effects and the state after it. Returns every violation found. Effects naming
// a value outside Pool throw InvalidArgument "pool" before anything is judged; a span naming a page
// outside its sub-pool, or with a length outside (0, buffer], is a violation (offset.page / offset.length).
std::vector<Violation> check_lifecycle(const LifecycleSim& sim, const Effects& fx);

}  // namespace kvaddr::model::lifecycle
