# Helpers shared by the areas' CMakeLists.txt files.

# kvaddr_area_library(<name> <source>...): a static, position-independent library whose public
# headers are <area>/include and whose private headers are <area>/src.
function(kvaddr_area_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                     PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# kvaddr_tests_wanted(<label> <out>): sets <out> to TRUE when the tests of ctest label <label> are built
# here (KVADDR_BUILD_TESTS on and <label> not in KVADDR_SKIP_TEST_LABELS), FALSE otherwise.
function(kvaddr_tests_wanted label out)
  if(KVADDR_BUILD_TESTS AND NOT label IN_LIST KVADDR_SKIP_TEST_LABELS)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# kvaddr_optional_areas(<target> <prefix> [NO_LINK] AREAS <area>...): for each area whose library
# kvaddr_<area> was built, defines <prefix>_<AREA>=1 on <target> and, unless NO_LINK, links it
# privately.
function(kvaddr_optional_areas target prefix)
  cmake_parse_arguments(ARG "NO_LINK" "" "AREAS" ${ARGN})
  foreach(area IN LISTS ARG_AREAS)
    if(TARGET kvaddr_${area})
      if(NOT ARG_NO_LINK)
        target_link_libraries(${target} PRIVATE kvaddr_${area})
      endif()
      string(TOUPPER ${area} AREA)
      target_compile_definitions(${target} PRIVATE ${prefix}_${AREA}=1)
    endif()
  endforeach()
endfunction()

# kvaddr_precompile(<target> <header>...): precompiles the heavy third-party headers every source of
# <target> includes (CLI11, nlohmann/json, fmt), parsed once per target instead of once per source
# (KVADDR_PCH, default ON). Measured on cli/src/progress.cpp (CPU seconds, GCC 12, -O2 -g): 8.7 without,
# 7.1 with; replay's sources gained 3% (12.8 -> 12.4 s: their time is code generation, not parsing), less
# than the precompiled header costs, so only the CLI uses it there. The test executables of several sources
# precompile <gtest/gtest.h>: the translate and model suites' objects took 106.6 CPU s without it, 79.8 with
# (GCC 12, -O2, docs/ci.md); single-source test executables gain nothing and do not use it. Where ccache
# is the launcher it is told to cache such sources (CCACHE_SLOPPINESS=pch_defines,time_macros, as ccache's manual asks for precompiled headers).
option(KVADDR_PCH "Precompile the heavy third-party headers (CLI library, GoogleTest of the test suites)" ON)
function(kvaddr_precompile target)
  if(NOT KVADDR_PCH)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${ARGN})
  get_target_property(launcher ${target} CXX_COMPILER_LAUNCHER)
  if(launcher AND launcher MATCHES "ccache")
    set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros;${launcher}")
  endif()
endfunction()

# kvaddr_unity(<target>): the target's sources compiled KVADDR_UNITY_BATCH at a time, each batch one
# translation unit (CMake's unity build, BATCH mode), when KVADDR_UNITY is ON: the headers, the
# precompiled header and the template instantiations the sources share are compiled once per batch.
# Used for the cli, replay, props, proofs and zoo libraries (docs/ci.md has their figures) and the test
# executables of several sources (model, translate, gen, cli, route_list, proofs): those test targets built in
# 288 CPU s without it, 231 with it (GCC 12, -O2 -g, ccache off), 274 and 197 with Clang 14 and the sanitizer
# leg's flags; replay's tests since the fourth round. File-local names must be unique across each such
# target (a clash is a compile error): shared helpers go in the target's one test-support header.
option(KVADDR_UNITY "Compile the sources of several libraries and test executables in batches (unity build)" ON)
set(KVADDR_UNITY_BATCH 4 CACHE STRING "Sources per translation unit of a unity build (KVADDR_UNITY)")
function(kvaddr_unity target)
  if(KVADDR_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE BATCH
                                               UNITY_BUILD_BATCH_SIZE ${KVADDR_UNITY_BATCH})
  endif()
endfunction()

# kvaddr_test_optimization(<dir>): compiles the C++ sources of every test executable (an executable
# target named *_tests) defined in <dir> or below it with KVADDR_TEST_OPT, which comes after the build
# type's flags on the command line, so its -O level wins. Empty (the default): the build type's level.
# scripts/run.sh passes -O0 to both CI legs: the test sources are a third to a half of each build's
# compile time and -O0 halves it, while the libraries and tools they check (and the fuzz targets, not
# named *_tests) keep -O2, so every test still runs optimised product code (docs/ci.md, fifth round).
set(KVADDR_TEST_OPT "" CACHE STRING "Optimisation flag of the test executables' own sources (-O0 ... -O3, -Og, -Os; empty: the build type's)")
if(NOT KVADDR_TEST_OPT STREQUAL "" AND NOT KVADDR_TEST_OPT MATCHES "^-O[0123gs]$")
  message(FATAL_ERROR "kvaddr: KVADDR_TEST_OPT='${KVADDR_TEST_OPT}' is not one of -O0, -O1, -O2, -O3, -Og, -Os or empty")
endif()
function(kvaddr_test_optimization dir)
  if(KVADDR_TEST_OPT STREQUAL "")
    return()
  endif()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE" AND t MATCHES "_tests$")
      target_compile_options(${t} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${KVADDR_TEST_OPT}>)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    kvaddr_test_optimization(${sub})
  endforeach()
endfunction()
