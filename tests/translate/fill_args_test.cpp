// fill_args: a route's Args built by name from a key/value source (fill_args.hpp), through the
// spec's field list; exact member values, and the missing / unknown / mistyped field errors.
#include "kvaddr/translate/fill_args.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "expect_error.hpp"
#include "kvaddr/translate/routes.hpp"

namespace kvaddr {
namespace {

using namespace test;  // expect_error.hpp: I32, I64 and the error assertions

// An in-memory source: scalars, flags, texts, and int32 / int64 arrays with a shape.
struct Array {
  std::vector<std::int64_t> v64;
  std::vector<std::int32_t> v32;
  std::int64_t rows = 0, cols = 0;  // cols = 0: 1-D
};
class MapSource {
 public:
  using Value = std::variant<std::int64_t, bool, std::string, Array>;
  std::map<std::string, Value, std::less<>> m;

  std::vector<std::string> names() const {
    std::vector<std::string> r;
    for (const auto& [k, v] : m) r.push_back(k);
    return r;
  }
  bool has(std::string_view k) const { return m.find(k) != m.end(); }
  ValueKind kind(std::string_view k) const {
    const Value& v = m.find(k)->second;
    if (std::holds_alternative<std::int64_t>(v)) return ValueKind::integer;
    if (std::holds_alternative<bool>(v)) return ValueKind::boolean;
    if (std::holds_alternative<std::string>(v)) return ValueKind::text;
    const Array& a = std::get<Array>(v);
    const bool is32 = a.v64.empty() && !a.v32.empty();
    if (a.cols == 0) return is32 ? ValueKind::vec_i32 : ValueKind::vec_i64;
    return is32 ? ValueKind::mat_i32 : ValueKind::mat_i64;
  }
  std::int64_t scalar(std::string_view k) { return std::get<std::int64_t>(m.find(k)->second); }
  bool flag(std::string_view k) { return std::get<bool>(m.find(k)->second); }
  std::string text(std::string_view k) { return std::get<std::string>(m.find(k)->second); }
  template <class T>
  Vec<T> vec(std::string_view k) {
    Array& a = std::get<Array>(m.find(k)->second);
    if constexpr (sizeof(T) == 4) return {a.v32.data(), static_cast<std::int64_t>(a.v32.size())};
    else return {a.v64.data(), static_cast<std::int64_t>(a.v64.size())};
  }
  template <class T>
  Mat<T> mat(std::string_view k) {
    Array& a = std::get<Array>(m.find(k)->second);
    T* d;
    if constexpr (sizeof(T) == 4) d = a.v32.data();
    else d = a.v64.data();
    return {d, a.rows, a.cols, a.cols, 1};
  }
};

Array i64(std::vector<std::int64_t> v) { return {std::move(v), {}, 0, 0}; }
Array i32(std::vector<std::int32_t> v) { return {{}, std::move(v), 0, 0}; }
Array i32_mat(std::vector<std::int32_t> v, std::int64_t rows, std::int64_t cols) { return {{}, std::move(v), rows, cols}; }

using WL = RouteSpec<Route::write_loc>;
using RT = RouteSpec<Route::read_table>;
using KV = RouteSpec<Route::kv_indices_inplace>;
using TT = RouteSpec<Route::token_translate>;

MapSource write_loc_source() {
  MapSource s;
  s.m["loc"] = i64({5, 9, 12});
  s.m["v2p"] = i64({0, 3, 1, 2});
  s.m["page_size"] = std::int64_t{4};
  s.m["multiplier"] = std::int64_t{2};
  s.m["dcp_size"] = std::int64_t{3};
  s.m["dcp_rank"] = std::int64_t{1};
  s.m["out"] = i64({0, 0, 0, 0});
  s.m["variant"] = std::string("b06_stale_tail");
  return s;
}

TEST(FillArgs, WriteLocEveryField) {
  MapSource s = write_loc_source();
  const WriteLocArgs a = fill_args<WL>(s);
  const Array& loc = std::get<Array>(s.m["loc"]);
  const Array& v2p = std::get<Array>(s.m["v2p"]);
  Array& out = std::get<Array>(s.m["out"]);
  EXPECT_EQ(a.loc.data, loc.v64.data());
  EXPECT_EQ(a.loc.size, 3);
  EXPECT_EQ(a.v2p.data, v2p.v64.data());
  EXPECT_EQ(a.v2p.size, 4);
  EXPECT_EQ(a.page_size, 4);
  EXPECT_EQ(a.multiplier, 2);
  EXPECT_EQ(a.dcp_size, 3);
  EXPECT_EQ(a.dcp_rank, 1);
  EXPECT_EQ(a.out.data, out.v64.data());
  EXPECT_EQ(a.out.size, 4);
  EXPECT_EQ(a.variant, Variant::of(Behaviour::b06_stale_tail));
}

TEST(FillArgs, OptionalScalarsKeepTheStructDefaults) {
  MapSource s = write_loc_source();
  for (const char* k : {"multiplier", "dcp_size", "dcp_rank", "variant"}) s.m.erase(k);
  const WriteLocArgs a = fill_args<WL>(s);
  EXPECT_EQ(a.page_size, 4);
  EXPECT_EQ(a.multiplier, 1);
  EXPECT_EQ(a.dcp_size, 1);
  EXPECT_EQ(a.dcp_rank, 0);
  EXPECT_EQ(a.variant, Variant::production);
}

TEST(FillArgs, MissingRequiredFieldIsNamed) {
  for (const char* k : {"loc", "v2p", "page_size", "out"}) {
    MapSource s = write_loc_source();
    s.m.erase(k);
    EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<WL>(s); }, k)) << k;
  }
}

TEST(FillArgs, UnknownFieldIsNamed) {
  MapSource s = write_loc_source();
  s.m["out_widht"] = std::int64_t{4};
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<WL>(s); }, "out_widht"));
  // A field of another route is unknown here: zero_tail belongs to read_table.
  MapSource t = write_loc_source();
  t.m["zero_tail"] = true;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<WL>(t); }, "zero_tail"));
}

TEST(FillArgs, MistypedFieldIsNamed) {
  MapSource s = write_loc_source();
  s.m["page_size"] = true;
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<WL>(s); }, "page_size"));
  MapSource t = write_loc_source();
  t.m["v2p"] = i32({0, 3, 1, 2});  // int32 where the route reads int64
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<WL>(t); }, "v2p"));
  MapSource u = write_loc_source();
  u.m["loc"] = std::int64_t{5};  // a scalar where the route reads an array
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<WL>(u); }, "loc"));
  MapSource w = write_loc_source();
  w.m["variant"] = std::string("no_such_behaviour");
  EXPECT_THROW((void)fill_args<WL>(w), InvalidArgument);
}

MapSource read_table_source() {
  MapSource s;
  s.m["req_to_token"] = i32_mat({0, 1, 2, 3, 4, 5, 6, 7}, 2, 4);
  s.m["req_pool_indices"] = i64({1, 0});
  s.m["seq_lens"] = i64({3, 2});
  s.m["seq_len_delta"] = std::int64_t{1};
  s.m["max_pages"] = std::int64_t{2};
  s.m["v2p"] = i64({2, 0, 1});
  s.m["page_size"] = std::int64_t{2};
  s.m["out"] = i32_mat({0, 0, 0, 0, 0, 0}, 3, 2);
  s.m["zero_tail"] = true;
  return s;
}

TEST(FillArgs, ReadTableByManifestNames) {
  MapSource s = read_table_source();
  const ReadTableArgs a = fill_args<RT>(s);
  EXPECT_EQ(a.req_to_token.data, std::get<Array>(s.m["req_to_token"]).v32.data());
  EXPECT_EQ(a.req_to_token.rows, 2);
  EXPECT_EQ(a.req_to_token.cols, 4);
  EXPECT_EQ(a.req_to_token.row_stride, 4);
  // The manifest's req_pool_indices fills the struct's row_ids.
  EXPECT_EQ(a.row_ids.data, std::get<Array>(s.m["req_pool_indices"]).v64.data());
  EXPECT_EQ(a.row_ids.size, 2);
  EXPECT_EQ(a.seq_lens.size, 2);
  EXPECT_EQ(a.seq_len_delta, 1);
  EXPECT_EQ(a.max_pages, 2);
  EXPECT_EQ(a.v2p.size, 3);
  EXPECT_EQ(a.page_size, 2);
  EXPECT_EQ(a.multiplier, 1);
  EXPECT_EQ(a.out.rows, 3);
  EXPECT_EQ(a.out.cols, 2);
  EXPECT_TRUE(a.zero_tail);
  EXPECT_EQ(a.variant, Variant::production);
  // The struct's own member name is not a field name.
  MapSource t = read_table_source();
  t.m["row_ids"] = i64({1, 0});
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<RT>(t); }, "row_ids"));
  MapSource u = read_table_source();
  u.m.erase("max_pages");
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<RT>(u); }, "max_pages"));
  MapSource w = read_table_source();
  w.m["req_to_token"] = i32({0, 1, 2, 3});  // 1-D where the route reads a table
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<RT>(w); }, "req_to_token"));
}

TEST(FillArgs, FilledArgsRunTheRoute) {
  // Row 0 of req_to_token is tokens 0..3; seq_len 3 + delta 1 = 4 tokens = 2 pages of 2, whose
  // first tokens 0 and 2 are virtual pages 0 and 1 -> v2p 2 and 0 (M = 1). zero_tail writes the
  // sink 0 over the padded rows 1 and 2 (prefilled 9).
  MapSource s = read_table_source();
  s.m["req_pool_indices"] = i64({0});
  s.m["seq_lens"] = i64({3});
  s.m["out"] = i32_mat({9, 9, 9, 9, 9, 9}, 3, 2);
  const ReadTableArgs a = fill_args<RT>(s);
  translate::read_table(a);
  EXPECT_EQ(std::get<Array>(s.m["out"]).v32, (std::vector<std::int32_t>{2, 0, 0, 0, 0, 0}));
}

TEST(FillArgs, KvIndicesOptionalArrayStaysAbsent) {
  MapSource s;
  s.m["kv_indices"] = i32({7, 7, 7});
  s.m["kv_indptr"] = i32({0, 2});
  s.m["batch_size"] = std::int64_t{1};
  s.m["v2p"] = i64({1, 0});
  s.m["page_size"] = std::int64_t{1};
  KvIndicesInplaceArgs a = fill_args<KV>(s);
  EXPECT_FALSE(a.src.present());
  EXPECT_EQ(a.kv_indptr.size, 2);
  EXPECT_EQ(a.batch_size, 1);
  s.m["src"] = i32({1, 0});
  a = fill_args<KV>(s);
  EXPECT_TRUE(a.src.present());
  EXPECT_EQ(a.src.data, std::get<Array>(s.m["src"]).v32.data());
  s.m.erase("batch_size");
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<KV>(s); }, "batch_size"));
}

TEST(FillArgs, TokenTranslateOutputWidthIsTheArgsChoice) {
  MapSource s;
  s.m["ids"] = i64({0, 5});
  s.m["v2p"] = i64({1, 0});
  s.m["page_size"] = std::int64_t{4};
  s.m["out"] = i32({0, 0});
  const auto a = fill_args_of<TT, std::int32_t>(s);
  EXPECT_EQ(a.out.size, 2);
  EXPECT_EQ(a.multiplier, 1);
  // The int64 form reads out as int64: an int32 out is mistyped there.
  EXPECT_TRUE(throws_naming<InvalidArgument>([&] { (void)fill_args<TT>(s); }, "out"));
}

// Every route's field list names each field once.
TEST(FillArgs, FieldNamesAreUnique) {
  for_each_route([](auto spec) {
    const auto names = field_names(decltype(spec)::fields());
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = i + 1; j < names.size(); ++j)
        EXPECT_NE(names[i], names[j]) << decltype(spec)::name;
    EXPECT_GE(names.size(), 4u) << decltype(spec)::name;
  });
}

}  // namespace
}  // namespace kvaddr
