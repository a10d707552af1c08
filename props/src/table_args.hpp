#pragma once
// Private: a page-table route's arguments over a batch, filled by manifest name through the route's
// field list (fill_args), for the properties that run several page-table routes on one batch.
#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "kvaddr/translate/fill_args.hpp"

namespace kvaddr::props::detail {

// The first of `names` that is a field of Spec ("" when none is).
template <class Spec>
std::string_view field_among(std::initializer_list<std::string_view> names) {
  const auto fields = field_names(Spec::fields());
  for (std::string_view n : names)
    if (std::find(fields.begin(), fields.end(), n) != fields.end()) return n;
  return {};
}

// The rows a batch reads: req_to_token, the pool row of each batch lane, each lane's KV length and
// the route's column bound (max_pages / max_seq_pages; a route without one ignores it).
struct TableBatch {
  Mat<const i32> req_to_token;
  Vec<const i64> req_pool_indices;
  Vec<const i64> lens;
  i64 max_pages = 0;
};

// Spec's arguments: the batch under the route's names for it (the lengths are seq_lens or
// page_kernel_lens), v2p, page size, multiplier and the table `out` under the route's output name
// (out, kv_indices or page_table); `src` holds any other field. The variant is narrowed by
// for_route.
template <class Spec>
typename Spec::Args table_args(Variant v, const TableBatch& b, const std::vector<i64>& v2p, i64 ps, i64 M,
                               Mat<i32> out, ViewSource src = {}) {
  src.set("req_to_token", b.req_to_token);
  src.set("req_pool_indices", b.req_pool_indices);
  src.set(field_among<Spec>({"seq_lens", "page_kernel_lens"}), b.lens);
  if (const auto k = field_among<Spec>({"max_pages", "max_seq_pages"}); !k.empty()) src.set(k, b.max_pages);
  src.set("v2p", cvec(v2p));
  src.set("page_size", ps);
  src.set("multiplier", M);
  src.set(field_among<Spec>({"out", "kv_indices", "page_table"}), out);
  auto a = fill_args<Spec>(src);
  set_variant(a, for_route(Spec::id, v));
  return a;
}

}  // namespace kvaddr::props::detail
