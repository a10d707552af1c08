// Replay of recorded kernel calls: the lane-by-lane comparison of a prepared call (prepare.hpp,
// loader.hpp) and the variant search. See replay.hpp and docs/replay.md.
#include "kvaddr/replay/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"
#include "behaves_like.hpp"
#include "call.hpp"
#include "infer.hpp"
#include "loader.hpp"
#include "manifest.hpp"
#include "prepare.hpp"
#include "race_report.hpp"

namespace kvaddr::replay {
namespace {

using namespace load;  // NOLINT(google-build-using-namespace): the loaded call's types

// Lane-by-lane comparison of one output, its guard regions included; `writes` (optional) are the
// variant's stores per lane, so that a contested lane accepts each of its possible values.
void compare(const Output& o, const I64& expected, const detail::LaneWrites* writes, CallReport& r) {
  detail::compare_lanes(o.name, o.shape, o.row_stride, expected, o.after, writes, r, o.width);
  detail::compare_guards(o.name, o.parent_before, o.parent_after, o.offset, static_cast<std::int64_t>(o.before.size()), r);
}

bool guards_intact(const Output& o) {
  return detail::guards_intact(o.parent_before, o.parent_after, o.offset, static_cast<std::int64_t>(o.before.size()));
}

// The race of variant v on this call: nullopt unless v spills, its stores can be split by row and
// some lane is stored with >= 2 different values. `host` is v's output in the host's order.
std::optional<Race> race_for(const Prepared& p, Route route, Variant v, const std::vector<I64>& host,
                             std::optional<std::vector<detail::LaneWrites>>& writes) {
  writes.reset();
  if (!p.writes || !spills(v)) return std::nullopt;
  writes = p.writes(v);
  if (!writes || writes->size() != p.outputs.size() || host.size() != p.outputs.size()) return std::nullopt;
  std::vector<detail::RacedOutput> raced;
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    const Output& o = p.outputs[k];
    raced.push_back({&o.name, &o.shape, o.row_stride, &o.after, &host[k], &(*writes)[k], guards_intact(o), o.width});
  }
  return detail::race_of(std::string(to_string(v, route)), raced);
}

// Whether the claimed variant's error is the kernel's difference rather than a broken call: an
// Overflow (an int32 output that the kernel wrapped) or a store past an output buffer (a spill).
bool claim_raise_is_difference(const kvaddr::Error& e, const std::vector<Output>& outs) {
  if (dynamic_cast<const Overflow*>(&e) != nullptr) return true;
  if (dynamic_cast<const OutOfRange*>(&e) == nullptr) return false;
  return std::any_of(outs.begin(), outs.end(), [&](const Output& o) { return o.name == e.argument(); });
}

bool equal_outputs(const std::vector<Output>& outs, const std::vector<I64>& got);

// No catalogue variant reproduces the call: the inferred behaviours (infer.hpp), each confirmed by
// re-execution. A claim that raised only because its stores ran past the recorded memory and that
// reproduces every recorded lane on grown memory is the claim itself: the call is then equal.
void explain_by_inference(const json& call, Route route, const Claim& claim, const Prepared& p, const Call& loaded,
                          const std::filesystem::path& dir, bool allow_outside, SearchMeter& meter, CallReport& r) {
  detail::InferCall ic{route, &p, std::nullopt, route == Route::decode_metadata ? "max_seq_pages" : "max_pages",
                       r.lanes_differing};
  if (call.contains("scalars") && call.at("scalars").is_object()) {
    const json& sc = call.at("scalars");
    if (sc.contains(ic.bound_name) && sc.at(ic.bound_name).is_number_integer())
      ic.column_bound = sc.at(ic.bound_name).get<std::int64_t>();
  }
  detail::InferResult inf = detail::infer(ic, meter, claim.variant);
  if (inf.found.empty() && behaviour_in_route(route, Behaviour::int32_lane_offsets)) {
    // The per-id launch's lanes at or past 2^31 (int32_lane_offsets), read off the differing lanes.
    detail::InferResult lanes = detail::infer_lane_offsets(ic, claim.variant);
    if (!lanes.found.empty()) inf = std::move(lanes);
  }
  if (!r.claim_raises.empty() && !inf.found.empty() && inf.found.front().variant == r.variant) {
    r.status = CallStatus::equal;
    r.matching_variants.push_back(r.variant);
    for (const Output& o : p.outputs)  // every recorded lane was compared by the confirmation
      r.lanes_checked += static_cast<std::int64_t>(std::max(o.after.size(), o.parent_after.size()));
  }
  if (inf.found.empty()) {
    // An input read with another stride: the call re-loaded with the input re-presented, run under the claim.
    detail::InferResult pres = detail::infer_presentations(
        loaded.vector_inputs(), loaded.strided_inputs(),
        [&](const detail::Presentation& pr) {
          Claim c2 = claim;
          c2.presented.push_back(pr);
          Call c(call, dir, allow_outside, c2.presented);
          Prepared p2 = prepare(route, c, c2);
          c.check_all_used();
          return equal_outputs(p2.outputs, p2.run(c2.variant));
        },
        [&](const detail::Presentation& pr) {
          Claim c2 = claim;
          c2.presented.push_back(pr);
          return detail::claim_text(c2, route);
        },
        meter);
    if (!pres.found.empty()) inf = std::move(pres);
  }
  for (auto& f : inf.found) f.lanes_explained = r.lanes_differing;
  r.inferred = std::move(inf.found);
  r.not_explained = std::move(inf.not_explained);
}

bool equal_outputs(const std::vector<Output>& outs, const std::vector<I64>& got) {
  if (got.size() != outs.size()) return false;
  for (std::size_t k = 0; k < outs.size(); ++k)
    if (got[k] != outs[k].after || !guards_intact(outs[k])) return false;
  return true;
}

}  // namespace

namespace detail {
void check_call(const json& call, const std::filesystem::path& dir, const ReplayOptions& options, CallReport& r) {
  if (!call.is_object()) bad("a call must be a JSON object");
  if (call.contains("name")) {
    if (!call.at("name").is_string()) bad("'name' must be a string");
    r.name = call.at("name").get<std::string>();
  }
  if (!call.contains("route") || !call.at("route").is_string()) bad("missing 'route' (a spec route name)");
  r.route = call.at("route").get<std::string>();
  if (call.contains("variant") && call.at("variant").is_string()) r.variant = call.at("variant").get<std::string>();
  Route route{};
  try {
    route = parse_route(r.route);
  } catch (const kvaddr::Error&) {
    bad("unknown route '" + r.route + "' (expected a spec §4.1-4.13 route name)");
  }
  const Claim claim = detail::read_claim(call, route);
  r.variant = detail::claim_text(claim, route);
  detail::check_era(call);
  Call c(call, dir, options.allow_outside, claim.presented);
  Prepared p = prepare(route, c, claim);
  c.check_all_used();

  std::vector<I64> expected;
  try {
    expected = p.run(claim.variant);
  } catch (const kvaddr::Error& e) {
    // A value that does not fit an int32 output, or a store past an output: what the kernel made of
    // the call differs from the claim there, a difference to explain (the search below), not an error.
    if (!claim_raise_is_difference(e, p.outputs)) bad(std::string("the reference route rejects this call: ") + e.what());
    r.claim_raises = e.what();
  }
  // The host route and the independent model must agree on production (a kvaddr defect otherwise).
  if (p.model && claim.variant == Variant::production && r.claim_raises.empty()) {
    std::vector<I64> model;
    try {
      model = p.model();
    } catch (const kvaddr::Error& e) {
      bad(std::string("kvaddr internal disagreement: the host route accepts this call but the model rejects it: ") +
          e.what());
    }
    for (std::size_t k = 0; k < model.size(); ++k) {
      for (std::size_t i = 0; i < model[k].size(); ++i) {
        if (model[k][i] != expected[k][i]) {
          bad(fmt::format("kvaddr internal disagreement at {} lane {}: host route {}, model {}", p.outputs[k].name, i,
                          expected[k][i], model[k][i]));
        }
      }
    }
    r.model_checked = true;
  }
  // A claimed variant whose rows race: a contested lane accepts each of its possible values.
  std::optional<std::vector<detail::LaneWrites>> claimed_writes;
  std::optional<Race> claimed_race;
  if (r.claim_raises.empty()) {
    claimed_race = race_for(p, route, claim.variant, expected, claimed_writes);
    for (std::size_t k = 0; k < p.outputs.size(); ++k) {
      compare(p.outputs[k], expected[k], claimed_race ? &(*claimed_writes)[k] : nullptr, r);
    }
  }
  r.status = r.lanes_differing != 0 || !r.claim_raises.empty()
                 ? CallStatus::differs
                 : (claimed_race ? CallStatus::race : CallStatus::equal);

  std::vector<Race> races;  // of the variants tried, in search order
  SearchMeter meter(options.search);  // the call's whole search: behaves-like, then inference
  const SearchResult search = smallest_matching(route, [&](Variant v) {
    if (v == claim.variant) return r.status != CallStatus::differs;
    try {
      const std::vector<I64> got = p.run(v);
      std::optional<std::vector<detail::LaneWrites>> writes;
      if (std::optional<Race> race = race_for(p, route, v, got, writes)) {
        const bool consistent = race->consistent;
        races.push_back(std::move(*race));
        return consistent;
      }
      return equal_outputs(p.outputs, got);
    } catch (const kvaddr::Error&) {
      return false;  // this variant cannot produce the recording (e.g. it reads outside a table)
    }
  }, meter);
  r.matching_variants = variant_names(route, search.found);
  r.search_stopped_after = search.stopped_after;
  if (claimed_race) r.races.push_back(std::move(*claimed_race));
  for (Race& race : races) {
    const bool matched = std::find(r.matching_variants.begin(), r.matching_variants.end(), race.variant) !=
                         r.matching_variants.end();
    if (matched && race.variant != r.variant) r.races.push_back(std::move(race));
  }
  if (p.preconditions) r.broken_preconditions = p.preconditions();
  if (r.status == CallStatus::differs && r.matching_variants.empty()) {
    explain_by_inference(call, route, claim, p, c, dir, options.allow_outside, meter, r);
  }
}

}  // namespace detail

NpyArray read_dir_input(const std::filesystem::path& dir, const std::string& entry, const ReplayOptions& options) {
  const json call = {{"inputs", {{"input", detail::parse_manifest(entry)}}}};
  try {
    Call c(call, dir, options.allow_outside);
    Arr a = c.input("input", Want::widen, 1, 2);
    NpyArray out;
    out.dtype = a.dtype;
    out.descr = a.dtype == NpyDtype::int32 ? "<i4" : "<i8";
    out.shape = std::move(a.shape);
    out.values = std::move(a.v);
    return out;
  } catch (const detail::CallError& e) {
    if (e.kind() == ErrorKind::io) throw IoError("input", "manifest entry", e.what());
    if (e.kind() == ErrorKind::format) throw FormatError("input", "manifest entry", e.what());
    throw InvalidArgument("input", "manifest entry", e.what());
  }
}

}  // namespace kvaddr::replay
