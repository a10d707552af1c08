#pragma once
// Shared by the translate tests: the host array types, and assertions that `f` throws exactly error
// type E naming `argument`.
#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::test {

using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

template <class E, class F>
::testing::AssertionResult throws_naming(F&& f, std::string_view argument) {
  try {
    f();
  } catch (const E& e) {
    if (e.argument() != argument) {
      return ::testing::AssertionFailure() << "argument() is '" << e.argument() << "', expected '" << argument
                                           << "' (what: " << e.what() << ")";
    }
    if (std::string(e.what()).find(argument) == std::string::npos) {
      return ::testing::AssertionFailure() << "what() does not name '" << argument << "': " << e.what();
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "wrong exception type: " << e.what();
  }
  return ::testing::AssertionFailure() << "nothing thrown";
}

// `f` throws E naming `argument`, and every buffer in `bufs` is unchanged (all-or-nothing writes).
template <class E, class F, class... Bufs>
::testing::AssertionResult fails_untouched(F&& f, std::string_view argument, Bufs&... bufs) {
  const auto before = std::make_tuple(bufs...);
  auto r = throws_naming<E>(f, argument);
  if (!r) return r;
  if (std::make_tuple(bufs...) != before) return ::testing::AssertionFailure() << "a caller buffer changed";
  return ::testing::AssertionSuccess();
}

}  // namespace kvaddr::test
