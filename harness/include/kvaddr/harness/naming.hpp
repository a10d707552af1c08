#pragma once
// The variants a failing case may be named by ("behaves like"), written once for both harnesses: the C++
// harness's naming (harness/src/naming.inc) and kvaddr.check's (python/kvaddr/harness.py, through
// kvaddr._core.name_case and kvaddr._core.crash_names) try these, in this order, and no other, and name a case by
// name_case (a raising kernel by name_crash): the host reference of each candidate, compared lane by lane up to the races of spilling rows
// (kvaddr/replay/races.hpp, replay's own). Header-only (the Python extension includes it without linking the
// harness library).
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

// The forms of a failing case the naming compares on: the case as drawn, and the case with every 2-D output grown
// by the whole rows of its after-guard (where the guard holds a row), on which a variant that writes past the
// buffer (B10 / E01 spills) is reproduced.
enum class NamingForm { plain, grown };

// The candidate loop of the naming: the naming variants of `route` (naming_variants, in order, without `claimed`)
// each of which reproduces the kernel's outputs on one of the forms. The plain form is tried only when `plain` (the
// claimed variant does not already reproduce the buffers), the grown one only when `grown` (the case has one).
// `reproduces(v, form)` runs the host reference under `v` on that form and compares every lane; it returns false
// where the route rejects the call under `v` (name_case below hands it in).
template <class Reproduces>
std::vector<Variant> name_outputs(Route route, Variant claimed, bool plain, bool grown, Reproduces&& reproduces) {
  std::vector<Variant> out;
  if (!plain && !grown) return out;
  for (Variant v : naming_variants(route, claimed))
    if ((plain && reproduces(v, NamingForm::plain)) || (grown && reproduces(v, NamingForm::grown))) out.push_back(v);
  return out;
}

// A failing case as name_case runs it, in the front end's own form of the case (the C++ harness's Case, the
// Python harness's arrays): the host reference of a variant on a form and the kernel's buffers on it.
struct NamingCase {
  using Bufs = std::vector<std::vector<std::int64_t>>;
  // One form of the case: every output buffer before the call and as the kernel left it (the same lanes), whether
  // the lanes outside the buffers kept their values (the C++ harness's guards on the plain form), and the table's
  // rows as its programs see them (the race split; unused unless `part` is given).
  struct Form {
    Bufs before, actual;
    bool outside_intact = true;
    replay::RowSplit split{};
  };
  // run(v, form): every output buffer after the host route ran under v on that form; throws kvaddr::Error where
  // the route rejects the call under v.
  std::function<Bufs(Variant, NamingForm)> run;
  // The forms tried (plain: the claimed variant does not already reproduce the buffers; grown: the case has one).
  std::optional<Form> plain, grown;
  // Where rows can race (replay::races_on; a page table with a row longer than its row stride,
  // replay::rows_leave_their_own): batch rows [b0, b1) on the table rows [row0, R) of `prefill` (the table output
  // `table` of `form`) under v, the padded-row fill on or off; the whole table after it ran. Empty: compared in
  // the host's order only.
  std::function<std::vector<std::int64_t>(Variant, NamingForm, std::int64_t row0, std::int64_t b0, std::int64_t b1,
                                          bool fill_tail, const std::vector<std::int64_t>& prefill)>
      part;
  std::size_t table = 0;
};

// Whether the host route under `v` reproduces the kernel's buffers on form `f` of `c`: exactly, or (a spilling
// variant of a page table, replay::races_on) as one of the outputs its racing rows can leave
// (replay::matches_up_to_race over the stores of each program, replay::split_writes).
inline bool reproduces_on(Route route, const NamingCase& c, Variant v, NamingForm form) {
  const NamingCase::Form& f = form == NamingForm::plain ? *c.plain : *c.grown;
  if (!f.outside_intact) return false;
  NamingCase::Bufs host;
  try {
    host = c.run(v, form);
  } catch (const Error&) {
    return false;
  }
  if (host == f.actual) return true;
  if (!c.part || !replay::races_on(route, v) || c.table >= host.size() || host.size() != f.actual.size() ||
      c.table >= f.before.size())
    return false;
  for (std::size_t k = 0; k < host.size(); ++k)
    if (k != c.table && host[k] != f.actual[k]) return false;
  const replay::PartRun run_part = [&](std::int64_t row0, std::int64_t b0, std::int64_t b1, bool fill,
                                       const std::vector<std::int64_t>& prefill) {
    return c.part(v, form, row0, b0, b1, fill, prefill);
  };
  const auto writes = replay::split_writes(f.before[c.table], f.split, run_part, host[c.table]);
  return writes && replay::matches_up_to_race(host[c.table], f.actual[c.table], *writes);
}

// The naming of a failing case, written once for every front end: name_outputs over the forms `c` has, each
// candidate's host reference computed by `c.run` (the route's host implementation) and compared by reproduces_on.
inline std::vector<Variant> name_case(Route route, Variant claimed, const NamingCase& c) {
  return name_outputs(route, claimed, c.plain.has_value(), c.grown.has_value(),
                      [&](Variant v, NamingForm form) { return reproduces_on(route, c, v, form); });
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
