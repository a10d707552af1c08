// The contract rules every route's validation is built from (scalars, vectors, matrices,
// aliasing), each through H::rule. Included by validate_body.ipp inside
// namespace kvaddr::translate::detail::<policy namespace>; H is that namespace's policy type.
namespace {

std::string s(std::int64_t v) { return std::to_string(v); }

// Every rule goes through H::rule: the identity under NoHooks; under MutationHooks a rule_skip
// mutant of this validation unit can waive it.
void rule_require(bool ok, std::string_view argument, std::int64_t value, std::string_view reason) {
  require(H::rule(ok), argument, value, reason);
}
// rule_require with a reason that names a value: `reason()` builds its text only when the rule
// fails, so a passing validation allocates no strings (it runs before every kernel launch).
template <class Reason, std::enable_if_t<std::is_invocable_r_v<std::string, Reason&>, int> = 0>
void rule_require(bool ok, std::string_view argument, std::int64_t value, Reason&& reason) {
  if (!H::rule(ok)) require(false, argument, value, reason());
}
// A size rule (kvaddr::BufferTooSmall when it fails); its reasons all name a value, built as above.
template <class Reason, std::enable_if_t<std::is_invocable_r_v<std::string, Reason&>, int> = 0>
void rule_require_size(bool ok, std::string_view argument, std::int64_t value, Reason&& reason) {
  if (!H::rule(ok)) require_size(false, argument, value, reason());
}
// The reason of a size rule over `need` units ("needs at least 3 rows"), built on failure.
auto needs_at_least(std::int64_t need, std::string_view units) {
  return [need, units] { return "needs at least " + s(need) + " " + std::string(units); };
}
// The validation of route unit u is mutation unit validation_unit(u).
class ValidateScope {
 public:
  explicit ValidateScope(int unit) : scope_(mutation::validation_unit(unit)) {}

 private:
  H::Scope scope_;
};

// ---- scalars ---------------------------------------------------------------------------------
void check_page_size(std::int64_t ps, std::string_view name = "page_size") {
  rule_require(ps >= 1, name, ps, "page size must be >= 1");
}
void check_multiplier(std::int64_t m, std::string_view name = "multiplier") {
  rule_require(m >= 1, name, m, "kernel page multiplier must be >= 1");
}
// S = ps * M must fit int64 (every lane multiplies by it).
std::int64_t check_stride(std::int64_t ps, std::int64_t m, std::string_view name = "multiplier") {
  return checked_mul(ps, m, name);
}
void check_nonneg(std::int64_t v, std::string_view name, std::string_view what) {
  rule_require(v >= 0, name, v, what);
}
void check_dcp(std::int64_t dcp_size, std::int64_t dcp_rank) {
  rule_require(dcp_size >= 1, "dcp_size", dcp_size, "dcp_size must be >= 1");
  rule_require(dcp_rank >= 0 && dcp_rank < dcp_size, "dcp_rank", dcp_rank,
          [&] { return "dcp_rank must lie in [0, dcp_size = " + s(dcp_size) + ")"; });
}

// ---- vectors ---------------------------------------------------------------------------------
template <class T>
void check_vec(const Vec<T>& v, std::string_view name) {
  rule_require(v.size >= 0, name, v.size, "size must be >= 0");
  rule_require(v.size == 0 || v.data != nullptr, name, v.size, "null data with a non-zero size");
  rule_require(v.before >= 0, name, v.before, "elements before the view (parent slice) must be >= 0");
  rule_require(v.after >= 0, name, v.after, "elements after the view (parent slice) must be >= 0");
  rule_require((v.before == 0 && v.after == 0) || v.data != nullptr, name, v.before,
          "a parent slice needs a data pointer");
  rule_require(v.size <= std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(sizeof(T)), name, v.size,
          "size in bytes does not fit int64");
}
// A required input: present (non-null) and non-empty.
template <class T>
void check_required(const Vec<T>& v, std::string_view name) {
  check_vec(v, name);
  rule_require(v.data != nullptr && v.size >= 1, name, v.size, "required input is absent or empty");
}
// An optional input: absent (null, size 0) or a valid vector of at least `need` elements.
template <class T>
void check_optional(const Vec<T>& v, std::string_view name, std::int64_t need) {
  check_vec(v, name);
  if (v.present()) rule_require_size(v.size >= need, name, v.size, needs_at_least(need, "elements"));
}
template <class T>
void check_at_least(const Vec<T>& v, std::string_view name, std::int64_t need) {
  check_vec(v, name);
  rule_require_size(v.size >= need, name, v.size, needs_at_least(need, "elements"));
}

// ---- matrices --------------------------------------------------------------------------------
// Number of elements spanned by a matrix (0 when empty); Overflow if it does not fit int64.
template <class T>
std::int64_t mat_extent(const Mat<T>& m, std::string_view name) {
  if (m.rows == 0 || m.cols == 0) return 0;
  const std::int64_t last = checked_add(checked_mul(m.rows - 1, m.row_stride, name),
                                        checked_mul(m.cols - 1, m.col_stride, name), name);
  const std::int64_t ext = checked_add(last, 1, name);
  checked_mul(ext, static_cast<std::int64_t>(sizeof(T)), name);
  return ext;
}
template <class T>
void check_mat(const Mat<T>& m, std::string_view name) {
  rule_require(m.rows >= 0, name, m.rows, "rows must be >= 0");
  rule_require(m.cols >= 0, name, m.cols, "cols must be >= 0");
  rule_require(m.row_stride >= 0, name, m.row_stride, "row_stride must be >= 0");
  rule_require(m.col_stride >= 0, name, m.col_stride, "col_stride must be >= 0");
  rule_require(m.rows == 0 || m.cols == 0 || m.data != nullptr, name, m.rows,
          "null data with a non-empty shape");
  mat_extent(m, name);
}
// An output matrix: distinct elements never overlap (col_stride >= 1, rows do not overlap).
template <class T>
void check_out_mat(const Mat<T>& m, std::string_view name) {
  check_mat(m, name);
  if (m.rows == 0 || m.cols == 0) return;
  rule_require(m.col_stride >= 1, name, m.col_stride, "output col_stride must be >= 1");
  if (m.rows > 1) {
    const std::int64_t row_span = checked_add(checked_mul(m.cols - 1, m.col_stride, name), 1, name);
    rule_require(m.row_stride >= row_span, name, m.row_stride,
            "output rows overlap (row_stride < (cols - 1) * col_stride + 1)");
  }
}
template <class T>
void check_packed(const Mat<T>& m, std::string_view name) {
  rule_require(m.rows == 0 || m.cols <= 1 || m.col_stride == 1, name, m.col_stride,
          "rows must be packed (col_stride == 1)");
}
template <class T>
void check_shape_at_least(const Mat<T>& m, std::string_view name, std::int64_t rows, std::int64_t cols) {
  rule_require_size(m.rows >= rows, name, m.rows, needs_at_least(rows, "rows"));
  rule_require_size(m.cols >= cols, name, m.cols, needs_at_least(cols, "columns"));
}

// ---- aliasing --------------------------------------------------------------------------------
struct Span {
  std::uintptr_t lo = 0, hi = 0;  // [lo, hi) in bytes; empty when lo == hi
};
template <class T>
Span span_of(const Vec<T>& v) {
  if (v.data == nullptr || v.size == 0) return {};
  const auto lo = reinterpret_cast<std::uintptr_t>(v.data);
  return {lo, lo + static_cast<std::uintptr_t>(v.size) * sizeof(T)};
}
template <class T>
Span span_of(const Mat<T>& m) {
  const std::int64_t ext = (m.data == nullptr) ? 0 : mat_extent(m, "matrix");
  if (ext == 0) return {};
  const auto lo = reinterpret_cast<std::uintptr_t>(m.data);
  return {lo, lo + static_cast<std::uintptr_t>(ext) * sizeof(T)};
}
bool overlaps(Span a, Span b) { return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi; }

// `out` must not overlap `in`.
template <class O, class I>
void check_disjoint(const O& out, const I& in, std::string_view out_name, std::string_view in_name) {
  if (!H::rule(!overlaps(span_of(out), span_of(in)))) {
    throw InvalidArgument(std::string(out_name), "overlapping buffer", "must not overlap " + std::string(in_name));
  }
}
// `out` must be exactly `in` (same element type, same pointer, same size) or disjoint from it;
// an `out` of another element type than `in` must be disjoint from it.
template <class O, class I>
void check_exact_alias_or_disjoint(const Vec<O>& out, const Vec<I>& in, std::string_view out_name,
                                   std::string_view in_name) {
  constexpr bool same_type = std::is_same_v<std::remove_const_t<O>, std::remove_const_t<I>>;
  if constexpr (!same_type) {
    return check_disjoint(out, in, out_name, in_name);  // elements of two widths never alias exactly
  } else {
    if (!overlaps(span_of(out), span_of(in))) return;
  }
  const bool exact = static_cast<const void*>(out.data) == static_cast<const void*>(in.data) && out.size == in.size;
  if (!H::rule(exact)) {
    throw InvalidArgument(std::string(out_name), "size " + s(out.size),
                          "partially overlaps " + std::string(in_name) + " (must alias it exactly or be disjoint)");
  }
}
// Like the above, but `out` may be longer than `in` when both start at the same element.
template <class O, class I>
void check_prefix_alias_or_disjoint(const Vec<O>& out, const Vec<I>& in, std::string_view out_name,
                                    std::string_view in_name) {
  if (!overlaps(span_of(out), span_of(in))) return;
  constexpr bool same_type = std::is_same_v<std::remove_const_t<O>, std::remove_const_t<I>>;
  const bool exact = same_type && static_cast<const void*>(out.data) == static_cast<const void*>(in.data) &&
                     out.size >= in.size;
  if (!H::rule(exact)) {
    throw InvalidArgument(std::string(out_name), "size " + s(out.size),
                          "partially overlaps " + std::string(in_name) + " (must alias it exactly or be disjoint)");
  }
}

}  // namespace
