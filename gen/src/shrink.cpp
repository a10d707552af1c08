// The shrinker of shrink.hpp: the candidate list of a recipe and the greedy loop over it.
#include "kvaddr/gen/shrink.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_set>
#include <utility>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"

namespace kvaddr::gen {
namespace {

using Arr = RecipeArray;
std::size_t uz(i64 n) { return static_cast<std::size_t>(n); }
i64 len(const Arr& a) { return a.shape.empty() ? 0 : a.shape[0]; }

// Python's floor division and modulo (the candidates' arithmetic on negative values): the model's.
using model::floor_div;
using model::floor_mod;
// a + b and a * b, or nullopt past int64.
std::optional<i64> add(i64 a, i64 b) {
  i64 r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<i64>(r);
}
std::optional<i64> mul(i64 a, i64 b) {
  i64 r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<i64>(r);
}
std::optional<i64> then_add(std::optional<i64> a, i64 b) { return a ? add(*a, b) : std::nullopt; }
constexpr i64 kMaxPageSize = i64{1} << 40;

enum class Family { ids, write_loc, kv_indices, funnel, table };

Family family_of(const std::string& route, const Recipe& r) {
  if (route == "write_loc") return Family::write_loc;
  if (route == "kv_indices_inplace") return Family::kv_indices;
  if (route == "eager_funnel") return Family::funnel;
  if (r.arrays.count("req_to_token")) return Family::table;
  return Family::ids;
}

const Arr& need(const Recipe& r, const char* k, std::size_t min_dims = 1, std::size_t max_dims = 1) {
  const auto it = r.arrays.find(k);
  if (it == r.arrays.end()) throw InvalidArgument("recipe", k, "missing array");
  const Arr& a = it->second;
  i64 n = 1;
  for (i64 s : a.shape) {
    const std::optional<i64> m = s < 0 ? std::nullopt : mul(n, s);
    if (!m) throw InvalidArgument("recipe", k, "a dimension is negative or the element count passes int64");
    n = *m;
  }
  if (a.shape.size() < min_dims || a.shape.size() > max_dims || static_cast<std::size_t>(n) != a.values.size())
    throw InvalidArgument("recipe", k, "shape does not match its values or has the wrong rank");
  return a;
}
i64 need_int(const Recipe& r, const char* k, i64 lo) {
  const auto it = r.ints.find(k);
  if (it == r.ints.end()) throw InvalidArgument("recipe", k, "missing integer");
  if (it->second < lo) throw InvalidArgument("recipe", std::string(k) + "=" + std::to_string(it->second),
                                              "must be >= " + std::to_string(lo));
  return it->second;
}
i64 get_int(const Recipe& r, const char* k, i64 def) {
  const auto it = r.ints.find(k);
  return it == r.ints.end() ? def : it->second;
}

std::vector<std::string> batch_fields(Family f, const Recipe& r) {
  switch (f) {
    case Family::ids: return {"ids"};
    case Family::write_loc: return {"loc"};
    case Family::kv_indices: return {"lens"};
    case Family::funnel: return {"page_table"};
    case Family::table:
      if (r.arrays.count("kv_start_idx")) return {"rows", "lens", "kv_start_idx"};
      return {"rows", "lens"};
  }
  return {};
}

// Checks what the candidates read; returns the batch fields.
std::vector<std::string> validate(Family f, const Recipe& r) {
  need(r, "v2p");
  if (need(r, "v2p").values.empty()) throw InvalidArgument("recipe", "v2p", "must hold the padding entry");
  if (need_int(r, "page_size", 1) > kMaxPageSize)
    throw InvalidArgument("recipe", "page_size=" + std::to_string(r.ints.at("page_size")), "must be <= 2^40");
  const std::vector<std::string> fields = batch_fields(f, r);
  const std::size_t dims = f == Family::funnel ? 2 : 1;  // the funnel's batch is the rows of its 2-D table
  const i64 n = len(need(r, fields[0].c_str(), dims, dims));
  for (const std::string& k : fields)
    if (len(need(r, k.c_str(), dims, dims)) != n) throw InvalidArgument("recipe", k, "batch arrays differ in length");
  if (f == Family::table) {
    need(r, "req_to_token", 2, 2);
    need_int(r, "width", 0);
  }
  if (f == Family::kv_indices) need(r, "ids");
  for (const auto& [k, a] : r.arrays) need(r, k.c_str(), 1, 2);
  return fields;
}

// Rows [a, b) of a 1-D or 2-D array removed.
Arr drop_rows(const Arr& x, i64 a, i64 b) {
  Arr y = x;
  const i64 row = x.shape.size() == 2 ? x.shape[1] : 1;
  y.values.erase(y.values.begin() + a * row, y.values.begin() + b * row);
  y.shape[0] -= b - a;
  return y;
}

// Index ranges to delete from a batch of n: halves, then eighths (n > 16), else single elements.
std::vector<std::pair<i64, i64>> cuts(i64 n) {
  std::vector<std::pair<i64, i64>> out;
  if (n <= 1) return out;
  out.emplace_back(n / 2, n);
  out.emplace_back(0, n / 2);
  if (n > 16) {
    const i64 step = std::max<i64>(1, n / 8);
    for (i64 a = 0; a < n; a += step) out.emplace_back(a, std::min(n, a + step));
  } else {
    for (i64 a = 0; a < n; ++a) out.emplace_back(a, a + 1);
  }
  return out;
}

// The presentation flags, in the order they are cleared.
constexpr const char* kFlags[] = {"strided", "r2t_strided", "alias", "overlap", "rank2", "pad", "adjacent",
                                  "extra_rows", "tail", "seq_len_delta", "kv_start_idx", "zero_tail"};

// Where candidates go, one at a time: `take` returns true to stop (the rest are not built).
struct Out {
  const std::function<bool(Recipe&)>& take;
  bool stop = false;
  void add(Recipe r) {
    if (!stop) stop = take(r);
  }
  bool done() const { return stop; }
};

void flag_cuts(const Recipe& r, Out& out) {
  for (const char* k : kFlags) {
    if (auto it = r.ints.find(k); it != r.ints.end() && it->second != 0) {
      if (out.done()) return;
      Recipe c = r;
      c.ints[k] = 0;
      out.add(std::move(c));
    } else if (auto b = r.bools.find(k); b != r.bools.end() && b->second) {
      if (out.done()) return;
      Recipe c = r;
      c.bools[k] = false;
      out.add(std::move(c));
    } else if (r.arrays.count(k)) {  // an optional array (kv_start_idx) left out
      if (out.done()) return;
      Recipe c = r;
      c.arrays.erase(k);
      c.absent.emplace_back(k);
      out.add(std::move(c));
    }
  }
  for (const char* k : {"tail", "pad", "extra_rows", "seq_len_delta", "overlap"}) {
    const auto it = r.ints.find(k);
    if (it == r.ints.end() || it->second <= 1) continue;
    for (i64 v : {it->second / 2, it->second - 1}) {
      if (out.done()) return;
      Recipe c = r;
      c.ints[k] = v;
      out.add(std::move(c));
    }
  }
  for (const char* k : {"multiplier", "dcp_size"}) {
    if (get_int(r, k, 1) == 1) continue;
    if (out.done()) return;
    Recipe c = r;
    c.ints[k] = 1;
    out.add(std::move(c));
  }
}

void table_cuts(const std::string& route, const Recipe& r, Out& out) {
  const i64 width = r.ints.at("width");
  if (width > 1) {
    for (i64 w : {width / 2, width - 1}) {
      if (out.done()) return;
      Recipe c = r;
      c.ints["width"] = w;
      out.add(std::move(c));
    }
  }
  const Arr& r2t = r.arrays.at("req_to_token");
  const i64 t_rows = r2t.shape[0], t_cols = r2t.shape[1];
  const std::vector<i64>& rows = r.arrays.at("rows").values;
  std::vector<i64> used(rows);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  const bool inside = !used.empty() && used.front() >= 0 && used.back() < t_rows;
  // at least one row per batch entry stays: a kernel that reads the batch index as its row stays inside
  const auto batch = static_cast<i64>(rows.size());
  if (inside && std::max(used.back() + 1, batch) < t_rows) {  // the rows past the last one read dropped
    if (out.done()) return;
    Recipe c = r;
    c.arrays["req_to_token"] = drop_rows(r2t, std::max(used.back() + 1, batch), t_rows);
    out.add(std::move(c));
  }
  // only the rows read, renumbered 0, 1, ...; then the same with row 0 kept first (a kernel that reads the batch
  // index as its row, E10, still reads another row than the batch names)
  std::vector<i64> with0(used);
  if (!with0.empty() && with0.front() != 0) with0.insert(with0.begin(), 0);
  for (const std::vector<i64>* keep : {&used, &with0}) {
    const auto kept = static_cast<i64>(keep->size());
    if (!inside || kept >= t_rows || kept < batch || (keep == &with0 && with0.size() == used.size())) continue;
    if (out.done()) return;
    Recipe c = r;
    Arr& t = c.arrays["req_to_token"];
    t.values.clear();
    for (i64 u : *keep) t.values.insert(t.values.end(), r2t.values.begin() + u * t_cols, r2t.values.begin() + (u + 1) * t_cols);
    t.shape[0] = static_cast<i64>(keep->size());
    for (i64& x : c.arrays["rows"].values) x = std::lower_bound(keep->begin(), keep->end(), x) - keep->begin();
    out.add(std::move(c));
  }
  // every column a length names (what a kernel without the column bound reads too); decode_metadata, whose
  // every variant bounds the columns by max_seq_pages, also the columns up to max_seq_pages
  const i64 ps = r.ints.at("page_size"), delta = get_int(r, "seq_len_delta", 0);
  i64 needed = 1, start = 0;
  if (!rows.empty()) {
    needed = width;
    for (i64 l : r.arrays.at("lens").values) {
      const auto end = then_add(add(l, delta), ps - 1);
      needed = std::max(needed, end ? floor_div(*end, ps) : std::numeric_limits<i64>::max());
    }
    if (auto it = r.arrays.find("kv_start_idx"); it != r.arrays.end())
      start = *std::max_element(it->second.values.begin(), it->second.values.end());
  }
  std::vector<std::optional<i64>> widths{then_add(mul(needed, ps), start)};
  if (route == "decode_metadata") widths.push_back(mul(width, ps));
  for (const std::optional<i64>& w : widths) {
    if (!w || *w <= 0 || *w >= t_cols) continue;  // past int64: past the table too
    const i64 cols = *w;
    if (out.done()) return;
    Recipe c = r;
    Arr& t = c.arrays["req_to_token"];
    t.values.clear();
    for (i64 row = 0; row < t_rows; ++row)
      t.values.insert(t.values.end(), r2t.values.begin() + row * t_cols, r2t.values.begin() + row * t_cols + cols);
    t.shape[1] = cols;
    out.add(std::move(c));
  }
}

// Columns [c0, c0 + k) of a 2-D array.
Arr columns(const Arr& x, i64 c0, i64 k) {
  Arr y = x;
  y.values.clear();
  for (i64 row = 0; row < x.shape[0]; ++row)
    y.values.insert(y.values.end(), x.values.begin() + row * x.shape[1] + c0, x.values.begin() + row * x.shape[1] + c0 + k);
  y.shape[1] = k;
  return y;
}

// Whether `smaller` lowers x: 0 <= smaller < x, or 0 for a negative x.
bool lowers(i64 smaller, i64 x) { return (smaller >= 0 && smaller < x) || (x < 0 && smaller == 0); }

void funnel_cuts(const Recipe& r, Out& out) {
  const Arr& t = r.arrays.at("page_table");
  const i64 cols = t.shape[1];
  for (i64 k : {cols / 2, cols - 1}) {
    if (!(k > 0 && k < cols)) continue;
    for (i64 c0 : {i64{0}, cols - k}) {
      if (out.done()) return;
      Recipe c = r;
      c.arrays["page_table"] = columns(t, c0, k);
      out.add(std::move(c));
    }
  }
  if (t.values.size() > 16) return;
  const i64 ps = r.ints.at("page_size");
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    const i64 x = t.values[i], half = floor_div(x, 2);
    for (i64 smaller : {i64{0}, half - floor_mod(half, ps), x - floor_mod(x, ps), x > 0 ? x - ps : 0}) {
      if (!lowers(smaller, x)) continue;
      if (out.done()) return;
      Recipe c = r;
      c.arrays["page_table"].values[i] = smaller;
      out.add(std::move(c));
    }
  }
}

// Where a case's tokens lie: the array holding them and how one of its values names a token (-1: none).
struct Tokens {
  const char* key;
  Family f;
  i64 dcp;  // write_loc and dcp_read_translate: ids widened by dcp_size (value = token * dcp + rank)
  i64 of(i64 v) const {
    if (f == Family::ids || f == Family::write_loc) return (f == Family::write_loc ? v > 0 : v >= 0) ? floor_div(v, dcp) : -1;
    return v >= 0 ? v : -1;
  }
};

Tokens tokens_of(const std::string& route, Family f, const Recipe& r) {
  const i64 dcp = (route == "write_loc" || route == "dcp_read_translate") ? std::max<i64>(1, get_int(r, "dcp_size", 1)) : 1;
  const char* key = f == Family::table ? "req_to_token" : f == Family::funnel ? "page_table" : f == Family::write_loc ? "loc" : "ids";
  return {key, f, dcp};
}

// The virtual pages the case's tokens name, ascending, once each.
std::vector<i64> used_pages(const Tokens& t, const Recipe& r) {
  const i64 ps = r.ints.at("page_size");
  std::vector<i64> used;
  for (i64 v : r.arrays.at(t.key).values)
    if (t.of(v) >= 0) used.push_back(floor_div(t.of(v), ps));
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  return used;
}

// Only the virtual pages the case reads, renumbered 0, 1, ... in order (offsets and dcp ranks kept).
void compact_pages(const Tokens& tk, const Recipe& r, Out& out) {
  if (tk.f == Family::kv_indices) return;
  const i64 ps = r.ints.at("page_size");
  const std::vector<i64> used = used_pages(tk, r);
  const std::vector<i64>& v2p = r.arrays.at("v2p").values;
  const auto n = static_cast<i64>(v2p.size());
  if (used.empty() || used.back() >= n) return;
  if (static_cast<i64>(used.size()) == n - 1 && used.back() == static_cast<i64>(used.size()) - 1) return;
  if (out.done()) return;
  Recipe c = r;
  Arr& nv = c.arrays["v2p"];
  nv.values.clear();
  for (i64 p : used) nv.values.push_back(v2p[uz(p)]);
  nv.values.push_back(v2p.back());
  nv.shape = {static_cast<i64>(nv.values.size())};
  for (i64& v : c.arrays[tk.key].values) {
    const i64 t = tk.of(v);
    if (t < 0) continue;
    const i64 moved = (std::lower_bound(used.begin(), used.end(), floor_div(t, ps)) - used.begin()) * ps + floor_mod(t, ps);
    v = tk.f == Family::ids || tk.f == Family::write_loc ? moved * tk.dcp + floor_mod(v, tk.dcp) : moved;
  }
  out.add(std::move(c));
}

// v2p cut to its first half / all but its last page: only where no token of the case names a page cut away (a
// kernel that reads a token past what the reference reads would read past the table: another failure).
void v2p_cuts(const Tokens& tk, const Recipe& r, Out& out) {
  const Arr& v2p = r.arrays.at("v2p");
  const i64 n = static_cast<i64>(v2p.values.size()) - 1;
  const std::vector<i64> used = used_pages(tk, r);
  for (i64 k : {n / 2, n - 1}) {
    if (!(k > 0 && k < n) || (!used.empty() && used.back() >= k)) continue;
    if (out.done()) return;
    Recipe c = r;
    Arr& t = c.arrays["v2p"];
    t.values.erase(t.values.begin() + k, t.values.end() - 1);
    t.shape = {k + 1};
    out.add(std::move(c));
  }
  if (n > 16) return;
  for (i64 p = 0; p <= n; ++p) {
    const i64 x = v2p.values[uz(p)];
    std::vector<i64> to;
    if (x < 0) to.push_back(p);  // a tombstone (or the padding entry) made live: its own page id
    for (i64 smaller : {p, i64{0}})
      if (p < n && x > smaller) to.push_back(smaller);
    for (i64 v : to) {
      if (out.done()) return;
      Recipe c = r;
      c.arrays["v2p"].values[uz(p)] = v;
      out.add(std::move(c));
    }
  }
}

void value_cuts(Family f, const Recipe& r, const std::vector<std::string>& fields, Out& out) {
  std::vector<std::string> keys = fields;
  if (f == Family::kv_indices && r.arrays.at("ids").values.size() <= 16) keys.emplace_back("ids");
  for (const std::string& k : keys) {  // every value of a field at 0 at once (one attempt where the values do not matter)
    const Arr& a = r.arrays.at(k);
    if (a.shape.size() != 1 || std::all_of(a.values.begin(), a.values.end(), [](i64 x) { return x == 0; })) continue;
    if (out.done()) return;
    Recipe c = r;
    std::fill(c.arrays[k].values.begin(), c.arrays[k].values.end(), 0);
    out.add(std::move(c));
  }
  const i64 ps = r.ints.at("page_size");
  for (const std::string& k : keys) {
    const std::vector<i64>& v = r.arrays.at(k).values;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const i64 x = v[i];
      std::vector<i64> smaller{0, floor_div(x, 2), floor_mod(x, ps), floor_mod(x, ps) + ps};
      if (x > 0) {  // (for x <= 0 only 0 lowers it)
        const int bits = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(x)));
        for (int b = std::min(bits, 62) - 1; b > 0; --b) smaller.push_back(x - (i64{1} << b));  // a bisection
        smaller.push_back(x - ps);
        smaller.push_back(x - 1);
      }
      for (i64 s : smaller) {
        if (!lowers(s, x)) continue;
        if (out.done()) return;
        Recipe c = r;
        c.arrays[k].values[i] = s;
        out.add(std::move(c));
      }
    }
  }
}

// A 64-bit fingerprint of a recipe (recipes already tried are skipped).
std::uint64_t fingerprint(const Recipe& r) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::uint64_t x) {
    h ^= x + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 1099511628211ULL;
  };
  auto text = [&](const std::string& s) {
    mix(s.size());
    for (char ch : s) mix(static_cast<unsigned char>(ch));
  };
  for (const auto& [k, v] : r.ints) {
    text(k);
    mix(static_cast<std::uint64_t>(v));
  }
  for (const auto& [k, v] : r.bools) {
    text(k);
    mix(v ? 3 : 5);
  }
  for (const auto& [k, a] : r.arrays) {
    text(k);
    mix(a.int32 ? 7 : 11);
    for (i64 s : a.shape) mix(static_cast<std::uint64_t>(s));
    for (i64 x : a.values) mix(static_cast<std::uint64_t>(x));
  }
  for (const std::string& k : r.absent) text(k);
  return h;
}

}  // namespace

namespace {
// The candidates of `r` in order, each handed to `out` as it is built.
void each_candidate(const std::string& route, const Recipe& r, Out& out) {
  const Family f = family_of(route, r);
  const std::vector<std::string> fields = validate(f, r);
  const i64 n = len(r.arrays.at(fields[0]));
  for (const auto& [a, b] : cuts(n)) {
    if (out.done()) return;
    Recipe c = r;
    for (const std::string& k : fields) c.arrays[k] = drop_rows(r.arrays.at(k), a, b);
    const auto extra = r.ints.find("extra_rows");
    const std::optional<i64> kept = extra == r.ints.end() ? std::nullopt : add(extra->second, b - a);
    if (kept) {  // the same output rows: the removed rows' lanes stay as rows past the batch
      Recipe d = c;
      d.ints["extra_rows"] = *kept;
      out.add(std::move(c));
      out.add(std::move(d));
    } else {
      out.add(std::move(c));
    }
  }
  if (f == Family::kv_indices) {  // ids past kv_indptr[batch_size] are never read
    i64 total = 0;
    for (i64 l : r.arrays.at("lens").values) total = add(total, std::max<i64>(l, 0)).value_or(std::numeric_limits<i64>::max());
    const Arr& ids = r.arrays.at("ids");
    if (len(ids) > total) {
      if (out.done()) return;
      Recipe c = r;
      c.arrays["ids"] = drop_rows(ids, total, len(ids));
      out.add(std::move(c));
    }
  }
  flag_cuts(r, out);
  if (out.done()) return;
  if (f == Family::table) table_cuts(route, r, out);
  if (f == Family::funnel) funnel_cuts(r, out);
  const Tokens tk = tokens_of(route, f, r);
  compact_pages(tk, r, out);
  if (out.done()) return;
  v2p_cuts(tk, r, out);
  if (n <= 16 && f != Family::funnel) value_cuts(f, r, fields, out);
}
}  // namespace

std::vector<Recipe> shrink_candidates(const std::string& route, const Recipe& r) {
  std::vector<Recipe> list;
  const std::function<bool(Recipe&)> keep = [&list](Recipe& c) {
    list.push_back(std::move(c));
    return false;
  };
  Out out{keep};
  each_candidate(route, r, out);
  return list;
}

Shrunk shrink_recipe(const std::string& route, Recipe r, const std::function<bool(const Recipe&)>& still_fails,
                     double seconds, std::int64_t max_steps) {
  if (!(seconds >= 0.0) || !std::isfinite(seconds))
    throw InvalidArgument("seconds", std::to_string(seconds), "must be finite and >= 0");
  if (max_steps < 0) throw InvalidArgument("max_steps", std::to_string(max_steps), "must be >= 0");
  if (!still_fails) throw InvalidArgument("still_fails", "empty", "must be a callable");
  validate(family_of(route, r), r);  // before the first call
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::unordered_set<std::uint64_t> seen{fingerprint(r)};
  Shrunk s{std::move(r), 0};
  std::optional<Recipe> accepted;
  const std::function<bool(Recipe&)> attempt = [&](Recipe& cand) {
    if (Clock::now() >= deadline) return true;
    if (!seen.insert(fingerprint(cand)).second) return false;
    if (!still_fails(cand)) return false;
    accepted = std::move(cand);
    return true;
  };
  while (Clock::now() < deadline && s.steps < max_steps) {
    Out out{attempt};
    each_candidate(route, s.recipe, out);  // candidates are built only up to the first that still fails
    if (!accepted) break;
    s.recipe = std::move(*accepted);
    accepted.reset();
    ++s.steps;
  }
  return s;
}

}  // namespace kvaddr::gen
