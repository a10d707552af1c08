// `kvaddr draw`: pictures (SVG files, or text on the terminal) of a pool, a route's output beside
// the reference, the kill matrix and the proofs' verdicts.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "args.hpp"
#include "draw_report.hpp"
#include "kvaddr/draw/draw.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/pool.hpp"
#include "kvaddr/translate/validate.hpp"
#include "subcommands.hpp"

#ifdef KVADDR_WITH_ZOO
#include "kvaddr/zoo/zoo.hpp"
#endif
#ifdef KVADDR_WITH_PROOFS
#include "kvaddr/proofs/registry.hpp"
#endif

namespace kvaddr::cli {

namespace {

// The option values of draw's subcommands (a default-constructed one holds every default).
struct DrawValues {
  std::string svg;
  std::vector<std::string> v2p, after, names;
  std::vector<std::int64_t> page_size{1}, multiplier{1};
  TranslateOptions route_options;
  std::vector<std::string> only;
  bool simulate = false;
};

// The subcommands and the values they bind; reset() keeps the subcommands.
struct DrawState final : Subcommands, DrawValues {
  CLI::App* draw = nullptr;
  CLI::App* pool = nullptr;
  CLI::App* route = nullptr;
  CLI::App* zoo = nullptr;
  CLI::App* proofs = nullptr;
  void reset() override { static_cast<DrawValues&>(*this) = DrawValues{}; }
  int run(const Context& ctx) override;
};

// One value per sub-pool: a single value is shared by all.
std::int64_t pick(const std::vector<std::int64_t>& v, std::size_t i, const std::string& option) {
  if (v.size() == 1) return v[0];
  if (i >= v.size()) throw InvalidArgument(option, std::to_string(v.size()) + " values", "give one, or one per --v2p");
  return v[i];
}

std::vector<draw::PoolState> pool_states(const DrawValues& s, const std::vector<std::string>& tables,
                                         const std::string& option) {
  std::vector<draw::PoolState> states;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    draw::PoolState st;
    st.name = i < s.names.size() ? s.names[i] : (tables.size() == 1 ? "pool" : fmt::format("sub-pool {}", i));
    st.page_size = pick(s.page_size, i, "--page-size");
    st.multiplier = pick(s.multiplier, i, "--multiplier");
    st.v2p = load_array(tables[i], option, false).values;
    states.push_back(std::move(st));
  }
  return states;
}

// The model's own compaction (model::SubPool): three requests of two pages, then an eager free
// of the middle one; the survivors move into the holes. Returns {before, after}.
std::pair<draw::PoolState, draw::PoolState> simulated_compaction(std::int64_t ps, std::int64_t m) {
  model::SubPool pool(model::Geometry(ps, m, 8, m, 1, 2));
  std::vector<std::vector<model::VirtualPage>> reqs;
  for (int r = 0; r < 3; ++r) reqs.push_back(pool.alloc_pages(2));
  auto state = [&](const std::string& name) {
    const auto v2p = pool.v2p();
    return draw::PoolState{name, ps, m, std::vector<std::int64_t>(v2p.begin(), v2p.end()), 8};
  };
  auto before = state("simulated pool");
  pool.free_eager(reqs[0]);
  return {before, state("simulated pool")};
}

// The sub-pools' inputs, for the picture's provenance comment.
nlohmann::json pool_inputs(const std::vector<draw::PoolState>& before, const std::vector<draw::PoolState>& after) {
  nlohmann::json j{{"names", nlohmann::json::array()}, {"page_size", nlohmann::json::array()},
                   {"multiplier", nlohmann::json::array()}, {"v2p", nlohmann::json::array()}};
  for (const auto& st : before) {
    j["names"].push_back(st.name);
    j["page_size"].push_back(st.page_size);
    j["multiplier"].push_back(st.multiplier);
    j["v2p"].push_back(st.v2p);
  }
  if (!after.empty()) {
    j["after"] = nlohmann::json::array();
    for (const auto& st : after) j["after"].push_back(st.v2p);
  }
  return j;
}

// The options given to `draw route`, each value as given, lists and .npy files as their arrays.
nlohmann::json route_inputs(const CLI::App* sub, const std::vector<std::int64_t>& ids) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto* o : sub->get_options()) {
    if (o->count() == 0 || o->get_lnames().empty()) continue;
    const auto name = o->get_lnames().front();
    if (name == "svg" || name == "json" || name == "quiet" || name == "help" || name == "ids") continue;
    for (const auto& raw : o->results()) {
      nlohmann::json v = raw;
      const bool array = raw.find_first_of(",;") != std::string::npos || raw.ends_with(".npy");
      if (array) {
        const auto a = load_array(raw, "--" + name, raw.find(';') != std::string::npos);
        v = {{"shape", a.shape}, {"values", a.values}};
      }
      if (o->get_expected_max() > 1) {
        j[name].push_back(v);
      } else {
        j[name] = v;
      }
    }
  }
  j["ids"] = ids;
  return j;
}

int emit(const Context& ctx, const std::string& path, const std::string& kind, const std::string& bare_svg,
         const std::string& text, const nlohmann::json& inputs) {
  const auto svg = with_provenance(bare_svg, ctx, inputs);
  if (!path.empty()) write_svg_file(path, svg);
  if (ctx.json) {
    nlohmann::json j{{"picture", kind}, {"svg", path.empty() ? nlohmann::json(svg) : nlohmann::json(path)},
                     {"text", text}};
    ctx.out << with_schema(j, "draw").dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    ctx.out << text;
    if (!path.empty()) ctx.out << "wrote " << path << "\n";
  }
  return 0;
}

}  // namespace

std::unique_ptr<Subcommands> register_draw(CLI::App& app) {
  auto state = std::make_unique<DrawState>();
  auto& s = *state;
  s.draw = app.add_subcommand("draw", "Pictures: a pool, a route's output beside the reference, the kill matrix, proofs");
  s.draw->require_subcommand(1);
  s.draw->footer("Each picture prints as text; --svg FILE also writes it as an SVG document.\nExamples:\n"
                 "  kvaddr draw pool --page-size 4 --multiplier 2 --v2p 0,3,-1,1,-1 --after 0,1,-1,2,-1 --svg pool.svg\n"
                 "  kvaddr draw route --route token_translate --variant b17_doc_formula --page-size 4 --multiplier 3 \\\n"
                 "      --v2p 0,5,-1,2,-1 --ids 5,9,13 --svg route.svg\n"
                 "  kvaddr draw zoo --only production --only b10_no_max_pages_bound --svg zoo.svg");
  auto svg_option = [&s](CLI::App* sub) { sub->add_option("--svg", s.svg, "Also write the picture to this SVG file"); };

  s.pool = s.draw->add_subcommand("pool", "Virtual pages -> physical pages -> dense rows; compaction moves with --after");
  s.pool->add_option("--v2p", s.v2p, "v2p of a sub-pool as stored (repeat for several sub-pools)");
  s.pool->add_flag("--simulate", s.simulate,
                   "Draw the model's own compaction: 3 requests of 2 pages, the first freed eagerly");
  s.pool->add_option("--after", s.after, "v2p of the same sub-pools after a compaction (draws the moves)");
  s.pool->add_option("--name", s.names, "Sub-pool names (one per --v2p)");
  s.pool->add_option_function<std::vector<std::string>>(
      "--page-size", [&s](const std::vector<std::string>& v) {
        s.page_size.clear();
        for (const auto& x : v) s.page_size.push_back(parse_int(x, "--page-size", 1, 1 << 20));
      }, "Page size (one, or one per sub-pool)")->default_str("1");
  s.pool->add_option_function<std::vector<std::string>>(
      "--multiplier", [&s](const std::vector<std::string>& v) {
        s.multiplier.clear();
        for (const auto& x : v) s.multiplier.push_back(parse_int(x, "--multiplier", 1, 1 << 20));
      }, "Row blocks per envelope M (one, or one per sub-pool)")->default_str("1");
  svg_option(s.pool);

  s.route = s.draw->add_subcommand("route", "A route's output (under --variant) beside the production reference");
  add_translate_options(s.route, s.route_options);
  svg_option(s.route);

  s.zoo = s.draw->add_subcommand("zoo", "The kill matrix as a heat map (variants x check kinds)");
  s.zoo->add_option("--only", s.only, "Only these variant rows");
  svg_option(s.zoo);

  s.proofs = s.draw->add_subcommand("proofs", "The proofs' verdicts against their expected outcome");
  s.proofs->add_option("--only", s.only, "Only these obligations (names or dotted prefixes)");
  svg_option(s.proofs);
  return state;
}

namespace {

int run_draw(const DrawState& s, const Context& ctx) {
  if (!s.draw->parsed()) return -1;
  if (s.pool->parsed()) {
    if (s.simulate) {
      if (!s.v2p.empty() || !s.after.empty()) throw InvalidArgument("--simulate", "(given)", "excludes --v2p and --after");
      const auto [b, a] = simulated_compaction(pick(s.page_size, 0, "--page-size"), pick(s.multiplier, 0, "--multiplier"));
      auto inputs = pool_inputs({b}, {a});
      inputs["simulate"] = true;
      return emit(ctx, s.svg, "pool", draw::pool_svg({b}, {a}), draw::pool_text({b}, {a}), inputs);
    }
    if (s.v2p.empty()) throw InvalidArgument("--v2p", "missing", "give --v2p (one per sub-pool) or --simulate");
    const auto before = pool_states(s, s.v2p, "--v2p");
    const auto after = s.after.empty() ? std::vector<draw::PoolState>{} : pool_states(s, s.after, "--after");
    return emit(ctx, s.svg, "pool", draw::pool_svg(before, after), draw::pool_text(before, after),
                pool_inputs(before, after));
  }
  if (s.route->parsed()) {
    std::vector<std::string> given;
    for (const auto* o : s.route->get_options()) {
      if (o->count() > 0 && o->get_name() != "--svg") {
        given.push_back(o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front());
      }
    }
    check_translate_options(s.route_options, given);
    std::optional<std::int64_t> fill;
    const auto variant = parse_variant(s.route_options.variant);
    std::vector<std::int64_t> ids;
    const auto got = compute_outputs(s.route_options, variant, &ids, &fill);
    const auto expected = compute_outputs(s.route_options, Variant::production, nullptr, nullptr);
    std::string svg, text;
    for (std::size_t k = 0; k < got.size(); ++k) {
      draw::TableView t;
      t.title = fmt::format("{} {} ({} vs production)", s.route_options.route, got[k].name, s.route_options.variant);
      t.rows = got[k].shape.size() == 2 ? got[k].shape[0] : 1;
      t.cols = got[k].shape.back();
      t.got = got[k].values;
      t.expected = expected[k].values;
      if (fill) t.before.assign(t.got.size(), *fill);  // per-id routes write every lane: nothing untouched
      if (s.route_options.route == "kv_indices_inplace") {
        t.before = load_array(s.route_options.kv_indices, "--kv-indices", false).values;
      }
      t.got_label = s.route_options.variant;
      t.expected_label = "production (reference)";
      text += draw::table_text(t);
      if (k == 0) svg = draw::table_svg(t);  // the first output is the picture; all are in the text
    }
    return emit(ctx, s.svg, "route", svg, text, route_inputs(s.route, ids));
  }
  if (s.zoo->parsed()) {
#ifdef KVADDR_WITH_ZOO
    require_known(s.only, zoo_row_names(), "--only", same_name);  // never an empty picture
    zoo::ZooOptions o;
    o.only = s.only;
    o.progress = ctx.progress ? &ctx.err : nullptr;
    const auto m = kill_matrix(zoo::run_zoo(o));
    nlohmann::json inputs{{"only", s.only}, {"seed", o.seed}, {"property_cases", o.property_cases},
                          {"stateful_runs", o.stateful_runs}, {"pool_cases", o.pool_cases},
                          {"differential_cases", o.differential_cases}};
    return emit(ctx, s.svg, "zoo", draw::matrix_svg(m), draw::matrix_text(m), inputs);
#else
    throw InvalidArgument("draw zoo", "zoo", "built without zoo/");
#endif
  }
#ifdef KVADDR_WITH_PROOFS
  require_known(s.only, obligation_names(), "--only", name_or_prefix);  // never an empty picture
  proofs::RunOptions o;
  o.only = s.only;
  std::vector<draw::Verdict> v;
  for (const auto& r : proofs::run_all(o)) {
    v.push_back({r.name, std::string(proofs::to_string(r.expected)), std::string(proofs::to_string(r.verdict)),
                 r.counterexample});
  }
  const nlohmann::json inputs{{"only", s.only}, {"full_sweep", o.full_sweep}, {"timeout_ms", o.timeout_ms}};
  return emit(ctx, s.svg, "proofs", draw::verdicts_svg("Z3 obligations", v), draw::verdicts_text("Z3 obligations", v),
              inputs);
#else
  throw InvalidArgument("draw proofs", "proofs", "built without Z3 (libz3-dev)");
#endif
}

}  // namespace

int DrawState::run(const Context& ctx) { return run_draw(*this, ctx); }

}  // namespace kvaddr::cli
