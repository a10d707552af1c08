#pragma once
// Where the harness puts a case's arrays: host memory, or device memory (device_memory.cpp, built with
// CUDA; a stub that throws otherwise).
#include <cstddef>
#include <memory>

namespace kvaddr::harness::detail {

class Arena {
 public:
  virtual ~Arena() = default;
  virtual void* alloc(std::size_t bytes) = 0;  // freed with the arena
  virtual void put(void* dst, const void* src, std::size_t bytes) = 0;  // host -> arena
  virtual void get(void* dst, const void* src, std::size_t bytes) = 0;  // arena -> host
  virtual void sync() = 0;  // wait for the kernel's work
};

std::unique_ptr<Arena> host_arena();
std::unique_ptr<Arena> device_arena();  // throws InvalidArgument("memory", "device", ...) without CUDA

}  // namespace kvaddr::harness::detail
