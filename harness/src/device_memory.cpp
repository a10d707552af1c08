// Device arena of the C++ harness: cudaMalloc'ed arrays, copies with cudaMemcpy, sync with
// cudaDeviceSynchronize; in graph mode a blocking stream of its own, stream capture on it (thread-local
// mode: a synchronous call of this thread during the capture breaks it) and one instantiated graph.
// Compiled only when CUDA is found (harness/CMakeLists.txt).
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
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    if (stream_ != nullptr) {
      (void)cudaStreamSynchronize(stream_);
      (void)cudaStreamDestroy(stream_);
    }
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

  void* stream() override {
    if (stream_ == nullptr) cuda_check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    return stream_;
  }
  void begin_capture() override {
    stream();
    cuda_check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  }
  void end_capture() override {
    cudaGraph_t g = nullptr;
    const cudaError_t e = cudaStreamEndCapture(stream_, &g);
    if (e != cudaSuccess) {
      if (g != nullptr) (void)cudaGraphDestroy(g);
      (void)cudaGetLastError();
      cuda_check(e, "cudaStreamEndCapture");
    }
    const cudaError_t ie = cudaGraphInstantiate(&exec_, g, 0);
    (void)cudaGraphDestroy(g);
    cuda_check(ie, "cudaGraphInstantiate");
  }
  void abort_capture() override {
    cudaGraph_t g = nullptr;
    if (cudaStreamEndCapture(stream_, &g) == cudaSuccess && g != nullptr) (void)cudaGraphDestroy(g);
    (void)cudaGetLastError();
  }
  void launch_graph() override {
    cuda_check(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

 private:
  std::vector<void*> blocks_;
  cudaStream_t stream_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

std::unique_ptr<Arena> device_arena() { return std::make_unique<DeviceArena>(); }

bool built_with_cuda() { return true; }

}  // namespace kvaddr::harness::detail
