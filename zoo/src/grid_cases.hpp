#pragma once
// Private to zoo/ (and the route-list test): the spec §5.2 host grid and the grid case of a spec.
// A per-id route (kvaddr/translate/fill_args.hpp: is_per_id_route) is run from its field list and
// compared with its id_model (beside the spec); a route of another shape has a grid_case overload in
// grid.cpp.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/zoo/grid.hpp"

namespace kvaddr::zoo::grid_detail {

// The spec §5.2 batch recipe: bs 5, seq lens [ps, ps+1, 3ps, 7ps-3, 1], max_ctx 2048, 512 pages,
// a random non-identity v2p with v2p[0] = 0 and the trailing sentinel. Unless upstream_exact, the
// §5.8 gaps are closed: non-contiguous req_pool_indices, a tombstone inside request 3's live
// prefix, and a padding row (request 4's only token is -1).
struct Grid {
  std::int64_t ps = 1, M = 1, bs = 5, rows = 8, max_ctx = 2048, num_pages = 512;
  std::vector<std::int64_t> seq_lens, req_pool_indices, v2p;
  std::vector<std::int32_t> req_to_token;  // [rows, max_ctx]

  std::int32_t tok(std::int64_t b, std::int64_t pos) const {
    return req_to_token[static_cast<std::size_t>(req_pool_indices[static_cast<std::size_t>(b)] * max_ctx + pos)];
  }
  std::int64_t seq(std::int64_t b) const { return seq_lens[static_cast<std::size_t>(b)]; }
  Mat<const std::int32_t> rtt() const { return {req_to_token.data(), rows, max_ctx, max_ctx, 1}; }
  std::int64_t width() const { return max_ctx / ps; }

  // Model expectations.
  std::int64_t d(std::int64_t t) const {
    return model::kernel_id(v2p, ps, M, model::VirtualToken(t)).value;
  }
  std::int64_t entry(std::int64_t page_start_token) const { return d(page_start_token) / ps; }
};

Grid make_grid(const GridOptions& o);

// The live tokens of the grid's batch, request by request.
std::vector<std::int64_t> live_tokens(const Grid& g);

inline constexpr std::int32_t kStale = 777;  // sentinel of lanes a route must leave untouched

// Collects the first mismatch and counts the lanes compared.
class Diff {
 public:
  explicit Diff(std::string where) : where_(std::move(where)) {}
  void eq(const std::string& what, std::int64_t got, std::int64_t want) {
    ++compared_;
    if (!first_.empty() || got == want) return;
    first_ = fmt::format("{}: {} = {}, model expects {}", where_, what, got, want);
  }
  const std::string& result() const { return first_; }
  std::int64_t compared() const { return compared_; }

 private:
  std::string where_;
  std::string first_;
  std::int64_t compared_ = 0;
};

// The inputs of a per-id route on the grid: the live tokens and one padding id over the grid's
// v2p, page_size and multiplier from the grid; the spec's grid_sample(sample) may change them.
struct IdSample {
  std::vector<std::int64_t> ids;
  std::vector<std::int64_t> table;
  ViewSource scalars;
  bool alias = false;  // also run in place: out == ids (an int64 output)
};

// Runs the per-id route S (its int64 form where the output type is a parameter) on the sample
// with `ids` as the id view and `out` as the output, under `variant`.
template <class S, class Out>
void run_per_id(const IdSample& s, Vec<const std::int64_t> ids, std::vector<Out>& out, Variant variant) {
  ViewSource src = s.scalars;
  src.set(field_infos<S>()[0].name, ids);
  for (const FieldInfo& f : field_infos<S>()) {
    if (f.kind == ArgKind::vec_in && f.name != field_infos<S>()[0].name) src.set(f.name, cvec(s.table));
    if (f.kind == ArgKind::vec_out) src.set(f.name, mvec(out));
  }
  auto a = fill_args<S>(src);
  set_variant(a, variant);
  if constexpr (has_out_parameter<S>) S::template run<Out>(a);
  else S::run(a);
}

template <class S>
void per_id_case(Variant variant, const Grid& g, Diff& diff) {
  static_assert(is_per_id_route<S>);
  using Out = element_t<field_member_t<S, ArgKind::vec_out>>;
  IdSample s;
  s.ids = live_tokens(g);
  s.ids.push_back(-1);
  s.table = g.v2p;
  if constexpr (has_field<S>("page_size")) s.scalars.set("page_size", g.ps);
  if constexpr (has_field<S>("multiplier")) s.scalars.set("multiplier", g.M);
  if constexpr (requires { S::grid_sample(s); }) S::grid_sample(s);
  // Every other scalar at its argument struct's default, so that id_model can read each one.
  set_scalar_defaults<S>(s.scalars);
  std::vector<std::int64_t> want;
  for (const std::int64_t id : s.ids) want.push_back(id_model(S{}, s.table, s.scalars, id));
  std::vector<Out> out(s.ids.size(), kStale);
  run_per_id<S>(s, cvec(s.ids), out, variant);
  for (std::size_t i = 0; i < s.ids.size(); ++i) diff.eq(fmt::format("out[{}] (t={})", i, s.ids[i]), out[i], want[i]);
  if constexpr (std::is_same_v<Out, std::int64_t>) {
    if (s.alias) {
      auto alias = s.ids;
      run_per_id<S>(s, cvec(alias), alias, variant);
      for (std::size_t i = 0; i < s.ids.size(); ++i) diff.eq(fmt::format("aliased out[{}]", i), alias[i], want[i]);
    }
  }
}

// Runs the spec S (with `variant`) on the grid: "" or the first mismatch, or the error raised,
// and the lanes compared. `grid_case` is the overload set of the routes of other shapes.
template <class S, class Cases>
GridRun run_spec_on_grid(Variant variant, const GridOptions& options, Cases&& grid_case) {
  Diff diff(fmt::format("{}[{}] ps={} M={}", S::name, to_string(variant), options.page_size, options.multiplier));
  try {
    const Grid g = make_grid(options);
    if constexpr (is_per_id_route<S>) per_id_case<S>(variant, g, diff);
    else grid_case(S{}, variant, g, diff);
    return {diff.result(), diff.compared()};
  } catch (const kvaddr::Error& e) {
    return {fmt::format("{}[{}] ps={}: raised {} ({})", S::name, to_string(variant), options.page_size,
                        to_string(e.kind()), e.what()),
            diff.compared()};
  }
}
template <class S, class Cases>
std::string check_spec_on_grid(Variant variant, const GridOptions& options, Cases&& grid_case) {
  return run_spec_on_grid<S>(variant, options, grid_case).mismatch;
}

}  // namespace kvaddr::zoo::grid_detail
