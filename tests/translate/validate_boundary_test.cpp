// Every validation rule of every route (translate/src/validate.cpp and the routes' content checks)
// on both sides of its exact boundary. A reject case checks the error type, the argument named and
// that no caller memory changed (the fixture's whole allocation, inputs included); an accept case
// runs the same call at the boundary value. Buffers that alias are views into one allocation, so
// "touching" and "one element of overlap" are the same two pointers one element apart.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <tuple>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/decode_args.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions
namespace tr = translate;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// Builds fixture Fx, lets `mut` change its arguments, runs the route.
template <class E, class Fx, class Mut>
::testing::AssertionResult rejects(Mut&& mut, std::string_view arg) {
  Fx f;
  auto a = f.args();
  mut(a, f);
  return std::apply([&](auto&... bufs) { return fails_untouched<E>([&] { Fx::run(a); }, arg, bufs...); }, f.outs());
}
template <class Fx, class Mut>
::testing::AssertionResult accepts(Mut&& mut) {
  Fx f;
  auto a = f.args();
  mut(a, f);
  try {
    Fx::run(a);
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "rejected: " << e.what();
  }
  return ::testing::AssertionSuccess();
}
constexpr auto kAsIs = [](auto&, auto&) {};

// ---- token routes (§4.1, §4.9, §4.12, §4.13): one int64 allocation ------------------------------
// pool: ids [0, 3), out [8, 11), v2p [12, 16).
struct TokenFx {
  I64 pool = {0, 1, 2, -7, -7, -7, -7, -7, -7, -7, -7, -7, 3, 2, 1, 0};
  std::int64_t* at(std::int64_t i) { return pool.data() + i; }
  TokenTranslateArgs<std::int64_t> args() { return {{at(0), 3}, {at(12), 4}, 1, 2, {at(8), 3}}; }
  static void run(const TokenTranslateArgs<std::int64_t>& a) { tr::token_translate(a); }
  auto outs() { return std::tie(pool); }
};
using TA = TokenTranslateArgs<std::int64_t>;

TEST(Boundary, TokenScalars) {
  EXPECT_TRUE(accepts<TokenFx>(kAsIs));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.page_size = 0; }, "page_size"));
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) { a.page_size = 1; }));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.multiplier = 0; }, "multiplier"));
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) { a.multiplier = 1; }));
  // S = ps * M: 2^31 * 2^31 = 2^62 fits, 2^32 * 2^31 = 2^63 does not.
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) {
    a.page_size = std::int64_t{1} << 31;
    a.multiplier = std::int64_t{1} << 31;
    a.ids.size = 0;
  }));
  EXPECT_TRUE((rejects<Overflow, TokenFx>)(
      [](TA& a, auto&) {
        a.page_size = std::int64_t{1} << 32;
        a.multiplier = std::int64_t{1} << 31;
      },
      "multiplier"));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.variant = Variant::b06_stale_tail; }, "variant"));
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) { a.variant = Variant::b17_doc_formula; }));
}

TEST(Boundary, TokenSizes) {
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.ids.size = -1; }, "ids"));
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) { a.ids.size = 0; }));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.ids.data = nullptr; }, "ids"));
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) { a.ids = {nullptr, 0}; }));
  // Size in bytes: kMax / 8 elements pass the size rule (and fail out's), one more does not.
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.ids.size = kMax / 8 + 1; }, "ids"));
  EXPECT_TRUE((rejects<BufferTooSmall, TokenFx>)([](TA& a, auto&) { a.ids.size = kMax / 8; }, "out"));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.v2p = {}; }, "v2p"));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, auto&) { a.v2p.size = 0; }, "v2p"));
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) {
    a.v2p.size = 1;
    a.ids.size = 1;
  }));
  EXPECT_TRUE((rejects<BufferTooSmall, TokenFx>)([](TA& a, auto&) { a.out.size = 2; }, "out"));
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, auto&) { a.out.size = 3; }));
  // Content: the last valid page and the first page past v2p.
  EXPECT_TRUE(accepts<TokenFx>([](TA&, TokenFx& f) { f.pool[2] = 3; }));
  EXPECT_TRUE((rejects<OutOfRange, TokenFx>)([](TA&, TokenFx& f) { f.pool[2] = 4; }, "v2p"));
}

TEST(Boundary, TokenAliasing) {
  // out == ids exactly: admitted.
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, TokenFx& f) { a.out = {f.at(0), 3}; }));
  // Same start, longer out: partial overlap.
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, TokenFx& f) { a.out = {f.at(0), 4}; }, "out"));
  // out right after ids (touching) is disjoint; one element earlier overlaps.
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, TokenFx& f) { a.out = {f.at(3), 3}; }));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, TokenFx& f) { a.out = {f.at(2), 3}; }, "out"));
  // out right before ids: ids at [4, 7), out at [1, 4) touches, [2, 5) overlaps.
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, TokenFx& f) {
    a.ids = {f.at(4), 3};
    a.out = {f.at(1), 3};
  }));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)(
      [](TA& a, TokenFx& f) {
        a.ids = {f.at(4), 3};
        a.out = {f.at(2), 3};
      },
      "out"));
  // out against v2p [12, 16): [9, 12) touches, [10, 13) overlaps.
  EXPECT_TRUE(accepts<TokenFx>([](TA& a, TokenFx& f) { a.out = {f.at(9), 3}; }));
  EXPECT_TRUE((rejects<InvalidArgument, TokenFx>)([](TA& a, TokenFx& f) { a.out = {f.at(10), 3}; }, "out"));
}

// ---- §4.7 kv_indices_inplace: one int32 allocation ---------------------------------------------
// pool: kv_indices [0, 4), kv_indptr [4, 6) = {0, 3}, src [8, 12).
struct KvFx {
  I32 pool = {0, 1, 2, 55, 0, 3, -7, -7, 3, 2, 1, 0};
  I64 v2p = {3, 2, 1, 0};
  std::int32_t* at(std::int64_t i) { return pool.data() + i; }
  KvIndicesInplaceArgs args() { return {{at(0), 4}, {at(4), 2}, 1, {}, cvec(v2p), 1, 2}; }
  static void run(const KvIndicesInplaceArgs& a) { tr::kv_indices_inplace(a); }
  auto outs() { return std::tie(pool, v2p); }
};
using KA = KvIndicesInplaceArgs;

TEST(Boundary, KvIndicesInplace) {
  EXPECT_TRUE(accepts<KvFx>(kAsIs));
  EXPECT_TRUE((rejects<InvalidArgument, KvFx>)([](KA& a, auto&) { a.batch_size = -1; }, "batch_size"));
  EXPECT_TRUE(accepts<KvFx>([](KA& a, auto&) { a.batch_size = 0; }));
  EXPECT_TRUE((rejects<Overflow, KvFx>)([](KA& a, auto&) { a.batch_size = kMax; }, "batch_size"));
  EXPECT_TRUE((rejects<BufferTooSmall, KvFx>)([](KA& a, auto&) { a.kv_indptr.size = 1; }, "kv_indptr"));
  // n = kv_indptr[B]: -1 rejected, 0 accepted; n = kv_indices.size accepted, one more rejected.
  EXPECT_TRUE((rejects<OutOfRange, KvFx>)([](KA&, KvFx& f) { f.pool[5] = -1; }, "kv_indptr"));
  EXPECT_TRUE(accepts<KvFx>([](KA&, KvFx& f) { f.pool[5] = 0; }));
  EXPECT_TRUE(accepts<KvFx>([](KA&, KvFx& f) {
    f.pool[5] = 4;
    f.pool[3] = 3;
  }));
  EXPECT_TRUE((rejects<BufferTooSmall, KvFx>)([](KA&, KvFx& f) { f.pool[5] = 5; }, "kv_indices"));
  // src: at least n elements; exact alias admitted; touching admitted; partial overlap rejected.
  EXPECT_TRUE(accepts<KvFx>([](KA& a, KvFx& f) { a.src = {f.at(8), 3}; }));
  EXPECT_TRUE((rejects<BufferTooSmall, KvFx>)([](KA& a, KvFx& f) { a.src = {f.at(8), 2}; }, "src"));
  EXPECT_TRUE(accepts<KvFx>([](KA& a, KvFx& f) { a.src = {f.at(0), 4}; }));
  EXPECT_TRUE((rejects<InvalidArgument, KvFx>)([](KA& a, KvFx& f) { a.src = {f.at(1), 4}; }, "src"));
  // kv_indices against kv_indptr [4, 6): kv_indices [0, 4) touches it; [1, 5) overlaps.
  EXPECT_TRUE((rejects<InvalidArgument, KvFx>)([](KA& a, KvFx& f) { a.kv_indices = {f.at(1), 4}; }, "kv_indices"));
  EXPECT_TRUE((rejects<InvalidArgument, KvFx>)([](KA& a, auto&) { a.v2p = {}; }, "v2p"));
  EXPECT_TRUE((rejects<InvalidArgument, KvFx>)([](KA& a, auto&) { a.page_size = 0; }, "page_size"));
}

// ---- §4.8 write_loc ----------------------------------------------------------------------------
// pool: loc [0, 3), out [4, 8), v2p [8, 12).
struct WlFx {
  I64 pool = {0, 1, 2, -7, -7, -7, -7, -7, 3, 2, 1, 0};
  std::int64_t* at(std::int64_t i) { return pool.data() + i; }
  WriteLocArgs args() { return {{at(0), 3}, {at(8), 4}, 1, 2, 1, 0, {at(4), 4}}; }
  static void run(const WriteLocArgs& a) { tr::write_loc(a); }
  auto outs() { return std::tie(pool); }
};

TEST(Boundary, WriteLoc) {
  EXPECT_TRUE(accepts<WlFx>(kAsIs));
  EXPECT_TRUE((rejects<InvalidArgument, WlFx>)([](WriteLocArgs& a, auto&) { a.dcp_size = 0; }, "dcp_size"));
  EXPECT_TRUE(accepts<WlFx>([](WriteLocArgs& a, auto&) {
    a.dcp_size = 2;
    a.dcp_rank = 1;
  }));
  EXPECT_TRUE((rejects<InvalidArgument, WlFx>)(
      [](WriteLocArgs& a, auto&) {
        a.dcp_size = 2;
        a.dcp_rank = 2;
      },
      "dcp_rank"));
  EXPECT_TRUE((rejects<InvalidArgument, WlFx>)([](WriteLocArgs& a, auto&) { a.dcp_rank = -1; }, "dcp_rank"));
  EXPECT_TRUE(accepts<WlFx>([](WriteLocArgs& a, auto&) { a.out.size = 3; }));
  EXPECT_TRUE((rejects<BufferTooSmall, WlFx>)([](WriteLocArgs& a, auto&) { a.out.size = 2; }, "out"));
  // out may start at loc and be longer (prefix alias); one element later is a partial overlap.
  EXPECT_TRUE(accepts<WlFx>([](WriteLocArgs& a, WlFx& f) { a.out = {f.at(0), 4}; }));
  EXPECT_TRUE((rejects<InvalidArgument, WlFx>)([](WriteLocArgs& a, WlFx& f) { a.out = {f.at(1), 3}; }, "out"));
  EXPECT_TRUE(accepts<WlFx>([](WriteLocArgs& a, WlFx& f) { a.out = {f.at(3), 5}; }));   // touches loc and v2p
  EXPECT_TRUE((rejects<InvalidArgument, WlFx>)([](WriteLocArgs& a, WlFx& f) { a.out = {f.at(3), 6}; }, "out"));
}

// ---- §4.4 read_table and read_stream: one int32 allocation --------------------------------------
// pool: req_to_token 2 x 4 at [0, 8), out 2 x 3 at [8, 14), then 2 spare.
struct RtFx {
  I32 pool = {0, 1, 2, 3, 3, 2, 1, 0, -7, -7, -7, -7, -7, -7, -7, -7};
  I64 rows = {1, 0}, lens = {4, 3}, v2p = {3, 2, 1, 0};
  std::int32_t* at(std::int64_t i) { return pool.data() + i; }
  ReadTableArgs args() {
    return {{at(0), 2, 4, 4, 1}, cvec(rows), cvec(lens), 0, 3, cvec(v2p), 1, 2, {at(8), 2, 3, 3, 1}};
  }
  static void run(const ReadTableArgs& a) { tr::read_table(a); }
  auto outs() { return std::tie(pool, rows, lens, v2p); }
};
using RA = ReadTableArgs;

TEST(Boundary, ReadTableShapes) {
  EXPECT_TRUE(accepts<RtFx>(kAsIs));
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, auto&) { a.max_pages = -1; }, "max_pages"));
  EXPECT_TRUE(accepts<RtFx>([](RA& a, auto&) { a.max_pages = 0; }));
  // req_to_token must reach column (max_pages - 1) * ps: ps = 2, max_pages = 2 needs width 3.
  EXPECT_TRUE(accepts<RtFx>([](RA& a, auto&) {
    a.page_size = 2;
    a.max_pages = 2;
    a.req_to_token.cols = 3;
  }));
  EXPECT_TRUE((rejects<BufferTooSmall, RtFx>)(
      [](RA& a, auto&) {
        a.page_size = 2;
        a.max_pages = 2;
        a.req_to_token.cols = 2;
      },
      "req_to_token"));
  EXPECT_TRUE((rejects<BufferTooSmall, RtFx>)([](RA& a, auto&) { a.seq_lens.size = 1; }, "seq_lens"));
  EXPECT_TRUE((rejects<BufferTooSmall, RtFx>)([](RA& a, auto&) { a.out.rows = 1; }, "out"));
  EXPECT_TRUE((rejects<BufferTooSmall, RtFx>)([](RA& a, auto&) { a.out.cols = 2; }, "out"));
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, auto&) { a.req_to_token.rows = -1; }, "req_to_token"));
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, auto&) { a.req_to_token.row_stride = -1; }, "req_to_token"));
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, auto&) { a.req_to_token.data = nullptr; }, "req_to_token"));
  EXPECT_TRUE((rejects<Overflow, RtFx>)([](RA& a, auto&) { a.req_to_token.rows = kMax / 2; }, "req_to_token"));
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, auto&) { a.variant = Variant::b05_rebind_fresh; }, "variant"));
  // Content: lengths up to max_pages * ps read only existing columns; a row id past the rows fails.
  EXPECT_TRUE((rejects<OutOfRange, RtFx>)([](RA&, RtFx& f) { f.rows[0] = 2; }, "row_ids"));
  EXPECT_TRUE((rejects<OutOfRange, RtFx>)([](RA&, RtFx& f) { f.rows[0] = -1; }, "row_ids"));
  EXPECT_TRUE((rejects<OutOfRange, RtFx>)([](RA&, RtFx& f) { f.lens[1] = -1; }, "seq_lens"));
  EXPECT_TRUE(accepts<RtFx>([](RA&, RtFx& f) { f.lens[1] = 0; }));
}

TEST(Boundary, ReadTableOutputStridesAndAliasing) {
  // Rows of width 3: row_stride 3 packs them; 2 overlaps; col_stride 0 repeats one element.
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, auto&) { a.out.row_stride = 2; }, "out"));
  EXPECT_TRUE(accepts<RtFx>([](RA& a, auto&) { a.out.row_stride = 4; }));  // gap: 2 x 3 over [8, 15)
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, auto&) { a.out.col_stride = 0; }, "out"));
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)(
      [](RA& a, auto&) {
        a.out.col_stride = 2;
        a.out.row_stride = 6;
        a.out.rows = 1;
      },
      "out"));  // rows must be packed
  // out against req_to_token [0, 8): starting at 8 touches it, at 7 overlaps.
  EXPECT_TRUE((rejects<InvalidArgument, RtFx>)([](RA& a, RtFx& f) { a.out.data = f.at(7); }, "out"));
  EXPECT_TRUE(accepts<RtFx>([](RA& a, RtFx& f) { a.out.data = f.at(10); }));
}

// pool: table 2 x 2 at [0, 4), indptr [4, 7) = {0, 2, 4}, stream [8, 12).
struct RsFx {
  I32 pool = {5, 6, 7, 8, 0, 2, 4, -7, -7, -7, -7, -7, -7};
  I64 start = {0, 0};
  std::int32_t* at(std::int64_t i) { return pool.data() + i; }
  ReadStreamArgs args() { return {{at(0), 2, 2, 2, 1}, {at(4), 3}, cvec(start), 1, {at(8), 4}}; }
  static void run(const ReadStreamArgs& a) { tr::read_stream(a); }
  auto outs() { return std::tie(pool, start); }
};
using SA = ReadStreamArgs;

TEST(Boundary, ReadStream) {
  EXPECT_TRUE(accepts<RsFx>(kAsIs));
  // indptr[0] < 0 would write before the stream.
  EXPECT_TRUE((rejects<OutOfRange, RsFx>)([](SA&, RsFx& f) { f.pool[4] = -1; }, "indptr"));
  EXPECT_TRUE(accepts<RsFx>([](SA&, RsFx& f) { f.pool[4] = 1; }));
  // Non-decreasing: equal entries admitted, a decrease rejected.
  EXPECT_TRUE(accepts<RsFx>([](SA&, RsFx& f) { f.pool[6] = 2; }));
  EXPECT_TRUE((rejects<OutOfRange, RsFx>)([](SA&, RsFx& f) { f.pool[6] = 1; }, "indptr"));
  EXPECT_TRUE((rejects<BufferTooSmall, RsFx>)([](SA& a, auto&) { a.stream.size = 3; }, "stream"));
  EXPECT_TRUE((rejects<BufferTooSmall, RsFx>)([](SA& a, auto&) { a.table.rows = 1; }, "table"));
  EXPECT_TRUE((rejects<BufferTooSmall, RsFx>)([](SA& a, auto&) { a.kv_start_idx.size = 1; }, "kv_start_idx"));
  EXPECT_TRUE(accepts<RsFx>([](SA& a, auto&) { a.kv_start_idx = {}; }));
  EXPECT_TRUE((rejects<InvalidArgument, RsFx>)([](SA& a, auto&) { a.indptr = {}; }, "indptr"));
  EXPECT_TRUE((rejects<InvalidArgument, RsFx>)([](SA& a, auto&) { a.page_size = 0; }, "page_size"));
  // stream against indptr [4, 7): from 7 it touches, from 6 it overlaps; against the table [0, 4).
  EXPECT_TRUE(accepts<RsFx>([](SA& a, RsFx& f) { a.stream.data = f.at(7); }));
  EXPECT_TRUE((rejects<InvalidArgument, RsFx>)([](SA& a, RsFx& f) { a.stream.data = f.at(6); }, "stream"));
  EXPECT_TRUE((rejects<InvalidArgument, RsFx>)(
      [](SA& a, RsFx& f) {
        a.indptr.data = f.at(10);  // move indptr away: stream [3, 7) overlaps the table only
        f.pool[10] = 0, f.pool[11] = 2, f.pool[12] = 4;
        a.stream.data = f.at(3);
      },
      "stream"));
  // A position past the table row: kv_start 0 reads column 1, kv_start 1 reads column 2.
  EXPECT_TRUE((rejects<OutOfRange, RsFx>)([](SA&, RsFx& f) { f.start[1] = 1; }, "table"));
  EXPECT_TRUE((rejects<OutOfRange, RsFx>)([](SA&, RsFx& f) { f.start[1] = -1; }, "kv_start_idx"));
}

// ---- §4.5 decode_metadata ----------------------------------------------------------------------
// pool: cache [0, 2), cu [2, 5), page_table 2 x 4 at [5, 13); req_to_token separately.
struct DmFx {
  I32 pool = I32(16, -7);
  I32 r2t = {0, 1, 2, 3, 3, 2, 1, 0};
  I64 lens = {4, 3}, rows = {1, 0}, v2p = {3, 2, 1, 0};
  std::int32_t* at(std::int64_t i) { return pool.data() + i; }
  DecodeMetadataArgs args() {
    DecodeMetadataArgs a = decode_batch(cvec(lens), cmat(r2t, 2, 4), cvec(rows), 4, 1);
    a.v2p = cvec(v2p);
    a.multiplier = 2;
    set_decode_outputs(a, {at(0), 2}, {at(2), 3}, {at(5), 2, 4, 4, 1});
    return a;
  }
  static void run(const DecodeMetadataArgs& a) { tr::decode_metadata(a); }
  auto outs() { return std::tie(pool, r2t, lens, rows, v2p); }
};
using DA = DecodeMetadataArgs;

TEST(Boundary, DecodeMetadata) {
  EXPECT_TRUE(accepts<DmFx>(kAsIs));
  // Page-size classes: 1, 2, 4 are powers of two; 3 and 6 are not; 0 is below 1.
  for (std::int64_t ps : {1, 2, 4}) EXPECT_TRUE(accepts<DmFx>([ps](DA& a, auto&) { a.page_size = ps; }));
  for (std::int64_t ps : {0, 3, 6})
    EXPECT_TRUE((rejects<InvalidArgument, DmFx>)([ps](DA& a, auto&) { a.page_size = ps; }, "page_size"));
  EXPECT_TRUE((rejects<InvalidArgument, DmFx>)([](DA& a, auto&) { a.max_seq_pages = -1; }, "max_seq_pages"));
  EXPECT_TRUE((rejects<BufferTooSmall, DmFx>)([](DA& a, auto&) { a.cu_seqlens_k.size = 2; }, "cu_seqlens_k"));
  EXPECT_TRUE((rejects<BufferTooSmall, DmFx>)([](DA& a, auto&) { a.cache_seqlens.size = 1; }, "cache_seqlens"));
  EXPECT_TRUE((rejects<BufferTooSmall, DmFx>)([](DA& a, auto&) { a.page_table.cols = 3; }, "page_table"));
  EXPECT_TRUE((rejects<BufferTooSmall, DmFx>)([](DA& a, auto&) { a.req_pool_indices.size = 1; }, "req_pool_indices"));
  // cache_seqlens and cu_seqlens_k touch ([0, 2) and [2, 5)); one element more overlaps.
  EXPECT_TRUE((rejects<InvalidArgument, DmFx>)([](DA& a, auto&) { a.cache_seqlens.size = 3; }, "cache_seqlens"));
  EXPECT_TRUE((rejects<InvalidArgument, DmFx>)([](DA& a, DmFx& f) { a.page_table.data = f.at(4); }, "page_table"));
  // Static kernel (no v2p): multiplier 1 only.
  EXPECT_TRUE(accepts<DmFx>([](DA& a, auto&) {
    a.v2p = {};
    a.multiplier = 1;
  }));
  EXPECT_TRUE((rejects<InvalidArgument, DmFx>)([](DA& a, auto&) { a.v2p = {}; }, "multiplier"));
  // Era C copy excludes the remap.
  EXPECT_TRUE((rejects<InvalidArgument, DmFx>)([](DA& a, DmFx& f) { a.kernel_page_table = cmat(f.r2t, 2, 4); },
                                             "kernel_page_table"));
  EXPECT_TRUE(accepts<DmFx>([](DA& a, DmFx& f) {
    a.kernel_page_table = cmat(f.r2t, 2, 4);
    a.v2p = {};
    a.multiplier = 1;
  }));
  EXPECT_TRUE((rejects<InvalidArgument, DmFx>)(
      [](DA& a, DmFx& f) {
        a.swa_v2p = cvec(f.v2p);
        a.swa_multiplier = 0;
      },
      "swa_multiplier"));
  // Skipping the page table: the table is not an output and is not checked.
  EXPECT_TRUE(accepts<DmFx>([](DA& a, auto&) {
    a.skip_page_table = true;
    a.page_table = {};
  }));
  EXPECT_TRUE((rejects<InvalidArgument, DmFx>)([](DA& a, auto&) { a.variant = Variant::b06_stale_tail; }, "variant"));
}

// decode_metadata's outputs against its inputs, all in one byte allocation: each input followed by a free gap of 32
// bytes, so an output can start right at an input's end (touching: accepted) or one element before it (overlapping:
// rejected, naming the output, nothing written). Bytes: seq_lens [0, 16), req_pool_indices [48, 64), v2p
// [96, 128), req_to_token [160, 192); the outputs from 256 (cache_seqlens, cu_seqlens_k, page_table).
struct DmBytesFx {
  alignas(16) std::array<unsigned char, 512> mem{};
  template <class T>
  T* at(std::int64_t byte) {
    return reinterpret_cast<T*>(mem.data() + byte);
  }
  DmBytesFx() {
    const std::int64_t lens[] = {4, 3}, rows[] = {1, 0}, v2p[] = {3, 2, 1, 0};
    const std::int32_t r2t[] = {0, 1, 2, 3, 3, 2, 1, 0};
    std::memcpy(at<std::int64_t>(0), lens, sizeof lens);
    std::memcpy(at<std::int64_t>(48), rows, sizeof rows);
    std::memcpy(at<std::int64_t>(96), v2p, sizeof v2p);
    std::memcpy(at<std::int32_t>(160), r2t, sizeof r2t);
  }
  DecodeMetadataArgs args() {
    DecodeMetadataArgs a = decode_batch({at<std::int64_t>(0), 2}, {at<std::int32_t>(160), 2, 4, 4, 1},
                                        {at<std::int64_t>(48), 2}, 4, 1);
    a.v2p = {at<std::int64_t>(96), 4};
    set_decode_outputs(a, {at<std::int32_t>(256), 2}, {at<std::int32_t>(272), 3}, {at<std::int32_t>(320), 2, 4, 4, 1});
    return a;
  }
  static void run(const DecodeMetadataArgs& a) { tr::decode_metadata(a); }
  auto outs() { return std::tie(mem); }
};

TEST(Boundary, DecodeMetadataOutputsApartFromEveryInput) {
  EXPECT_TRUE(accepts<DmBytesFx>(kAsIs));
  struct Input {
    const char* name;
    std::int64_t end;  // the byte after the input
  };
  const Input inputs[] = {{"seq_lens", 16}, {"req_pool_indices", 64}, {"v2p", 128}, {"req_to_token", 192}};
  for (const Input& in : inputs) {
    const std::int64_t end = in.end;
    SCOPED_TRACE(in.name);
    EXPECT_TRUE(accepts<DmBytesFx>([end](DA& a, DmBytesFx& f) { a.cache_seqlens.data = f.at<std::int32_t>(end); }));
    EXPECT_TRUE((rejects<InvalidArgument, DmBytesFx>)(
        [end](DA& a, DmBytesFx& f) { a.cache_seqlens.data = f.at<std::int32_t>(end - 4); }, "cache_seqlens"));
    EXPECT_TRUE(accepts<DmBytesFx>([end](DA& a, DmBytesFx& f) { a.cu_seqlens_k.data = f.at<std::int32_t>(end); }));
    EXPECT_TRUE((rejects<InvalidArgument, DmBytesFx>)(
        [end](DA& a, DmBytesFx& f) { a.cu_seqlens_k.data = f.at<std::int32_t>(end - 4); }, "cu_seqlens_k"));
    EXPECT_TRUE(accepts<DmBytesFx>([end](DA& a, DmBytesFx& f) { a.page_table.data = f.at<std::int32_t>(end); }));
    EXPECT_TRUE((rejects<InvalidArgument, DmBytesFx>)(
        [end](DA& a, DmBytesFx& f) { a.page_table.data = f.at<std::int32_t>(end - 4); }, "page_table"));
  }
  // the SWA table against an input and against the lengths (swa_v2p given: the second table is written)
  const auto with_swa = [](DA& a, DmBytesFx& f) {
    a.swa_v2p = {f.at<std::int64_t>(96), 4};
    a.swa_page_table = {f.at<std::int32_t>(384), 2, 4, 4, 1};
  };
  EXPECT_TRUE(accepts<DmBytesFx>(with_swa));
  EXPECT_TRUE(accepts<DmBytesFx>([&](DA& a, DmBytesFx& f) {
    with_swa(a, f);
    a.swa_page_table.data = f.at<std::int32_t>(16);
  }));
  EXPECT_TRUE((rejects<InvalidArgument, DmBytesFx>)(
      [&](DA& a, DmBytesFx& f) {
        with_swa(a, f);
        a.swa_page_table.data = f.at<std::int32_t>(12);
      },
      "swa_page_table"));
  EXPECT_TRUE(accepts<DmBytesFx>([&](DA& a, DmBytesFx& f) {
    with_swa(a, f);
    a.swa_page_table.data = f.at<std::int32_t>(284);  // right after cu_seqlens_k [272, 284)
  }));
  EXPECT_TRUE((rejects<InvalidArgument, DmBytesFx>)(
      [&](DA& a, DmBytesFx& f) {
        with_swa(a, f);
        a.swa_page_table.data = f.at<std::int32_t>(280);
      },
      "swa_page_table"));
}

// ---- §4.6 eager_funnel, §4.2 flashmla, §4.3 canonical, §4.13 envelope_moves ------------------------
struct EfFx {
  I64 pool = {0, 1, 2, 3, -7, -7, -7, -7, 3, 2, 1, 0};
  std::int64_t* at(std::int64_t i) { return pool.data() + i; }
  EagerFunnelArgs args() { return {{at(0), 2, 2, 2, 1}, {at(8), 4}, 1, 2, {at(4), 2, 2, 2, 1}}; }
  static void run(const EagerFunnelArgs& a) { tr::eager_funnel(a); }
  auto outs() { return std::tie(pool); }
};

TEST(Boundary, EagerFunnel) {
  EXPECT_TRUE(accepts<EfFx>(kAsIs));
  EXPECT_TRUE(accepts<EfFx>([](EagerFunnelArgs& a, EfFx& f) { a.out.data = f.at(0); }));  // exact alias
  EXPECT_TRUE((rejects<InvalidArgument, EfFx>)(
      [](EagerFunnelArgs& a, EfFx& f) {
        a.out.data = f.at(0);
        a.out.row_stride = 3;
      },
      "out"));
  EXPECT_TRUE((rejects<InvalidArgument, EfFx>)([](EagerFunnelArgs& a, EfFx& f) { a.out.data = f.at(3); }, "out"));
  EXPECT_TRUE((rejects<BufferTooSmall, EfFx>)([](EagerFunnelArgs& a, auto&) { a.out.rows = 1; }, "out"));
  EXPECT_TRUE((rejects<InvalidArgument, EfFx>)([](EagerFunnelArgs& a, EfFx& f) { a.out.data = f.at(5); }, "out"));
}

struct FmFx {
  I32 r2t = {0, 1, 2, 3, 3, 2, 1, 0};
  I32 kv = I32(2 * 4, -1);
  I64 rows = {1, 0}, lens = {4, 3}, start = {0, 1}, v2p = {3, 2, 1, 0};
  FlashmlaBlockTableArgs args() {
    return {cmat(r2t, 2, 4), cvec(rows), cvec(lens), cvec(start), cvec(v2p), 1, 2, mmat(kv, 2, 4)};
  }
  static void run(const FlashmlaBlockTableArgs& a) { tr::flashmla_block_table(a); }
  auto outs() { return std::tie(r2t, kv); }
};
using FA = FlashmlaBlockTableArgs;

TEST(Boundary, FlashmlaBlockTable) {
  EXPECT_TRUE(accepts<FmFx>(kAsIs));
  EXPECT_TRUE((rejects<BufferTooSmall, FmFx>)([](FA& a, auto&) { a.kv_indices.rows = 1; }, "kv_indices"));
  EXPECT_TRUE(accepts<FmFx>([](FA& a, auto&) { a.kv_indices.cols = 0; }));
  EXPECT_TRUE((rejects<BufferTooSmall, FmFx>)([](FA& a, auto&) { a.kv_start_idx.size = 1; }, "kv_start_idx"));
  EXPECT_TRUE((rejects<BufferTooSmall, FmFx>)([](FA& a, auto&) { a.page_kernel_lens.size = 1; }, "page_kernel_lens"));
  EXPECT_TRUE((rejects<InvalidArgument, FmFx>)([](FA& a, auto&) { a.v2p = {}; }, "multiplier"));
  EXPECT_TRUE(accepts<FmFx>([](FA& a, auto&) {
    a.v2p = {};
    a.multiplier = 1;
  }));
  EXPECT_TRUE((rejects<InvalidArgument, FmFx>)(
      [](FA& a, auto&) {
        a.v2p = {};
        a.multiplier = 1;
        a.variant = Variant::era_b_unclamped;
      },
      "variant"));
  // Content: kv_start + column past the row; a negative start.
  EXPECT_TRUE((rejects<OutOfRange, FmFx>)([](FA&, FmFx& f) { f.start[0] = 1; }, "req_to_token"));
  EXPECT_TRUE((rejects<OutOfRange, FmFx>)([](FA&, FmFx& f) { f.start[1] = -1; }, "kv_start_idx"));
}

struct CpFx {
  I32 r2t = {0, 1, 2, 3, 3, 2, 1, 0};
  I32 out = I32(2 * 2, -7);
  I64 rows = {1, 0}, lens = {4, 3}, v2p = {3, 2, 1, 0};
  CanonicalPageTableArgs args() {
    return {cmat(r2t, 2, 4), cvec(rows), cvec(lens), cvec(v2p), 2, 2, 2, mmat(out, 2, 2)};
  }
  static void run(const CanonicalPageTableArgs& a) { tr::canonical_page_table(a); }
  auto outs() { return std::tie(r2t, out); }
};
using CA = CanonicalPageTableArgs;

TEST(Boundary, CanonicalPageTable) {
  EXPECT_TRUE(accepts<CpFx>(kAsIs));  // width 4 = max_pages * ps
  EXPECT_TRUE((rejects<BufferTooSmall, CpFx>)([](CA& a, auto&) { a.req_to_token.cols = 3; }, "req_to_token"));
  EXPECT_TRUE((rejects<Overflow, CpFx>)([](CA& a, auto&) { a.max_pages = kMax; }, "max_pages"));
  EXPECT_TRUE((rejects<BufferTooSmall, CpFx>)([](CA& a, auto&) { a.out.cols = 1; }, "out"));
  EXPECT_TRUE((rejects<InvalidArgument, CpFx>)([](CA& a, auto&) { a.v2p = {}; }, "multiplier"));  // static pool: M 1 only
  EXPECT_TRUE(accepts<CpFx>([](CA& a, auto&) {
    a.v2p = {};
    a.multiplier = 1;
  }));
  EXPECT_TRUE((rejects<OutOfRange, CpFx>)([](CA&, CpFx& f) { f.rows[1] = 2; }, "req_pool_indices"));
  EXPECT_TRUE(accepts<CpFx>([](CA&, CpFx& f) { f.rows[1] = 1; }));
}

struct EmFx {
  I64 pool = {4, 5, 8, 9, 10, 11, 2, 3, -7, -7, -7, -7};
  std::int64_t* at(std::int64_t i) { return pool.data() + i; }
  EnvelopeMoveArgs args() { return {{at(0), 4}, {at(4), 4}, 2, {at(8), 2}, {at(10), 2}}; }
  static void run(const EnvelopeMoveArgs& a) { tr::envelope_moves(a); }
  auto outs() { return std::tie(pool); }
};

TEST(Boundary, EnvelopeMoves) {
  EXPECT_TRUE(accepts<EmFx>(kAsIs));  // dst_pages [8, 10) touches src_pages [10, 12)
  EXPECT_TRUE((rejects<InvalidArgument, EmFx>)([](EnvelopeMoveArgs& a, auto&) { a.src_tokens.size = 2; }, "src_tokens"));
  EXPECT_TRUE((rejects<InvalidArgument, EmFx>)(
      [](EnvelopeMoveArgs& a, auto&) {
        a.src_tokens.size = 3;
        a.dst_tokens.size = 3;
      },
      "dst_tokens"));
  EXPECT_TRUE((rejects<BufferTooSmall, EmFx>)([](EnvelopeMoveArgs& a, auto&) { a.dst_pages.size = 1; }, "dst_pages"));
  EXPECT_TRUE(
      (rejects<InvalidArgument, EmFx>)([](EnvelopeMoveArgs& a, EmFx& f) { a.dst_pages.data = f.at(9); }, "dst_pages"));
  EXPECT_TRUE(
      (rejects<InvalidArgument, EmFx>)([](EnvelopeMoveArgs& a, EmFx& f) { a.dst_pages.data = f.at(7); }, "dst_pages"));
}

}  // namespace
}  // namespace kvaddr
