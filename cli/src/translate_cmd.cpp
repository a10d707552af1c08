// `kvaddr translate`: one call of any route of spec §4 on arrays given inline, as text files or
// as .npy files. Options that the chosen route does not read are rejected.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "args.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"
#include "subcommands.hpp"

namespace kvaddr::cli {

namespace {

using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

// The options each route reads, besides --route, --variant, --json and --quiet.
const std::map<Route, std::set<std::string>>& route_options() {
  static const std::map<Route, std::set<std::string>> m = [] {
    const std::set<std::string> ids{"--ids", "id", "--v2p", "--page-size"};
    auto with = [](std::set<std::string> base, std::initializer_list<const char*> more) {
      for (const char* s : more) base.insert(s);
      return base;
    };
    const std::set<std::string> table{"--req-to-token", "--rows", "--seq-lens", "--v2p", "--page-size",
                                      "--multiplier",   "--max-pages", "--fill"};
    std::map<Route, std::set<std::string>> r;
    r[Route::token_translate] = with(ids, {"--multiplier", "--int32"});
    r[Route::swa_translate] = with(ids, {"--multiplier", "--int32"});
    r[Route::write_loc] = with(ids, {"--multiplier", "--dcp-size", "--dcp-rank", "--out-width"});
    r[Route::mamba_translate] = {"--ids", "id", "--v2p", "--mamba-clamp"};
    r[Route::dcp_read_translate] = with(ids, {"--multiplier", "--dcp-size"});
    r[Route::transfer_ids] = ids;
    r[Route::eager_funnel] = {"--ids", "id", "--page-table", "--v2p", "--page-size", "--multiplier"};
    r[Route::flashmla_block_table] = with(table, {"--kv-start-idx"});
    r[Route::canonical_page_table] = table;
    r[Route::full_prefill_table] = table;
    r[Route::read_table] = with(table, {"--seq-len-delta", "--zero-tail"});
    r[Route::decode_metadata] = with(table, {"--seq-len-delta"});
    r[Route::kv_indices_inplace] = {"--kv-indices", "--kv-indptr", "--batch-size", "--src",
                                    "--v2p",        "--page-size", "--multiplier"};
    return r;
  }();
  return m;
}

template <class T>
I64 widen(const std::vector<T>& v) {
  return I64(v.begin(), v.end());
}

I32 narrow(const I64& v, const std::string& option) {
  I32 r;
  r.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) r.push_back(checked_narrow32(v[i], fmt::format("{}[{}]", option, i)));
  return r;
}

std::int64_t bounded_lanes(std::int64_t rows, std::int64_t cols, const std::string& what) {
  if (rows < 0 || cols < 0 || (cols > 0 && rows > kMaxLanes / cols)) {
    throw InvalidArgument(what, fmt::format("{} x {}", rows, cols),
                          fmt::format("more than {} output lanes", kMaxLanes));
  }
  return rows * cols;
}

// Runs a per-id route on `ids`; the output has `width` lanes (write_loc) or one per id.
I64 per_id(Route route, const TranslateOptions& o, Variant variant, const I64& ids, const I64& v2p,
           std::int64_t width) {
  I64 result(static_cast<std::size_t>(width), 0);
  switch (route) {
    case Route::token_translate:
    case Route::swa_translate:
      if (o.int32_out) {
        I32 r(ids.size(), 0);
        if (route == Route::token_translate) {
          translate::token_translate<std::int32_t>({cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(r), variant});
        } else {
          translate::swa_translate<std::int32_t>({cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(r), variant});
        }
        return widen(r);
      }
      if (route == Route::token_translate) {
        translate::token_translate<std::int64_t>({cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(result), variant});
      } else {
        translate::swa_translate<std::int64_t>({cvec(ids), cvec(v2p), o.page_size, o.multiplier, mvec(result), variant});
      }
      return result;
    case Route::write_loc:
      translate::write_loc(
          {cvec(ids), cvec(v2p), o.page_size, o.multiplier, o.dcp_size, o.dcp_rank, mvec(result), variant});
      return result;
    case Route::mamba_translate: {
      I32 r(ids.size(), 0);
      translate::mamba_translate({cvec(ids), cvec(v2p), o.mamba_clamp, mvec(r)});
      return widen(r);
    }
    case Route::dcp_read_translate:
      translate::dcp_read_translate({cvec(ids), cvec(v2p), o.page_size, o.multiplier, o.dcp_size, mvec(result), variant});
      return result;
    case Route::transfer_ids:
      translate::transfer_ids({cvec(ids), cvec(v2p), o.page_size, mvec(result), variant});
      return result;
    case Route::flashmla_block_table:
    case Route::canonical_page_table:
    case Route::read_table:
    case Route::decode_metadata:
    case Route::eager_funnel:
    case Route::kv_indices_inplace:
    case Route::full_prefill_table:
      break;  // not per-id routes (is_per_id): compute_outputs never sends them here
  }
  throw InvalidArgument("--route", std::string(to_string(route)), "not a per-id route");
}

// A failing per-id call is re-run id by id so that the error names the id the user gave.
I64 per_id_naming_the_id(Route route, const TranslateOptions& o, Variant variant, const I64& ids, const I64& v2p,
                         std::int64_t width) {
  try {
    return per_id(route, o, variant, ids, v2p, width);
  } catch (const Error& whole) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      try {
        per_id(route, o, variant, I64{ids[i]}, v2p, 1);
      } catch (const Error& one) {
        throw Error(one.kind(), fmt::format("id {} (ids[{}])", ids[i], i), std::to_string(ids[i]), one.what());
      }
    }
    throw;
  }
}

struct Tables {
  Array r2t;
  I64 rows, seq_lens, v2p, kv_start;
  std::int64_t batch = 0;
  std::int64_t max_pages = 0;
};

Tables load_tables(const TranslateOptions& o) {
  Tables t;
  t.r2t = load_array(o.req_to_token, "--req-to-token", true);
  t.seq_lens = load_array(o.seq_lens, "--seq-lens", false).values;
  t.batch = static_cast<std::int64_t>(t.seq_lens.size());
  if (o.rows.empty()) {
    for (std::int64_t b = 0; b < t.batch; ++b) t.rows.push_back(b);
  } else {
    t.rows = load_array(o.rows, "--rows", false).values;
  }
  if (!o.v2p.empty()) t.v2p = load_array(o.v2p, "--v2p", false).values;
  if (!o.kv_start_idx.empty()) t.kv_start = load_array(o.kv_start_idx, "--kv-start-idx", false).values;
  t.max_pages = o.max_pages;
  if (t.max_pages < 0) {  // default: enough pages for the longest sequence
    require(o.page_size >= 1, "--page-size", o.page_size, "must be >= 1");
    std::int64_t longest = 0;
    for (auto s : t.seq_lens) longest = std::max(longest, s);
    t.max_pages = longest / o.page_size + (longest % o.page_size != 0 ? 1 : 0);
  }
  bounded_lanes(t.batch, t.max_pages, "--max-pages");
  return t;
}

std::vector<Output> run_table_route(Route route, const TranslateOptions& o, Variant variant) {
  if (route == Route::kv_indices_inplace) {
    auto kv = narrow(load_array(o.kv_indices, "--kv-indices", false).values, "--kv-indices");
    const auto indptr = narrow(load_array(o.kv_indptr, "--kv-indptr", false).values, "--kv-indptr");
    I32 src;
    if (!o.src.empty()) src = narrow(load_array(o.src, "--src", false).values, "--src");
    const auto v2p = load_array(o.v2p, "--v2p", false).values;
    KvIndicesInplaceArgs a;
    a.kv_indices = mvec(kv);
    a.kv_indptr = cvec(indptr);
    a.batch_size = o.batch_size >= 0 ? o.batch_size : std::max<std::int64_t>(0, std::ssize(indptr) - 1);
    if (!o.src.empty()) a.src = cvec(src);
    a.v2p = cvec(v2p);
    a.page_size = o.page_size;
    a.multiplier = o.multiplier;
    a.variant = variant;
    translate::kv_indices_inplace(a);
    return {{"kv_indices", {std::ssize(kv)}, widen(kv)}};
  }
  if (route == Route::eager_funnel) {
    const auto table = o.page_table.empty() ? Array{} : load_array(o.page_table, "--page-table", true);
    const auto v2p = load_array(o.v2p, "--v2p", false).values;
    I64 starts = table.values;
    std::int64_t rows = table.rows(), cols = table.cols();
    if (o.page_table.empty()) {  // ids: the page-start tokens of one row
      for (const auto& s : o.ids) {
        auto more = parse_int_list(s, "ids");
        starts.insert(starts.end(), more.begin(), more.end());
      }
      auto more = parse_int_list(o.ids_list, "--ids");
      starts.insert(starts.end(), more.begin(), more.end());
      cols = std::ssize(starts);
      rows = cols == 0 ? 0 : 1;
    }
    I64 out(starts.size(), 0);
    EagerFunnelArgs a;
    a.page_table = {starts.data(), rows, cols, cols, 1};
    a.v2p = cvec(v2p);
    a.page_size = o.page_size;
    a.multiplier = o.multiplier;
    a.out = {out.data(), rows, cols, cols, 1};
    a.variant = variant;
    translate::eager_funnel(a);
    return {{"out", {rows, cols}, out}};
  }
  const Tables t = load_tables(o);
  const auto r2t = narrow(t.r2t.values, "--req-to-token");
  const Mat<const std::int32_t> r2t_view{r2t.data(), t.r2t.rows(), t.r2t.cols(), t.r2t.cols(), 1};
  const auto fill = checked_narrow32(o.fill, "--fill");
  I32 out(static_cast<std::size_t>(t.batch * t.max_pages), fill);
  const auto out_view = mmat(out, t.batch, t.max_pages);
  const Vec<const std::int64_t> v2p_view = o.v2p.empty() ? Vec<const std::int64_t>{} : cvec(t.v2p);
  switch (route) {
    case Route::flashmla_block_table: {
      FlashmlaBlockTableArgs a{r2t_view, cvec(t.rows), cvec(t.seq_lens), {}, v2p_view, o.page_size, o.multiplier,
                               out_view, variant};
      if (!t.kv_start.empty()) a.kv_start_idx = cvec(t.kv_start);
      translate::flashmla_block_table(a);
      break;
    }
    case Route::canonical_page_table:
      translate::canonical_page_table({r2t_view, cvec(t.rows), cvec(t.seq_lens), v2p_view, o.page_size,
                                       o.multiplier, t.max_pages, out_view, variant});
      break;
    case Route::full_prefill_table:
      translate::full_prefill_table({r2t_view, cvec(t.rows), cvec(t.seq_lens), v2p_view, o.page_size, o.multiplier,
                                     t.max_pages, out_view, variant});
      break;
    case Route::read_table: {
      ReadTableArgs a{r2t_view, cvec(t.rows), cvec(t.seq_lens), o.seq_len_delta, t.max_pages, v2p_view,
                      o.page_size, o.multiplier, out_view, o.zero_tail, variant};
      translate::read_table(a);
      break;
    }
    case Route::token_translate:
    case Route::eager_funnel:
    case Route::kv_indices_inplace:
    case Route::write_loc:
    case Route::swa_translate:
    case Route::mamba_translate:
    case Route::dcp_read_translate:
    case Route::transfer_ids:
      throw InvalidArgument("--route", std::string(to_string(route)), "not a page-table route");
    case Route::decode_metadata: {
      I32 cache(static_cast<std::size_t>(t.batch), fill), cu(static_cast<std::size_t>(t.batch + 1), fill);
      DecodeMetadataArgs a;
      a.seq_lens = cvec(t.seq_lens);
      a.req_to_token = r2t_view;
      a.req_pool_indices = cvec(t.rows);
      a.max_seq_pages = t.max_pages;
      a.seq_len_delta = o.seq_len_delta;
      a.page_size = o.page_size;
      a.v2p = v2p_view;
      a.multiplier = o.multiplier;
      a.cache_seqlens = mvec(cache);
      a.cu_seqlens_k = mvec(cu);
      a.page_table = out_view;
      a.variant = variant;
      translate::decode_metadata(a);
      return {{"page_table", {t.batch, t.max_pages}, widen(out)},
              {"cache_seqlens", {t.batch}, widen(cache)},
              {"cu_seqlens_k", {t.batch + 1}, widen(cu)}};
    }
  }
  return {{"out", {t.batch, t.max_pages}, widen(out)}};
}

bool is_per_id(Route r) {
  return r == Route::token_translate || r == Route::swa_translate || r == Route::write_loc ||
         r == Route::mamba_translate || r == Route::dcp_read_translate || r == Route::transfer_ids;
}

void print_outputs(const std::vector<Output>& outputs, std::ostream& out) {
  for (const auto& o : outputs) {
    out << o.name << " " << fmt::format("({})", fmt::join(o.shape, ", ")) << ":\n";
    const std::int64_t cols = o.shape.size() == 2 ? o.shape[1] : std::ssize(o.values);
    for (std::size_t i = 0; i < o.values.size(); ++i) {
      const auto col = cols == 0 ? 0 : static_cast<std::int64_t>(i) % cols;
      if (col == 0) out << "  ";
      out << o.values[i] << (col + 1 == cols ? "\n" : " ");
    }
  }
}

}  // namespace

void check_translate_options(const TranslateOptions& o, const std::vector<std::string>& given) {
  const Route route = parse_route(o.route);
  const auto& allowed = route_options().at(route);
  for (const auto& name : given) {
    if (name == "--route" || name == "--variant" || name == "--json" || name == "--quiet") continue;
    if (!allowed.contains(name)) {
      throw InvalidArgument(name, "(given)", fmt::format("does not apply to route {}; it reads {}", o.route,
                                                       fmt::join(allowed, ", ")));
    }
  }
  const bool table = !is_per_id(route) && route != Route::eager_funnel && route != Route::kv_indices_inplace;
  auto need = [&](const char* name, bool present) {
    if (!present) throw InvalidArgument(name, "missing", fmt::format("required by route {}", o.route));
  };
  if (route != Route::mamba_translate) need("--page-size", std::find(given.begin(), given.end(), "--page-size") != given.end());
  if (route != Route::flashmla_block_table && route != Route::decode_metadata) need("--v2p", !o.v2p.empty());
  if (table) {
    need("--req-to-token", !o.req_to_token.empty());
    need("--seq-lens", !o.seq_lens.empty());
  }
  if (route == Route::kv_indices_inplace) {
    need("--kv-indices", !o.kv_indices.empty());
    need("--kv-indptr", !o.kv_indptr.empty());
  }
}

std::vector<Output> compute_outputs(const TranslateOptions& o, Variant variant, std::vector<std::int64_t>* ids_out,
                                    std::optional<std::int64_t>* fill) {
  const Route route = parse_route(o.route);
  require_variant(route, variant);
  I64 ids = parse_int_list(o.ids_list, "--ids");
  for (const auto& s : o.ids) {
    auto more = parse_int_list(s, "ids");
    ids.insert(ids.end(), more.begin(), more.end());
  }
  if (ids_out) *ids_out = ids;
  const bool table = !is_per_id(route) && route != Route::eager_funnel && route != Route::kv_indices_inplace;
  if (fill) *fill = table ? std::optional<std::int64_t>(o.fill) : std::nullopt;
  if (!is_per_id(route)) return run_table_route(route, o, variant);
  require_size(std::ssize(ids) <= kMaxLanes, "ids", std::ssize(ids), "more ids than the lane limit");
  const auto v2p = load_array(o.v2p, "--v2p", false).values;
  const std::int64_t width = route == Route::write_loc && o.out_width >= 0 ? o.out_width : std::ssize(ids);
  return {{"out", {width}, per_id_naming_the_id(route, o, variant, ids, v2p, width)}};
}

int run_translate(const TranslateOptions& o, const std::vector<std::string>& given, std::ostream& out) {
  check_translate_options(o, given);
  const Route route = parse_route(o.route);
  I64 ids;
  const auto outputs = compute_outputs(o, parse_variant(o.variant), &ids, nullptr);

  if (o.json) {
    nlohmann::json j;
    j["schema"] = "kvaddr.translate/1";
    j["route"] = o.route;
    j["variant"] = o.variant;
    j["page_size"] = o.page_size;
    j["multiplier"] = o.multiplier;
    if (is_per_id(route)) j["ids"] = ids;
    j["out"] = outputs.front().values;
    j["shape"] = outputs.front().shape;
    for (const auto& x : outputs) j["outputs"][x.name] = {{"shape", x.shape}, {"values", x.values}};
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (is_per_id(route)) {
    const auto& result = outputs.front().values;
    for (std::size_t i = 0; i < result.size(); ++i) {
      if (i < ids.size()) {
        out << ids[i] << " -> " << result[i] << "\n";
      } else {
        out << "(lane " << i << ") -> " << result[i] << "\n";
      }
    }
  } else {
    print_outputs(outputs, out);
  }
  return 0;
}

CLI::App* register_translate(CLI::App& app, TranslateOptions& o) {
  auto* t = app.add_subcommand("translate", "Run one route on given ids or tables and print its output");
  add_translate_options(t, o);
  t->add_flag("--json", o.json, "Print one JSON object (schema kvaddr.translate/1)");
  t->footer(
      "Arrays: an inline list (1,2,-1; matrix rows separated by ';'), a text file of numbers (one row per line)\n"
      "or a .npy file (int32/int64). A text made only of digits, signs, ',' and ';' is a list; anything else is\n"
      "a path (write ./123 for a file named 123). Options the chosen route does not read are errors.\n"
      "Examples:\n"
      "  kvaddr translate --page-size 4 --multiplier 3 --v2p 0,5,-1,2,-1 --ids 5,9,-1\n"
      "  kvaddr translate --route write_loc --page-size 2 --v2p 0,3,-1 --dcp-size 2 --dcp-rank 1 --out-width 5 --ids 3,4,0\n"
      "  kvaddr translate --route read_table --page-size 2 --multiplier 3 --v2p 1,0,-1 \\\n"
      "      --req-to-token '0,1,2,3' --seq-lens 3 --max-pages 2");
  return t;
}

void add_translate_options(CLI::App* t, TranslateOptions& o) {
  int_option(t, "--page-size", o.page_size, "Page size ps (every route but mamba_translate)", 1, INT64_MAX);
  int_option(t, "--multiplier", o.multiplier, "Multiplier M; M_swa for swa_translate", 1, INT64_MAX);
  t->add_option("--v2p", o.v2p, "v2p table as stored, trailing -1 sentinel row included (list, text file or .npy)");
  std::string routes;
  for (Route r : kAllRoutes) routes += (routes.empty() ? "" : ", ") + std::string(to_string(r));
  t->add_option("--route", o.route, "Route of spec section 4: " + routes)->capture_default_str();
  t->add_option("--variant", o.variant, "production or a bug variant the route accepts")->capture_default_str();
  int_option(t, "--dcp-size", o.dcp_size, "DCP size (write_loc, dcp_read_translate)", 1, INT64_MAX);
  int_option(t, "--dcp-rank", o.dcp_rank, "DCP rank (write_loc)", 0, INT64_MAX);
  int_option(t, "--out-width", o.out_width, "write_loc output width (default: number of ids)", 0, kMaxLanes)
      ->default_str("number of ids");
  t->add_flag("--int32", o.int32_out, "Write an int32 output (token_translate, swa_translate)");
  t->add_flag("--mamba-clamp", o.mamba_clamp, "Clamp mamba_translate at 0 (spec Q3)");
  t->add_option("--ids", o.ids_list, "Ids as a comma list (use for negative ids)");
  t->add_option("id", o.ids, "Ids to translate (positional)");
  t->add_option("--req-to-token", o.req_to_token, "Table routes: req_to_token matrix");
  t->add_option("--rows", o.rows, "Table routes: req_pool_indices / row ids (default 0..B-1)");
  t->add_option("--seq-lens", o.seq_lens, "Table routes: sequence lengths (B of them)");
  t->add_option("--kv-start-idx", o.kv_start_idx, "flashmla_block_table: start offsets per row");
  t->add_option("--page-table", o.page_table, "eager_funnel: page-start token matrix (default: the ids as one row)");
  int_option(t, "--max-pages", o.max_pages, "Table width in pages (max_seq_pages for decode_metadata)", 0, kMaxLanes)
      ->default_str("ceil(max(seq_lens) / page_size)");
  int_option(t, "--seq-len-delta", o.seq_len_delta, "read_table / decode_metadata: added to every sequence length");
  int_option(t, "--fill", o.fill, "Initial value of the output table lanes (shows untouched lanes)", INT32_MIN,
             INT32_MAX);
  t->add_flag("--zero-tail", o.zero_tail, "read_table: Era D zero tail");
  t->add_option("--kv-indices", o.kv_indices, "kv_indices_inplace: the kv_indices buffer before the call");
  t->add_option("--kv-indptr", o.kv_indptr, "kv_indices_inplace: kv_indptr");
  t->add_option("--src", o.src, "kv_indices_inplace: separate source ids (default: kv_indices itself)");
  int_option(t, "--batch-size", o.batch_size, "kv_indices_inplace: batch size", 0, kMaxLanes)
      ->default_str("len(kv_indptr) - 1");
}

}  // namespace kvaddr::cli
