#pragma once
// The variants a failing case may be named by ("behaves like"), written once for both harnesses: the C++
// harness's naming (harness/src/naming.inc) and kvaddr.check's (python/kvaddr/harness.py, through
// kvaddr._core.naming_variants and kvaddr._core.crash_variants) try these, in this order, and no other. Header-only (the Python extension
// includes it without linking the harness library).
#include <vector>

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

// The naming of a failing case, written once for both harnesses: the naming variants of `route` (naming_variants,
// in order, without `claimed`) each of which reproduces the kernel's outputs on one of the forms. The plain form is
// tried only when `plain` (the claimed variant does not already reproduce the buffers), the grown one only when
// `grown` (the case has one). `reproduces(v, form)` runs the host reference under `v` on that form and compares
// every lane; it returns false where the route rejects the call under `v` (the C++ harness's naming.inc and
// kvaddr.check's behaves_like, through kvaddr._core.name_outputs, hand it in).
template <class Reproduces>
std::vector<Variant> name_outputs(Route route, Variant claimed, bool plain, bool grown, Reproduces&& reproduces) {
  std::vector<Variant> out;
  if (!plain && !grown) return out;
  for (Variant v : naming_variants(route, claimed))
    if ((plain && reproduces(v, NamingForm::plain)) || (grown && reproduces(v, NamingForm::grown))) out.push_back(v);
  return out;
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

}  // namespace kvaddr::harness
