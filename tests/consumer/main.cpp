// Uses the installed package: one token_translate call checked against its hand-computed value,
// one picture, and the C++ harness (kvaddr::harness) on the host route (passes) and on a kernel that
// ignores the multiplier (fails). Exit 0 only when all are right.
#include <cstdint>
#include <iostream>
#include <vector>

#include "kvaddr/draw/draw.hpp"
#include "kvaddr/harness/check.hpp"
#include "kvaddr/translate/routes.hpp"

int main() {
  // ps = 4, M = 3 (S = 12), v2p = [0, 5, -1, 2, -1]: t = 5 -> P5 -> 61, t = 9 -> tombstone -> 0,
  // t = 13 -> P2 -> 25, padding -1 -> 0.
  const std::vector<std::int64_t> ids{5, 9, 13, -1}, v2p{0, 5, -1, 2, -1};
  std::vector<std::int64_t> out(ids.size(), 7);
  kvaddr::translate::token_translate<std::int64_t>(
      {kvaddr::cvec(ids), kvaddr::cvec(v2p), 4, 3, kvaddr::mvec(out), kvaddr::Variant::production});
  const std::vector<std::int64_t> want{61, 0, 25, 0};
  const auto svg = kvaddr::draw::pool_svg({{"pool", 4, 3, v2p, 0}});
  namespace h = kvaddr::harness;
  const auto good = h::check_token_translate([](const kvaddr::TokenTranslateArgs<std::int64_t>& a) {
    kvaddr::translate::token_translate<std::int64_t>(a);
  }, {.cases = 20, .seed = 3});
  const auto bad = h::check_token_translate([](const kvaddr::TokenTranslateArgs<std::int64_t>& a) {
    auto b = a;
    b.multiplier = 1;
    kvaddr::translate::token_translate<std::int64_t>(b);
  }, {.cases = 20, .seed = 3});
  // The cases drawn with ids inside a longer out (a partial overlap, as kvaddr.check presents it) are rejected by
  // the route's validation and not run: 4 of these 20.
  std::int64_t overlaps = 0;
  for (std::int64_t i = 0; i < 20; ++i) {
    overlaps += h::detail::drawn_case(kvaddr::Route::token_translate, 3, i, 4096).presented.partially_overlaps() ? 1 : 0;
  }
  const bool ok = out == want && svg.find("<svg") != std::string::npos && good.ok && overlaps == 4 &&
                  good.rejected == overlaps && good.cases == 20 - overlaps && !bad.ok;
  std::cout << (ok ? "consumer: kvaddr package works\n" : "consumer: WRONG result\n");
  return ok ? 0 : 1;
}
