// The lifecycle rules (issue 14). This file judges a command's Effects and the state after it; it
// knows the rules of each class, never which fault (if any) the simulator runs.
#include <string>

#include "kvaddr/model/lifecycle.hpp"

namespace kvaddr::model::lifecycle {

namespace {
std::size_t uz(std::int64_t v) { return static_cast<std::size_t>(v); }

struct Sink {
  std::vector<Violation>& out;
  void add(ViolationClass c, std::string rule, std::string object, std::int64_t value, std::int64_t limit) {
    out.push_back({c, std::move(rule), std::move(object), value, limit});
  }
};

// Where `source` (a virtual id of sub-pool p) lives in `space`, from the live tables and p's own
// parameters; nullopt when the source is not bound.
std::optional<std::int64_t> resolve(const LifecycleSim& sim, const IdUse& u) {
  const auto& s = sim.params(u.pool);
  const auto v2p = sim.pool(u.pool).v2p();
  if (u.space == IdSpace::virtual_id) return u.source;
  const std::int64_t vp = u.page_granular ? u.source : u.source / s.page_size;
  if (vp < 0 || vp >= static_cast<std::int64_t>(v2p.size()) || v2p[uz(vp)] < 0) return std::nullopt;
  const std::int64_t P = v2p[uz(vp)];
  const std::int64_t m = u.space == IdSpace::kernel_facing ? s.multiplier : 1;
  if (u.page_granular) return P * m;
  return P * s.page_size * m + u.source % s.page_size;
}

void check_use(const LifecycleSim& sim, const IdUse& u, Sink& sink) {
  const auto& s = sim.params(u.pool);
  const std::string obj = std::string(to_string(u.pool)) + " " + u.what;
  if (u.source < 0) {  // no location: only the sink, never a negative entry, never a live row
    if (u.id < 0) sink.add(ViolationClass::sink, "sink.negative_entry", obj, u.id, 0);
    else if (u.id != 0) sink.add(ViolationClass::sink, "sink.padding_not_on_sink", obj, u.id, 0);
    return;
  }
  const std::int64_t limit = u.page_granular ? s.num_pages * (u.space == IdSpace::kernel_facing ? s.multiplier : 1)
                                             : (u.space == IdSpace::kernel_facing ? s.len : s.num_pages * s.page_size);
  if (u.id < 0 || u.id >= limit) {
    sink.add(ViolationClass::subpool, "subpool.len", obj, u.id, limit);
    return;
  }
  if (u.write && u.id == 0) sink.add(ViolationClass::sink, "sink.live_write", obj, u.id, 1);
  const auto expected = resolve(sim, u);
  const bool lease = u.what.rfind("lease", 0) == 0;
  if (!expected) {
    sink.add(lease ? ViolationClass::lease : ViolationClass::subpool, "id.unbound_source", obj, u.source, -1);
  } else if (*expected != u.id) {
    const bool wrong_space = u.id == u.source;  // a virtual id handed where another space is indexed
    sink.add(lease ? ViolationClass::lease : ViolationClass::subpool,
             wrong_space ? "id.wrong_space" : "id.mismatch", obj, u.id, *expected);
  }
}

void check_pool_sink(const LifecycleSim& sim, Pool p, Sink& sink) {
  const SubPool& sp = sim.pool(p);
  const auto v2p = sp.v2p();
  const auto p2v = sp.p2v();
  const std::string name(to_string(p));
  if (v2p[0] != 0) sink.add(ViolationClass::sink, "sink.v2p0", name + " v2p[0]", v2p[0], 0);
  if (p2v[0] != 0) sink.add(ViolationClass::sink, "sink.p2v0", name + " p2v[0]", p2v[0], 0);
  const std::int64_t min = sp.options().min_page_index;
  for (std::size_t v = 1; v < v2p.size(); ++v) {
    if (v2p[v] >= 0 && v2p[v] < min)
      sink.add(ViolationClass::sink, "sink.handed_out", name + " v2p[" + std::to_string(v) + "]", v2p[v], min);
  }
  for (const auto& iv : sp.check_invariants())
    sink.add(ViolationClass::subpool, std::string("table.") + iv.invariant, name + ": " + iv.detail, 0, 0);
}
}  // namespace

std::vector<Violation> check_lifecycle(const LifecycleSim& sim, const Effects& fx) {
  for (const auto& u : fx.uses) (void)sim.params(u.pool);  // throws InvalidArgument "pool"
  for (const auto& s : fx.spans) (void)sim.params(s.pool);
  for (const auto& f : fx.freed) (void)sim.params(f.pool);
  std::vector<Violation> out;
  Sink sink{out};
  // Capture-bound buffers: everything a replay reads is alive and was rebuilt for this step.
  if (fx.replayed) {
    for (const auto& b : sim.bindings()) {
      const Buffer* buf = sim.buffer(b.buffer_id);
      const std::string obj = b.role + " #" + std::to_string(b.buffer_id);
      if (buf == nullptr || !buf->alive) {
        sink.add(ViolationClass::capture, "replay.freed_buffer", obj, b.buffer_id, -1);
      } else if (buf->epoch != sim.epoch()) {
        sink.add(ViolationClass::capture, "replay.stale_epoch", obj, buf->epoch, sim.epoch());
      }
    }
  }
  // Capacity: every buffer a step reads is as wide as what it reads.
  for (const auto& r : fx.reads) {
    const Buffer* buf = sim.buffer(r.buffer_id);
    if (buf != nullptr && r.needed > buf->width)
      sink.add(ViolationClass::capacity, "capacity.width", r.role + " #" + std::to_string(r.buffer_id), r.needed,
               buf->width);
  }
  for (const auto& u : fx.uses) check_use(sim, u, sink);
  // Offsets: a span naming page P covers exactly P's envelope, measured from the raw base, inside the buffer.
  for (const auto& s : fx.spans) {
    const auto& p = sim.params(s.pool);
    const std::string obj = std::string(to_string(s.pool)) + " " + s.what + " page " + std::to_string(s.page);
    if (s.page < 0 || s.page >= p.num_pages) {
      sink.add(ViolationClass::offset, "offset.page", obj, s.page, p.num_pages);
      continue;
    }
    if (s.length <= 0 || s.length > sim.buffer_bytes()) {
      sink.add(ViolationClass::offset, "offset.length", obj, s.length, sim.buffer_bytes());
      continue;
    }
    const std::int64_t exact = s.page * p.page_bytes;  // < num_pages * page_bytes, checked at construction
    if (s.start != exact) sink.add(ViolationClass::offset, "offset.start", obj, s.start, exact);
    if (s.start < 0 || s.start > sim.buffer_bytes() - s.length)
      sink.add(ViolationClass::offset, "offset.bounds", obj, s.start, sim.buffer_bytes() - s.length);
  }
  // The sink is never freed.
  for (const auto& f : fx.freed) {
    const std::int64_t min = sim.pool(f.pool).options().min_page_index;
    if (f.virtual_page < min)
      sink.add(ViolationClass::sink, "sink.freed", std::string(to_string(f.pool)) + " free", f.virtual_page, min);
  }
  // Completion gate: no move batch is in flight once the gate reopens.
  if (fx.gate_opened && fx.in_flight_after_gate > 0)
    sink.add(ViolationClass::lease, "lease.in_flight_moves", "completion gate", fx.in_flight_after_gate, 0);
  // Leases: ids in the consumer's space; a page leased by physical id does not move while the lease is open.
  for (const auto& l : sim.leases()) {
    const std::string obj = "lease " + std::to_string(l.id) + " " + std::string(to_string(l.consumer));
    if (l.space != required_space(l.consumer))
      sink.add(ViolationClass::lease, "lease.space", obj, static_cast<std::int64_t>(l.space),
               static_cast<std::int64_t>(required_space(l.consumer)));
    if (l.space == IdSpace::virtual_id) continue;  // virtual ids survive compaction: nothing is pinned
    const Pool p = consumer_pool(l.consumer);
    const auto v2p = sim.pool(p).v2p();
    const std::int64_t ps = sim.params(p).page_size;
    for (std::size_t i = 0; i < l.sources.size(); ++i) {
      const std::int64_t P = v2p[uz(l.sources[i] / ps)];
      const std::int64_t now = P < 0 ? -1 : P * ps + l.sources[i] % ps;
      if (now != l.pinned[i]) {
        sink.add(ViolationClass::lease, "lease.moved", obj, now, l.pinned[i]);
        break;
      }
    }
  }
  for (Pool p : {Pool::full, Pool::swa, Pool::state}) check_pool_sink(sim, p, sink);
  return out;
}

}  // namespace kvaddr::model::lifecycle
