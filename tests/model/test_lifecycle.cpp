// Lifecycle model (issue 14): hand-computed scenarios, each rule of check_lifecycle on both sides of
// its boundary, and configuration validation.
#include <gtest/gtest.h>

#include "kvaddr/model/lifecycle.hpp"
#include "test_util.hpp"

namespace {

using namespace kvaddr::model::lifecycle;

SimConfig small() {
  SimConfig c;
  c.ps_full = 4;
  c.swa_ratio = 1;  // ps(swa) = 4
  c.layers = 2;
  c.dcp_size = 1;
  c.max_draft = 2;
  c.context_pages = 6;  // context_len 24
  c.batch = 2;
  c.swa_window_pages = 2;
  c.full_pages = 64;
  c.log2_full_page_bytes = 27;
  return c;
}

bool has_rule(const std::vector<Violation>& v, const std::string& rule) {
  for (const auto& x : v)
    if (x.rule == rule) return true;
  return false;
}

TEST(LifecycleConfig, ValidatesEachFieldOnBothSides) {
  SimConfig c = small();
  c.ps_full = 64;
  EXPECT_NO_THROW(c.validate());
  c.ps_full = 65;
  EXPECT_KVADDR_ERROR(c.validate(), kvaddr::InvalidArgument, "ps_full");
  c = small();
  c.full_pages = 8;
  EXPECT_NO_THROW(c.validate());
  c.full_pages = 7;
  EXPECT_KVADDR_ERROR(c.validate(), kvaddr::InvalidArgument, "full_pages");
  c = small();
  c.max_draft = 0;
  EXPECT_NO_THROW(c.validate());
  c.max_draft = -1;
  EXPECT_KVADDR_ERROR(c.validate(), kvaddr::InvalidArgument, "max_draft");
  c = small();
  c.swa_window_pages = 0;
  EXPECT_KVADDR_ERROR(LifecycleSim(c), kvaddr::InvalidArgument, "swa_window_pages");
  LifecycleSim sim(small());
  EXPECT_NO_THROW(sim.run(static_cast<Command>(kCommands - 1), 0));
  EXPECT_KVADDR_ERROR(sim.run(static_cast<Command>(kCommands), 0), kvaddr::InvalidArgument, "command");
}

TEST(LifecycleFaults, NamesRoundTripAndEachHasAnExemplar) {
  EXPECT_EQ(all_faults().size(), 16u);
  EXPECT_EQ(fault_from_string("none"), Fault::none);
  EXPECT_EQ(fault_from_string("no_such_fault"), std::nullopt);
  for (const auto& f : all_faults()) {
    EXPECT_EQ(fault_from_string(f.name), f.fault);
    EXPECT_EQ(to_string(f.fault), f.name);
    EXPECT_FALSE(f.exemplar.empty());
  }
}

TEST(LifecycleSim, PerSubPoolParameters) {
  const LifecycleSim sim(small());
  EXPECT_EQ(sim.params(Pool::full).page_size, 4);
  EXPECT_EQ(sim.params(Pool::full).multiplier, 2);
  EXPECT_EQ(sim.params(Pool::full).len, 64 * 4 * 2);
  EXPECT_FALSE(sim.params(Pool::full).dcp_sharded);
  EXPECT_EQ(sim.params(Pool::swa).page_size, 4);
  EXPECT_EQ(sim.params(Pool::state).page_size, 1);
  EXPECT_EQ(sim.params(Pool::draft).len, 512);
  EXPECT_EQ(sim.buffer_bytes(), std::int64_t{64} << 27);
  SimConfig d = small();
  d.dcp_size = 2;
  EXPECT_TRUE(LifecycleSim(d).params(Pool::full).dcp_sharded);
  EXPECT_FALSE(LifecycleSim(d).params(Pool::state).dcp_sharded);
  EXPECT_EQ(LifecycleSim(small(), Fault::draft_pool_sized_before_adjust).params(Pool::draft).len, 256);
}

// admit(pick 4): seq = 1 + 4 % 12 = 5 -> two full pages; full grows down from 63: pages 62, 63; their
// zero spans start at 62 * 2^27 = 8321499136 and 63 * 2^27 = 8455716864.
TEST(LifecycleSim, AdmitZeroesEnvelopesFromTheRawBase) {
  LifecycleSim sim(small());
  const Effects fx = sim.run(Command::admit, 4);
  ASSERT_EQ(sim.requests().size(), 1u);
  EXPECT_EQ(sim.requests()[0].seq, 5);
  ASSERT_EQ(fx.spans.size(), 2u);
  EXPECT_EQ(fx.spans[0].page, 62);
  EXPECT_EQ(fx.spans[0].start, 8321499136);
  EXPECT_EQ(fx.spans[1].start, 8455716864);
  EXPECT_TRUE(check_lifecycle(sim, fx).empty());
}

// int32: 8321499136 mod 2^32 = 4026531840, as int32 = -268435456; uint32 keeps 4026531840.
TEST(LifecycleSim, NarrowOffsetsAreReportedWithTheirNumbers) {
  LifecycleSim a(small(), Fault::int32_offset_times_stride);
  auto v = check_lifecycle(a, a.run(Command::admit, 4));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].cls, ViolationClass::offset);
  EXPECT_EQ(v[0].rule, "offset.start");
  EXPECT_EQ(v[0].value, -268435456);
  EXPECT_EQ(v[0].limit, 8321499136);
  LifecycleSim b(small(), Fault::int32_times_uint32_offset);
  v = check_lifecycle(b, b.run(Command::admit, 4));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].value, 4026531840);
  LifecycleSim c(small(), Fault::zeroing_from_view_origin);  // one layer block (2^26) past the envelope
  v = check_lifecycle(c, c.run(Command::admit, 4));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].value, 8321499136 + (std::int64_t{1} << 26));
}

// Capture widths: production ceil((24 + 1 + 2) / 4) = 7 columns; sized from the context: 24 / 4 = 6.
TEST(LifecycleSim, CaptureTablesCoverSeqPlusDraftTokens) {
  for (const Fault f : {Fault::none, Fault::capture_width_from_context}) {
    LifecycleSim sim(small(), f);
    sim.run(Command::capture, 0);
    std::int64_t width = 0;
    for (const auto& b : sim.buffers())
      if (b.role == "page_table" && b.alive) width = b.width;
    EXPECT_EQ(width, f == Fault::none ? 7 : 6);
  }
}

TEST(LifecycleSim, ReplayReadsBuffersRebuiltThisStep) {
  for (const Fault f : {Fault::none, Fault::replay_rebuilds_eager_buffer}) {
    LifecycleSim sim(small(), f);
    sim.run(Command::admit, 4);
    sim.run(Command::capture, 0);
    const Effects fx = sim.run(Command::step, 0);
    EXPECT_TRUE(fx.replayed);
    const auto v = check_lifecycle(sim, fx);
    if (f == Fault::none) {
      EXPECT_TRUE(v.empty()) << v.front().describe();
      EXPECT_EQ(sim.requests()[0].seq, 6);
    } else {
      ASSERT_TRUE(has_rule(v, "replay.stale_epoch"));
      EXPECT_EQ(v[0].value, -1);
      EXPECT_EQ(v[0].limit, 3);  // third command
    }
  }
}

// seq = 1 + 11 = 12 at ps(swa) 4: three columns, the window keeps two, column 0 is unmapped.
TEST(LifecycleSim, FinishNeverFreesTheSink) {
  for (const Fault f : {Fault::none, Fault::sink_freed_by_segment_free}) {
    LifecycleSim sim(small(), f);
    sim.run(Command::admit, 11);
    ASSERT_EQ(sim.requests()[0].swa_mapped, (std::vector<char>{0, 1, 1}));
    const Effects fx = sim.run(Command::finish, 0);
    const auto v = check_lifecycle(sim, fx);
    if (f == Fault::none) {
      EXPECT_EQ(fx.freed.size(), 6u);  // 3 full + 2 swa + 1 state
      EXPECT_TRUE(v.empty());
    } else {
      ASSERT_EQ(v.size(), 1u);
      EXPECT_EQ(v[0].rule, "sink.freed");
      EXPECT_EQ(v[0].value, 0);
      EXPECT_EQ(v[0].limit, 1);
    }
  }
}

TEST(LifecycleCheck, EachRuleOnBothSidesOfItsBoundary) {
  LifecycleSim sim(small());
  sim.run(Command::admit, 4);  // full virtual pages 1, 2 -> physical 62, 63
  Effects fx;
  fx.uses.push_back({Pool::full, false, IdSpace::kernel_facing, -1, 0, true, "pad ok"});
  fx.uses.push_back({Pool::full, true, IdSpace::kernel_facing, 1, 62 * 2, false, "entry ok"});
  fx.uses.push_back({Pool::full, false, IdSpace::kernel_facing, 4 + 3, 62 * 8 + 3, true, "write ok"});
  fx.uses.push_back({Pool::full, false, IdSpace::physical_id, 4 + 3, 62 * 4 + 3, false, "x ok"});
  fx.spans.push_back({Pool::full, 63, 63 * (std::int64_t{1} << 27), std::int64_t{1} << 27, "zero"});
  fx.freed.push_back({Pool::full, 1});
  fx.gate_opened = true;
  EXPECT_TRUE(check_lifecycle(sim, fx).empty());

  Effects bad;
  bad.uses.push_back({Pool::full, false, IdSpace::kernel_facing, -1, 1, true, "pad"});
  bad.uses.push_back({Pool::full, true, IdSpace::kernel_facing, -1, -1, false, "entry"});
  bad.uses.push_back({Pool::full, false, IdSpace::kernel_facing, 7, 512, true, "write"});  // len = 512
  bad.uses.push_back({Pool::full, false, IdSpace::physical_id, 7, 7, false, "lease 1"});
  bad.uses.push_back({Pool::full, false, IdSpace::kernel_facing, 7, 62 * 8 + 2, true, "write2"});
  bad.spans.push_back({Pool::full, 63, 63 * (std::int64_t{1} << 27) + 1, std::int64_t{1} << 27, "zero"});
  bad.freed.push_back({Pool::full, 0});
  bad.gate_opened = true;
  bad.in_flight_after_gate = 2;
  const auto v = check_lifecycle(sim, bad);
  for (const char* rule : {"sink.padding_not_on_sink", "sink.negative_entry", "subpool.len", "id.wrong_space",
                           "id.mismatch", "offset.start", "offset.bounds", "sink.freed", "lease.in_flight_moves"})
    EXPECT_TRUE(has_rule(v, rule)) << rule;
  EXPECT_EQ(v.size(), 9u);
}

// Two requests (full pages 62-63 and 60-61); the first finishes, compaction moves 60, 61 up into the
// holes. A lease by physical id (HiCache, pick 1) closes the gate: no move. A radix-cache lease holds
// virtual ids (pick 21): compaction runs and the lease stays valid.
TEST(LifecycleSim, OnlyPhysicalLeasesPinPages) {
  for (const std::uint64_t pick : {std::uint64_t{1}, std::uint64_t{21}}) {
    LifecycleSim sim(small());
    sim.run(Command::admit, 4);
    sim.run(Command::admit, 4);
    EXPECT_TRUE(check_lifecycle(sim, sim.run(Command::lease, pick)).empty());
    ASSERT_EQ(sim.leases().size(), 1u);
    EXPECT_EQ(sim.leases()[0].consumer, pick == 1 ? Consumer::hicache_writeback : Consumer::radix_cache);
    EXPECT_EQ(sim.leases()[0].space, pick == 1 ? IdSpace::physical_id : IdSpace::virtual_id);
    sim.run(Command::finish, 0);
    const Effects fx = sim.run(Command::flush, 0);
    EXPECT_EQ(fx.moves, pick == 1 ? 0 : 2);
    EXPECT_TRUE(check_lifecycle(sim, fx).empty());
    EXPECT_TRUE(check_lifecycle(sim, sim.run(Command::complete, 0)).empty());
  }
}

TEST(LifecycleCheck, RejectsUnknownPoolsAndFaultsAndFlagsSpansOutsideTheirSubPool) {
  EXPECT_KVADDR_ERROR(LifecycleSim(small(), static_cast<Fault>(99)), kvaddr::InvalidArgument, "fault");
  const LifecycleSim sim(small());
  EXPECT_KVADDR_ERROR(sim.params(static_cast<Pool>(kPools)), kvaddr::InvalidArgument, "pool");
  EXPECT_NO_THROW(sim.params(static_cast<Pool>(kPools - 1)));
  Effects bad_pool;
  bad_pool.freed.push_back({static_cast<Pool>(kPools), 1});
  EXPECT_KVADDR_ERROR(check_lifecycle(sim, bad_pool), kvaddr::InvalidArgument, "pool");
  const std::int64_t pb = std::int64_t{1} << 27;
  Effects fx;
  fx.spans.push_back({Pool::full, 63, 63 * pb, pb, "last page"});  // inside: no violation
  EXPECT_TRUE(check_lifecycle(sim, fx).empty());
  fx.spans.push_back({Pool::full, 64, 64 * pb, pb, "past the pool"});
  fx.spans.push_back({Pool::full, -1, 0, pb, "negative page"});
  fx.spans.push_back({Pool::full, 1, pb, 0, "empty"});
  fx.spans.push_back({Pool::full, 1, pb, sim.buffer_bytes() + 1, "wider than the buffer"});
  const auto v = check_lifecycle(sim, fx);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].rule, "offset.page");
  EXPECT_EQ(v[0].value, 64);
  EXPECT_EQ(v[0].limit, 64);
  EXPECT_EQ(v[1].rule, "offset.page");
  EXPECT_EQ(v[2].rule, "offset.length");
  EXPECT_EQ(v[3].rule, "offset.length");
  EXPECT_EQ(v[3].limit, sim.buffer_bytes());
}

}  // namespace
