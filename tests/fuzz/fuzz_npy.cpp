// Fuzz target: the .npy reader. Every input must either parse into a consistent array or throw a
// kvaddr::Error; any other exception, a crash or a sanitizer report fails the run. Each input is
// parsed from memory (parse_npy) and from a file (read_npy), and both results must agree.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/npy.hpp"

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz_npy: invariant broken: %s\n", what);
  std::abort();
}

// An in-memory file (memfd) that read_npy opens through /proc/self/fd, so no disk is touched.
int scratch_fd() {
  static const int fd = ::memfd_create("kvaddr_fuzz_npy", MFD_CLOEXEC);
  if (fd < 0) broken("memfd_create failed");
  return fd;
}
const std::string& scratch_file() {
  static const std::string path = "/proc/self/fd/" + std::to_string(scratch_fd());
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kvaddr::replay;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string from_memory, from_file;
  NpyArray a;
  try {
    a = parse_npy(bytes);
    from_memory = a.descr + a.shape_string();
    if (a.dtype != NpyDtype::other) {
      if (static_cast<std::int64_t>(a.values.size()) != a.size()) broken("values.size() != product of shape");
      // C-order int arrays written back by format_npy parse to the same values.
      const NpyArray b = parse_npy(format_npy(a.dtype, a.shape, a.values));
      if (b.values != a.values || b.shape != a.shape) broken("format_npy round trip");
      // A Fortran-order image holds the same values as its C-order reading (reordered, none lost or invented).
      if (a.fortran_order) {
        std::string c_image(bytes);
        // The header dictionary ends at `end` (version 1: a 2-byte length at 8, from 10; 2 and 3: 4 bytes, from 12).
        const auto u8 = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(c_image[i])); };
        const bool v1 = u8(6) == 1;
        const std::size_t end = v1 ? 10 + (u8(8) | u8(9) << 8) : 12 + (u8(8) | u8(9) << 8 | u8(10) << 16 | u8(11) << 24);
        const auto at = c_image.find("True");
        const auto key = c_image.find("fortran_order");
        // "True" -> "False" and the padding space before the header's final '\n' dropped: same header length.
        if (at != std::string::npos && key < at && at + 4 < end && end <= c_image.size() && c_image[end - 1] == '\n' &&
            c_image[end - 2] == ' ') {
          c_image.replace(at, 4, "False");
          c_image.erase(end - 1, 1);  // the space that was at end - 2, one byte later after the replacement
          try {
            auto x = a.values, y = parse_npy(c_image).values;
            std::sort(x.begin(), x.end());
            std::sort(y.begin(), y.end());
            if (x != y) broken("Fortran-order values are not those of the same data read in C order");
          } catch (const kvaddr::Error&) {  // the edit broke the header (no padding space to take): nothing to compare
          }
        }
      }
    }
  } catch (const kvaddr::Error& e) {
    from_memory = std::string("error ") + std::string(to_string(e.kind()));
  }
  if (::ftruncate(scratch_fd(), 0) != 0 ||
      ::pwrite(scratch_fd(), bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
    broken("cannot write the scratch file");
  }
  try {
    const NpyArray f = read_npy(scratch_file());
    from_file = f.descr + f.shape_string();
    if (f.values != a.values) broken("read_npy and parse_npy disagree on the values");
  } catch (const kvaddr::Error& e) {
    from_file = std::string("error ") + std::string(to_string(e.kind()));
  }
  if (from_memory != from_file) broken("read_npy and parse_npy disagree");
  return 0;
}
