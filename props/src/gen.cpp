#include "gen.hpp"

#include <algorithm>
#include <numeric>

namespace kvaddr::props::gen {

namespace {
std::size_t uz(i64 v) { return static_cast<std::size_t>(v); }

template <class T>
void print_vec(std::ostream& os, const std::vector<T>& v) {
  os << '[';
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << ']';
}

// Stable permutation of [0, n) from sort keys: all-zero keys (the shrink target) give identity.
std::vector<i64> permutation(i64 n) {
  std::vector<i64> idx(uz(n));
  std::iota(idx.begin(), idx.end(), i64{0});
  if (n <= 1) return idx;
  const auto keys = *rc::gen::resize(kFullSize, rc::gen::container<std::vector<i64>>(uz(n), rc::gen::inRange<i64>(0, n)));
  std::stable_sort(idx.begin(), idx.end(), [&](i64 a, i64 b) { return keys[uz(a)] < keys[uz(b)]; });
  return idx;
}
}  // namespace

rc::Gen<i64> page_size(bool pow2_only) {
  if (pow2_only) return rc::gen::exec([] { return elem<i64>({1, 2, 4, 8, 16, 64}); });
  return rc::gen::exec([] { return elem<i64>({1, 2, 3, 4, 5, 8, 7, 16, 6, 64}); });
}

rc::Gen<i64> multiplier() {
  return rc::gen::exec([] {
    const int k = any<int>(0, 10);
    if (k < 7) return any<i64>(1, 9);
    return elem<i64>({24, 48, 61, 64, 65, 96});
  });
}

rc::Gen<i64> stale_value() {
  return rc::gen::exec([] {
    switch (any<int>(0, 5)) {
      case 0: return i64{0};
      case 1: return i64{-1};
      case 2: return i64{0x5a5a5a5a};
      case 3: return i64{-0x12345678};
      default: return any<i64>(-1000, 1000);
    }
  });
}

namespace {
Tables make_tables(i64 max_pages, bool non_owner) {
  Tables t;
  t.num_pages = any<i64>(1, max_pages + 1);
  const i64 extra = non_owner ? elem<i64>({0, 0, 1, 3, 7}) : 0;
  t.num_virtual_ids = t.num_pages + extra;
  t.min_page_index = std::min(elem<i64>({1, 0, 2}), t.num_pages);
  t.compacted = coin();
  t.grow_down = coin();
  t.v2p.assign(uz(t.num_virtual_ids + 1), -1);
  t.p2v.assign(uz(t.num_pages + 1), -1);
  t.v2p[0] = 0;
  t.p2v[0] = 0;
  const i64 lo = std::max<i64>(t.min_page_index, 1);
  const i64 nv = std::max<i64>(t.num_virtual_ids - lo, 0);
  const i64 cap = std::max<i64>(t.num_pages - lo, 0);
  const auto want = *rc::gen::resize(kFullSize, rc::gen::container<std::vector<bool>>(uz(nv), rc::gen::arbitrary<bool>()));
  std::vector<i64> chosen;
  for (i64 i = 0; i < nv; ++i) {
    if (want[uz(i)] && static_cast<i64>(chosen.size()) < cap) chosen.push_back(lo + i);
  }
  const i64 k = static_cast<i64>(chosen.size());
  std::vector<i64> phys;
  if (t.compacted) {
    const i64 base = t.grow_down ? t.num_pages - k : lo;
    for (i64 i = 0; i < k; ++i) phys.push_back(base + i);
    const auto perm = permutation(k);
    std::vector<i64> p2(uz(k));
    for (i64 i = 0; i < k; ++i) p2[uz(i)] = phys[uz(perm[uz(i)])];
    phys = p2;
  } else {
    const auto perm = permutation(cap);
    for (i64 i = 0; i < k; ++i) phys.push_back(lo + perm[uz(i)]);
  }
  for (i64 i = 0; i < k; ++i) {
    t.v2p[uz(chosen[uz(i)])] = phys[uz(i)];
    t.p2v[uz(phys[uz(i)])] = chosen[uz(i)];
  }
  for (i64 v = lo; v < t.num_virtual_ids; ++v) (t.v2p[uz(v)] >= 0 ? t.bound : t.tombs).push_back(v);
  return t;
}
}  // namespace

rc::Gen<Tables> tables(i64 max_pages, bool non_owner) {
  return rc::gen::exec([=] { return make_tables(max_pages, non_owner); });
}

rc::Gen<Tables> wide_tables() {
  return rc::gen::exec([] {
    Tables t = make_tables(12, true);
    const i64 base = elem<i64>({i64{1} << 20, i64{1} << 24, (i64{1} << 28) - 3, i64{1} << 30,
                                            (i64{1} << 31) - 8, i64{1} << 31, i64{1} << 32, i64{1} << 33});
    std::fill(t.p2v.begin() + 1, t.p2v.end(), -1);
    for (i64 v : t.bound) t.v2p[uz(v)] = base + any<i64>(0, 16);
    return t;
  });
}

rc::Gen<i64> token(const Tables& t, i64 ps, bool allow_oob) {
  return rc::gen::exec([t, ps, allow_oob] {
    const i64 o = any<i64>(0, ps);
    switch (any<int>(0, 10)) {
      case 0: case 1: case 2: case 3: case 4:
        if (!t.bound.empty()) return pick_of(t.bound) * ps + o;
        return o;
      case 5:
        if (!t.tombs.empty()) return pick_of(t.tombs) * ps + o;
        return o;
      case 6: return o;  // sink page 0
      case 7: return i64{-1};  // padding
      case 8: return t.num_virtual_ids * ps + o;  // trailing sentinel row (-1 -> sink)
      default:
        if (allow_oob) return (t.num_virtual_ids + 1 + any<i64>(0, 3)) * ps + o;
        return any<i64>(0, (t.num_virtual_ids + 1) * ps);
    }
  });
}

rc::Gen<std::vector<i64>> tokens(const Tables& t, i64 ps, bool allow_oob, i64 max_len) {
  return rc::gen::exec([=] {
    const i64 n = any<i64>(0, max_len + 1);
    return *rc::gen::container<std::vector<i64>>(uz(n), token(t, ps, allow_oob));
  });
}

rc::Gen<Batch> batch(const Tables& t, i64 ps, BatchShape shape) {
  return rc::gen::exec([=] {
    Batch b;
    b.ps = ps;
    const i64 B = any<i64>(0, shape.max_batch + 1);
    b.rows = any<i64>(1, 5);
    const i64 pcols = any<i64>(1, 7);
    b.cols = pcols * ps;
    b.req_to_token.assign(uz(b.rows * b.cols), -1);
    for (i64 r = 0; r < b.rows; ++r) {
      for (i64 c = 0; c < pcols; ++c) {
        i64 v = -1;
        switch (any<int>(0, 10)) {
          case 0: case 1: case 2: case 3: case 4: case 5:
            v = t.bound.empty() ? 0 : pick_of(t.bound);
            break;
          case 6: v = t.tombs.empty() ? 0 : pick_of(t.tombs); break;
          case 7: v = 0; break;
          case 8: v = shape.allow_padding ? -1 : 0; break;
          default: v = t.num_virtual_ids; break;  // sentinel row
        }
        for (i64 o = 0; o < ps; ++o) {
          const i64 tok = v < 0 ? -1 : v * ps + o;
          b.req_to_token[uz(r * b.cols + c * ps + o)] = static_cast<i32>(tok);
        }
        if (shape.pad_inside_pages && shape.allow_padding && ps > 1 && v >= 0 && any<int>(0, 8) == 0) {
          const i64 o = any<i64>(1, ps);
          b.req_to_token[uz(r * b.cols + c * ps + o)] = -1;
        }
      }
    }
    b.max_pages = any<i64>(1, pcols + 1);
    b.delta = shape.allow_delta ? elem<i64>({0, 1, ps, ps + 1, 2 * ps}) : 0;
    const i64 limit = shape.lens_within_max_pages ? b.max_pages * ps : b.cols;
    if (b.delta > limit) b.delta = 0;
    const i64 hi = limit - b.delta;
    for (i64 i = 0; i < B; ++i) {
      b.req_pool_indices.push_back(any<i64>(0, b.rows));
      i64 len = 0;
      switch (any<int>(0, 6)) {
        case 0: len = 0; break;
        case 1: len = 1; break;
        case 2: len = ps; break;
        case 3: len = ps * any<i64>(0, pcols + 1); break;
        case 4: len = ps + 1; break;
        default: len = any<i64>(0, hi + 1); break;
      }
      b.seq_lens.push_back(std::clamp<i64>(len, 0, hi));
    }
    return b;
  });
}

std::ostream& operator<<(std::ostream& os, const Tables& t) {
  os << "Tables{num_pages=" << t.num_pages << ", num_virtual_ids=" << t.num_virtual_ids
     << ", min_page_index=" << t.min_page_index << ", v2p=";
  print_vec(os, t.v2p);
  os << ", p2v=";
  print_vec(os, t.p2v);
  return os << '}';
}

std::ostream& operator<<(std::ostream& os, const Batch& b) {
  os << "Batch{ps=" << b.ps << ", req_to_token[" << b.rows << "x" << b.cols << "]=[";
  for (i64 r = 0; r < b.rows; ++r) {
    os << (r ? "; " : "");
    for (i64 c = 0; c < b.cols; ++c) os << (c ? " " : "") << b.tok(r, c);
  }
  os << "], req_pool_indices=";
  print_vec(os, b.req_pool_indices);
  os << ", seq_lens=";
  print_vec(os, b.seq_lens);
  return os << ", max_pages=" << b.max_pages << ", delta=" << b.delta << '}';
}

Slice slice_near(i64 pool, Slice anchor, i64 size) {
  i64 off = 0;
  switch (any<int>(0, 7)) {
    case 0: off = anchor.off; break;                        // same slice / same start
    case 1: off = anchor.end(); break;                      // touching after
    case 2: off = anchor.off - size; break;                 // touching before
    case 3: off = anchor.end() - 1; break;                  // one element of overlap after
    case 4: off = anchor.off - size + 1; break;             // one element of overlap before
    case 5: off = anchor.off + any<i64>(0, std::max<i64>(anchor.size, 1)); break;  // inside
    default: off = any<i64>(0, pool); break;
  }
  off = std::clamp<i64>(off, 0, std::max<i64>(pool - size, 0));
  return {off, std::min(size, pool - off)};
}

}  // namespace kvaddr::props::gen
