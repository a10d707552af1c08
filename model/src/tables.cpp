#include "kvaddr/model/tables.hpp"

#include <algorithm>

#include "kvaddr/model/errors.hpp"

namespace kvaddr::model {

namespace {
std::size_t idx(std::int64_t i) { return static_cast<std::size_t>(i); }
}  // namespace

PageTables::PageTables(std::int64_t num_pages, std::optional<std::int64_t> num_virtual_ids,
                       std::int64_t min_page_index, TableOptions options)
    : num_pages_(num_pages),
      num_virtual_ids_(num_virtual_ids.value_or(num_pages)),
      min_page_index_(min_page_index),
      options_(options) {
  require(num_pages_ >= 1, "num_pages", num_pages_, "must be >= 1");
  require(num_virtual_ids_ >= 1, "num_virtual_ids", num_virtual_ids_, "must be >= 1");
  // One extra sentinel row each: the sizes + 1 must not overflow and must fit the address space.
  (void)checked_add(num_pages_, 1, "num_pages");
  (void)checked_add(num_virtual_ids_, 1, "num_virtual_ids");
  require(min_page_index_ >= 0, "min_page_index", min_page_index_, "must be >= 0");
  require(min_page_index_ <= std::min(num_pages_, num_virtual_ids_), "min_page_index", min_page_index_,
          "must not exceed num_pages or num_virtual_ids");
  v2p_.assign(idx(num_virtual_ids_ + 1), -1);
  p2v_.assign(idx(num_pages_ + 1), -1);
  clear();
}

void PageTables::clear() {
  std::fill(v2p_.begin(), v2p_.end(), -1);
  std::fill(p2v_.begin(), p2v_.end(), -1);
  if (options_.v2p0_pinned) {
    v2p_[0] = 0;
    p2v_[0] = 0;
  }
  v2p_.back() = -1;  // trailing sentinel row, never allocated
}

void PageTables::bind(VirtualPage v, PhysicalPage P) {
  require_range(v.value >= min_page_index_ && v.value < num_virtual_ids_, "v", v.value,
                "virtual page outside [min_page_index, num_virtual_ids)");
  require_range(P.value >= min_page_index_ && P.value < num_pages_, "P", P.value,
                "physical page outside [min_page_index, num_pages)");
  if (v2p_[idx(v.value)] != -1) {
    throw InvalidState("v", std::to_string(v.value), "virtual page is already bound");
  }
  if (p2v_[idx(P.value)] != -1) {
    throw InvalidState("P", std::to_string(P.value), "physical page is already bound");
  }
  v2p_[idx(v.value)] = P.value;
  p2v_[idx(P.value)] = v.value;
}

PhysicalPage PageTables::unbind(VirtualPage v) {
  require_range(v.value >= 0 && v.value < num_virtual_ids_, "v", v.value, "virtual page outside [0, num_virtual_ids)");
  const std::int64_t P = v2p_[idx(v.value)];
  if (P < 0) throw InvalidState("v", std::to_string(v.value), "virtual page is not bound (double free)");
  if (P >= num_pages_ || p2v_[idx(P)] != v.value) {
    throw InvalidState("v", std::to_string(v.value), "v2p and p2v disagree for this page");
  }
  v2p_[idx(v.value)] = -1;
  p2v_[idx(P)] = -1;
  return PhysicalPage(P);
}

void PageTables::relocate(PhysicalPage src, PhysicalPage dst) {
  require_range(src.value >= 0 && src.value < num_pages_, "src", src.value, "physical page outside [0, num_pages)");
  require_range(dst.value >= min_page_index_ && dst.value < num_pages_, "dst", dst.value,
                "physical page outside [min_page_index, num_pages)");
  const std::int64_t v = p2v_[idx(src.value)];
  if (v < 0 || v >= num_virtual_ids_) {
    throw InvalidState("src", std::to_string(src.value), "source physical page holds no virtual page");
  }
  if (p2v_[idx(dst.value)] != -1) {
    throw InvalidState("dst", std::to_string(dst.value), "destination physical page is not free");
  }
  v2p_[idx(v)] = dst.value;
  p2v_[idx(dst.value)] = v;
  p2v_[idx(src.value)] = -1;
}

std::int64_t PageTables::v2p_at(VirtualPage v) const {
  require_range(v.value >= 0 && v.value <= num_virtual_ids_, "v", v.value, "index past the v2p table");
  return v2p_[idx(v.value)];
}

std::int64_t PageTables::p2v_at(PhysicalPage P) const {
  require_range(P.value >= 0 && P.value <= num_pages_, "P", P.value, "index past the p2v table");
  return p2v_[idx(P.value)];
}

std::optional<PhysicalPage> PageTables::physical_of(VirtualPage v) const {
  const std::int64_t P = v2p_at(v);
  if (P < 0) return std::nullopt;
  return PhysicalPage(P);
}

std::optional<VirtualPage> PageTables::virtual_of(PhysicalPage P) const {
  const std::int64_t v = p2v_at(P);
  if (v < 0) return std::nullopt;
  return VirtualPage(v);
}

void PageTables::set_v2p_raw(std::int64_t index, std::int64_t value) {
  require_range(index >= 0 && index <= num_virtual_ids_, "index", index, "index past the v2p table");
  v2p_[idx(index)] = value;
}

void PageTables::set_p2v_raw(std::int64_t index, std::int64_t value) {
  require_range(index >= 0 && index <= num_pages_, "index", index, "index past the p2v table");
  p2v_[idx(index)] = value;
}

std::vector<InvariantViolation> PageTables::check_invariants() const {
  std::vector<InvariantViolation> out;
  auto report = [&](char which, std::string detail) { out.push_back({which, std::move(detail)}); };
  const auto s = [](std::int64_t v) { return std::to_string(v); };

  // (b) sink pin and trailing sentinel.
  if (v2p_[0] != 0) report('b', "v2p[0] = " + s(v2p_[0]) + ", expected the sink pin 0");
  if (p2v_[0] != 0) report('b', "p2v[0] = " + s(p2v_[0]) + ", expected the sink pin 0");
  if (v2p_.back() != -1) report('b', "v2p[" + s(num_virtual_ids_) + "] = " + s(v2p_.back()) + ", expected the trailing sentinel -1");

  // (a) bijection between bound virtual pages and live physical pages, inverse p2v.
  for (std::int64_t v = 0; v < num_virtual_ids_; ++v) {
    const std::int64_t P = v2p_[idx(v)];
    if (P == -1) continue;
    if (P < -1 || P >= num_pages_) {
      report('a', "v2p[" + s(v) + "] = " + s(P) + " is neither -1 nor a physical page in [0, num_pages)");
      continue;
    }
    if (p2v_[idx(P)] != v) report('a', "v2p[" + s(v) + "] = " + s(P) + " but p2v[" + s(P) + "] = " + s(p2v_[idx(P)]));
  }
  for (std::int64_t P = 0; P <= num_pages_; ++P) {
    const std::int64_t v = p2v_[idx(P)];
    if (v == -1) continue;
    if (P == num_pages_) {
      report('a', "p2v[" + s(P) + "] = " + s(v) + ": the trailing row of p2v must stay -1");
      continue;
    }
    if (v < -1 || v >= num_virtual_ids_) {
      report('a', "p2v[" + s(P) + "] = " + s(v) + " is neither -1 nor a virtual page in [0, num_virtual_ids)");
      continue;
    }
    if (v2p_[idx(v)] != P) report('a', "p2v[" + s(P) + "] = " + s(v) + " but v2p[" + s(v) + "] = " + s(v2p_[idx(v)]));
  }

  // (c) reservation: pages [0, min_page_index) stay out of allocation in both spaces (the pin excepted).
  for (std::int64_t v = 0; v < num_virtual_ids_; ++v) {
    const std::int64_t P = v2p_[idx(v)];
    if (P < 0 || (v == 0 && P == 0)) continue;
    if (v < min_page_index_) report('c', "reserved virtual page " + s(v) + " is bound to " + s(P));
    else if (P < min_page_index_ || P >= num_pages_)
      report('c', "v2p[" + s(v) + "] = " + s(P) + " lies outside [min_page_index, num_pages)");
  }
  return out;
}

}  // namespace kvaddr::model
