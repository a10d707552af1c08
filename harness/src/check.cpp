// The C++ harness (check.hpp): seeded cases, guarded output buffers, comparison with the host route,
// shrinking (gen/shrink.hpp, the shrinker kvaddr.check uses), variant naming, for every route of the route list
// (the per-route parts: routes_impl.inc, spec_routes.inc). Its cases are gen/'s recipes (gen/recipe.hpp).
#include "kvaddr/harness/check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "kvaddr/gen/recipe.hpp"
#include "kvaddr/gen/rng.hpp"
#include "kvaddr/gen/shrink.hpp"
#include "kvaddr/harness/compare.hpp"
#include "kvaddr/harness/naming.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/record.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"
#include "kvaddr/translate/variant.hpp"
#include "case.hpp"
#include "memory.hpp"

namespace kvaddr::harness {
namespace {

using namespace cases;
using std::int32_t;
using std::int64_t;

// ---- the draws of a case: gen/'s recipes (gen/recipe.hpp), keyed by (seed, case index) ------------------
// Every route's case is built from gen::draw_recipe, the recipe kvaddr.check draws for the same (seed, index,
// lanes): the same arrays and scalars on both front ends, presented in the same layouts where the Args structs
// express them (case.hpp Layout; present.cpp): strided 1-D inputs and rank-2 ids are presented packed.
using Rng = gen::SplitMix64;
Rng case_rng(std::uint64_t seed, std::uint64_t index) { return gen::recipe_rng(seed, index); }

// The recipe of a case as this harness draws it: its own overflow cases come from Options::overflow_fraction
// (draw_case), so the recipe's overflow edges are off (kvaddr.check's case with params big_entries and
// long_rows False).
const gen::RecipeParams kRecipeParams{{"big_entries", 0}, {"long_rows", 0}};
gen::Recipe recipe_of(Route route, Rng& rng, int64_t max_lanes) {
  return gen::draw_recipe(route, rng, max_lanes, kRecipeParams);
}
const I64s& rv(const gen::Recipe& r, const char* k) { return r.arrays.at(k).values; }
int64_t ri(const gen::Recipe& r, const char* k) { return r.ints.at(k); }

Output make_output(std::string name, bool i32, int64_t rows, int64_t stride, int64_t width, int64_t salt = 0) {
  Output o{std::move(name), i32, rows, stride, width, salt, {}};
  o.refill();
  return o;
}

int64_t at(const Case& c, const char* k) { return c.s.at(k); }
const I64s& a(const Case& c, const char* k) { return c.arr.at(k); }
int64_t size_of(const Case& c, const char* k) { return static_cast<int64_t>(c.arr.at(k).size()); }

struct RouteOps {
  Route route;
  gen::Recipe (*recipe)(Rng&, int64_t);  // the recipe of a case (gen/recipe.hpp) from its stream and lane bound
  Case (*build)(const gen::Recipe&);     // the case of a recipe (graph mode: of gen::redraw_recipe's too)
  // The host route under a variant on the case as presented (in host memory; 2-D outputs span their whole row
  // stride, so a spill past the width lands in the padding as on a GPU); may throw kvaddr::Error.
  void (*host)(const Case&, const Presented&, Variant);
  std::vector<FieldInfo> (*fields)();  // the route's arguments (the form the kernel receives)
  // Makes a drawn recipe one past an int32 precondition (nullptr: the route has no int32_wrap variant).
  void (*overflow)(gen::Recipe&, Rng&);
};

// The case of a recipe with the adjacent layout the recipe draws (present.cpp choose_adjacent).
Case build_case(const RouteOps& ops, const gen::Recipe& r) {
  Case c = ops.build(r);
  choose_adjacent(ops.route, r, c);
  return c;
}

// The host route's outputs on case `c` under `v`, from the buffers `outs` (the befores, or others of the same
// layout): the case presented in host memory exactly as the kernel gets it (strides, aliasing, one allocation for
// an adjacent layout), so that validation sees what the kernel's call would.
void reference(const RouteOps& ops, const Case& c, Variant v, Bufs& outs) {
  const std::unique_ptr<detail::Arena> m = detail::host_arena();
  const Presented p = present(*m, c, &outs);
  ops.host(c, p, v);
  for (std::size_t j = 0; j < outs.size(); ++j) outs[j] = read_output(*m, c, p, j);
}

// The expected guarded buffers under `v` (throws kvaddr::Error if the contract rejects the case).
Bufs expected(const RouteOps& ops, const Case& c, Variant v) {
  Bufs bufs;
  for (const Output& o : c.outs) bufs.push_back(o.before);
  reference(ops, c, v, bufs);
  for (auto& b : bufs) b = guarded(b);
  return bufs;
}

#include "naming.inc"

struct Outcome {
  std::string kind;  // empty: equal
  std::string detail;
  Bufs actual;
  std::vector<Lane> first;
  int64_t differing = 0;
  std::vector<int32_t> group_after;  // the adjacent allocation after the call (recorded for replay)
};

// Runs `call` on case `c` presented in `m` (into the buffers of `fixed` in graph mode) and compares with `exp`, the
// host reference under `v`: a mismatch that the racing rows of `v` can leave passes (race_allows).
template <class Call>
Outcome run_case(const RouteOps& ops, Variant v, const Case& c, const Bufs& exp, detail::Arena& m, const Call& call,
                 Presented* fixed = nullptr) {
  Outcome o;
  Presented fresh;
  if (fixed != nullptr) reload(m, c, *fixed);
  else fresh = present(m, c);
  const Presented& p = fixed != nullptr ? *fixed : fresh;
  try {
    call(c, p);
    m.sync();
  } catch (const std::exception& e) {
    o.kind = "raised";
    o.detail = e.what();
    return o;
  }
  // kvaddr/harness/compare.hpp per output, adjacent.hpp over one allocation: kvaddr.check's comparison too
  Compared2 cmp = compare_presented(m, c, p, exp);
  o.actual = std::move(cmp.actual);
  o.first = std::move(cmp.first);
  o.differing = cmp.differing;
  o.group_after = std::move(cmp.group_after);
  const bool outside = cmp.outside;
  // an output the racing rows can leave, guards intact (not a store that left an adjacent output)
  if (o.differing > 0 && !cmp.grouped_outside && race_allows(ops, c, o.actual, v)) {
    o.first.clear();
    o.differing = 0;
  }
  if (o.differing > 0) {
    o.kind = outside ? "out_of_bounds" : "mismatch";
    o.detail = cmp.neighbours;
  } else if (!cmp.input_changed.empty()) {
    o.kind = "input_modified";
    o.detail = "the kernel wrote into its input " + field_of(ops.route, cmp.input_changed);
    o.first = std::move(cmp.input_lanes);
  }
  return o;
}

}  // namespace
}  // namespace kvaddr::harness

#include "record.inc"
namespace kvaddr::harness {
namespace {

// A failing case found by check_route, before shrinking.
struct Failure {
  int64_t index = -1;
  Case c;
  Outcome o;
  Variant variant;  // the variant it was compared with (the claimed one, or its wrap for an overflow case)
  std::optional<gen::Recipe> recipe = {};  // the recipe `c` was built from (none: a replayed or graph case)
};

std::string reason_of(const Error& e) {
  static constexpr std::pair<ErrorKind, const char*> kNames[] = {
      {ErrorKind::invalid_argument, "InvalidArgument"}, {ErrorKind::out_of_range, "OutOfRange"},
      {ErrorKind::overflow, "Overflow"},                {ErrorKind::buffer_too_small, "BufferTooSmall"},
      {ErrorKind::invalid_state, "InvalidState"},       {ErrorKind::io, "IoError"},
      {ErrorKind::format, "FormatError"}};
  std::string cls = "Error";
  for (const auto& [k, n] : kNames)
    if (e.kind() == k) cls = n;
  return cls + "(" + e.argument() + ")";
}

void note_rejected(Report& r, const Error& e) {
  ++r.rejected;
  ++r.rejections[reason_of(e)];
}

void validate_options(const RouteOps& ops, const Options& opt) {
  const std::string route(to_string(ops.route));
  if (!route_accepts(ops.route, opt.variant)) {
    throw InvalidArgument("variant", std::string(to_string(opt.variant)), "not a variant of route " + route);
  }
  if (opt.cases < 0) throw InvalidArgument("cases", std::to_string(opt.cases), "must be >= 0");
  if (opt.max_lanes < 1) throw InvalidArgument("max_lanes", std::to_string(opt.max_lanes), "must be >= 1");
  if (opt.overflow != OverflowPolicy::observe && opt.overflow != OverflowPolicy::wrap &&
      opt.overflow != OverflowPolicy::skip) {
    throw InvalidArgument("overflow", std::to_string(static_cast<int>(opt.overflow)), "must be observe, wrap or skip");
  }
  if (!(opt.shrink_seconds >= 0.0 && opt.shrink_seconds <= 1e9)) {
    throw InvalidArgument("shrink_seconds", std::to_string(opt.shrink_seconds), "must lie in [0, 10^9]");
  }
  if (!(opt.overflow_fraction >= 0.0 && opt.overflow_fraction <= 1.0)) {
    throw InvalidArgument("overflow_fraction", std::to_string(opt.overflow_fraction), "must lie in [0, 1]");
  }
  if (!opt.replay_dir.empty() && std::filesystem::exists(opt.replay_dir) &&
      !std::filesystem::is_directory(opt.replay_dir)) {
    throw InvalidArgument("replay_dir", opt.replay_dir, "exists and is not a directory");
  }
  if (opt.graph) {
    const bool emulated = opt.memory == Memory::host && detail::graph_emulated_on_host();  // the host test hook
    if (!emulated && !detail::built_with_cuda()) {
      throw InvalidArgument("graph", "true", "kvaddr was built without CUDA: graph mode needs CUDA graphs");
    }
    if (opt.memory != Memory::device && !emulated) {
      throw InvalidArgument("graph", "true", "graph mode needs Memory::device");
    }
    if (!opt.from_replay.empty()) {
      throw InvalidArgument("graph", "true", "from_replay runs one recorded case eagerly; leave graph false");
    }
  }
  if (!opt.from_replay.empty() && !std::filesystem::is_directory(opt.from_replay)) {
    throw InvalidArgument("from_replay", opt.from_replay, "is not a directory");
  }
}

// The recipe of case i of the seed: the route's draw, made an overflow case in a share opt.overflow_fraction of
// the cases (decided on a stream of its own, so that the draw itself is the same whatever the fraction).
gen::Recipe draw_case(const RouteOps& ops, const Options& opt, int64_t i) {
  Rng rng = case_rng(opt.seed, static_cast<std::uint64_t>(i));
  gen::Recipe r = ops.recipe(rng, opt.max_lanes);
  if (ops.overflow != nullptr && opt.overflow_fraction > 0.0) {
    Rng orng = case_rng(opt.seed ^ 0x6F766572666C6F77ULL, static_cast<std::uint64_t>(i));
    if (orng.unit() < opt.overflow_fraction) ops.overflow(r, orng);
  }
  return r;
}

// An overflow case (the claimed reference raised Overflow `e`): run under opt.overflow; returns a failure in
// wrap mode when the kernel differs from the wrap variant.
template <class Call>
std::optional<Failure> overflow_case(Report& r, const RouteOps& ops, const Options& opt, detail::Arena& mem,
                                     const Call& call, int64_t index, Case c, gen::Recipe recipe, const Overflow& e) {
  if (opt.overflow == OverflowPolicy::skip) return std::nullopt;
  const Variant wrap = opt.variant | Variant::int32_wrap;
  if (!route_accepts(ops.route, wrap)) return std::nullopt;
  Bufs exp;
  try {
    exp = expected(ops, c, wrap);
  } catch (const Error&) {
    return std::nullopt;  // outside the wrap variant's contract too
  }
  Outcome o = run_case(ops, wrap, c, exp, mem, call);
  OverflowSummary& s = r.overflow;
  ++s.cases;
  s.variant = std::string(to_string(wrap, ops.route));
  if (o.kind.empty()) {
    ++s.behaves_like_wrap;
    for (const auto& b : exp) s.lanes += static_cast<int64_t>(b.size());
    return std::nullopt;
  }
  if (opt.overflow == OverflowPolicy::wrap) return Failure{index, std::move(c), std::move(o), wrap, std::move(recipe)};
  ++(o.kind == "raised" ? s.raised : s.differs);
  if (s.first.empty()) {
    std::ostringstream os;
    os << "case " << index << " (" << e.what() << "): " << o.kind << ": ";
    if (!o.detail.empty()) os << o.detail;
    else if (!o.first.empty())
      os << o.first[0].output << "[" << (o.first[0].matrix ? std::to_string(o.first[0].row) + ", " : "")
         << o.first[0].col << "] expected " << o.first[0].expected << ", got " << o.first[0].actual;
    s.first = os.str();
  }
  return std::nullopt;
}

// Counts case i that ran: its checked lanes when it passed, else the failure to report.
std::optional<Failure> tally(Report& r, int64_t i, Case&& c, Outcome&& o, const Bufs& exp, Variant claimed,
                             std::optional<gen::Recipe> recipe = std::nullopt) {
  ++r.cases;
  if (!o.kind.empty()) return Failure{i, std::move(c), std::move(o), claimed, std::move(recipe)};
  for (const auto& b : exp) r.lanes += static_cast<int64_t>(b.size());
  return std::nullopt;
}

// The accepted steps shrinking may take (its wall time: Options::shrink_seconds).
constexpr int64_t kShrinkSteps = 2000;

// Shrinks (unless `shrink` is false), names and records failure `f` into `r`.
template <class Call>
void explain(Report& r, const RouteOps& ops, const Options& opt, detail::Arena& mem, const Call& call, Failure f,
             bool shrink) {
  r.ok = false;
  r.case_index = f.index;
  const Variant claimed = f.variant;
  r.variant = std::string(to_string(claimed, ops.route));
  Case& c = f.c;
  Outcome& o = f.o;
  const std::string kind = o.kind;
  const bool output_kind = kind == "mismatch" || kind == "out_of_bounds";
  auto names_of = [&](const Case& cc, const Bufs& actual) {
    return output_kind ? name_variants(ops, cc, actual, claimed)
                       : (kind == "raised" ? name_raises(ops, cc, claimed) : std::vector<std::string>{});
  };
  const std::vector<std::string> names0 = names_of(c, o.actual);
  // a store that landed in an adjacent argument keeps landing in one (kvaddr.check's rule: the minimal case shows
  // the layout)
  const auto into_neighbour = [](const Outcome& x) {
    return std::any_of(x.first.begin(), x.first.end(), [](const Lane& l) { return l.region.rfind("neighbour_", 0) == 0; });
  };
  const bool neighbour0 = into_neighbour(o);
  auto keeps_a_name = [&](const Case& cand, const Bufs& actual) {
    if (names0.empty()) return true;  // keep the catalogue name the original case had
    for (const std::string& n : names_of(cand, actual))
      if (std::find(names0.begin(), names0.end(), n) != names0.end()) return true;
    return false;
  };
  if (shrink && f.recipe) {  // gen/shrink.hpp over the case's recipe: the same kind, a catalogue name kept
    const gen::Shrunk s = gen::shrink_recipe(std::string(to_string(ops.route)), *f.recipe, [&](const gen::Recipe& cand) {
      Case cc = build_case(ops, cand);
      Bufs e;
      try {
        e = expected(ops, cc, claimed);
      } catch (const Error&) {
        return false;
      }
      Outcome oc = run_case(ops, claimed, cc, e, mem, call);
      if (oc.kind != kind || (neighbour0 && !into_neighbour(oc)) || !keeps_a_name(cc, oc.actual)) return false;
      c = std::move(cc);
      o = std::move(oc);
      return true;
    }, opt.shrink_seconds, kShrinkSteps);
    r.shrink_steps = s.steps;
  }
  r.kind = o.kind;
  r.detail = o.detail;
  r.first = o.first;
  r.differing = o.differing;
  r.minimal_case = describe(c);
  r.behaves_like = names_of(c, o.actual);
  if (!opt.replay_dir.empty()) {
    Bufs after = o.actual;
    if (after.size() != c.outs.size()) {  // a kernel that raised: the buffers as they were before the call
      after.clear();
      for (const Output& out : c.outs) after.push_back(guarded(out.before));
    }
    r.replay_dir = write_replay(ops, c, after, o.group_after, claimed, opt, f.index, r);
    const bool i32_form = (ops.route == Route::token_translate || ops.route == Route::swa_translate) && c.outs[0].i32;
    std::ostringstream t;
    t << "TEST(KvaddrRegression, " << r.route << "_seed" << opt.seed << "_case" << f.index << ") {\n"
      << "  const auto r = kvaddr::harness::check_" << r.route << (i32_form ? "_i32" : "")
      << "(my_kernel, {" << (opt.memory == Memory::device ? ".memory = kvaddr::harness::Memory::device, " : "")
      << ".from_replay = \"" << r.replay_dir << "\"});\n"
      << "  EXPECT_TRUE(r.ok) << r.to_text();\n}\n";
    r.snippet = t.str();
  }
  if (output_kind && r.behaves_like.empty()) infer_names(ops, c, o.actual, o.group_after, claimed, opt, f.index, r);
}

// The eager cases: each drawn, presented afresh, called, compared.
template <class Call>
std::optional<Failure> eager_cases(Report& r, const RouteOps& ops, const Options& opt, detail::Arena& mem,
                                   const Call& call) {
  for (int64_t i = 0; i < opt.cases; ++i) {
    gen::Recipe recipe = draw_case(ops, opt, i);
    Case c = build_case(ops, recipe);
    Bufs exp;
    try {
      exp = expected(ops, c, opt.variant);
    } catch (const Overflow& e) {
      note_rejected(r, e);
      if (auto f = overflow_case(r, ops, opt, mem, call, i, std::move(c), std::move(recipe), e)) return f;
      continue;
    } catch (const Error& e) {
      note_rejected(r, e);
      continue;
    }
    Outcome o = run_case(ops, opt.variant, c, exp, mem, call);
    if (auto f = tally(r, i, std::move(c), std::move(o), exp, opt.variant, std::move(recipe))) return f;
  }
  return std::nullopt;
}

// Sets the stream the kernel is told to launch on (stream()) for the lifetime of the guard.
thread_local void* g_stream = nullptr;
struct StreamGuard {
  explicit StreamGuard(void* s) : saved(g_stream) { g_stream = s; }
  ~StreamGuard() { g_stream = saved; }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  void* saved;
};

// Graph mode: the capture case (the first of case 0, then draws 10^6 + 1, ... that the contract admits, without
// the out == ids alias, the tables' lengths halved), an eager warm-up call on it, one capture of the call over its buffers, then every later
// case redrawn at its shapes, loaded into the same buffers and compared after a replay of the graph.
template <class Call>
std::optional<Failure> graph_cases(Report& r, const RouteOps& ops, const Options& opt, detail::Arena& mem,
                                   const Call& call) {
  if (opt.cases == 0) return std::nullopt;
  // The capture case, as kvaddr.graph captures: the first draw (case 0, then 10^6 + 1, ...) whose table is at
  // least 4 columns wide and inside the contract, without aliasing, its lengths halved (a short batch, as
  // engines capture: later cases may be longer). Later case i: gen::redraw_recipe of it on case i's stream.
  gen::Recipe r0;
  Case c0;
  Bufs exp0;
  bool found = false;
  for (int64_t j = 0; j < 64 && !found; ++j) {
    Rng rng = case_rng(opt.seed, static_cast<std::uint64_t>(j == 0 ? 0 : 1000000 + j));
    r0 = ops.recipe(rng, opt.max_lanes);
    if (r0.ints.count("width") && r0.ints.at("width") < 4) continue;
    if (r0.bools.count("alias")) r0.bools["alias"] = false;
    if (r0.ints.count("overlap")) r0.ints["overlap"] = 0;
    if (r0.bools.count("overlap")) r0.bools["overlap"] = false;
    r0.ints["adjacent_pool"] = 0;  // separate allocations, as kvaddr.graph captures
    if (r0.arrays.count("lens"))
      for (auto& l : r0.arrays.at("lens").values) l /= 2;
    c0 = build_case(ops, r0);
    try {
      exp0 = expected(ops, c0, opt.variant);
      found = true;
    } catch (const Error&) {
    }
  }
  if (!found) {
    throw InvalidArgument("seed", std::to_string(opt.seed),
                          "graph mode found no capture case inside the contract in 64 draws; pick another seed");
  }
  Presented p = present(mem, c0);
  const StreamGuard guard(mem.stream());
  Outcome o0 = run_case(ops, opt.variant, c0, exp0, mem, call, &p);  // the warm-up call
  ++r.cases;
  if (!o0.kind.empty()) return Failure{0, std::move(c0), std::move(o0), opt.variant};
  for (const auto& b : exp0) r.lanes += static_cast<int64_t>(b.size());
  reload(mem, c0, p);
  const bool emulated = opt.memory == Memory::host;  // detail::emulate_graph_on_host: the call is the "graph"
  try {
    if (!emulated) {
      mem.begin_capture();
      try {
        call(c0, p);
      } catch (...) {
        mem.abort_capture();
        throw;
      }
      mem.end_capture();
    }
  } catch (const std::exception& e) {
    Outcome oc;
    oc.kind = "raised";
    oc.detail = std::string("capture failed: ") + e.what();
    return Failure{0, std::move(c0), std::move(oc), opt.variant};
  }
  for (int64_t i = 1; i < opt.cases; ++i) {
    Rng rng = case_rng(opt.seed, static_cast<std::uint64_t>(i));
    Case c = ops.build(gen::redraw_recipe(ops.route, r0, rng));
    Bufs exp;
    try {
      exp = expected(ops, c, opt.variant);
    } catch (const Error& e) {
      note_rejected(r, e);
      continue;
    }
    Outcome o = run_case(
        ops, opt.variant, c, exp, mem,
        [&](const Case&, const Presented&) {
          if (emulated) call(c0, p);
          else mem.launch_graph();
        },
        &p);
    if (auto f = tally(r, i, std::move(c), std::move(o), exp, opt.variant)) return f;
  }
  return std::nullopt;
}

template <class Call>
Report check_route(const RouteOps& ops, const Options& opt, const Call& call) {
  Report r;
  r.route = std::string(to_string(ops.route));
  validate_options(ops, opt);
  r.graph = opt.graph;
  std::unique_ptr<detail::Arena> mem = opt.memory == Memory::device ? detail::device_arena() : detail::host_arena();
  std::optional<Failure> failed;
  if (!opt.from_replay.empty()) {
    auto [c, v] = load_replay(ops, opt.from_replay);
    Bufs exp;
    try {
      exp = expected(ops, c, v);
    } catch (const Error& e) {
      note_rejected(r, e);
      return r;
    }
    Outcome o = run_case(ops, v, c, exp, *mem, call);
    ++r.cases;
    if (o.kind.empty()) {
      for (const auto& b : exp) r.lanes += static_cast<int64_t>(b.size());
    } else {
      failed = Failure{0, std::move(c), std::move(o), v};
    }
    Options plain = opt;
    plain.replay_dir.clear();  // the case is already recorded
    if (failed) explain(r, ops, plain, *mem, call, std::move(*failed), false);
    return r;
  }
  failed = opt.graph ? graph_cases(r, ops, opt, *mem, call) : eager_cases(r, ops, opt, *mem, call);
  // graph failures are not shrunk: the shapes are those of the captured graph
  if (failed) explain(r, ops, opt, *mem, call, std::move(*failed), opt.shrink && !opt.graph);
  return r;
}

}  // namespace
}  // namespace kvaddr::harness

#include "routes_impl.inc"
#include "spec_routes.inc"
