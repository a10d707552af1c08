// The host runner of every per-id route (one id input, one table, scalars, one output lane per id;
// opened with KVADDR_PER_ID_ROUTE_SPEC, route_spec.hpp): the generic validation, the all-or-nothing
// output, the mutation scope and the lane loop over the spec's lane with the checked integer.
// Included by routes_plain.cpp (hooks policy NoHooks), by mutation/hooked.cpp (MutationHooks) and
// by standalone_runners.hpp, inside namespace kvaddr::translate::detail::<policy namespace>, after
// validate_rules.ipp; H, CI and TableGather are that namespace's policy types.
namespace {

// The checker a spec's check_scalars(a, c) calls: the rules of validate_rules.ipp.
struct ScalarChecks {
  void page_size(std::int64_t ps) const { check_page_size(ps); }
  void multiplier(std::int64_t m, std::string_view name = "multiplier") const { check_multiplier(m, name); }
  void stride(std::int64_t ps, std::int64_t m, std::string_view name = "multiplier") const { check_stride(ps, m, name); }
  void dcp(std::int64_t size, std::int64_t rank) const { check_dcp(size, rank); }
  void require(bool ok, std::string_view argument, std::int64_t value, std::string_view reason) const {
    rule_require(ok, argument, value, reason);
  }
};

// A spec's lane values on the host: divisors as checked integers; S = ps * M (validated to fit)
// through the route-loop stride site (mutation stride_drop_mult: S = ps).
struct HostLaneValues {
  CI div(std::int64_t d) const { return CI(d); }
  CI stride(std::int64_t ps, std::int64_t m) const { return CI(H::alt(mutation::Site::stride, ps * m, ps)); }
};

}  // namespace

// The contract of a per-id route: its variant, the spec's scalar rules, the ids, the table
// (required), out at least as long as the ids, out exactly aliasing the ids (a route with tail lanes:
// the ids as a prefix of out) or disjoint from them,
// out disjoint from the table; every error names the argument by its field name. A is Spec::Args or,
// for a route whose output element type is a parameter, any Spec::ArgsOf<Out>.
template <class Spec, class A>
void validate_per_id(const A& a) {
  using P = PerIdShape<Spec>;
  const ValidateScope scope(mutation::unit_of(Spec::id));
  if constexpr (P::has_variant) require_variant(Spec::id, a.variant);
  Spec::check_scalars(a, ScalarChecks{});
  const auto& ids = P::ids(a);
  const auto& table = P::table(a);
  const auto& out = P::out(a);
  check_vec(ids, P::ids_name);
  check_required(table, P::table_name);
  check_at_least(out, P::out_name, ids.size);
  if constexpr (has_tail_lanes<Spec>) check_prefix_alias_or_disjoint(out, ids, P::out_name, P::ids_name);
  else check_exact_alias_or_disjoint(out, ids, P::out_name, P::ids_name);
  check_disjoint(out, table, P::out_name, P::table_name);
}

// out[i] = the spec's lane of ids[i] over the table, for i < ids.size; out's tail [ids.size, out.size)
// is untouched, or, for a route with tail lanes, gets Spec::tail_fill unless Spec::keeps_tail.
// Each lane reads its id before writing its output, so out may alias the ids exactly. An int32 out
// takes the lane's value through the int32 store rule (an Overflow past int32, or the silent wrap of
// the int32_wrap variant).
template <class Spec, class A>
void run_per_id(const A& a) {
  using P = PerIdShape<Spec>;
  validate_per_id<Spec>(a);
  const auto& ids = P::ids(a);
  const auto& out = P::out(a);
  using Out = std::remove_cv_t<std::remove_pointer_t<decltype(out.data)>>;
  const detail::Rollback rollback(out);
  [[maybe_unused]] const H::Scope scope(mutation::unit_of(Spec::id));
  const TableGather g{P::table(a), P::table_name};
  const auto lane = Spec::template lane<CI, CI>(a, HostLaneValues{});
  Variant store = Variant::production;  // the int32 store rule's variant
  if constexpr (P::has_variant) store = a.variant;
  rename_lane_overflow(P::out_name, [&] {
    // Local copies of the lane and the views: the output stores cannot alias them, so they stay in
    // registers across the loop.
    const auto lane_local = lane;
    const auto in = ids;
    const auto dst = out;
    for (std::int64_t i = 0; i < in.size; ++i) {
      H::lane(0);
      // The element this lane loads and stores (int32_lane_offsets: wrapped; negative = before the buffer).
      const std::int64_t e = lanes::launch_lane(i, store);
      if (e < 0) continue;
      const CI id(in.data[e]);
      put<H>(dst, e, P::out_name) = narrow_out<Out>(lane_local(id, g), P::out_name, store);
    }
  });
  if constexpr (has_tail_lanes<Spec>) {
    H::lane(2);  // epilogue: the tail lanes [N, out.size), on the same launch lanes
    if (!Spec::keeps_tail(a.variant)) {
      const auto fill = Spec::template tail_fill<Out>(a.variant);
      for (std::int64_t i = H::bound(ids.size); i < out.size; ++i)
        if (const std::int64_t e = lanes::launch_lane(i, a.variant); e >= 0) put<H>(out, e, P::out_name) = fill;
    }
  }
}

// The runner and the validation of the per-id route r of the route list, its Args at `a`.
inline void run_listed_per_id(Route r, const void* a) {
  visit_route(r, [a](auto spec) {
    using S = decltype(spec);
    if constexpr (uses_per_id_runner<S>) run_per_id<S>(*static_cast<const typename S::Args*>(a));
  });
}
inline void validate_listed_per_id(Route r, const void* a) {
  visit_route(r, [a](auto spec) {
    using S = decltype(spec);
    if constexpr (uses_per_id_runner<S>) validate_per_id<S>(*static_cast<const typename S::Args*>(a));
  });
}
