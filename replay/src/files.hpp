#pragma once
// File access of replay/: opening a regular file for reading (never blocking on a FIFO, never
// reading a directory or device), bounded reads, and the confinement of manifest file names to
// the replay directory.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kvaddr::replay::detail {

// A regular file open for reading. The constructor throws kvaddr::IoError naming the path for a
// missing file, a path that is not a regular file (directory, FIFO, device) or one that cannot
// be opened; read_at throws IoError on a read error or a short read.
class InputFile {
 public:
  explicit InputFile(const std::filesystem::path& path);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  std::uint64_t size() const noexcept { return size_; }
  // Reads exactly n bytes starting at `offset` into dst.
  void read_at(void* dst, std::size_t n, std::uint64_t offset) const;
  const std::string& shown() const noexcept { return shown_; }  // the path as valid UTF-8

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string shown_;
};

// The whole content of a regular file of at most max_bytes bytes (IoError otherwise).
std::string read_bounded(const std::filesystem::path& path, std::uint64_t max_bytes);

// Writes `bytes` as the whole content of `path` (created or truncated); kvaddr::IoError("file", path)
// when it cannot be created ("cannot create") or written ("cannot write", a full disk included).
void write_bytes(const std::filesystem::path& path, std::string_view bytes);

// The path a manifest names, `dir / name`. Unless allow_outside, the name must stay inside dir:
// no absolute path, no ".." component, and no symbolic link resolving outside dir (nor a
// dangling one). Every such rejection gives the same IoError text, so the message never tells
// whether a file outside dir exists. A name with an embedded NUL is always rejected.
std::filesystem::path resolve_inside(const std::filesystem::path& dir, const std::string& name, bool allow_outside);

}  // namespace kvaddr::replay::detail
