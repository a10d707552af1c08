#include "files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "kvaddr/model/errors.hpp"
#include "text.hpp"

namespace kvaddr::replay::detail {

InputFile::InputFile(const std::filesystem::path& path) : shown_(valid_utf8(path.string())) {
  if (path.native().find('\0') != std::string::npos) {
    throw IoError("file", snippet(path.native()), "embedded NUL in the file name");
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd_ < 0) {
    if (errno == ENOENT) throw IoError("file", shown_, "missing file");
    throw IoError("file", shown_, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw IoError("file", shown_, "not a regular file");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read_at(void* dst, std::size_t n, std::uint64_t offset) const {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw IoError("file", shown_, std::string("read error: ") + std::strerror(errno));
    if (got == 0) throw IoError("file", shown_, "file shorter than its size (it shrank, or is not a plain file)");
    p += got;
    n -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

std::string read_bounded(const std::filesystem::path& path, std::uint64_t max_bytes) {
  const InputFile f(path);
  if (f.size() > max_bytes) {
    throw IoError("file", f.shown(), "larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string bytes(static_cast<std::size_t>(f.size()), '\0');
  f.read_at(bytes.data(), bytes.size(), 0);
  return bytes;
}

namespace {
bool is_under(const std::filesystem::path& p, const std::filesystem::path& root) {
  auto a = p.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++a) {
    if (r->empty()) continue;  // a trailing separator
    if (a == p.end() || *a != *r) return false;
  }
  return true;
}
}  // namespace

std::filesystem::path resolve_inside(const std::filesystem::path& dir, const std::string& name, bool allow_outside) {
  if (name.find('\0') != std::string::npos) throw IoError("file", snippet(name), "embedded NUL in the file name");
  if (name.empty()) throw IoError("file", "\"\"", "empty file name");
  const std::filesystem::path rel(name);
  if (allow_outside) return dir / rel;
  const auto outside = [&] {
    return IoError("file", valid_utf8(name), "not a file inside the replay directory (an explicit allow-outside option reads other paths)");
  };
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory()) throw outside();
  bool has_link = false;
  std::filesystem::path cur = dir;
  std::error_code ec;
  for (const auto& part : rel) {
    if (part == "..") throw outside();
    cur /= part;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(cur, ec))) has_link = true;
  }
  if (!has_link) return dir / rel;
  // A symbolic link on the way: the fully resolved target must exist and lie inside dir.
  const auto root = std::filesystem::canonical(dir, ec);
  if (ec) throw outside();
  const auto target = std::filesystem::canonical(dir / rel, ec);
  if (ec || !is_under(target, root)) throw outside();
  return target;
}

void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError("file", valid_utf8(path.string()), "cannot create");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw IoError("file", valid_utf8(path.string()), "cannot write");
}

}  // namespace kvaddr::replay::detail
