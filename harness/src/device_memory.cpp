// Device arena of the C++ harness: cudaMalloc'ed arrays, copies with cudaMemcpy, sync with
// cudaDeviceSynchronize. Compiled only when CUDA is found (harness/CMakeLists.txt).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "memory.hpp"

namespace kvaddr::harness::detail {
namespace {

void cuda_check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw InvalidState(call, cudaGetErrorName(e), cudaGetErrorString(e));
}

class DeviceArena final : public Arena {
 public:
  DeviceArena() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
      (void)cudaGetLastError();
      throw InvalidArgument("memory", "device", "no CUDA device is visible");
    }
  }
  ~DeviceArena() override {
    for (void* p : blocks_) (void)cudaFree(p);
  }
  void* alloc(std::size_t bytes) override {
    void* p = nullptr;
    cuda_check(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc");
    blocks_.push_back(p);
    return p;
  }
  void put(void* dst, const void* src, std::size_t bytes) override {
    cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  void get(void* dst, const void* src, std::size_t bytes) override {
    cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  void sync() override { cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

 private:
  std::vector<void*> blocks_;
};

}  // namespace

std::unique_ptr<Arena> device_arena() { return std::make_unique<DeviceArena>(); }

}  // namespace kvaddr::harness::detail
