# GPU tests (ctest label `gpu`): kernels vs host routes vs model, variants, graph capture.
# Each test skips with "no CUDA GPU: ..." where no device is present (CI).
if(TARGET kvaddr_kernels)
  file(GLOB KVADDR_GPU_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/gpu/*.cpp)
  if(KVADDR_GPU_TEST_SOURCES)
    add_executable(kvaddr_gpu_tests ${KVADDR_GPU_TEST_SOURCES})
    target_link_libraries(kvaddr_gpu_tests PRIVATE kvaddr_kernels CUDA::cudart GTest::gtest GTest::gtest_main
                                                   kvaddr_warnings)
    gtest_discover_tests(kvaddr_gpu_tests PROPERTIES LABELS gpu DISCOVERY_TIMEOUT 60)
  endif()
endif()
