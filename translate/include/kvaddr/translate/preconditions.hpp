#pragma once
// Preconditions of the production contracts that the kernels do not enforce (they clamp or
// misbehave silently): n_pages <= max_pages per row (canonical_page_table, read_table), padding
// page-start tokens a kernel without the guard turns into a read before v2p (truncating division:
// tok <= -ps; the fa3 shift: any tok < 0), lengths that fit
// the int32 outputs (decode_metadata). Each broken one is named with its row and numbers, e.g.
// "row 0: n_pages = 3 > max_pages = 2 (KV length 5, page_size 2)". Reads the arrays (host views);
// the shapes must already be valid (validate()).
#include <string>
#include <vector>

#include "kvaddr/translate/contracts.hpp"

namespace kvaddr {

std::vector<std::string> broken_preconditions(const CanonicalPageTableArgs& a);
std::vector<std::string> broken_preconditions(const ReadTableArgs& a);
std::vector<std::string> broken_preconditions(const DecodeMetadataArgs& a);

}  // namespace kvaddr
