// pybind11 module `kvaddr._gpu`: kvaddr's CUDA launchers (kernels/include/kvaddr/kernels/launch.hpp) and
// the on-device comparison, for kvaddr.gpu (python/kvaddr/gpu.py) and the harness's device reference.
//
// The Python side reads each array's __cuda_array_interface__, checks dtype, rank and strides against the
// route's calling convention and passes plain descriptors:
//   ("vec", ptr, size, bits)                      a contiguous 1-D device array of int32 / int64
//   ("mat", ptr, rows, cols, row_stride, col_stride, bits)   strides in elements
// plus ints, bools and the variant's name, keyed by the route's contract field names (contracts.hpp).
// launch() fills the route's Args through its spec's field list (fill_args.hpp) and calls the launcher on
// the given stream; the launcher validates the struct on the host and throws kvaddr's typed errors before
// anything is enqueued. The module imports without a GPU: available() is then False with the reason, and a
// launch raises the runtime's error as kvaddr._gpu.CudaError (a kvaddr.InvalidState).
#include <limits>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "device_compare.hpp"  // kernels/src: detail::count_differences
#include "errors.hpp"
#include "graph_job.hpp"
#include "graph_fast.hpp"
#include "kvaddr/kernels/launch.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/validate.hpp"

namespace py = pybind11;
using std::int32_t;
using std::int64_t;

namespace kvaddr::python::gpu_module {
namespace {

PyObject* g_cuda_error = nullptr;  // kvaddr._gpu.CudaError (subclass of kvaddr.InvalidState)

// Every array descriptor names a device address of at least one element, so an empty array (whose
// interface may give the address 0) is handed to the launchers as this non-null address: a launch over
// zero lanes reads nothing.
void* empty_address() { return reinterpret_cast<void*>(std::uintptr_t{256}); }

// ---- the key/value source of fill_args over a dict --------------------------------------------
struct DictSource {
  py::dict d;

  py::object get(std::string_view k) const { return d[py::str(std::string(k))]; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (auto item : d) out.push_back(py::cast<std::string>(item.first));
    return out;
  }
  bool has(std::string_view k) const { return d.contains(py::str(std::string(k))); }
  ValueKind kind(std::string_view k) const {
    py::object v = get(k);
    if (py::isinstance<py::bool_>(v)) return ValueKind::boolean;
    if (py::isinstance<py::int_>(v)) return ValueKind::integer;
    if (py::isinstance<py::str>(v)) return ValueKind::text;
    if (py::isinstance<py::tuple>(v)) {
      auto t = py::reinterpret_borrow<py::tuple>(v);
      const auto tag = py::cast<std::string>(t[0]);
      const auto bits = py::cast<int>(t[t.size() - 1]);
      if (tag == "vec") return bits == 32 ? ValueKind::vec_i32 : ValueKind::vec_i64;
      if (tag == "mat") return bits == 32 ? ValueKind::mat_i32 : ValueKind::mat_i64;
    }
    throw InvalidArgument(std::string(k), py::cast<std::string>(py::repr(v)), "not a descriptor kvaddr._gpu takes");
  }
  int64_t scalar(std::string_view k) { return py::cast<int64_t>(get(k)); }
  bool flag(std::string_view k) { return py::cast<bool>(get(k)); }
  std::string text(std::string_view k) { return py::cast<std::string>(get(k)); }
  template <class T>
  Vec<T> vec(std::string_view k) {
    auto t = py::reinterpret_borrow<py::tuple>(get(k));
    auto p = py::cast<std::uintptr_t>(t[1]);
    const auto n = py::cast<int64_t>(t[2]);
    void* at = p == 0 && n == 0 ? empty_address() : reinterpret_cast<void*>(p);
    return {static_cast<T*>(at), n, 0, 0};
  }
  template <class T>
  Mat<T> mat(std::string_view k) {
    auto t = py::reinterpret_borrow<py::tuple>(get(k));
    auto p = py::cast<std::uintptr_t>(t[1]);
    const auto rows = py::cast<int64_t>(t[2]);
    const auto cols = py::cast<int64_t>(t[3]);
    void* at = p == 0 && rows * cols == 0 ? empty_address() : reinterpret_cast<void*>(p);
    return {static_cast<T*>(at), rows, cols, py::cast<int64_t>(t[4]), py::cast<int64_t>(t[5])};
  }
};

// ---- one launcher per contract struct ----------------------------------------------------------
void run(const TokenTranslateArgs<int64_t>& a, cudaStream_t s) { gpu::launch_token_translate(a, s); }
void run(const FlashmlaBlockTableArgs& a, cudaStream_t s) { gpu::launch_flashmla_block_table(a, s); }
void run(const CanonicalPageTableArgs& a, cudaStream_t s) { gpu::launch_canonical_page_table(a, s); }
void run(const ReadTableArgs& a, cudaStream_t s) { gpu::launch_read_table(a, s); }
void run(const DecodeMetadataArgs& a, cudaStream_t s) { gpu::launch_decode_metadata(a, s); }
void run(const EagerFunnelArgs& a, cudaStream_t s) { gpu::launch_eager_funnel(a, s); }
void run(const KvIndicesInplaceArgs& a, cudaStream_t s) { gpu::launch_kv_indices_inplace(a, s); }
void run(const WriteLocArgs& a, cudaStream_t s) { gpu::launch_write_loc(a, s); }
void run(const SwaTranslateArgs<int64_t>& a, cudaStream_t s) { gpu::launch_swa_translate(a, s); }
void run(const FullPrefillTableArgs& a, cudaStream_t s) { gpu::launch_full_prefill_table(a, s); }
// A per-id route (KVADDR_PER_ID_ROUTE_SPEC): the per-id launcher, with no line per route.
template <class A, Route R = PerIdRouteOf<A>::value>
void run(const A& a, cudaStream_t s) { gpu::launch(a, s); }

cudaStream_t as_stream(std::uintptr_t handle) { return reinterpret_cast<cudaStream_t>(handle); }

void launch(const std::string& route, py::dict fields, std::uintptr_t stream) {
  const Route r = parse_route(route);
  DictSource src{std::move(fields)};
  visit_route(r, [&](auto spec) {
    using S = decltype(spec);
    const auto args = fill_args<S>(src);
    run(args, as_stream(stream));
  });
}

void throw_cuda(const char* call, cudaError_t err) {
  throw CudaError(call, static_cast<int>(err), cudaGetErrorName(err), cudaGetErrorString(err));
}

// "device", "managed", "host" (page-locked host memory) or "unregistered" (pageable host memory or an
// address the runtime does not know).
std::string memory_type(std::uintptr_t ptr) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(ptr));
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state of this call
    throw_cuda("cudaPointerGetAttributes", err);
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed";
    case cudaMemoryTypeHost: return "host";
    default: return "unregistered";
  }
}

py::tuple count_differences(std::uintptr_t a, std::uintptr_t b, int64_t n, int bits, std::uintptr_t stream) {
  gpu::detail::DeviceDifferences d;
  if (bits == 32) {
    d = gpu::detail::count_differences(reinterpret_cast<const int32_t*>(a), reinterpret_cast<const int32_t*>(b), n,
                                       as_stream(stream));
  } else if (bits == 64) {
    d = gpu::detail::count_differences(reinterpret_cast<const int64_t*>(a), reinterpret_cast<const int64_t*>(b), n,
                                       as_stream(stream));
  } else {
    throw InvalidArgument("bits", std::to_string(bits), "must be 32 or 64");
  }
  return py::make_tuple(d.count, d.first);
}

// An asynchronous host-to-device copy of `bytes` bytes on `stream` (the batched eager loop's staging: `src` is
// page-locked host memory the caller keeps until the stream has run it), then `copies` - 1 device-to-device copies
// of them right after it (dst + k * bytes). Checked before anything is enqueued.
void copy_to_device(std::uintptr_t dst, std::uintptr_t src, int64_t bytes, std::uintptr_t stream, int64_t copies,
                    int64_t head) {
  if (bytes < 0) throw InvalidArgument("bytes", std::to_string(bytes), "must be >= 0");
  if (copies < 1 || copies > 16) throw InvalidArgument("copies", std::to_string(copies), "must be 1 to 16");
  if (bytes > std::numeric_limits<int64_t>::max() / copies)
    throw InvalidArgument("bytes", std::to_string(bytes), "times copies = " + std::to_string(copies) + " overflows int64");
  if (head < 0 || head > bytes)
    throw InvalidArgument("head", std::to_string(head), "must be 0 to bytes = " + std::to_string(bytes));
  if (head > std::numeric_limits<int64_t>::max() - bytes * copies)
    throw InvalidArgument("head", std::to_string(head), "plus bytes times copies overflows int64");
  if (bytes == 0) return;
  if (dst == 0) throw InvalidArgument("dst", "0", "a null device address");
  if (src == 0) throw InvalidArgument("src", "0", "a null host address");
  const auto n = static_cast<std::size_t>(bytes);
  void* to = reinterpret_cast<void*>(dst);
  cudaError_t err = cudaMemcpyAsync(to, reinterpret_cast<const void*>(src), n, cudaMemcpyHostToDevice,
                                    as_stream(stream));
  for (int64_t k = 1; k < copies && err == cudaSuccess; ++k) {
    err = cudaMemcpyAsync(static_cast<char*>(to) + k * bytes, to, n, cudaMemcpyDeviceToDevice, as_stream(stream));
  }
  if (head > 0 && err == cudaSuccess) {
    err = cudaMemcpyAsync(static_cast<char*>(to) + copies * bytes, to, static_cast<std::size_t>(head),
                          cudaMemcpyDeviceToDevice, as_stream(stream));
  }
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw_cuda("cudaMemcpyAsync", err);
  }
}

void synchronize(std::uintptr_t stream) {
  const cudaError_t err = cudaStreamSynchronize(as_stream(stream));
  if (err != cudaSuccess) throw_cuda("cudaStreamSynchronize", err);
}


// ---- graph mode's fast loop (graph_fast.hpp) ---------------------------------------------------
// draws: [(kind, tag, [p0..p3], ptr, rows, cols, row_stride, col_stride, bits)]
void graph_draw(py::list draws, uint64_t seed, std::uintptr_t counter, std::uintptr_t stream) {
  std::vector<graph_fast::DrawJob> jobs;
  for (py::handle h : draws) {
    auto t = py::reinterpret_borrow<py::tuple>(h);
    if (t.size() != 9) throw InvalidArgument("draws", std::to_string(t.size()), "each draw is a 9-tuple");
    graph_fast::DrawJob d;
    d.job = graph_job(py::cast<int32_t>(t[0]), py::cast<int32_t>(t[1]), py::cast<std::vector<int64_t>>(t[2]));
    d.dst = {reinterpret_cast<void*>(py::cast<std::uintptr_t>(t[3])), py::cast<int64_t>(t[4]), py::cast<int64_t>(t[5]),
             py::cast<int64_t>(t[6]), py::cast<int64_t>(t[7]), py::cast<int32_t>(t[8])};
    jobs.push_back(d);
  }
  graph_fast::launch_draw(jobs.data(), static_cast<int>(jobs.size()), seed, reinterpret_cast<const int64_t*>(counter),
                          as_stream(stream));
}

// copies: [(src, dst, bytes)]
void graph_copy(py::list copies, std::uintptr_t stream) {
  std::vector<graph_fast::CopyJob> jobs;
  for (py::handle h : copies) {
    auto t = py::reinterpret_borrow<py::tuple>(h);
    jobs.push_back({reinterpret_cast<const void*>(py::cast<std::uintptr_t>(t[0])),
                    reinterpret_cast<void*>(py::cast<std::uintptr_t>(t[1])), py::cast<int64_t>(t[2])});
  }
  graph_fast::launch_copies(jobs.data(), static_cast<int>(jobs.size()), as_stream(stream));
}

// pairs: [(a, b, n, bits)]
void graph_compare(py::list pairs, std::uintptr_t counter, std::uintptr_t counts, int64_t slots,
                   std::uintptr_t stream) {
  std::vector<graph_fast::ComparePair> v;
  for (py::handle h : pairs) {
    auto t = py::reinterpret_borrow<py::tuple>(h);
    v.push_back({reinterpret_cast<const void*>(py::cast<std::uintptr_t>(t[0])),
                 reinterpret_cast<const void*>(py::cast<std::uintptr_t>(t[1])), py::cast<int64_t>(t[2]),
                 py::cast<int32_t>(t[3])});
  }
  graph_fast::launch_compare(v.data(), static_cast<int>(v.size()), reinterpret_cast<const int64_t*>(counter),
                             reinterpret_cast<int64_t*>(counts), slots, as_stream(stream));
}

// kvaddr's exception classes are those of kvaddr._core: errors.hpp's table is pointed at them.
void adopt_core_exceptions(py::module_& m) {
  py::module_ core = py::module_::import("kvaddr._core");
  auto take = [&](const char* name) {
    py::object t = core.attr(name);
    m.add_object(name, t);  // keeps a reference for the module's lifetime
    return t.ptr();
  };
  g_exc.error = take("Error");
  for (const ErrorSubclass& c : kErrorSubclasses) g_exc.*c.slot = take(c.name);
  g_cuda_error = PyErr_NewExceptionWithDoc("kvaddr.gpu.CudaError", "A failed CUDA runtime call (kvaddr::CudaError).",
                                           g_exc.invalid_state, nullptr);
  if (g_cuda_error == nullptr) throw py::error_already_set();
  m.add_object("CudaError", py::handle(g_cuda_error));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CudaError& e) {
      raise_typed(g_cuda_error, e.what(), std::string(to_string(e.kind())), e.argument(), e.value(), e.reason());
    } catch (const Error& e) {
      raise_python(e);
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::exception& e) {
      raise_typed(g_exc.error, e.what(), "error", "", "", e.what());
    }
  });
}

}  // namespace
}  // namespace kvaddr::python::gpu_module

PYBIND11_MODULE(_gpu, m) {
  namespace g = kvaddr::python::gpu_module;
  m.doc() = "kvaddr's CUDA launchers and on-device comparison (kvaddr.gpu is the public interface).";
  g::adopt_core_exceptions(m);
  m.def("available", [] {
    std::string why;
    const bool ok = kvaddr::gpu::gpu_available(&why);
    return py::make_tuple(ok, why);
  }, "(True, '') when the CUDA runtime sees a device, else (False, the reason).");
  m.def("launch", &g::launch, py::arg("route"), py::arg("fields"), py::arg("stream"),
        "Fill the route's contract struct from descriptors (by contract field name) and enqueue its launcher.");
  m.def("memory_type", &g::memory_type, py::arg("ptr"));
  m.def("count_differences", &g::count_differences, py::arg("a"), py::arg("b"), py::arg("n"), py::arg("bits"),
        py::arg("stream"), "(count, first index) of the elements where two device buffers differ; waits.");
  m.def("synchronize", &g::synchronize, py::arg("stream"));
  m.def("copy_to_device", &g::copy_to_device, py::arg("dst"), py::arg("src"), py::arg("bytes"), py::arg("stream"),
        py::arg("copies") = 1, py::arg("head") = 0,
        "cudaMemcpyAsync of `bytes` host bytes at src to device address dst on `stream`, then copies - 1 device "
        "copies of them at dst + k * bytes, then a device copy of their first `head` bytes at dst + copies * bytes "
        "(no wait).");
  m.def("graph_draw", &g::graph_draw, py::arg("draws"), py::arg("seed"), py::arg("counter"), py::arg("stream"),
        "Graph mode's fast loop: draw case *counter's values into each target (one kernel, no sync).");
  m.def("graph_copy", &g::graph_copy, py::arg("copies"), py::arg("stream"),
        "Graph mode's fast loop: device-to-device copies of (src, dst, bytes) in one kernel.");
  m.def("graph_compare", &g::graph_compare, py::arg("pairs"), py::arg("counter"), py::arg("counts"), py::arg("slots"),
        py::arg("stream"), "Graph mode's fast loop: counts[*counter % slots] += differing elements of all pairs.");
  m.def("graph_bump", [](std::uintptr_t counter, std::uintptr_t stream) {
    kvaddr::python::graph_fast::launch_bump(reinterpret_cast<int64_t*>(counter), g::as_stream(stream));
  }, py::arg("counter"), py::arg("stream"), "Graph mode's fast loop: *counter += 1 on the device.");
}
