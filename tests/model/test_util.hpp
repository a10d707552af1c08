#pragma once
// Shared assertion for the model tests: the statement throws exactly the typed kvaddr error and the
// error names the argument (both in argument() and in what()).
#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "kvaddr/model/errors.hpp"

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
