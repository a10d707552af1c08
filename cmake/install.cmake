# Installation and the exported package: find_package(kvaddr) gives namespaced targets
#   kvaddr::model, kvaddr::lanes, kvaddr::translate, kvaddr::gen, kvaddr::draw, kvaddr::replay and
#   kvaddr::harness (when built), kvaddr::kernels (when nvcc was found), and the `kvaddr` executable.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# KVADDR_EXPORTED (the library targets) and the kvaddr:: aliases come from the top-level CMakeLists.
set(KVADDR_PACKAGE_HAS_KERNELS OFF)
if(TARGET kvaddr_kernels)
  set(KVADDR_PACKAGE_HAS_KERNELS ON)
endif()
# The CUDA runtime is a link dependency of kvaddr::kernels and of kvaddr::harness's device memory.
set(KVADDR_PACKAGE_NEEDS_CUDART ${KVADDR_HAVE_CUDA})

install(TARGETS ${KVADDR_EXPORTED} EXPORT kvaddrTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kvaddr RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir model translate gen draw replay kernels harness)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${dir}/include AND (dir STREQUAL "model" OR dir STREQUAL "translate" OR dir STREQUAL "gen"
                                                      OR dir STREQUAL "draw" OR TARGET kvaddr_${dir}))
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
endforeach()

set(KVADDR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kvaddr)
install(EXPORT kvaddrTargets NAMESPACE kvaddr:: DESTINATION ${KVADDR_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kvaddrConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/kvaddrConfig.cmake INSTALL_DESTINATION ${KVADDR_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kvaddrConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kvaddrConfig.cmake ${PROJECT_BINARY_DIR}/kvaddrConfigVersion.cmake
        DESTINATION ${KVADDR_CMAKE_DIR})
