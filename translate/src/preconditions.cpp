// Production-contract preconditions, reported per row (see preconditions.hpp).
#include "kvaddr/translate/preconditions.hpp"

#include <cstdint>
#include <limits>

#include "kvaddr/translate/validate.hpp"

namespace kvaddr {
namespace {

using i64 = std::int64_t;

std::string s(i64 v) { return std::to_string(v); }

// a + b, or false when it does not fit int64 (such rows are the validation's business).
bool add(i64 a, i64 b, i64& r) { return !__builtin_add_overflow(a, b, &r); }

// n_pages <= max_pages for each row of a page table whose row b has KV length lens[b] + delta.
void page_bound(std::vector<std::string>& out, const Vec<const i64>& rows, const Vec<const i64>& lens, i64 delta,
                i64 ps, i64 max_pages) {
  for (i64 b = 0; b < rows.size && b < lens.size; ++b) {
    i64 len = 0;
    if (!add(lens.data[b], delta, len) || len < 0 || ps < 1) continue;
    const i64 n_pages = len / ps + (len % ps != 0 ? 1 : 0);
    if (n_pages > max_pages) {
      out.push_back("row " + s(b) + ": n_pages = " + s(n_pages) + " > max_pages = " + s(max_pages) + " (KV length " +
                    s(len) + ", page_size " + s(ps) + ")");
    }
  }
}

// Page-start tokens of the live columns: below `floor` is a padding value a guard-less kernel
// turns into a read before v2p.
void padding_floor(std::vector<std::string>& out, const Mat<const std::int32_t>& r2t, const Vec<const i64>& rows,
                   const Vec<const i64>& lens, i64 delta, i64 ps, i64 max_pages, i64 floor, const char* why) {
  for (i64 b = 0; b < rows.size && b < lens.size; ++b) {
    const i64 row = rows.data[b];
    i64 len = 0;
    if (!add(lens.data[b], delta, len) || row < 0 || row >= r2t.rows || len < 0 || ps < 1) continue;
    const i64 n = len / ps + (len % ps != 0 ? 1 : 0);
    for (i64 c = 0; c < n && c < max_pages && c < r2t.cols / ps + 1 && c * ps < r2t.cols; ++c) {
      const i64 tok = r2t.data[row * r2t.row_stride + c * ps * r2t.col_stride];
      if (tok < floor) {
        out.push_back("row " + s(b) + " column " + s(c) + ": padding token " + s(tok) + " < " + s(floor) + " (" + why +
                      ")");
        break;  // one per row
      }
    }
  }
}

}  // namespace

std::vector<std::string> broken_preconditions(const CanonicalPageTableArgs& a) {
  std::vector<std::string> out;
  page_bound(out, a.req_pool_indices, a.seq_lens, 0, a.page_size, a.max_pages);
  padding_floor(out, a.req_to_token, a.req_pool_indices, a.seq_lens, 0, a.page_size, a.max_pages, 1 - a.page_size,
                "a kernel without the padding guard reads before v2p");
  return out;
}

std::vector<std::string> broken_preconditions(const ReadTableArgs& a) {
  std::vector<std::string> out;
  page_bound(out, a.row_ids, a.seq_lens, a.seq_len_delta, a.page_size, a.max_pages);
  padding_floor(out, a.req_to_token, a.row_ids, a.seq_lens, a.seq_len_delta, a.page_size, a.max_pages, 1 - a.page_size,
                "a kernel without the padding guard reads before v2p");
  return out;
}

std::vector<std::string> broken_preconditions(const DecodeMetadataArgs& a) {
  std::vector<std::string> out;
  i64 total = 0;
  for (i64 b = 0; b < a.seq_lens.size; ++b) {
    i64 len = 0;
    if (!add(a.seq_lens.data[b], a.seq_len_delta, len) || !add(total, len, total)) break;
    if (len > std::numeric_limits<std::int32_t>::max() || total > std::numeric_limits<std::int32_t>::max()) {
      out.push_back("row " + s(b) + ": seq_len + delta = " + s(len) + " (prefix sum " + s(total) +
                    ") does not fit the int32 cache_seqlens / cu_seqlens_k");
      break;
    }
  }
  if (a.v2p.present() && !a.kernel_page_table.present()) {
    // The fa3 shift keeps -1 at -1: any negative page-start token reads before v2p without the guard.
    padding_floor(out, a.req_to_token, a.req_pool_indices, a.seq_lens, a.seq_len_delta, a.page_size, a.max_seq_pages, 0,
                  "the fa3 shift without the guard reads v2p[-1] or before");
  }
  return out;
}

}  // namespace kvaddr
