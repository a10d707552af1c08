// Bad-input classes (spec §4 contracts): exact error type and the argument named by what().
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

const I64 kV2p = {0, 5, -1, 2, -1};
const I64 kIds = {5, 9, 0};

TokenTranslateArgs<std::int64_t> good(I64& out) { return {cvec(kIds), cvec(kV2p), 4, 3, mvec(out)}; }

TEST(Validate, PageSizeZero) {
  I64 out(3);
  auto a = good(out);
  a.page_size = 0;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::token_translate(a); }, "page_size"));
}

TEST(Validate, MultiplierZero) {
  I64 out(3);
  auto a = good(out);
  a.multiplier = 0;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::token_translate(a); }, "multiplier"));
}

TEST(Validate, NegativeSize) {
  I64 out(3);
  auto a = good(out);
  a.ids.size = -1;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::token_translate(a); }, "ids"));
}

TEST(Validate, NullDataWithSize) {
  I64 out(3);
  auto a = good(out);
  a.ids.data = nullptr;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::token_translate(a); }, "ids"));
}

TEST(Validate, MissingV2p) {
  I64 out(3);
  auto a = good(out);
  a.v2p = {};
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::token_translate(a); }, "v2p"));
}

TEST(Validate, StrideProductOverflowsInt64) {
  I64 out(3);
  auto a = good(out);
  a.page_size = std::int64_t{1} << 40;
  a.multiplier = std::int64_t{1} << 40;
  EXPECT_TRUE(throws_naming<Overflow>([&] { translate::token_translate(a); }, "multiplier"));
}

TEST(Validate, LaneProductOverflowNamesOut) {
  const I64 v2p = {0, std::numeric_limits<std::int64_t>::max() / 2, -1};
  I64 out(1);
  const I64 ids = {4};
  EXPECT_TRUE(throws_naming<Overflow>(
      [&] { translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), 4, 3, mvec(out)}); }, "out"));
}

TEST(Validate, IdsPastTheTable) {
  I64 out(1);
  const I64 ids = {5 * 4};
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] { translate::token_translate<std::int64_t>({cvec(ids), cvec(kV2p), 4, 3, mvec(out)}); }, "v2p"));
}

TEST(Validate, OutputTooSmall) {
  I64 out(2);
  EXPECT_TRUE(throws_naming<BufferTooSmall>([&] { translate::token_translate(good(out)); }, "out"));
}

TEST(Validate, Int32ValueWouldNotFit) {
  const I64 v2p = {0, std::int64_t{1} << 30, -1};
  const I64 ids = {1};
  I32 out(1, 777);
  EXPECT_TRUE(throws_naming<Overflow>(
      [&] { translate::token_translate<std::int32_t>({cvec(ids), cvec(v2p), 1, 3, mvec(out)}); }, "out"));
  EXPECT_EQ(out[0], 777);  // no silent wrap was stored
}

TEST(Validate, UnknownVariantForRoute) {
  I64 out(3);
  auto a = good(out);
  a.variant = Variant::b06_stale_tail;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::token_translate(a); }, "variant"));
  EXPECT_TRUE(throws_naming<InvalidArgument>([] { (void)parse_variant("b99_nope"); }, "variant"));
  EXPECT_TRUE(throws_naming<InvalidArgument>([] { (void)parse_route("no_route"); }, "route"));
  for (const Route r : kAllRoutes) {
    EXPECT_EQ(parse_route(to_string(r)), r);
    for (const Variant v : kAllVariants) {
      EXPECT_EQ(parse_variant(to_string(v)), v);
      if (route_accepts(r, v)) {
        EXPECT_NO_THROW(require_variant(r, v));
      } else {
        EXPECT_TRUE(throws_naming<InvalidArgument>([&] { require_variant(r, v); }, "variant"));
      }
    }
  }
}

TEST(Validate, PartialOverlapOfOutAndIds) {
  I64 buf = {5, 9, 0, 3};
  const TokenTranslateArgs<std::int64_t> a{{buf.data(), 3}, cvec(kV2p), 4, 3, {buf.data() + 1, 3}};
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::token_translate(a); }, "out"));
}

TEST(Validate, DcpRankOutsideDcpSize) {
  const I64 loc = {1};
  I64 out(1);
  EXPECT_TRUE(throws_naming<InvalidArgument>(
      [&] { translate::write_loc({cvec(loc), cvec(kV2p), 1, 1, 2, 2, mvec(out)}); }, "dcp_rank"));
  EXPECT_TRUE(throws_naming<InvalidArgument>(
      [&] { translate::write_loc({cvec(loc), cvec(kV2p), 1, 1, 0, 0, mvec(out)}); }, "dcp_size"));
}

TEST(Validate, WriteLocOutShorterThanLoc) {
  const I64 loc = {1, 2};
  I64 out(1);
  EXPECT_TRUE(throws_naming<BufferTooSmall>(
      [&] { translate::write_loc({cvec(loc), cvec(kV2p), 1, 1, 1, 0, mvec(out)}); }, "out"));
}

// ---- table contracts ----------------------------------------------------------------------------
const I32 kR2t = {2, 3, 8, 9, 6, 7, 0, 1};
const I64 kRows = {1, 0};
const I64 kSeq = {3, 4};

TEST(Validate, DecodeMetadataPageSizeNotPowerOfTwo) {
  I32 cache(2), cu(3), table(2 * 2);
  DecodeMetadataArgs a = decode_batch(cvec(kSeq), cmat(kR2t, 2, 4), cvec(kRows), 2, 3);
  set_decode_outputs(a, mvec(cache), mvec(cu), mmat(table, 2, 2));
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::decode_metadata(a); }, "page_size"));
  a.page_size = 2;
  a.cu_seqlens_k = {cu.data(), 2};
  EXPECT_TRUE(throws_naming<BufferTooSmall>([&] { translate::decode_metadata(a); }, "cu_seqlens_k"));
}

TEST(Validate, CanonicalWidthAssertion) {
  I32 out(2 * 3);
  EXPECT_TRUE(throws_naming<BufferTooSmall>(
      [&] {
        translate::canonical_page_table(
            {cmat(kR2t, 2, 4), cvec(kRows), cvec(kSeq), cvec(kV2p), 2, 1, 3, mmat(out, 2, 3)});
      },
      "req_to_token"));
}

TEST(Validate, ReadTableWidthAssertionAndPackedRows) {
  I32 out(2 * 4);
  ReadTableArgs a{cmat(kR2t, 2, 4), cvec(kRows), cvec(kSeq), 0, 3, cvec(kV2p), 2, 1, mmat(out, 2, 3)};
  EXPECT_TRUE(throws_naming<BufferTooSmall>([&] { translate::read_table(a); }, "req_to_token"));  // (3-1)*2 = 4
  a.max_pages = 2;
  a.out = {out.data(), 2, 2, 4, 2};  // strided columns
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::read_table(a); }, "out"));
  a.out = {out.data(), 1, 2, 2, 1};  // fewer rows than the batch
  EXPECT_TRUE(throws_naming<BufferTooSmall>([&] { translate::read_table(a); }, "out"));
}

// The reasons that name a value are built only when their rule fails (validate_rules.ipp): the
// text of each, in full.
template <class F>
std::string what_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Validate, ReasonsThatNameAValueAreBuiltOnFailure) {
  I32 out(2 * 3);
  EXPECT_EQ(what_of([&] {
              translate::canonical_page_table(
                  {cmat(kR2t, 2, 4), cvec(kRows), cvec(kSeq), cvec(kV2p), 2, 1, 3, mmat(out, 2, 3)});
            }),
            "req_to_token = 4: width < max_pages * page_size = 6");
  ReadTableArgs rt{cmat(kR2t, 2, 4), cvec(kRows), cvec(kSeq), 0, 3, cvec(kV2p), 2, 1, mmat(out, 2, 3)};
  EXPECT_EQ(what_of([&] { translate::read_table(rt); }), "req_to_token = 4: width <= (max_pages - 1) * page_size = 4");
  rt.max_pages = 2;
  rt.out = {out.data(), 1, 3, 3, 1};
  EXPECT_EQ(what_of([&] { translate::read_table(rt); }), "out = 1: needs at least 2 rows");
  rt.out = {out.data(), 2, 1, 1, 1};
  EXPECT_EQ(what_of([&] { translate::read_table(rt); }), "out = 1: needs at least 2 columns");
  const I64 short_lens = {3};
  rt.seq_lens = cvec(short_lens);
  EXPECT_EQ(what_of([&] { translate::read_table(rt); }), "seq_lens = 1: needs at least 2 elements");
  const I64 loc = {1};
  I64 lout(1);
  EXPECT_EQ(what_of([&] { translate::write_loc({cvec(loc), cvec(kV2p), 1, 1, 2, 2, mvec(lout)}); }),
            "dcp_rank = 2: dcp_rank must lie in [0, dcp_size = 2)");
}

TEST(Validate, RowIdOutsideReqToToken) {
  const I64 rows = {0, 2};
  I32 out(2 * 2);
  EXPECT_TRUE(throws_naming<OutOfRange>(
      [&] {
        translate::read_table({cmat(kR2t, 2, 4), cvec(rows), cvec(kSeq), 0, 2, cvec(kV2p), 2, 1, mmat(out, 2, 2)});
      },
      "row_ids"));
}

TEST(Validate, FlashmlaStaticNeedsMultiplierOne) {
  I32 kv(2 * 2, -1);
  EXPECT_TRUE(throws_naming<InvalidArgument>(
      [&] { translate::flashmla_block_table({cmat(kR2t, 2, 4), cvec(kRows), cvec(kSeq), {}, {}, 2, 2, mmat(kv, 2, 2)}); },
      "multiplier"));
}

TEST(Validate, KvIndptrTooShortAndTotalPastBuffer) {
  I32 kv = {1, 2};
  const I32 indptr = {0, 2};
  EXPECT_TRUE(throws_naming<BufferTooSmall>(
      [&] { translate::kv_indices_inplace({mvec(kv), cvec(indptr), 2, {}, cvec(kV2p), 1, 1}); }, "kv_indptr"));
  const I32 long_indptr = {0, 3};
  EXPECT_TRUE(throws_naming<BufferTooSmall>(
      [&] { translate::kv_indices_inplace({mvec(kv), cvec(long_indptr), 1, {}, cvec(kV2p), 1, 1}); }, "kv_indices"));
}

TEST(Validate, NegativeMaxPagesAndSeqLen) {
  I32 out(2 * 2);
  CanonicalPageTableArgs a{cmat(kR2t, 2, 4), cvec(kRows), cvec(kSeq), cvec(kV2p), 2, 1, -1, mmat(out, 2, 2)};
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { translate::canonical_page_table(a); }, "max_pages"));
  const I64 seq = {3, -4};
  a.max_pages = 2;
  a.seq_lens = cvec(seq);
  EXPECT_TRUE(throws_naming<OutOfRange>([&] { translate::canonical_page_table(a); }, "seq_lens"));
}

}  // namespace
}  // namespace kvaddr
