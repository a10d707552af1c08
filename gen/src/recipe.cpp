// The recipe drawers of recipe.hpp: one per route shape, each a fixed sequence of draws from the case's
// SplitMix64. The distributions (ranges, probabilities) are those the harness has always drawn; the
// comments give the share of cases of each edge.
#include "kvaddr/gen/recipe.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/validate.hpp"

namespace kvaddr::gen {
namespace {

constexpr i64 kTwo31 = i64{1} << 31;
constexpr double kTombstoneRates[] = {0.0, 0.0, 0.1, 0.5};
constexpr i64 kMaxPoolPages = i64{1} << 24;  // draw_v2p's bound (the table routes draw up to 2^22)

std::size_t uz(i64 n) { return static_cast<std::size_t>(n); }

// a * b, saturated at INT64_MAX (both >= 0): a scale past 2^31 acts as any other one past it.
i64 sat_mul(i64 a, i64 b) {
  i64 r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<i64>::max() : r;
}
// numpy's integers(lo, hi): [lo, hi), one draw; an empty range gives lo.
i64 below(SplitMix64& rng, i64 lo, i64 hi) { return rng.between(lo, hi - 1); }

// x % mod for x >= 0 (mod >= 1), skipping the division where x < mod (the common case of the pool tables).
i64 reduce(i64 x, i64 mod) { return x < mod ? x : x % mod; }

// ---- parameters ------------------------------------------------------------------------------------------
struct ParamRule {
  std::string_view key;
  i64 lo, hi;
};
constexpr ParamRule kParamRules[] = {
    {"page_size", 1, i64{1} << 20}, {"multiplier", 1, i64{1} << 62}, {"dcp_size", 1, i64{1} << 10},
    {"dcp_rank", 0, (i64{1} << 10) - 1}, {"seq_len_delta", 0, i64{1} << 20}, {"zero_tail", 0, 1},
    {"kv_start_idx", 0, 1}, {"big_entries", 0, 1}, {"long_rows", 0, 1}};

// Checks every key of `p`: one of kParamRules (its range), the route's multiplier field (the multiplier's
// range) or another int64 scalar field of the route (any value).
void validate_params(const RecipeParams& p, const std::string& multiplier, const std::vector<std::string>& scalars) {
  for (const auto& [k, v] : p) {
    const std::string where = "params['" + k + "']";
    // (a named copy: Clang 14 does not capture structured bindings in a lambda)
    const std::string key = k == multiplier ? "multiplier" : k;
    const auto rule = std::find_if(std::begin(kParamRules), std::end(kParamRules),
                                   [&key](const ParamRule& r) { return r.key == key; });
    if (rule != std::end(kParamRules)) {
      if (v < rule->lo || v > rule->hi)
        throw InvalidArgument(where, std::to_string(v),
                              "must be in [" + std::to_string(rule->lo) + ", " + std::to_string(rule->hi) + "]");
    } else if (std::find(scalars.begin(), scalars.end(), k) == scalars.end()) {
      throw InvalidArgument(where, std::to_string(v), "unknown generator parameter");
    }
  }
  if (p.count("dcp_rank") && p.count("dcp_size") && p.at("dcp_rank") >= p.at("dcp_size"))
    throw InvalidArgument("params['dcp_rank']", std::to_string(p.at("dcp_rank")),
                          "must be < dcp_size = " + std::to_string(p.at("dcp_size")));
}

void validate_lanes(i64 lanes) {
  if (lanes < 1 || lanes > kTwo31) throw InvalidArgument("lanes", std::to_string(lanes), "must be in [1, 2^31]");
}

// The caller's value of `key`, else the drawn one (drawn either way: the stream does not depend on params).
i64 param(const RecipeParams& p, const std::string& key, i64 drawn) {
  const auto it = p.find(key);
  return it == p.end() ? drawn : it->second;
}
bool flag(const RecipeParams& p, const std::string& key, bool drawn) {
  const auto it = p.find(key);
  return it == p.end() ? drawn : it->second != 0;
}

RecipeArray vec(std::vector<i64> v) {
  const i64 n = static_cast<i64>(v.size());
  return {std::move(v), {n}, false};
}
RecipeArray mat(std::vector<i64> v, i64 rows, i64 cols, bool int32) { return {std::move(v), {rows, cols}, int32}; }

// ---- per-id routes ----------------------------------------------------------------------------------------
// The int64 scalar fields of a route (by name), for validate_params.
std::vector<std::string> scalar_fields(Route r) {
  return visit_route(r, [](auto spec) {
    std::vector<std::string> v;
    for (const FieldInfo& f : field_infos<decltype(spec)>())
      if (f.kind == ArgKind::int64) v.emplace_back(f.name);
    return v;
  });
}

// The id routes: n ids (log-uniform up to lanes) over a pool of about n / ps pages; an int64 output with a
// multiplier has entries past 2^31 in 15% of cases; rank-2 ids (token_translate) in 20% of even sizes;
// strided ids 25%; out == ids 18% and out overlapping ids at an offset (rejected) 10% of the aliasable ones.
Recipe id_recipe(const IdShape& s, SplitMix64& rng, i64 lanes, const RecipeParams& p) {
  Recipe r;
  const i64 ps = s.page_size ? param(p, "page_size", rng.pick(kOddPageSizes)) : 1;
  const i64 m = s.multiplier.empty() ? 1 : param(p, s.multiplier, rng.pick(kMultipliers));
  const i64 n = rng.log_size(lanes);
  const i64 num_pages = std::max<i64>(1, below(rng, 1, std::max<i64>(2, n / ps + 2)));
  const bool big = !s.out32 && !s.multiplier.empty() && rng.chance(0.15);
  const bool widen = s.route == "dcp_read_translate";
  constexpr i64 kDcp[] = {1, 2, 4};
  const i64 dcp = widen ? param(p, "dcp_size", rng.pick(kDcp)) : 1;
  std::vector<i64> v2p = draw_v2p(rng, num_pages, big, sat_mul(ps, m));
  std::vector<i64> ids = draw_ids(rng, n, num_pages, ps);
  fit_token_values(s.route, ids, v2p, dcp);
  r.ints["page_size"] = ps;
  r.ints["multiplier"] = m;
  if (widen) r.ints["dcp_size"] = dcp;
  for (const auto& [k, def] : s.extra)  // any other scalar: the caller's value, else the struct's default
    if (!r.ints.count(k)) r.ints[k] = param(p, k, def);
  r.arrays["v2p"] = vec(std::move(v2p));
  r.arrays["ids"] = vec(std::move(ids));
  r.bools["rank2"] = s.route == "token_translate" && n % 2 == 0 && rng.chance(0.2);
  const bool strided = rng.chance(0.25);
  r.bools["strided"] = strided;
  const bool aliasable = s.route != "mamba_translate" && !strided;
  const double u = rng.unit();
  r.bools["alias"] = aliasable && u < 0.18;
  r.ints["overlap"] = aliasable && n > 1 && u >= 0.18 && u < 0.28 ? rng.between(1, n) : 0;
  return r;
}

// ---- write_loc --------------------------------------------------------------------------------------------
// Entries past 2^31 in 15% of cases, 10% of locs the sink 0, a stale tail to clear in half the cases, strided
// loc 25%, out starting at loc 17% and loc inside out at an offset (rejected) 10% of the unstrided ones.
Recipe write_loc_recipe(SplitMix64& rng, i64 lanes, const RecipeParams& p) {
  Recipe r;
  const i64 ps = param(p, "page_size", rng.pick(kOddPageSizes));
  const i64 m = param(p, "multiplier", rng.pick(kMultipliers));
  constexpr i64 kDcp[] = {1, 2, 4, 8};
  const i64 dcp = param(p, "dcp_size", rng.pick(kDcp));
  const i64 rank = param(p, "dcp_rank", below(rng, 0, dcp));
  const i64 n = rng.log_size(lanes);
  const i64 num_pages = std::max<i64>(1, below(rng, 1, std::max<i64>(2, n / ps + 2)));
  const bool big = rng.chance(0.15);
  std::vector<i64> v2p = draw_v2p(rng, num_pages, big, sat_mul(ps, m));
  std::vector<i64> loc(uz(n));
  for (auto& x : loc) {
    x = below(rng, 0, (num_pages + 1) * ps * dcp);
    if (rng.chance(0.1)) x = 0;  // padded rows write the sink
  }
  r.ints = {{"page_size", ps}, {"multiplier", m}, {"dcp_size", dcp}, {"dcp_rank", rank}};
  r.ints["tail"] = rng.chance(0.5) ? 0 : below(rng, 1, 64);
  const bool strided = rng.chance(0.25);
  const double u = rng.unit();
  r.bools["strided"] = strided;
  r.bools["alias"] = !strided && u < 0.17;
  r.ints["overlap"] = !strided && n > 1 && u >= 0.17 && u < 0.27 ? rng.between(1, n) : 0;
  r.arrays["v2p"] = vec(std::move(v2p));
  r.arrays["loc"] = vec(std::move(loc));
  return r;
}

// ---- kv_indices_inplace -----------------------------------------------------------------------------------
// Batches of up to 300 rows (20%: more than 128, one block of rows), kernel ids that fit int32, a stale tail
// in 70% of cases, padded graph rows.
Recipe kv_indices_recipe(SplitMix64& rng, i64 lanes, const RecipeParams& p) {
  Recipe r;
  const i64 ps = param(p, "page_size", rng.pick(kOddPageSizes));
  const i64 m = param(p, "multiplier", rng.pick(kMultipliers));
  const i64 b_max = std::max<i64>(1, std::min<i64>(300, lanes / 8));
  const i64 sizes[] = {rng.log_size(8), rng.log_size(b_max)};
  i64 b = rng.pick(sizes);
  if (rng.chance(0.2)) b = std::min(b_max, below(rng, 129, 300));  // more than one block of rows
  std::vector<i64> lens(uz(b));
  i64 n = 0;
  for (auto& l : lens) n += (l = rng.between(0, std::max<i64>(2, lanes / std::max<i64>(b, 1))));
  const i64 num_pages = std::max<i64>(1, below(rng, 1, std::max<i64>(2, n / ps + 2)));
  std::vector<i64> v2p = draw_v2p(rng, num_pages);
  const i64 mod = std::max<i64>(1, (kTwo31 - 1) / sat_mul(ps, m) - 1);  // kernel ids fit int32
  for (auto& x : v2p)
    if (x >= 0) x = reduce(x, mod);
  r.ints = {{"page_size", ps}, {"multiplier", m}};
  r.arrays["v2p"] = vec(std::move(v2p));
  r.arrays["ids"] = vec(draw_ids(rng, n, num_pages, ps));
  r.arrays["lens"] = vec(std::move(lens));
  r.ints["tail"] = rng.chance(0.3) ? 0 : below(rng, 1, 64);
  constexpr i64 kPads[] = {0, 0, 1, 4};
  r.ints["pad"] = rng.pick(kPads);
  return r;
}

// ---- eager_funnel -----------------------------------------------------------------------------------------
// §4.6: a [rows, cols] table of page-start tokens (5% inside a page, padding -1 at a drawn rate), page size 1
// (the default configuration, where B02 crashed) in 25% of cases; out == page_table 20%, out one row before
// page_table in one buffer (rejected) 5%, padded out rows, strided page_table 25% of the others.
Recipe eager_recipe(SplitMix64& rng, i64 lanes, const RecipeParams& p) {
  Recipe r;
  const i64 ps = param(p, "page_size", rng.chance(0.25) ? 1 : rng.pick(kOddPageSizes));
  const i64 m = param(p, "multiplier", rng.pick(kMultipliers));
  const i64 b_max = std::max<i64>(1, std::min<i64>(1024, lanes / 4));
  const i64 sizes[] = {rng.log_size(std::min<i64>(b_max, 8)), rng.log_size(b_max),
                       std::min(b_max, below(rng, 129, 300))};
  const i64 rows = rng.pick(sizes);
  const i64 cols = std::max<i64>(1, rng.log_size(std::max<i64>(1, std::min<i64>(600, lanes / rows))));
  const i64 num_pages = std::max<i64>(1, below(rng, 1, std::max<i64>(2, rows * cols + 2)));
  const bool big = rng.chance(0.15);
  std::vector<i64> v2p = draw_v2p(rng, num_pages, big, sat_mul(ps, m));
  constexpr double kPadding[] = {0.0, 0.05, 0.3};
  const double padding = rng.pick(kPadding);
  std::vector<i64> table(uz(rows * cols));
  for (auto& t : table) {
    t = below(rng, 0, num_pages + 1) * ps;
    if (rng.chance(0.05)) t += below(rng, 0, ps);  // a token inside its page
    if (rng.chance(padding)) t = -1;
  }
  const double u = rng.unit();
  const bool alias = u < 0.2, overlap = u >= 0.2 && u < 0.25;
  constexpr i64 kPads[] = {0, 0, 1, 5};
  r.ints = {{"page_size", ps}, {"multiplier", m}, {"pad", alias || overlap ? 0 : rng.pick(kPads)}};
  r.bools = {{"alias", alias}, {"overlap", overlap}, {"strided", !alias && !overlap && rng.chance(0.25)}};
  r.arrays["v2p"] = vec(std::move(v2p));
  r.arrays["page_table"] = mat(std::move(table), rows, cols, false);
  return r;
}

// ---- req_to_token -----------------------------------------------------------------------------------------
// out[k] = first + k for k < n (first + n <= 2^31): the tokens of one page, a 16-byte vector of them a store
// (GCC / Clang vector extension), each the previous one plus its lane count.
template <class T>
void ramp(T* out, i64 first, i64 n) {
  constexpr i64 kLanes = 16 / sizeof(T);
  typedef T Vec __attribute__((vector_size(16)));
  Vec v{}, step{};
  for (i64 j = 0; j < kLanes; ++j) {
    v[j] = static_cast<T>(first + j);
    step[j] = static_cast<T>(kLanes);
  }
  i64 k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    std::memcpy(out + k, &v, sizeof v);
    v += step;
  }
  for (; k < n; ++k) out[k] = static_cast<T>(first + k);
}

// page_major_rows (recipe.hpp) into an array of T: the int32 tokens, widened for T = i64 (the recipe's storage).
template <class T>
std::vector<T> page_major_fill(SplitMix64& rng, i64 rows, i64 cols, i64 ps, i64 num_pages, double padding) {
  if (rows < 0 || cols < 0 || (cols > 0 && rows > kTwo31 / cols))
    throw InvalidArgument("rows", std::to_string(rows) + " x " + std::to_string(cols),
                          "rows and cols must be >= 0 with rows * cols <= 2^31");
  if (ps < 1 || ps > (i64{1} << 20)) throw InvalidArgument("page_size", std::to_string(ps), "must be in [1, 2^20]");
  if (num_pages < 0 || num_pages > kMaxPoolPages)
    throw InvalidArgument("num_pages", std::to_string(num_pages), "must be in [0, 2^24]");
  if (!(padding >= 0 && padding <= 1)) throw InvalidArgument("padding", std::to_string(padding), "must be in [0, 1]");
  std::vector<T> r2t(uz(rows * cols));
  const bool padded = padding > 0;
  SplitMix64 g = rng;  // a local stream: the stores below cannot alias its state, so it stays in registers
  // Page by page: one page draw (and one padding draw) per run of ps columns; this loop is most of a table
  // case's drawing time.
  for (i64 row = 0; row < rows; ++row) {
    T* out = r2t.data() + row * cols;
    for (i64 c0 = 0; c0 < cols; c0 += ps) {
      const i64 first = g.between(0, num_pages) * ps;
      const bool pad_start = padded && g.chance(padding);  // the page-start tokens are the ones the routes read
      const i64 n = std::min(ps, cols - c0);
      // the int32 store of page * ps + offset (num_pages * ps < 2^31 for every table the drawers make)
      if (n == 1) {  // page size 1 (and a last column)
        out[c0] = static_cast<T>(static_cast<i32>(first));
      } else if (first + n <= kTwo31) {
        ramp(out + c0, first, n);
      } else {
        for (i64 k = 0; k < n; ++k) out[c0 + k] = static_cast<T>(static_cast<i32>(first + k));
      }
      if (pad_start) out[c0] = -1;
    }
  }
  rng = g;
  return r2t;
}

// ---- the batch tables -------------------------------------------------------------------------------------
bool wraps(Route route) {  // the table routes with an int32_wrap variant
  return route == Route::canonical_page_table || route == Route::read_table || route == Route::flashmla_block_table ||
         route == Route::decode_metadata;
}

// Batches mostly small, regularly >= 129 rows (more than one block), sized to the lane budget; 10% empty
// rows; a width narrower than some rows in 25% of read_table / canonical / full_prefill cases, capped at
// max_seq_pages in 30% of decode cases; kv_start_idx in 30% of flashmla cases; entries v2p[p] * M >= 2^31
// for a third of the live pages in 10% of the wrap routes' cases (production rejects the store: overflow
// cases, docs/harness.md); decode rows of length near 2^31 (cu_seqlens_k overflows) in 8% (a quarter
// of them one row within a page of 2^31 beside empty rows: the int32 page count wraps there).
Recipe table_recipe(Route route, SplitMix64& rng, i64 lanes, const RecipeParams& p, bool packed) {
  Recipe r;
  const bool decode = route == Route::decode_metadata, flashmla = route == Route::flashmla_block_table;
  const i64 ps = param(p, "page_size", decode ? rng.pick(kPow2PageSizes) : rng.pick(kOddPageSizes));
  const i64 m = param(p, "multiplier", rng.pick(kMultipliers));
  const i64 b_max = std::max<i64>(1, std::min<i64>(1024, lanes / 4));
  const i64 sizes[] = {rng.log_size(std::min<i64>(b_max, 8)), rng.log_size(b_max),
                       std::min(b_max, below(rng, 129, 300))};
  const i64 b = rng.pick(sizes);
  const i64 pages_per_row = std::max<i64>(1, std::min<i64>(lanes / b, (8 * lanes) / (b * ps)));
  const i64 max_np = below(rng, 1, std::max<i64>(2, std::min<i64>(pages_per_row, 600)));
  std::vector<i64> lens(uz(b));
  for (auto& l : lens) {
    l = rng.between(0, max_np * ps);
    if (rng.chance(0.1)) l = 0;
  }
  constexpr i64 kDeltas[] = {0, 0, 1, 3};
  const i64 delta = route == Route::read_table || decode ? param(p, "seq_len_delta", rng.pick(kDeltas)) : 0;
  i64 need = 0;
  for (i64 l : lens) need = std::max(need, (l + delta + ps - 1) / ps);
  i64 width = flashmla || decode || rng.chance(0.75) ? need + rng.between(0, 2)
                                                      : below(rng, 0, std::max<i64>(need, 1));  // max_pages bounds
  width = std::max<i64>(width, 1);
  if (decode && rng.chance(0.3)) width = std::max<i64>(1, need - rng.between(0, 1));  // capped at max_seq_pages
  const i64 num_rows = b + rng.between(0, 3);
  const bool with_start = flashmla && flag(p, "kv_start_idx", rng.chance(0.3));
  i64 start_max = 0;
  if (with_start) {
    std::vector<i64> start(uz(b));
    for (auto& x : start) start_max = std::max(start_max, x = rng.between(0, 2 * ps));
    r.arrays["kv_start_idx"] = vec(std::move(start));
  } else {
    r.absent.emplace_back("kv_start_idx");
  }
  const i64 cols = std::max<i64>(1, std::max(width, need) * ps + rng.between(0, ps) + start_max);
  const i64 num_pages = below(rng, 1, std::max<i64>(2, std::min<i64>(num_rows * (cols / ps + 1), i64{1} << 22)));
  std::vector<i64> v2p = draw_v2p(rng, num_pages);
  const i64 v2p_mod = std::max<i64>(1, (kTwo31 - 1) / m);
  for (auto& x : v2p)  // int32 entries: v2p[p] * M stays inside int32 (the overflow edge below excepted)
    if (x >= 0) x = reduce(x, v2p_mod);
  constexpr double kPadding[] = {0.0, 0.01, 0.05};
  const double padding = rng.pick(kPadding);
  if (packed) r.packed["req_to_token"] = page_major_fill<i32>(rng, num_rows, cols, ps, num_pages, padding);
  RecipeArray r2t = mat(packed ? std::vector<i64>{} : page_major_fill<i64>(rng, num_rows, cols, ps, num_pages, padding),
                        num_rows, cols, true);
  std::vector<i64> rows(uz(num_rows));
  std::iota(rows.begin(), rows.end(), i64{0});
  if (rng.chance(0.8)) shuffle(rng, rows.begin(), num_rows);
  rows.resize(uz(b));
  r.bools["strided"] = rng.chance(0.25);
  r.bools["r2t_strided"] = rng.chance(0.2);
  if (wraps(route) && flag(p, "big_entries", rng.chance(0.1))) {
    const i64 floor = (kTwo31 + m - 1) / m;
    for (std::size_t i = 0; i + 1 < v2p.size(); ++i)
      if (rng.chance(0.33) && v2p[i] >= 0) v2p[i] = floor + below(rng, 0, i64{1} << 16);
  }
  if (decode && b >= 2 && flag(p, "long_rows", rng.chance(0.08))) {
    std::vector<i64> order(uz(b));
    std::iota(order.begin(), order.end(), i64{0});
    shuffle(rng, order.begin(), b);
    const i64 k = rng.between(2, std::min<i64>(b, 4));
    std::vector<i64> longs(uz(k));
    for (auto& l : longs) l = below(rng, i64{1} << 30, kTwo31 - 1 - delta);
    if (longs[0] % 4 == 0) {
      // a quarter of these cases (no extra draw): one row ending within a page of 2^31 after the delta and
      // every other row empty, so cu_seqlens_k fits and the case is compared: seq_len + ps - 1 passes int32
      // there, where a kernel counting pages in int32 wraps (int32_lengths)
      std::fill(lens.begin(), lens.end(), i64{0});
      lens[uz(order[0])] = kTwo31 - 1 - delta - (longs[0] / 4) % ps;
    } else {
      for (i64 i = 0; i < k; ++i) lens[uz(order[uz(i)])] = longs[uz(i)];
    }
  }
  constexpr i64 kPads[] = {0, 0, 1, 5};
  r.ints = {{"page_size", ps}, {"multiplier", m}, {"width", width}, {"pad", rng.pick(kPads)},
            {"extra_rows", rng.between(0, 2)}, {"seq_len_delta", delta}};
  r.bools["zero_tail"] = flag(p, "zero_tail", rng.chance(0.3));
  r.arrays["v2p"] = vec(std::move(v2p));
  r.arrays["req_to_token"] = std::move(r2t);
  r.arrays["rows"] = vec(std::move(rows));
  r.arrays["lens"] = vec(std::move(lens));
  return r;
}

// The adjacent-layout draw, last (so that every earlier draw of the case stays that of the same key):
// adjacent_pool 1 (an admitted layout) in kAdjacentAdmitted of the cases, 2 (a rejected one) in
// kAdjacentRejected, else 0; adjacent_pick the candidate to start from (the front end picks the first that
// fits the built case, kvaddr.adjacent.choose).
void adjacent_draw(SplitMix64& rng, Recipe& r) {
  const double u = rng.unit();
  r.ints["adjacent_pool"] = u < kAdjacentAdmitted ? 1 : (u < kAdjacentAdmitted + kAdjacentRejected ? 2 : 0);
  r.ints["adjacent_pick"] = below(rng, 0, i64{1} << 20);
}

bool per_id(Route r) {
  return visit_route(r, [](auto spec) { return is_per_id_route<decltype(spec)>; });
}
bool has_drawer(Route r) {
  switch (r) {
    case Route::write_loc: case Route::kv_indices_inplace: case Route::eager_funnel: case Route::canonical_page_table:
    case Route::read_table: case Route::full_prefill_table: case Route::flashmla_block_table:
    case Route::decode_metadata:
      return true;
    default:
      return per_id(r);
  }
}

}  // namespace

IdShape id_shape(Route route) {
  return visit_route(route, [route](auto spec) {
    using S = decltype(spec);
    IdShape s;
    if constexpr (!is_per_id_route<S>) {
      throw InvalidArgument("route", std::string(to_string(route)), "not a per-id route");
    } else {
      s.route = std::string(S::name);
      constexpr typename S::Args defaults{};
      std::vector<std::pair<std::string, i64>> scalars;
      std::apply(
          [&](const auto&... f) {
            auto one = [&](const auto& x) {
              using F = std::remove_cvref_t<decltype(x)>;
              const FieldInfo i = fill_args_detail::info_of(x);
              if constexpr (F::kind == ArgKind::int64) scalars.emplace_back(std::string(x.name), defaults.*(x.member));
              else if constexpr (F::kind == ArgKind::vec_in) (s.ids.empty() ? s.ids : s.table) = std::string(x.name);
              else if constexpr (F::kind == ArgKind::vec_out) s.out32 = i.int32;
            };
            (one(f), ...);
          },
          S::fields());
      for (const auto& [k, def] : scalars) {
        if (k == "page_size") s.page_size = true;
        else if (s.multiplier.empty() && k.size() >= 10 && k.ends_with("multiplier")) s.multiplier = k;
        else s.extra.emplace_back(k, def);
      }
    }
    return s;
  });
}

std::vector<Route> recipe_routes() {
  std::vector<Route> out;
  for (Route r : kAllRoutes)
    if (has_drawer(r)) out.push_back(r);
  return out;
}

Recipe draw_id_recipe(const IdShape& shape, SplitMix64& rng, i64 lanes, const RecipeParams& params) {
  validate_lanes(lanes);
  if (shape.ids.empty() || shape.table.empty())
    throw InvalidArgument("shape", shape.route, "a per-id route needs an ids and a table input");
  std::vector<std::string> scalars{"page_size", shape.multiplier};
  for (const auto& [k, def] : shape.extra) scalars.push_back(k);
  validate_params(params, shape.multiplier, scalars);
  Recipe r = id_recipe(shape, rng, lanes, params);
  adjacent_draw(rng, r);
  return r;
}

namespace {
Recipe draw_any(Route route, SplitMix64& rng, i64 lanes, const RecipeParams& params, bool packed) {
  if (!has_drawer(route))
    throw InvalidArgument("route", std::string(to_string(route)), "the harness has no drawer for this route");
  if (per_id(route)) return draw_id_recipe(id_shape(route), rng, lanes, params);
  validate_lanes(lanes);
  validate_params(params, "multiplier", scalar_fields(route));
  Recipe r;
  if (route == Route::write_loc) r = write_loc_recipe(rng, lanes, params);
  else if (route == Route::kv_indices_inplace) r = kv_indices_recipe(rng, lanes, params);
  else if (route == Route::eager_funnel) r = eager_recipe(rng, lanes, params);
  else r = table_recipe(route, rng, lanes, params, packed);
  adjacent_draw(rng, r);
  return r;
}
}  // namespace

Recipe draw_recipe(Route route, SplitMix64& rng, i64 lanes, const RecipeParams& params) {
  return draw_any(route, rng, lanes, params, false);
}
Recipe draw_recipe_packed(Route route, SplitMix64& rng, i64 lanes, const RecipeParams& params) {
  return draw_any(route, rng, lanes, params, true);
}

Recipe draw_recipe(Route route, u64 seed, u64 index, i64 lanes, const RecipeParams& params) {
  SplitMix64 rng = recipe_rng(seed, index);
  return draw_recipe(route, rng, lanes, params);
}

Recipe redraw_recipe(Route route, const Recipe& capture, SplitMix64& rng) {
  if (!has_drawer(route))
    throw InvalidArgument("route", std::string(to_string(route)), "the harness has no drawer for this route");
  const auto arr = [&](const char* k) -> const RecipeArray& {
    const auto it = capture.arrays.find(k);
    if (it == capture.arrays.end()) throw InvalidArgument("recipe", k, "missing array of the route's recipe");
    return it->second;
  };
  const auto num = [&](const char* k) {
    const auto it = capture.ints.find(k);
    if (it == capture.ints.end()) throw InvalidArgument("recipe", k, "missing integer of the route's recipe");
    return it->second;
  };
  const i64 ps = num("page_size"), m = num("multiplier");
  if (ps < 1 || m < 1) throw InvalidArgument("recipe", "page_size / multiplier", "must be >= 1");
  // the drawers' bounds (kParamRules), so that the token ranges below, (num_pages + 1) * ps * dcp_size, stay
  // inside int64 for any capture handed in (kvaddr._core.redraw_recipe takes a Python dict)
  if (ps > (i64{1} << 20)) throw InvalidArgument("recipe['page_size']", std::to_string(ps), "must be in [1, 2^20]");
  const i64 num_pages = static_cast<i64>(arr("v2p").values.size()) - 1;
  Recipe r = capture;
  std::vector<i64> v2p = draw_v2p(rng, num_pages);  // (num_pages checked there: at most 2^24)
  // the table routes' req_to_token and kv_indices_inplace's ids are int32: the tokens drawn below reach
  // (num_pages + 1) * page_size - 1, which must fit (a capture beyond it would come back wrapped)
  if (!per_id(route) && route != Route::eager_funnel && route != Route::write_loc && (num_pages + 1) * ps > kTwo31)
    throw InvalidArgument("recipe['v2p']", std::to_string(num_pages) + " pages at page_size " + std::to_string(ps),
                          "(pages + 1) * page_size must be <= 2^31: this route's tokens are int32");
  const auto keep_mod = [&](i64 mod) {
    for (auto& x : v2p)
      if (x >= 0) x = reduce(x, std::max<i64>(1, mod));
  };
  if (per_id(route)) {
    std::vector<i64> ids = draw_ids(rng, static_cast<i64>(arr("ids").values.size()), num_pages, ps);
    fit_token_values(std::string(to_string(route)), ids, v2p, capture.ints.count("dcp_size") ? num("dcp_size") : 1);
    r.arrays["ids"].values = std::move(ids);
  } else if (route == Route::kv_indices_inplace) {
    r.arrays["ids"].values = draw_ids(rng, static_cast<i64>(arr("ids").values.size()), num_pages, ps);
    keep_mod((kTwo31 - 1) / sat_mul(ps, m) - 1);
  } else if (route == Route::eager_funnel) {
    arr("page_table");
    for (auto& t : r.arrays["page_table"].values) t = below(rng, 0, num_pages + 1) * ps;
  } else if (route == Route::write_loc) {
    arr("loc");
    const i64 dcp = num("dcp_size");
    if (dcp < 1 || dcp > (i64{1} << 10))
      throw InvalidArgument("recipe['dcp_size']", std::to_string(dcp), "must be in [1, 2^10]");
    for (auto& x : r.arrays["loc"].values) {
      x = below(rng, 0, (num_pages + 1) * ps * dcp);
      if (rng.chance(0.1)) x = 0;
    }
  } else {
    const RecipeArray& t = arr("req_to_token");
    if (t.shape.size() != 2) throw InvalidArgument("recipe", "req_to_token", "must be 2-D");
    keep_mod((kTwo31 - 1) / m);
    r.arrays["req_to_token"].values = page_major_fill<i64>(rng, t.shape[0], t.shape[1], ps, num_pages, 0.01);
    arr("lens");
    const i64 b = static_cast<i64>(arr("rows").values.size());
    std::vector<i64> rows(uz(t.shape[0]));
    std::iota(rows.begin(), rows.end(), i64{0});
    shuffle(rng, rows.begin(), t.shape[0]);
    rows.resize(uz(std::min(b, t.shape[0])));
    r.arrays["rows"].values = std::move(rows);
    i64 hi = std::max<i64>(0, num("width") * ps - (capture.ints.count("seq_len_delta") ? num("seq_len_delta") : 0));
    if (capture.arrays.count("kv_start_idx")) {  // the capture's starts stay: every row inside req_to_token
      const auto& st = capture.arrays.at("kv_start_idx").values;
      hi = std::max<i64>(0, std::min(hi, t.shape[1] - (st.empty() ? 0 : *std::max_element(st.begin(), st.end()))));
    }
    for (auto& l : r.arrays["lens"].values) l = rng.between(0, hi);
  }
  r.arrays["v2p"].values = std::move(v2p);
  return r;
}

std::vector<i64> draw_v2p(SplitMix64& rng, i64 num_pages, bool big, i64 scale) {
  if (num_pages < 0 || num_pages > kMaxPoolPages)
    throw InvalidArgument("num_pages", std::to_string(num_pages), "must be in [0, 2^24]");
  if (scale < 1) throw InvalidArgument("scale", std::to_string(scale), "must be >= 1");
  const i64 total = std::max<i64>(2 * num_pages, 1);
  std::vector<i64> phys(uz(total));
  std::iota(phys.begin(), phys.end(), i64{0});
  SplitMix64 g = rng;  // a local stream: the stores below cannot alias its state
  shuffle(g, phys.begin(), total);
  phys.resize(uz(num_pages));
  if (big) {  // page * scale passes 2^31
    const i64 add = kTwo31 / scale + below(g, 0, i64{1} << 20);
    for (auto& x : phys) x += add;
  }
  const double tomb = g.pick(kTombstoneRates);
  for (auto& x : phys)
    if (g.chance(tomb)) x = -1;
  rng = g;
  phys.push_back(-1);
  return phys;
}

std::vector<i64> draw_ids(SplitMix64& rng, i64 n, i64 num_pages, i64 ps, double pad) {
  if (n < 0 || n > kTwo31) throw InvalidArgument("n", std::to_string(n), "must be in [0, 2^31]");
  if (num_pages < 0 || num_pages > kMaxPoolPages)
    throw InvalidArgument("num_pages", std::to_string(num_pages), "must be in [0, 2^24]");
  if (ps < 1 || ps > (i64{1} << 20)) throw InvalidArgument("page_size", std::to_string(ps), "must be in [1, 2^20]");
  if (!(pad >= 0 && pad <= 1)) throw InvalidArgument("pad", std::to_string(pad), "must be in [0, 1]");
  std::vector<i64> ids(uz(n));
  SplitMix64 g = rng;  // a local stream: the stores below cannot alias its state
  for (auto& t : ids) {
    t = below(g, 0, (num_pages + 1) * ps);
    if (g.chance(pad)) t = -1;
    if (g.chance(pad / 5)) t = -ps - 1;
  }
  rng = g;
  return ids;
}

std::vector<i32> page_major_rows(SplitMix64& rng, i64 rows, i64 cols, i64 ps, i64 num_pages, double padding) {
  return page_major_fill<i32>(rng, rows, cols, ps, num_pages, padding);
}

void fit_token_values(const std::string& route, std::vector<i64>& ids, std::vector<i64>& v2p, i64 dcp_size) {
  if (route == "mamba_translate") {
    const i64 n = static_cast<i64>(v2p.size());
    if (n == 0) throw InvalidArgument("v2p", "[]", "mamba_translate's slots need a non-empty table");
    for (auto& t : ids) t = t < 0 ? 0 : t % n;
    for (auto& x : v2p) x = std::max<i64>(x, 0);
  }
  if (route == "dcp_read_translate") {
    if (dcp_size < 1 || dcp_size > (i64{1} << 10))
      throw InvalidArgument("dcp_size", std::to_string(dcp_size), "must be in [1, 2^10]");
    for (auto& t : ids)
      if (t >= 0) t *= dcp_size;
  }
}

}  // namespace kvaddr::gen
