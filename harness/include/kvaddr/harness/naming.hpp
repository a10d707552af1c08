#pragma once
// The naming engine of both harnesses (the C++ harness's naming.inc, kvaddr.check's through kvaddr._core.name_case,
// race_allows and crash_names): the variants a failing case may be named by ("behaves like"), in order; name_case,
// which decides the forms and compares each candidate's host reference lane by lane up to the races of spilling
// rows (kvaddr/replay/races.hpp, replay's own); the comparison's race rule (race_allows); name_crash for a raising
// kernel. Header-only (the Python extension includes it without linking the harness library).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/races.hpp"
#include "kvaddr/translate/route_list.hpp"
#include "kvaddr/translate/variant.hpp"

namespace kvaddr::harness {

// The catalogue behaviours (production first), the edge behaviours, the inferred behaviours and the route's
// registered composites, each where the route accepts it; without `claimed` (compared as behaviour sets) and
// without the behaviours that act only on launches of 2^31 lanes or more (kLaunchSizeBits: on every case a
// host holds they equal production, so they would be named wherever production is).
inline std::vector<Variant> naming_variants(Route route, Variant claimed) {
  std::vector<Variant> out;
  auto consider = [&](Variant v) {
    if (v == claimed || (v.bits & kLaunchSizeBits) != 0 || !route_accepts(route, v)) return;
    for (const Variant& w : out)
      if (w == v) return;  // a composite equal to a listed behaviour set
    out.push_back(v);
  };
  for (Variant v : kAllVariants) consider(v);
  for (Variant v : kEdgeVariants) consider(v);
  for (Variant v : kInferredVariants) consider(v);
  for (const NamedComposite& c : kNamedComposites)
    if (c.route == route) consider(c.variant);
  return out;
}

// The forms of a failing case the naming compares on (name_case decides which): the case as drawn, and the case
// grown into its guards (detail::form_of).
enum class NamingForm { plain, grown };

// The candidate loop of the naming: the naming variants of `route` (naming_variants, in order, without `claimed`)
// each of which reproduces the kernel's outputs on a form tried (`plain`, `grown`). `reproduces(v, form)` runs the
// host reference under `v` on that form and compares every lane; false where the route rejects the call under `v`.
template <class Reproduces>
std::vector<Variant> name_outputs(Route route, Variant claimed, bool plain, bool grown, Reproduces&& reproduces) {
  std::vector<Variant> out;
  if (!plain && !grown) return out;
  for (Variant v : naming_variants(route, claimed))
    if ((plain && reproduces(v, NamingForm::plain)) || (grown && reproduces(v, NamingForm::grown))) out.push_back(v);
  return out;
}

// A failing case as every front end hands it to the engine (the C++ harness's Case, kvaddr.check's arrays through
// kvaddr._core.name_case / race_allows); the engine decides the rest.
struct NamingCase {
  using Flat = std::vector<std::int64_t>;
  using Bufs = std::vector<Flat>;
  struct Output {
    std::int64_t cols = 0;   // lanes per row (the row stride) of a 2-D buffer; 0: 1-D
    std::int64_t guard = 0;  // guard lanes on each side of the buffer in `before` and `after`; 0: none known
    Flat before, after;      // guard | buffer | guard, before the call and as the kernel left it
  };
  std::vector<Output> outputs;
  // run(v, before): every output after the host route ran under v on buffers holding `before` (a 2-D output of
  // before[j].size() / cols rows); throws kvaddr::Error where the route rejects the call under v.
  std::function<Bufs(Variant, const Bufs&)> run;
  // A page table's batch rows (one 2-D output): their KV lengths, seq_len_delta, page_size, read_table's zero_tail,
  // and part(v, row0, b0, b1, fill_tail, prefill): batch rows [b0, b1) on the table rows [row0, R) of `prefill` (the
  // whole table, R = prefill.size() / cols) under v, the padded-row fill on or off; the whole table after it. Either
  // absent: the rows are compared in the host's order only.
  struct Batch {
    Flat lens;
    std::int64_t delta = 0, page_size = 1;
    bool zero_tail = false;
  };
  std::optional<Batch> batch;
  std::function<Flat(Variant, std::int64_t, std::int64_t, std::int64_t, bool, const Flat&)> part;
};

namespace detail {
struct Form {
  NamingCase::Bufs before, actual;
  bool outside_intact = true;  // the plain form: every guard lane kept its value
};

// The plain form: each output's buffer, and whether its guards kept their values. The grown form, one rule for every
// front end: each 2-D output grown by the whole rows its after-guard holds (guard / cols), the others as drawn, so
// that a variant writing past the buffer (B10 / E01 spills) is reproduced there; none when no output grows.
inline std::optional<Form> form_of(const NamingCase& c, bool grown) {
  Form f;
  bool grows = false;
  for (const NamingCase::Output& o : c.outputs) {
    const auto g = static_cast<std::ptrdiff_t>(o.guard), n = static_cast<std::ptrdiff_t>(o.before.size()) - 2 * g;
    const auto m = n + static_cast<std::ptrdiff_t>(grown && o.cols > 0 ? o.guard / o.cols * o.cols : 0);
    grows = grows || m > n;
    f.before.emplace_back(o.before.begin() + g, o.before.begin() + g + m);
    f.actual.emplace_back(o.after.begin() + g, o.after.begin() + g + m);
    f.outside_intact = f.outside_intact && (grown || (std::equal(o.before.begin(), o.before.begin() + g, o.after.begin()) &&
                                                      std::equal(o.before.begin() + g + n, o.before.end(), o.after.begin() + g + n)));
  }
  return grown && !grows ? std::nullopt : std::optional<Form>(std::move(f));
}

// Whether the rows of `c` can race under `v`: a spilling variant of a bounded page table (replay::races_on), one 2-D
// output, its batch and part runner given, a row longer than the row stride (replay::rows_leave_their_own).
inline bool may_race(Route route, const NamingCase& c, Variant v) {
  return replay::races_on(route, v) && c.outputs.size() == 1 && c.outputs[0].cols > 0 && c.batch && c.part &&
         replay::rows_leave_their_own(c.batch->lens, c.batch->delta, c.batch->page_size, c.outputs[0].cols);
}

// Whether the host route under `v` reproduces form `f` of `c`: exactly, or (where the rows may race) as one of the
// outputs the racing rows can leave (replay::split_writes, replay::matches_up_to_race).
inline bool reproduces(Route route, const NamingCase& c, Variant v, const Form& f) {
  if (!f.outside_intact) return false;
  NamingCase::Bufs host;
  try {
    host = c.run(v, f.before);
  } catch (const Error&) {
    return false;
  }
  if (host == f.actual) return true;
  if (!may_race(route, c, v)) return false;
  const std::int64_t cols = c.outputs[0].cols;
  const replay::RowSplit split{static_cast<std::int64_t>(c.batch->lens.size()),
                               static_cast<std::int64_t>(f.before[0].size()) / cols, cols, c.batch->zero_tail};
  const replay::PartRun part = [&](std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill,
                                   const NamingCase::Flat& prefill) { return c.part(v, row0, b0, b1, fill, prefill); };
  const auto writes = replay::split_writes(f.before[0], split, part, host[0]);
  return writes && replay::matches_up_to_race(host[0], f.actual[0], *writes);
}
}  // namespace detail

// The naming of a failing case, written once for every front end: nothing where the buffers are the claimed
// variant's and the guards kept their values; else name_outputs on the plain form (where a buffer differs from the
// claimed variant's and the guards kept their values) and the grown one (where an output grows).
inline std::vector<Variant> name_case(Route route, Variant claimed, const NamingCase& c) {
  const detail::Form plain = *detail::form_of(c, false);
  bool right = false;
  try {
    right = c.run(claimed, plain.before) == plain.actual;
  } catch (const Error&) {
  }
  if (right && plain.outside_intact) return {};
  const std::optional<detail::Form> grown = detail::form_of(c, true);
  return name_outputs(route, claimed, !right && plain.outside_intact, grown.has_value(), [&](Variant v, NamingForm form) {
    return detail::reproduces(route, c, v, form == NamingForm::plain ? plain : *grown);
  });
}

// The comparison's race rule, one for every front end (the C++ harness's run_case, kvaddr.check's _judge through
// kvaddr._core.race_allows) and replay's: an output differing from the host's row order passes for a claim whose
// rows race on the case when the guards kept their values and the table is one the racing rows can leave.
inline bool race_allows(Route route, Variant claimed, const NamingCase& c) {
  return detail::may_race(route, c, claimed) && detail::reproduces(route, c, claimed, *detail::form_of(c, false));
}

// The behaviours whose catalogue effect is a crash: their host route raises where the bug crashed, so a kernel
// that raises on a case they raise on (and the claimed variant does not) is named by them. B02: eager_funnel's
// rank-2 table reached a 1-D-only index_select at page_size 1.
struct CrashVariant {
  Route route;
  Variant variant;
};
inline constexpr CrashVariant kCrashVariants[] = {{Route::eager_funnel, Variant::b02_rank2_index_select}};

// The crash behaviours of `route`, in order, without `claimed`.
inline std::vector<Variant> crash_variants(Route route, Variant claimed) {
  std::vector<Variant> out;
  for (const CrashVariant& c : kCrashVariants)
    if (c.route == route && !(c.variant == claimed)) out.push_back(c.variant);
  return out;
}

// The names of a kernel that raised, written once for both harnesses: the crash variants of `route` (without
// `claimed`) whose host reference rejects the case, run(v) throwing kvaddr::Error (the C++ harness's name_raises,
// kvaddr.check's crash_variants through kvaddr._core.crash_names).
template <class Run>
std::vector<Variant> name_crash(Route route, Variant claimed, Run&& run) {
  std::vector<Variant> out;
  for (Variant v : crash_variants(route, claimed)) {
    try {
      (void)run(v);
    } catch (const Error&) {
      out.push_back(v);
    }
  }
  return out;
}

}  // namespace kvaddr::harness
