# Helpers shared by the areas' CMakeLists.txt files.

# kvaddr_area_library(<name> <source>...): a static, position-independent library whose public
# headers are <area>/include and whose private headers are <area>/src.
function(kvaddr_area_library name)
  add_library(${name} STATIC ${ARGN})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                     PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
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
# (KVADDR_PCH, default ON). Where ccache is the launcher it is told to cache such sources
# (CCACHE_SLOPPINESS=pch_defines,time_macros, as ccache's manual asks for precompiled headers).
option(KVADDR_PCH "Precompile the heavy third-party headers of the CLI and replay libraries" ON)
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
