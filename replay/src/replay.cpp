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
#include "loader.hpp"
#include "manifest.hpp"
#include "prepare.hpp"
#include "races.hpp"

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
  r.variant = std::string(to_string(claim.variant, route));
  detail::check_era(call);
  Call c(call, dir, options.allow_outside);
  Prepared p = prepare(route, c, claim);
  c.check_all_used();

  std::vector<I64> expected;
  try {
    expected = p.run(claim.variant);
  } catch (const kvaddr::Error& e) {
    bad(std::string("the reference route rejects this call: ") + e.what());
  }
  // The host route and the independent model must agree on production (a kvaddr defect otherwise).
  if (p.model && claim.variant == Variant::production) {
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
  std::optional<Race> claimed_race = race_for(p, route, claim.variant, expected, claimed_writes);
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    compare(p.outputs[k], expected[k], claimed_race ? &(*claimed_writes)[k] : nullptr, r);
  }
  r.status = r.lanes_differing != 0 ? CallStatus::differs : (claimed_race ? CallStatus::race : CallStatus::equal);

  std::vector<Race> races;  // of the variants tried, in search order
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
  }, options.search);
  r.matching_variants = variant_names(route, search.found);
  r.search_stopped_after = search.stopped_after;
  if (claimed_race) r.races.push_back(std::move(*claimed_race));
  for (Race& race : races) {
    const bool matched = std::find(r.matching_variants.begin(), r.matching_variants.end(), race.variant) !=
                         r.matching_variants.end();
    if (matched && race.variant != r.variant) r.races.push_back(std::move(race));
  }
  if (p.preconditions) r.broken_preconditions = p.preconditions();
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
