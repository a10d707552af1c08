// Stands in for the user's kernel of docs/index.md's C++ snippet: d(t) = max(v2p[t div ps]·ps·M + t mod ps, 0)
// with floor division, written independently of kvaddr (the padding id -1 reads the sentinel row).
#include <cstdint>
#include <vector>

std::vector<std::int64_t> my_kernel(const std::vector<std::int64_t>& ids, const std::vector<std::int64_t>& v2p,
                                    std::int64_t page_size, std::int64_t multiplier) {
  std::vector<std::int64_t> out;
  for (const std::int64_t t : ids) {
    std::int64_t page = t / page_size, offset = t % page_size;
    if (offset < 0) {
      offset += page_size;
      page -= 1;
    }
    const auto row = page < 0 ? static_cast<std::size_t>(static_cast<std::int64_t>(v2p.size()) + page)
                              : static_cast<std::size_t>(page);
    const std::int64_t d = v2p[row] * page_size * multiplier + offset;
    out.push_back(d < 0 ? 0 : d);
  }
  return out;
}
