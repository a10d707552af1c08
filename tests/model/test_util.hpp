#pragma once
// Shared helpers for the model tests. EXPECT_KVADDR_ERROR: the statement throws exactly the typed kvaddr error and the
// error names the argument (both in argument() and in what()).
#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/tables.hpp"

namespace kvaddr::model::testing {
// A view's values as a vector (for EXPECT_EQ against a braced list).
inline std::vector<std::int64_t> vec(std::span<const std::int64_t> s) { return {s.begin(), s.end()}; }

// Whether `v` lists a violation of invariant `which`.
inline bool has(const std::vector<InvariantViolation>& v, char which) {
  for (const auto& x : v)
    if (x.invariant == which) return true;
  return false;
}
}  // namespace kvaddr::model::testing

#define EXPECT_KVADDR_ERROR(stmt, ErrType, arg_name)                                                  \
  do {                                                                                                \
    try {                                                                                             \
      (void)(stmt);                                                                                   \
      ADD_FAILURE() << "expected " #ErrType " from: " #stmt;                                          \
    } catch (const ErrType& kvaddr_e) {                                                               \
      EXPECT_EQ(kvaddr_e.argument(), std::string(arg_name)) << kvaddr_e.what();                       \
      EXPECT_NE(std::string(kvaddr_e.what()).find(arg_name), std::string::npos) << kvaddr_e.what();   \
    } catch (const std::exception& kvaddr_other) {                                                    \
      ADD_FAILURE() << "wrong exception type from: " #stmt " (" << kvaddr_other.what() << ")";        \
    }                                                                                                 \
  } while (0)
