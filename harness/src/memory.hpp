#pragma once
// Where the harness puts a case's arrays: host memory, or device memory (device_memory.cpp, built with
// CUDA; no_device.cpp, a stub that throws, otherwise). The device arena also owns the stream of graph mode
// and the graph captured on it.
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
  // Graph mode (device only; the host arena throws InvalidArgument "graph"): the harness's stream (a
  // cudaStream_t), stream capture on it, and launches of the captured graph. end_capture throws the CUDA error
  // of a capture the kernel broke (a launch on another stream, a synchronous copy while capturing).
  virtual void* stream();
  virtual void begin_capture();
  virtual void end_capture();
  virtual void abort_capture() {}  // end a capture after the kernel threw, dropping what was captured
  virtual void launch_graph();
};

std::unique_ptr<Arena> host_arena();
// For the harness's own host tests of graph mode: while set (on this thread), graph = true also runs in host
// memory, where the "graph" is the kernel's capture call (case 0's struct: the same pointers and scalars)
// called again for every later case, as a replay would launch it. Not part of the public API.
void emulate_graph_on_host(bool on);
bool graph_emulated_on_host();
std::unique_ptr<Arena> device_arena();  // throws InvalidArgument("memory", "device", ...) without CUDA
bool built_with_cuda();  // device_memory.cpp: true; no_device.cpp (the stub arena): false

}  // namespace kvaddr::harness::detail
