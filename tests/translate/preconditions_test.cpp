// broken_preconditions: each production precondition on both sides of its boundary, with the
// exact message naming the row and numbers.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/preconditions.hpp"

namespace kvaddr {
namespace {

using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;
using Strings = std::vector<std::string>;

// ps = 2; one req_to_token row 0..7; v2p identity over 8 pages.
const I32 kPreR2t = {0, 1, 2, 3, 4, 5, 6, 7};
const I64 kPreV2p = {0, 1, 2, 3, 4, 5, 6, 7, -1};
const I64 kPreRows = {0};

CanonicalPageTableArgs canonical(const I64& lens, std::int64_t max_pages, const I32& r2t = kPreR2t) {
  return {cmat(r2t, 1, 8), cvec(kPreRows), cvec(lens), cvec(kPreV2p), 2, 1, max_pages, {}, Variant::production};
}

TEST(Preconditions, PagesWithinMaxPagesOnBothSidesOfTheBound) {
  const I64 four = {4}, five = {5};
  EXPECT_TRUE(broken_preconditions(canonical(four, 2)).empty());  // n_pages 2 == max_pages
  EXPECT_EQ(broken_preconditions(canonical(five, 2)),
            (Strings{"row 0: n_pages = 3 > max_pages = 2 (KV length 5, page_size 2)"}));
  ReadTableArgs r;
  r.req_to_token = cmat(kPreR2t, 1, 8);
  r.row_ids = cvec(kPreRows);
  r.seq_lens = cvec(four);
  r.seq_len_delta = 1;  // 5
  r.max_pages = 2;
  r.v2p = cvec(kPreV2p);
  r.page_size = 2;
  EXPECT_EQ(broken_preconditions(r), (Strings{"row 0: n_pages = 3 > max_pages = 2 (KV length 5, page_size 2)"}));
  r.seq_len_delta = 0;
  EXPECT_TRUE(broken_preconditions(r).empty());
}

TEST(Preconditions, PaddingBelowMinusPsInALiveColumn) {
  const I64 lens = {4};
  I32 r2t = kPreR2t;
  r2t[2] = -1;  // column 1: -1 / 2 truncates to page 0
  EXPECT_TRUE(broken_preconditions(canonical(lens, 2, r2t)).empty());
  r2t[2] = -2;  // -2 / 2 = -1: a read of v2p[-1] without the guard
  EXPECT_EQ(broken_preconditions(canonical(lens, 2, r2t)),
            (Strings{"row 0 column 1: padding token -2 < -1 (a kernel without the padding guard reads before v2p)"}));
}

TEST(Preconditions, DecodeLengthsMustFitInt32) {
  const I64 lens = {(std::int64_t{1} << 31) - 2};
  DecodeMetadataArgs a;
  a.seq_lens = cvec(lens);
  a.seq_len_delta = 1;  // 2^31 - 1 fits
  EXPECT_TRUE(broken_preconditions(a).empty());
  a.seq_len_delta = 2;  // 2^31 does not
  EXPECT_EQ(broken_preconditions(a),
            (Strings{"row 0: seq_len + delta = 2147483648 (prefix sum 2147483648) does not fit the int32 "
                     "cache_seqlens / cu_seqlens_k"}));
}

TEST(Preconditions, DecodeNegativeTokenReadsBeforeV2pWithoutTheGuard) {
  const I64 lens = {2};
  I32 r2t = {0, 1, -1, 3};
  DecodeMetadataArgs a = decode_batch(cvec(lens), cmat(r2t, 1, 4), cvec(kPreRows), 2, 1);
  a.v2p = cvec(kPreV2p);
  EXPECT_TRUE(broken_preconditions(a).empty());  // live columns 0, 1 hold 0 and 1
  r2t[1] = -1;
  EXPECT_EQ(broken_preconditions(a),
            (Strings{"row 0 column 1: padding token -1 < 0 (the fa3 shift without the guard reads v2p[-1] or before)"}));
}

}  // namespace
}  // namespace kvaddr
