#pragma once
// Private: property plumbing shared by the route, cross-route and stateful properties.
#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/props/props.hpp"
#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/route_list.hpp"  // route_accepts
#include "kvaddr/translate/validate.hpp"    // to_string(Route)
#include "kvaddr/translate/variant.hpp"

namespace kvaddr::props::detail {

using i64 = std::int64_t;
using i32 = std::int32_t;

inline std::size_t uz(i64 v) { return static_cast<std::size_t>(v); }

// A property body: generates its inputs with `*gen` and fails through RC_ASSERT / RC_FAIL.
struct PropertyDef {
  PropertyInfo info;
  std::function<void(Variant)> body;
};
const std::vector<PropertyDef>& registry();

// One "<route>_rejects_invalid" property: the route its body calls (none: `stem` names the
// property and it runs under no route), the body and its summary.
struct RejectsInvalid {
  std::optional<Route> route;
  void (*body)(Variant);
  std::string_view summary;
  std::string_view stem = {};
};
// Registers the rows in order, each named "<route or stem>_rejects_invalid".
inline void add_rejects_invalid(std::vector<PropertyDef>& out, std::initializer_list<RejectsInvalid> rows) {
  for (const RejectsInvalid& r : rows) {
    const std::string stem(r.route ? to_string(*r.route) : r.stem);
    std::vector<Route> routes;
    if (r.route) routes.push_back(*r.route);
    out.push_back({{stem + "_rejects_invalid", std::string(r.summary), {}, std::move(routes)}, r.body});
  }
}
void register_route_properties(std::vector<PropertyDef>& out);
void register_cross_properties(std::vector<PropertyDef>& out);
void register_stateful_property(std::vector<PropertyDef>& out);
void register_invalid_properties(std::vector<PropertyDef>& out);

// Stateful counters (the simulation runs single-threaded inside one property).
struct StatefulCounters {
  std::int64_t steps = 0;
  std::int64_t moves = 0;
};
StatefulCounters& stateful_counters();

// The variant a route runs: `v` if the route accepts it, production otherwise.
inline Variant for_route(Route r, Variant v) { return route_accepts(r, v) ? v : Variant::production; }

// write_loc's arguments over whole vectors (loc widened by dcp), the variant narrowed by for_route.
inline WriteLocArgs write_loc_args(Variant v, const std::vector<i64>& loc, const std::vector<i64>& v2p, i64 ps, i64 M,
                                   i64 dcp, i64 rank, std::vector<i64>& out) {
  return {cvec(loc), cvec(v2p), ps, M, dcp, rank, mvec(out), for_route(Route::write_loc, v)};
}

// eager_funnel's arguments over a rows x cols token table and an output of the same shape, the
// variant narrowed by for_route.
inline EagerFunnelArgs eager_funnel_args(Variant v, const std::vector<i64>& table, i64 rows, i64 cols,
                                         const std::vector<i64>& v2p, i64 ps, i64 M, std::vector<i64>& out) {
  return {cmat(table, rows, cols), cvec(v2p), ps, M, mmat(out, rows, cols), for_route(Route::eager_funnel, v)};
}

// A page-table route's arguments (canonical_page_table and full_prefill_table take the same fields)
// over a generated batch (req_to_token rows x cols, req_pool_indices, seq_lens, max_pages), the
// variant narrowed by for_route.
template <class Args, class Batch>
Args page_table_args(Variant v, Route r, const Batch& b, const std::vector<i64>& v2p, i64 ps, i64 M,
                     Mat<std::int32_t> out) {
  return {cmat(b.req_to_token, b.rows, b.cols), cvec(b.req_pool_indices), cvec(b.seq_lens), cvec(v2p), ps, M,
          b.max_pages, out, for_route(r, v)};
}

// What the model says a route call must do: succeed, or reject with a typed error.
struct Expect {
  bool oor = false;  // some live lane reads outside a table: OutOfRange
  bool ovf = false;  // some value does not fit its type (int32 output or int64 product): Overflow
  bool ok() const { return !oor && !ovf; }
};

// Evaluates one model lane; records OutOfRange / Overflow in `e` and returns nullopt for them.
template <class F>
std::optional<i64> model_lane(Expect& e, F&& f) {
  try {
    return f();
  } catch (const OutOfRange&) {
    e.oor = true;
  } catch (const Overflow&) {
    e.ovf = true;
  }
  return std::nullopt;
}

inline bool fits32(i64 v) {
  return v >= std::numeric_limits<i32>::min() && v <= std::numeric_limits<i32>::max();
}

// Marker of a failure caused by a route rejecting the variant it was given: never a kill.
inline constexpr std::string_view kVariantRejected = "[variant rejected by the route]";

// Runs a route. Returns true when it returned normally and the model expected that (compare the
// buffers next); false when it threw the typed error the model expected (no buffer comparison).
// Any other outcome fails the property with a readable message.
template <class F>
bool call_route(std::string_view route, const Expect& e, F&& f) {
  try {
    f();
  } catch (const Error& err) {
    const bool expected = (err.kind() == ErrorKind::out_of_range && e.oor) || (err.kind() == ErrorKind::overflow && e.ovf);
    if (expected) return false;
    std::ostringstream os;
    if (err.argument() == "variant") os << kVariantRejected << " ";
    os << route << " threw " << to_string(err.kind()) << " (" << err.what() << ") but the model "
       << (e.ok() ? "computes every lane" : (e.ovf ? "expects Overflow" : "expects OutOfRange"));
    RC_FAIL(os.str());
  } catch (const std::exception& ex) {
    RC_FAIL(std::string(route) + " threw an untyped exception: " + ex.what());
  }
  if (!e.ok()) {
    RC_FAIL(std::string(route) + " returned normally but the model expects " +
            (e.ovf ? "Overflow (a value does not fit int32: silent wrap)" : "OutOfRange (a read outside the table)"));
  }
  return true;
}

// Bit-for-bit comparison of a whole output buffer (written lanes and untouched lanes alike).
template <class T>
void same(std::string_view what, const std::vector<T>& got, const std::vector<T>& want, i64 cols = 0) {
  if (got.size() != want.size()) RC_FAIL(std::string(what) + ": buffer size changed");
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      std::ostringstream os;
      os << what;
      if (cols > 0) {
        os << "[" << static_cast<i64>(i) / cols << ", " << static_cast<i64>(i) % cols << "]";
      } else {
        os << "[" << i << "]";
      }
      os << ": route wrote " << static_cast<i64>(got[i]) << ", model expects " << static_cast<i64>(want[i]);
      RC_FAIL(os.str());
    }
  }
}

}  // namespace kvaddr::props::detail
