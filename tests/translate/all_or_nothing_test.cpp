// All-or-nothing writes (issue 13): every host route that writes a caller buffer leaves EVERY
// caller buffer bit-identical when it fails, even after earlier lanes were valid; and every host
// store is bounds-checked, so a store outside a buffer is an OutOfRange, never a write.
//
// Each case runs a call whose first lanes are valid and whose last lane fails, checks the error
// type and the argument named, and compares every output with its copy from before the call. The
// same call without the failing lane must change the outputs (so the case is not vacuous).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "checked.hpp"
#include "expect_error.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions
namespace tr = translate;

// Runs a valid call and reports whether it changed any buffer.
template <class Call, class... Bufs>
bool writes(Call&& call, Bufs&... bufs) {
  const auto saved = std::make_tuple(bufs...);
  call();
  const bool changed = std::make_tuple(bufs...) != saved;
  std::tie(bufs...) = saved;
  return changed;
}

// ps = 1, M = 2: id t -> v2p[t] * 2.
const I64 kAonV2p = {3, 2, 1, 0};
constexpr std::int64_t kPast = 99;  // past v2p

TEST(AllOrNothing, TokenTranslateBothWidths) {
  const I64 good = {0, 1, 2}, bad = {0, 1, kPast};
  I64 out64(4, -7);
  I32 out32(4, -7);
  EXPECT_TRUE(writes([&] { tr::token_translate<std::int64_t>({cvec(good), cvec(kAonV2p), 1, 2, mvec(out64)}); }, out64));
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::token_translate<std::int64_t>({cvec(bad), cvec(kAonV2p), 1, 2, mvec(out64)}); }, "v2p", out64));
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::token_translate<std::int32_t>({cvec(bad), cvec(kAonV2p), 1, 2, mvec(out32)}); }, "v2p", out32));
  // Overflow of the int32 output in the last lane (page 3 holds 2^40).
  const I64 big = {3, 2, 1, std::int64_t{1} << 40};
  const I64 ids3 = {0, 1, 3};
  EXPECT_TRUE(fails_untouched<Overflow>(
      [&] { tr::token_translate<std::int32_t>({cvec(ids3), cvec(big), 1, 2, mvec(out32)}); }, "out", out32));
}

TEST(AllOrNothing, TokenTranslateExactAliasRestoresTheIds) {
  I64 ids = {0, 1, kPast};
  const I64 before = ids;
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] { tr::token_translate<std::int64_t>({cvec(ids), cvec(kAonV2p), 1, 2, mvec(ids)}); }, "v2p"));
  EXPECT_EQ(ids, before);
}

TEST(AllOrNothing, SwaTranslate) {
  const I64 good = {0, 1}, bad = {0, 1, kPast};
  I64 out(3, -7);
  EXPECT_TRUE(writes([&] { tr::swa_translate<std::int64_t>({cvec(good), cvec(kAonV2p), 1, 2, mvec(out)}); }, out));
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::swa_translate<std::int64_t>({cvec(bad), cvec(kAonV2p), 1, 2, mvec(out)}); }, "swa_v2p", out));
}

TEST(AllOrNothing, KvIndicesInplaceKeepsTheVirtualIds) {
  I32 kv = {0, 1, 2, static_cast<std::int32_t>(kPast), 55};
  const I32 indptr_good = {0, 3}, indptr_bad = {0, 4};
  EXPECT_TRUE(writes([&] { tr::kv_indices_inplace({mvec(kv), cvec(indptr_good), 1, {}, cvec(kAonV2p), 1, 2}); }, kv));
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::kv_indices_inplace({mvec(kv), cvec(indptr_bad), 1, {}, cvec(kAonV2p), 1, 2}); }, "v2p", kv));
  // With a separate src: kv_indices unchanged too.
  const I32 src = {0, 1, 2, static_cast<std::int32_t>(kPast)};
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::kv_indices_inplace({mvec(kv), cvec(indptr_bad), 1, cvec(src), cvec(kAonV2p), 1, 2}); }, "v2p", kv));
}

TEST(AllOrNothing, WriteLocIncludingTheTail) {
  const I64 good = {0, 1}, bad = {0, 1, kPast};
  I64 out(5, -7);
  EXPECT_TRUE(writes([&] { tr::write_loc({cvec(good), cvec(kAonV2p), 1, 2, 1, 0, mvec(out)}); }, out));
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::write_loc({cvec(bad), cvec(kAonV2p), 1, 2, 1, 0, mvec(out)}); }, "v2p", out));
}

TEST(AllOrNothing, MambaDcpTransfer) {
  const I64 good = {0, 1}, bad = {0, 1, kPast};
  I32 o32(3, -7);
  I64 o64(3, -7);
  EXPECT_TRUE(writes([&] { tr::mamba_translate({cvec(good), cvec(kAonV2p), false, mvec(o32)}); }, o32));
  EXPECT_TRUE(fails_untouched<OutOfRange>([&] { tr::mamba_translate({cvec(bad), cvec(kAonV2p), false, mvec(o32)}); },
                                          "v2p", o32));
  EXPECT_TRUE(writes([&] { tr::dcp_read_translate({cvec(good), cvec(kAonV2p), 1, 2, 1, mvec(o64)}); }, o64));
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::dcp_read_translate({cvec(bad), cvec(kAonV2p), 1, 2, 1, mvec(o64)}); }, "v2p", o64));
  EXPECT_TRUE(writes([&] { tr::transfer_ids({cvec(good), cvec(kAonV2p), 1, mvec(o64)}); }, o64));
  EXPECT_TRUE(fails_untouched<OutOfRange>([&] { tr::transfer_ids({cvec(bad), cvec(kAonV2p), 1, mvec(o64)}); }, "v2p",
                                          o64));
}

TEST(AllOrNothing, EnvelopeMovesBothOutputs) {
  const I64 dst = {4, 5, 8, 9}, src = {10, 11, 2, 3};
  const I64 bad_src = {10, 11, 3, 4};  // the second run is not page-aligned
  I64 dp(2, -7), sp(2, -7);
  EXPECT_TRUE(writes([&] { tr::envelope_moves({cvec(dst), cvec(src), 2, mvec(dp), mvec(sp)}); }, dp, sp));
  EXPECT_TRUE(fails_untouched<InvalidArgument>(
      [&] { tr::envelope_moves({cvec(dst), cvec(bad_src), 2, mvec(dp), mvec(sp)}); }, "src_tokens", dp, sp));
}

// Tables: req_to_token 2 rows x 4 columns, ps = 1, M = 2; row ids {0, 1} are valid, {0, 9} fail
// in batch lane 1 after lane 0 wrote its row.
const I32 kAonR2t = {0, 1, 2, 3, 3, 2, 1, 0};
Mat<const std::int32_t> r2t() { return cmat(kAonR2t, 2, 4); }
const I64 kRowsGood = {0, 1}, kRowsBad = {0, 9}, kLens = {3, 2};

TEST(AllOrNothing, FlashmlaBlockTable) {
  I32 kv(2 * 4, -1);
  auto call = [&](const I64& rows) {
    tr::flashmla_block_table({r2t(), cvec(rows), cvec(kLens), {}, cvec(kAonV2p), 1, 2, mmat(kv, 2, 4)});
  };
  EXPECT_TRUE(writes([&] { call(kRowsGood); }, kv));
  EXPECT_TRUE(fails_untouched<OutOfRange>([&] { call(kRowsBad); }, "req_pool_indices", kv));
}

TEST(AllOrNothing, CanonicalAndFullPrefillTables) {
  I32 out(2 * 4, -7);
  auto canonical = [&](const I64& rows) {
    tr::canonical_page_table({r2t(), cvec(rows), cvec(kLens), cvec(kAonV2p), 1, 2, 4, mmat(out, 2, 4)});
  };
  EXPECT_TRUE(writes([&] { canonical(kRowsGood); }, out));
  EXPECT_TRUE(fails_untouched<OutOfRange>([&] { canonical(kRowsBad); }, "req_pool_indices", out));
  auto full = [&](const I64& rows) {
    tr::full_prefill_table({r2t(), cvec(rows), cvec(kLens), cvec(kAonV2p), 1, 2, 4, mmat(out, 2, 4)});
  };
  EXPECT_TRUE(writes([&] { full(kRowsGood); }, out));
  EXPECT_TRUE(fails_untouched<OutOfRange>([&] { full(kRowsBad); }, "req_pool_indices", out));
}

TEST(AllOrNothing, ReadTableWithZeroTailAndPaddedRows) {
  I32 out(3 * 4, -7);
  auto call = [&](const I64& rows) {
    ReadTableArgs a{r2t(), cvec(rows), cvec(kLens), 0, 4, cvec(kAonV2p), 1, 2, mmat(out, 3, 4)};
    a.zero_tail = true;
    tr::read_table(a);
  };
  EXPECT_TRUE(writes([&] { call(kRowsGood); }, out));
  EXPECT_TRUE(fails_untouched<OutOfRange>([&] { call(kRowsBad); }, "row_ids", out));
}

TEST(AllOrNothing, ReadStream) {
  const I32 table = {5, 6, 7, 8};
  const I32 indptr = {0, 2, 4};
  const I64 start_good = {0, 0}, start_bad = {0, -1};
  I32 stream(4, -7);
  EXPECT_TRUE(writes([&] { tr::read_stream({cmat(table, 2, 2), cvec(indptr), cvec(start_good), 1, mvec(stream)}); },
                     stream));
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] { tr::read_stream({cmat(table, 2, 2), cvec(indptr), cvec(start_bad), 1, mvec(stream)}); }, "kv_start_idx",
      stream));
}

TEST(AllOrNothing, DecodeMetadataKeepsLengthsWhenThePageTableFails) {
  I32 cache(2, -7), cu(3, -7), table(2 * 4, -7), swa(2 * 4, -7);
  auto call = [&](const I64& rows, bool with_swa) {
    DecodeMetadataArgs a = decode_batch(cvec(kLens), r2t(), cvec(rows), 4, 1);
    a.v2p = cvec(kAonV2p);
    a.multiplier = 2;
    set_decode_outputs(a, mvec(cache), mvec(cu), mmat(table, 2, 4));
    if (with_swa) {
      a.swa_v2p = cvec(kAonV2p);
      a.swa_page_table = mmat(swa, 2, 4);
    }
    tr::decode_metadata(a);
  };
  EXPECT_TRUE(writes([&] { call(kRowsGood, true); }, cache, cu, table, swa));
  EXPECT_TRUE(fails_untouched<OutOfRange>([&] { call(kRowsBad, false); }, "req_pool_indices", cache, cu, table));
  EXPECT_TRUE(
      fails_untouched<OutOfRange>([&] { call(kRowsBad, true); }, "req_pool_indices", cache, cu, table, swa));
  // A lengths overflow (cu_seqlens_k past int32) in the last lane.
  const I64 huge = {3, std::numeric_limits<std::int32_t>::max()};
  DecodeMetadataArgs a;
  a.seq_lens = cvec(huge);
  a.page_size = 1;
  a.skip_page_table = true;
  a.cache_seqlens = mvec(cache);
  a.cu_seqlens_k = mvec(cu);
  EXPECT_TRUE(fails_untouched<Overflow>([&] { tr::decode_metadata(a); }, "cu_seqlens_k", cache, cu));
}

TEST(AllOrNothing, EagerFunnelInPlace) {
  I64 pt = {0, 1, 2, kPast};
  EXPECT_TRUE(fails_untouched<OutOfRange>(
      [&] {
        tr::eager_funnel({cmat(pt, 2, 2), cvec(kAonV2p), 1, 2, mmat(pt, 2, 2)});
      },
      "v2p", pt));
  I64 ok = {0, 1, 2, 3};
  EXPECT_TRUE(writes([&] { tr::eager_funnel({cmat(ok, 2, 2), cvec(kAonV2p), 1, 2, mmat(ok, 2, 2)}); }, ok));
}

// ---- checked stores ---------------------------------------------------------------------------
// A mis-sized view (the buffer is one element longer than the view says) and stores past the view:
// OutOfRange naming the buffer, and the element past the view is never written.
TEST(CheckedStore, VecStorePastTheViewIsOutOfRange) {
  I64 buf = {1, 2, 3, 42};
  const Vec<std::int64_t> view{buf.data(), 3};
  translate::detail::put(view, 2, "out") = 9;
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::detail::put(view, 3, "out") = 7; }, "out"));
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::detail::put(view, -1, "out") = 7; }, "out"));
  EXPECT_EQ(buf, (I64{1, 2, 9, 42}));
}

TEST(CheckedStore, MatStoreOutsideRowsOrColumnsIsOutOfRange) {
  I32 buf(2 * 3 + 1, 0);
  buf.back() = 42;
  const Mat<std::int32_t> view{buf.data(), 2, 2, 3, 1};  // two rows of width 2, row stride 3
  translate::detail::put(view, 1, 1, "table") = 5;
  EXPECT_EQ(buf[4], 5);
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::detail::put(view, 1, 2, "table") = 7; }, "table"));
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::detail::put(view, 2, 0, "table") = 7; }, "table"));
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::detail::put(view, 0, -1, "table") = 7; }, "table"));
  EXPECT_EQ(buf, (I32{0, 0, 0, 0, 5, 0, 42}));
}

// A wrong loop bound inside a route (a mutated ceil_div: one page too many) reaches the checked
// store: OutOfRange naming the output, the caller's buffer unchanged, the canary past it intact.
TEST(CheckedStore, WrongPageCountInARouteIsOutOfRangeNotAHeapWrite) {
  namespace mut = translate::mutation;
  const mut::Campaign campaign;
  I32 kv(2 * 4 + 1, -1);  // the view covers 2 x 3; the last elements are outside it
  const Mat<std::int32_t> view{kv.data(), 2, 3, 4, 1};
  const I64 lens = {3, 3};  // 3 pages = the view's width
  const I32 before = kv;
  mut::tl_state.active = {mut::unit_of(Route::flashmla_block_table), 0, mut::Site::bound, 0, mut::Op::bound_plus1};
  auto call = [&] {
    tr::flashmla_block_table({r2t(), cvec(kRowsGood), cvec(lens), {}, cvec(kAonV2p), 1, 2, view});
  };
  const auto r = throws_naming<OutOfRange>(call, "kv_indices");
  mut::tl_state.active = {};
  EXPECT_TRUE(r);
  EXPECT_EQ(kv, before);
}

}  // namespace
}  // namespace kvaddr
