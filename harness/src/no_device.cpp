// The device arena of a harness without CUDA: Memory::device and graph mode on the device are refused with
// InvalidArgument (harness/CMakeLists.txt links this file instead of device_memory.cpp into kvaddr_harness when
// CUDA is not found, and always into kvaddr_harness_host, the Python extension's copy).
#include "kvaddr/model/errors.hpp"
#include "memory.hpp"

namespace kvaddr::harness::detail {

std::unique_ptr<Arena> device_arena() {
  throw InvalidArgument("memory", "device", "kvaddr was built without CUDA: use Memory::host");
}

bool built_with_cuda() { return false; }

}  // namespace kvaddr::harness::detail
