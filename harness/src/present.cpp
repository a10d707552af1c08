// Presenting a case of the C++ harness (case.hpp) as kvaddr.check presents the same case (python/kvaddr/present.py,
// adjacent.py): every output in a guarded allocation of its own, every input in its own allocation (req_to_token
// with its drawn row stride), an aliased input inside its output, and the arrays of an adjacent layout as
// consecutive slices of ONE allocation (kvaddr/harness/adjacent.hpp's layout, choice and attribution). After the
// call every allocation is compared whole.
#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "case.hpp"
#include "kvaddr/gen/recipe.hpp"
#include "kvaddr/harness/compare.hpp"
#include "kvaddr/model/errors.hpp"

namespace kvaddr::harness::cases {
namespace {

using std::int32_t;
using std::int64_t;

// Values as int32 lanes: an int32 array as is (its values fit), an int64 one as two lanes each.
std::vector<int32_t> lanes_of(const I64s& v, bool i32) {
  if (i32) return narrow<int32_t>(v);
  std::vector<int32_t> l(v.size() * 2);
  if (!v.empty()) std::memcpy(l.data(), v.data(), v.size() * sizeof(int64_t));
  return l;
}

I64s values_of(const int32_t* lanes, int64_t n, bool i32) {
  if (i32) return I64s(lanes, lanes + n);
  I64s v(static_cast<std::size_t>(n));
  if (n > 0) std::memcpy(v.data(), lanes, static_cast<std::size_t>(n) * sizeof(int64_t));
  return v;
}

// Where an array of the case lies: an allocation and the int32 lane it starts at.
struct Place {
  int alloc = -1;
  int64_t lane = 0;
};

// The allocations of a presented case before any is made: their contents and where each argument lies in them.
struct Plan {
  std::vector<Allocation> allocs;
  std::map<std::string, Place> in;  // inputs by case key (req_to_token included)
  std::vector<Place> out;           // each output's first element
  std::vector<int> out_alloc;
  int group = -1;
  std::optional<AdjacentLayoutOf> adjacent;
};

// Array `key` of the case as an adjacent member named `name`: its element size, shape, whether it is an output
// (and its visible width); nullopt when the case has no such array.
std::optional<AdjacentMember> member_of(const Case& c, const std::string& key, const std::string& name) {
  for (const Output& o : c.outs)
    if (o.name == key) {
      if (o.stride > 0) return AdjacentMember{name, o.i32 ? 1 : 2, {o.rows, o.stride}, true, o.width};
      return AdjacentMember{name, o.i32 ? 1 : 2, {o.width}, true, -1};
    }
  if (key == "req_to_token" && !c.r2t.empty()) return AdjacentMember{name, 1, {c.r2t_rows, c.r2t_cols}, false, -1};
  if (const auto m = c.mats.find(key); m != c.mats.end() && c.arr.count(key))
    return AdjacentMember{name, 2, {m->second.rows, m->second.stride}, false, -1};
  if (const auto a = c.arr.find(key); a != c.arr.end())
    return AdjacentMember{name, 2, {static_cast<int64_t>(a->second.size())}, false, -1};
  if (const auto a = c.arr32.find(key); a != c.arr32.end())
    return AdjacentMember{name, 1, {static_cast<int64_t>(a->second.size())}, false, -1};
  return std::nullopt;
}

// The contents of array `key` (an output's from `outs`) as int32 lanes.
std::vector<int32_t> contents(const Case& c, const std::string& key, const Bufs& outs) {
  for (std::size_t j = 0; j < c.outs.size(); ++j)
    if (c.outs[j].name == key) return lanes_of(outs[j], c.outs[j].i32);
  if (key == "req_to_token") return c.r2t;
  if (c.arr.count(key)) return lanes_of(c.arr.at(key), false);
  return c.arr32.at(key);
}

// The adjacent backing of case `c` with outputs `outs`: guard elements of the first member's type (the sentinels
// 40000 on), the members in order (a later one's values in shared lanes), guard elements of the last one's type.
std::vector<int32_t> group_image(const Case& c, const AdjacentLayoutOf& l, const Bufs& outs) {
  std::vector<int32_t> b(static_cast<std::size_t>(l.total), 0);
  const auto guard = [&](const AdjacentMember& m, int64_t salt) {
    I64s g(static_cast<std::size_t>(kGuard));
    for (int64_t i = 0; i < kGuard; ++i) g[static_cast<std::size_t>(i)] = sentinel(salt + i);
    return lanes_of(g, m.units == 1);
  };
  const std::vector<int32_t> g0 = guard(l.members.front(), 40000), g1 = guard(l.members.back(), 50000);
  std::copy(g0.begin(), g0.end(), b.begin());
  std::copy(g1.begin(), g1.end(), b.begin() + l.spans.back().hi);
  for (std::size_t i = 0; i < l.members.size(); ++i) {
    const std::vector<int32_t> v = contents(c, c.layout.adjacent[i], outs);
    std::copy(v.begin(), v.end(), b.begin() + l.spans[i].lo);
  }
  return b;
}

AdjacentLayoutOf layout_of(const Case& c) {
  const Layout& L = c.layout;
  if (L.adjacent_names.size() != L.adjacent.size())
    throw InvalidArgument("adjacent", std::to_string(L.adjacent.size()) + " members", "needs a name for each member");
  std::vector<AdjacentMember> ms;
  for (std::size_t i = 0; i < L.adjacent.size(); ++i) {
    auto m = member_of(c, L.adjacent[i], L.adjacent_names[i]);
    if (!m) throw InvalidArgument("adjacent", L.adjacent[i], "is not an array of the case");
    ms.push_back(std::move(*m));
  }
  return adjacent_layout(std::move(ms), L.shared, kGuard);
}

// A 2-D req_to_token in rows of `stride` lanes, the lanes past its columns kStridePad.
std::vector<int32_t> spread_r2t(const Case& c, int64_t stride) {
  std::vector<int32_t> b(static_cast<std::size_t>(c.r2t_rows * stride), static_cast<int32_t>(kStridePad));
  for (int64_t r = 0; r < c.r2t_rows; ++r)
    std::copy(c.r2t.begin() + r * c.r2t_cols, c.r2t.begin() + (r + 1) * c.r2t_cols, b.begin() + r * stride);
  return b;
}

Plan plan_of(const Case& c, const Bufs& outs) {
  const Layout& L = c.layout;
  Plan p;
  p.out.assign(c.outs.size(), Place{});
  p.out_alloc.assign(c.outs.size(), -1);
  const std::set<std::string> grouped(L.adjacent.begin(), L.adjacent.end());
  if (!L.adjacent.empty()) {
    p.adjacent = layout_of(c);
    p.group = static_cast<int>(p.allocs.size());
    p.allocs.push_back({nullptr, group_image(c, *p.adjacent, outs), ""});
    for (std::size_t i = 0; i < L.adjacent.size(); ++i) {
      const Place at{p.group, p.adjacent->spans[i].lo};
      bool output = false;
      for (std::size_t j = 0; j < c.outs.size(); ++j)
        if (c.outs[j].name == L.adjacent[i]) {
          p.out[j] = at;
          output = true;
        }
      if (!output) p.in[L.adjacent[i]] = at;
    }
  }
  for (std::size_t j = 0; j < c.outs.size(); ++j) {
    if (grouped.count(c.outs[j].name)) continue;
    p.out_alloc[j] = static_cast<int>(p.allocs.size());
    p.out[j] = {p.out_alloc[j], kGuard * (c.outs[j].i32 ? 1 : 2)};
    p.allocs.push_back({nullptr, lanes_of(guarded(outs[j]), c.outs[j].i32), ""});
  }
  if (!L.alias.empty()) {
    if (c.outs.empty() || c.outs[0].i32 || !c.arr.count(L.alias) || grouped.count(L.alias) ||
        L.alias_offset < 0 || L.alias_offset + static_cast<int64_t>(c.arr.at(L.alias).size()) > c.outs[0].lanes())
      throw InvalidArgument("alias", L.alias, "must be an int64 input of the case inside its int64 output 0");
    p.in[L.alias] = {p.out[0].alloc, p.out[0].lane + 2 * L.alias_offset};
  }
  const auto alone = [&](const std::string& k, std::vector<int32_t> image) {
    if (grouped.count(k) || k == L.alias) return;
    p.in[k] = {static_cast<int>(p.allocs.size()), 0};
    p.allocs.push_back({nullptr, std::move(image), k});
  };
  for (const auto& [k, v] : c.arr) alone(k, lanes_of(v, false));
  for (const auto& [k, v] : c.arr32) alone(k, v);
  if (!c.r2t.empty()) {
    if (L.r2t_stride != 0 && L.r2t_stride < c.r2t_cols)
      throw InvalidArgument("req_to_token stride", std::to_string(L.r2t_stride), "must be 0 or >= its columns");
    alone("req_to_token", L.r2t_stride > 0 ? spread_r2t(c, L.r2t_stride) : c.r2t);
  }
  return p;
}

Bufs befores_of(const Case& c) {
  Bufs b;
  for (const Output& o : c.outs) b.push_back(o.before);
  return b;
}

}  // namespace

void choose_adjacent(Route route, const gen::Recipe& r, Case& c) {
  const auto flag = [&](const char* k) {
    return (r.bools.count(k) && r.bools.at(k)) || (r.ints.count(k) && r.ints.at(k) != 0);
  };
  c.layout.adjacent.clear();
  c.layout.adjacent_names.clear();
  c.layout.shared = 0;
  const int64_t pool = r.ints.count("adjacent_pool") ? r.ints.at("adjacent_pool") : 0;
  if (flag("alias") || flag("overlap") || (pool != 1 && pool != 2)) return;
  const std::vector<AdjacentCandidate> candidates = adjacent_candidates(route, pool == 1);
  if (candidates.empty()) return;
  // the case's arrays that may be laid out: not strided in kvaddr.check's case (packed here included), not aliased
  std::set<std::string> out_of_it(c.layout.packed.begin(), c.layout.packed.end());
  if (c.layout.r2t_stride > 0) out_of_it.insert("req_to_token");
  for (const auto& [k, m] : c.mats)
    if (m.stride != m.cols) out_of_it.insert(k);
  if (!c.layout.alias.empty()) {
    out_of_it.insert(c.layout.alias);
    out_of_it.insert(c.outs.at(0).name);
  }
  std::vector<std::string> keys;
  for (const Output& o : c.outs) keys.push_back(o.name);
  for (const auto& [k, v] : c.arr) keys.push_back(k);
  for (const auto& [k, v] : c.arr32) keys.push_back(k);
  if (!c.r2t.empty()) keys.emplace_back("req_to_token");
  std::map<std::string, AdjacentMember> arrays;
  std::map<std::string, std::string> key_of;
  for (const std::string& k : keys) {
    if (out_of_it.count(k)) continue;
    const std::string name = field_of(route, k);
    if (auto m = member_of(c, k, name)) {
      arrays[name] = std::move(*m);
      key_of[name] = k;
    }
  }
  const int64_t pick = r.ints.count("adjacent_pick") ? r.ints.at("adjacent_pick") : 0;
  const auto got = adjacent_choose(candidates, pick, arrays, kGuard);
  if (!got) return;
  for (const std::string& n : got->names) c.layout.adjacent.push_back(key_of.at(n));
  c.layout.adjacent_names = got->names;
  c.layout.shared = got->shared;
}

std::optional<AdjacentLayoutOf> adjacent_of(const Case& c) {
  if (c.layout.adjacent.empty()) return std::nullopt;
  return layout_of(c);
}

std::vector<int32_t> adjacent_image(const Case& c, const Bufs& outs) { return group_image(c, layout_of(c), outs); }

Presented present(detail::Arena& m, const Case& c, const Bufs* befores) {
  const Bufs own = befores == nullptr ? befores_of(c) : Bufs{};
  Plan plan = plan_of(c, befores == nullptr ? own : *befores);
  Presented p;
  for (Allocation& a : plan.allocs) {
    a.base = m.alloc(a.image.size() * sizeof(int32_t));
    if (!a.image.empty()) m.put(a.base, a.image.data(), a.image.size() * sizeof(int32_t));
  }
  const auto at = [&](const Place& x) {
    return static_cast<int32_t*>(plan.allocs[static_cast<std::size_t>(x.alloc)].base) + x.lane;
  };
  for (const auto& [k, x] : plan.in) {
    if (k == "req_to_token") p.r2t = at(x);
    else if (c.arr.count(k)) p.arr[k] = reinterpret_cast<const int64_t*>(at(x));
    else p.arr32[k] = at(x);
  }
  for (const Place& x : plan.out) p.outs.push_back(at(x));
  p.out_alloc = std::move(plan.out_alloc);
  p.allocs = std::move(plan.allocs);
  p.group = plan.group;
  p.adjacent = std::move(plan.adjacent);
  return p;
}

void reload(detail::Arena& m, const Case& c, Presented& p) {
  Plan plan = plan_of(c, befores_of(c));
  if (plan.allocs.size() != p.allocs.size())
    throw InvalidArgument("case", std::to_string(plan.allocs.size()) + " allocations",
                          "a graph replay's case must keep the capture's layout");
  for (std::size_t i = 0; i < plan.allocs.size(); ++i) {
    std::vector<int32_t>& img = plan.allocs[i].image;
    if (img.size() != p.allocs[i].image.size())
      throw InvalidArgument("case", "allocation " + std::to_string(i),
                            "a graph replay's case must keep the capture's shapes");
    if (!img.empty()) m.put(p.allocs[i].base, img.data(), img.size() * sizeof(int32_t));
    p.allocs[i].image = std::move(img);  // the contents the call's result is compared against
  }
}

I64s read_output(detail::Arena& m, const Case& c, const Presented& p, std::size_t j) {
  const Output& o = c.outs[j];
  const int64_t n = o.lanes(), units = o.i32 ? 1 : 2;
  std::vector<int32_t> lanes(static_cast<std::size_t>(n * units));
  if (n > 0) m.get(lanes.data(), p.outs[j], lanes.size() * sizeof(int32_t));
  return values_of(lanes.data(), n, o.i32);
}

Compared2 compare_presented(detail::Arena& m, const Case& c, const Presented& p, const Bufs& exp) {
  Compared2 r;
  std::vector<std::vector<int32_t>> got(p.allocs.size());
  for (std::size_t i = 0; i < p.allocs.size(); ++i) {
    got[i].resize(p.allocs[i].image.size());
    if (!got[i].empty()) m.get(got[i].data(), p.allocs[i].base, got[i].size() * sizeof(int32_t));
  }
  std::vector<Lane> own;  // the lanes of the outputs in allocations of their own
  for (std::size_t j = 0; j < c.outs.size(); ++j) {
    const Output& o = c.outs[j];
    const auto total = static_cast<int64_t>(exp[j].size());
    if (p.out_alloc[j] >= 0) {
      r.actual.push_back(values_of(got[static_cast<std::size_t>(p.out_alloc[j])].data(), total, o.i32));
      const GuardedLayout layout{kGuard, o.lanes(), o.rows, o.stride, o.width};
      Compared cmp = compare_guarded(o.name, exp[j].data(), r.actual.back().data(), total, layout);
      r.differing += cmp.differing;
      r.outside = r.outside || cmp.outside;
      for (Lane& lane : cmp.first) own.push_back(std::move(lane));
    } else {  // in the adjacent backing: its lanes between the expected guards (the backing is compared below)
      I64s a = exp[j];
      const int32_t* base = static_cast<int32_t*>(p.allocs[static_cast<std::size_t>(p.group)].base);
      const auto off = static_cast<int32_t*>(p.outs[j]) - base;
      const I64s mine = values_of(got[static_cast<std::size_t>(p.group)].data() + off, o.lanes(), o.i32);
      std::copy(mine.begin(), mine.end(), a.begin() + kGuard);
      r.actual.push_back(std::move(a));
    }
  }
  if (p.group >= 0) {
    Bufs outs;
    for (const I64s& e : exp) outs.emplace_back(e.begin() + kGuard, e.end() - kGuard);
    const std::vector<int32_t> want = group_image(c, *p.adjacent, outs);
    const std::vector<int32_t>& have = got[static_cast<std::size_t>(p.group)];
    // every lane attributed (the lists are cut to 8 below): whether any store left its output's own lanes
    const AdjacentAttribution at = adjacent_attribute(*p.adjacent, want.data(), have.data(), p.adjacent->total,
                                                      static_cast<std::size_t>(p.adjacent->total));
    std::set<std::string> into;
    for (const AdjacentLane& x : at.lanes) {
      Lane lane{x.name, x.region, 0, x.index.back(), x.expected, x.actual, x.index.size() == 2, x.neighbour};
      if (lane.matrix) lane.row = x.index[0];
      if (x.region == "input") {
        r.input_lanes.push_back(std::move(lane));
        continue;
      }
      if (x.region.rfind("neighbour_", 0) == 0) {
        const std::string n = x.neighbour.substr(0, x.neighbour.find('['));
        if (into.insert(x.name + " " + n).second)
          r.neighbours += (r.neighbours.empty() ? "" : "; ") + std::string("a store outside ") + x.name + " landed in " +
                          n + ", the input adjacent to it in one allocation (or the kernel wrote into " + n + " there)";
      }
      r.grouped_outside = r.grouped_outside || (x.region != "out" && x.region != "past_width");
      r.first.push_back(std::move(lane));
    }
    r.differing += at.differing;
    r.outside = r.outside || at.out_of_bounds;
    if (!at.inputs_changed.empty()) r.input_changed = at.inputs_changed.front();
    r.group_after = have;
  }
  for (Lane& lane : own) r.first.push_back(std::move(lane));
  if (r.first.size() > 8) r.first.resize(8);
  if (r.input_lanes.size() > 8) r.input_lanes.resize(8);
  for (std::size_t i = 0; i < p.allocs.size() && r.input_changed.empty(); ++i)
    if (!p.allocs[i].input.empty() && got[i] != p.allocs[i].image) r.input_changed = p.allocs[i].input;
  return r;
}

}  // namespace kvaddr::harness::cases
