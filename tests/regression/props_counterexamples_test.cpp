// Minimal counterexamples found by the props campaign (props/, issue 4), frozen as plain gtest
// cases with exact values. Each case is the shrunk input RapidCheck reported for a planted
// variant (or a real disagreement); the expected values are the spec's, so the production
// routes pass and the named variant would fail.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/model/pool.hpp"
#include "kvaddr/translate/routes.hpp"

namespace {

using kvaddr::cmat;
using kvaddr::cvec;
using kvaddr::mvec;
using kvaddr::Variant;
namespace tr = kvaddr::translate;
using i32 = std::int32_t;
using i64 = std::int64_t;

// canonical_page_table @ b09: ps = 1, a -1 padding token at a page start must read the sink
// (page 0, v2p[0] = 0), never v2p[-1].
TEST(PropsRegression, CanonicalPaddingAtPs1ReadsTheSink) {
  const std::vector<i64> v2p{0, -1};
  const std::vector<i32> r2t{-1};
  const std::vector<i64> req{0}, lens{1};
  std::vector<i32> out{9};
  tr::canonical_page_table({.req_to_token = cmat(r2t, 1, 1), .req_pool_indices = cvec(req), .seq_lens = cvec(lens),
                             .v2p = cvec(v2p), .page_size = 1, .multiplier = 2, .max_pages = 1,
                             .out = kvaddr::mmat(out, 1, 1)});
  EXPECT_EQ(out, (std::vector<i32>{0}));
}

// flashmla_block_table @ era_b_unclamped: a tombstone inside the live prefix is clamped to 0
// (not -M); the -1 prefill past n_pages stays untouched.
TEST(PropsRegression, FlashmlaTombstoneInLivePrefixClampsAndTailKeepsMinusOne) {
  const std::vector<i64> v2p{0, -1, 1, -1};  // page 1 tombstoned, page 2 -> physical 1
  const std::vector<i32> r2t{2, 3, 4, 5};
  const std::vector<i64> req{0}, lens{4};
  std::vector<i32> kv{-1, -1, -1};
  tr::flashmla_block_table({.req_to_token = cmat(r2t, 1, 4), .req_pool_indices = cvec(req),
                             .page_kernel_lens = cvec(lens), .kv_start_idx = {}, .v2p = cvec(v2p), .page_size = 2,
                             .multiplier = 3,
                             .kv_indices = kvaddr::mmat(kv, 1, 3)});
  EXPECT_EQ(kv, (std::vector<i32>{0, 3, -1}));
}

// read_table @ b10: seq_len 2 > max_pages 1 at ps 1: column 1 (a guard column of the packed
// row) is not written; row_ids = [1] reads pool row 1, not batch row 0.
TEST(PropsRegression, ReadTableStopsAtMaxPagesAndReadsThePoolRow) {
  const std::vector<i64> v2p{0, 2, 1, -1};
  const std::vector<i32> r2t{1, 2, 2, 1};
  const std::vector<i64> rows{1}, lens{2};
  std::vector<i32> out{-7, -7};
  tr::read_table({.req_to_token = cmat(r2t, 2, 2), .row_ids = cvec(rows), .seq_lens = cvec(lens), .max_pages = 1,
                  .v2p = cvec(v2p), .page_size = 1, .multiplier = 1, .out = kvaddr::mmat(out, 1, 2)});
  EXPECT_EQ(out, (std::vector<i32>{1, -7}));
}

// write_loc @ b06: lanes [N, out_width) of a capture buffer holding a stale tail are zeroed; loc 0
// and padding -1 write the sink.
TEST(PropsRegression, WriteLocZeroesTheStaleTail) {
  const std::vector<i64> v2p{0, 3, -1};
  const std::vector<i64> loc{2, 0, -1};
  std::vector<i64> out(5, 7);
  tr::write_loc({.loc = cvec(loc), .v2p = cvec(v2p), .page_size = 2, .multiplier = 1, .out = mvec(out)});
  EXPECT_EQ(out, (std::vector<i64>{6, 0, 0, 0, 0}));
}

// eager_funnel @ b02: a rank-2 table at ps = 1 (two rows) is translated, not rejected.
TEST(PropsRegression, EagerFunnelRank2AtPs1) {
  const std::vector<i64> v2p{0, 2, -1, -1};
  const std::vector<i64> table{1, 2};
  std::vector<i64> out{-5, -5};
  tr::eager_funnel(
      {.page_table = cmat(table, 2, 1), .v2p = cvec(v2p), .page_size = 1, .multiplier = 4, .out = kvaddr::mmat(out, 2, 1)});
  EXPECT_EQ(out, (std::vector<i64>{8, 0}));
}

// stateful_pool @ b11 (shrunk: SwaAlloc(1), SwaSlide(req 0, 1 page)): a slid-out SWA token
// translates to the sink, in int64 and int32 alike.
TEST(PropsRegression, SwaSlidOutTokenReadsTheSink) {
  using namespace kvaddr::model;
  SwaComposite swa(Geometry(1, 1, 2, 1, 1, 1), Geometry(1, 1, 2, 1, 1, 1));
  const auto toks = swa.alloc(1);
  ASSERT_EQ(toks.size(), 1u);
  const std::vector<VirtualPage> pages{VirtualPage(toks[0].value)};
  swa.slide_out(pages);
  const std::vector<i64> sv2p(swa.swa().v2p().begin(), swa.swa().v2p().end());
  const std::vector<i64> ids{toks[0].value};
  std::vector<i64> out{-9};
  std::vector<i32> out32{-9};
  kvaddr::SwaTranslateArgs<i64> a{cvec(ids), cvec(sv2p), 1, 1, mvec(out), Variant::production};
  kvaddr::SwaTranslateArgs<i32> b{cvec(ids), cvec(sv2p), 1, 1, mvec(out32), Variant::production};
  tr::swa_translate(a);
  tr::swa_translate(b);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out32[0], 0);
}

// stateful_pool @ b16 (shrunk: AllocReq(1), FreeEager(req 0), AllocReq(1)) at ps 1, 3 pages:
// the second request gets virtual page 2 bound to physical page 1, so its transfer id is 1.
TEST(PropsRegression, TransferIdsArePhysicalAfterRecycling) {
  using namespace kvaddr::model;
  SubPool pool(Geometry(1, 1, 3, 1, 1, 1));
  const auto first = pool.alloc_pages(1);
  pool.free_eager(first);
  const auto second = pool.alloc_pages(1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].value, 2);
  const std::vector<i64> v2p(pool.v2p().begin(), pool.v2p().end());
  const std::vector<i64> ids{second[0].value};
  std::vector<i64> out{-9};
  kvaddr::TransferIdsArgs a{cvec(ids), cvec(v2p), 1, mvec(out), Variant::production};
  tr::transfer_ids(a);
  EXPECT_EQ(out[0], 1);
}

// Real disagreement (props mamba_translate_vs_model with padding ids, spec §4.10 / §7 Q3): with
// the clamp parameter on, a padding slot id (-1) must map to 0 without touching the table, as
// model::mamba_slot(v2p, -1, clamp = true) does. The host route loads v2p[-1] and throws
// OutOfRange even with clamp = true. Expected to FAIL until the route applies the clamp (or a
// padding guard) to padding ids.
TEST(PropsRegression, MambaClampMapsPaddingToZero) {
  const std::vector<i64> v2p{0, 3, -1, -1};
  const std::vector<i64> slots{-1, 2};
  ASSERT_EQ(kvaddr::model::mamba_slot(v2p, -1, true), 0);
  std::vector<i32> out{99, 99};
  kvaddr::MambaTranslateArgs a{cvec(slots), cvec(v2p), true, mvec(out)};
  EXPECT_NO_THROW(tr::mamba_translate(a));
  EXPECT_EQ(out, (std::vector<i32>{0, 0}));
}

}  // namespace
