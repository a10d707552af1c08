#include "gen.hpp"

namespace kvaddr::props::gen {

namespace {
namespace shared = ::kvaddr::gen;

}  // namespace

rc::Gen<i64> page_size(bool pow2_only) {
  return rc::gen::exec([pow2_only] {
    RcDraw d;
    return shared::small_page_size(d, pow2_only);
  });
}

rc::Gen<i64> multiplier() {
  return rc::gen::exec([] {
    RcDraw d;
    return shared::small_multiplier(d);
  });
}

rc::Gen<i64> stale_value() {
  return rc::gen::exec([] {
    RcDraw d;
    return shared::stale_value(d);
  });
}

rc::Gen<Tables> tables(i64 max_pages, bool non_owner) {
  return rc::gen::exec([=] {
    RcDraw d;
    return shared::tables(d, max_pages, non_owner);
  });
}

rc::Gen<Tables> wide_tables() {
  return rc::gen::exec([] {
    RcDraw d;
    return shared::wide_tables(d);
  });
}

rc::Gen<i64> token(const Tables& t, i64 ps, bool allow_oob) {
  return rc::gen::exec([t, ps, allow_oob] {
    RcDraw d;
    return shared::token(d, t, ps, allow_oob);
  });
}

rc::Gen<std::vector<i64>> tokens(const Tables& t, i64 ps, bool allow_oob, i64 max_len) {
  return rc::gen::exec([=] {
    const i64 n = any<i64>(0, max_len + 1);
    return *rc::gen::container<std::vector<i64>>(static_cast<std::size_t>(n), token(t, ps, allow_oob));
  });
}

rc::Gen<Batch> batch(const Tables& t, i64 ps, BatchShape shape) {
  return rc::gen::exec([=] {
    RcDraw d;
    return shared::table_batch(d, t, ps, shape);
  });
}

Slice slice_near(i64 pool, Slice anchor, i64 size) {
  RcDraw d;
  return shared::slice_near(d, pool, anchor, size);
}

}  // namespace kvaddr::props::gen
