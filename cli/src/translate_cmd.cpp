// `kvaddr translate`: one call of any route of spec §4 on arrays given inline, as text files or
// as .npy files. Options that the chosen route does not read are rejected. The options a route
// reads, the arrays it needs and the outputs the CLI allocates come from its spec's field list
// (RouteSpec::fields); its Args are built by fill_args and run through visit_route.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "args.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/translate/fill_args.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"
#include "subcommands.hpp"

namespace kvaddr::cli {

namespace {

using I64 = std::vector<std::int64_t>;
using I32 = std::vector<std::int32_t>;

// An option that fills a route argument: the first field of the route among `fields` whose kind
// is one of `kinds` (so --v2p fills swa_translate's swa_v2p, --kv-indices kv_indices_inplace's
// buffer but never flashmla's output). Rows are in load order; `need` orders the missing-option
// errors (0: not checked). `defaulted`: the CLI supplies the field when the option is absent.
struct OptionRow {
  const char* option;
  std::vector<std::string_view> fields;
  std::vector<ArgKind> kinds;
  std::string TranslateOptions::*text = nullptr;  // an array option
  std::int64_t TranslateOptions::*number = nullptr;  // an integer option
  bool TranslateOptions::*flag = nullptr;  // a flag
  int need = 0;
  bool defaulted = false;
};

constexpr ArgKind kVecIn = ArgKind::vec_in, kMatIn = ArgKind::mat_in, kVecOut = ArgKind::vec_out;
using O = TranslateOptions;

const std::vector<OptionRow>& option_rows() {
  static const std::vector<OptionRow> rows = {
      {"--ids", {"ids", "loc", "slots", "page_table"}, {kVecIn, kMatIn}, nullptr, nullptr, nullptr, 0, true},
      {"--req-to-token", {"req_to_token"}, {kMatIn}, &O::req_to_token, nullptr, nullptr, 3},
      {"--seq-lens", {"seq_lens", "page_kernel_lens"}, {kVecIn}, &O::seq_lens, nullptr, nullptr, 4},
      {"--rows", {"req_pool_indices"}, {kVecIn}, &O::rows, nullptr, nullptr, 0, true},
      {"--kv-indices", {"kv_indices"}, {kVecOut}, &O::kv_indices, nullptr, nullptr, 5},
      {"--kv-indptr", {"kv_indptr"}, {kVecIn}, &O::kv_indptr, nullptr, nullptr, 6},
      {"--src", {"src"}, {kVecIn}, &O::src},
      {"--page-table", {"page_table"}, {kMatIn}, &O::page_table, nullptr, nullptr, 0, true},
      {"--v2p", {"v2p", "swa_v2p"}, {kVecIn}, &O::v2p, nullptr, nullptr, 2},
      {"--kv-start-idx", {"kv_start_idx"}, {kVecIn}, &O::kv_start_idx},
      {"--page-size", {"page_size"}, {ArgKind::int64}, nullptr, &O::page_size, nullptr, 1},
      {"--multiplier", {"multiplier", "swa_multiplier"}, {ArgKind::int64}, nullptr, &O::multiplier},
      {"--dcp-size", {"dcp_size"}, {ArgKind::int64}, nullptr, &O::dcp_size},
      {"--dcp-rank", {"dcp_rank"}, {ArgKind::int64}, nullptr, &O::dcp_rank},
      {"--max-pages", {"max_pages", "max_seq_pages"}, {ArgKind::int64}, nullptr, &O::max_pages, nullptr, 0, true},
      {"--seq-len-delta", {"seq_len_delta"}, {ArgKind::int64}, nullptr, &O::seq_len_delta},
      {"--batch-size", {"batch_size"}, {ArgKind::int64}, nullptr, &O::batch_size, nullptr, 0, true},
      {"--mamba-clamp", {"clamp"}, {ArgKind::boolean}, nullptr, nullptr, &O::mamba_clamp},
      {"--zero-tail", {"zero_tail"}, {ArgKind::boolean}, nullptr, nullptr, &O::zero_tail},
  };
  return rows;
}

// How the CLI calls one route: which field each option fills and which outputs it allocates
// (fields by index into `fields`, so that a Plan copies safely).
struct Plan {
  std::vector<FieldInfo> fields;
  std::vector<int> row_index;  // per option row: the field it fills (-1: none)
  std::vector<int> output_index;  // the outputs the CLI allocates, in field order
  int in_place_index = -1;  // an output the caller gives (kv_indices_inplace's kv_indices)
  bool per_id = false;  // --ids fills a 1-D input: one output lane per id (and a tail)
  bool table = false;   // an int32 output table of batch rows x --max-pages columns, prefilled --fill
  bool out_parameter = false;  // --int32 picks the output element type
  bool tail = false;    // --out-width sets the output's lanes
  std::set<std::string> allowed;  // the options the route reads
  std::set<std::string_view> needed;  // the fields a call must give (required, or asked for by needs())

  const FieldInfo* field(int i) const { return i < 0 ? nullptr : &fields[static_cast<std::size_t>(i)]; }
  const FieldInfo* by_row(std::size_t row) const { return field(row_index[row]); }
  const FieldInfo* in_place() const { return field(in_place_index); }
  std::vector<const FieldInfo*> outputs() const {
    std::vector<const FieldInfo*> r;
    for (int i : output_index) r.push_back(field(i));
    return r;
  }
  const FieldInfo* row_field(const char* option) const {
    const auto& rows = option_rows();
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (std::string_view(rows[i].option) == option) return by_row(i);
    return nullptr;
  }
};

template <class Spec>
Plan plan_of() {
  Plan p;
  p.fields = field_infos<Spec>();
  p.out_parameter = has_out_parameter<Spec>;
  const int n = static_cast<int>(p.fields.size());
  for (const OptionRow& row : option_rows()) {
    int hit = -1;
    for (std::string_view name : row.fields) {
      for (int i = 0; i < n && hit < 0; ++i) {
        const FieldInfo& f = p.fields[static_cast<std::size_t>(i)];
        if (f.name == name && std::find(row.kinds.begin(), row.kinds.end(), f.kind) != row.kinds.end()) hit = i;
      }
      if (hit >= 0) break;
    }
    p.row_index.push_back(hit);
    if (hit >= 0) p.allowed.insert(row.option);
  }
  const auto none_given = [](std::string_view) { return false; };  // the CLI gives none of needs()' inputs
  for (const FieldInfo& f : p.fields)
    if (field_needed<Spec>(f, none_given)) p.needed.insert(f.name);
  if (const FieldInfo* kv = p.row_field("--kv-indices")) p.in_place_index = static_cast<int>(kv - p.fields.data());
  for (int i = 0; i < n; ++i) {
    const FieldInfo& f = p.fields[static_cast<std::size_t>(i)];
    if (!f.output() || i == p.in_place_index) continue;
    // An optional output with a partner is allocated only with its partner, which the CLI never gives.
    if (!f.required && !f.partner.empty()) continue;
    p.output_index.push_back(i);
    if (f.matrix() && f.int32) p.table = true;
    if (f.wider_than_ids) p.tail = true;
  }
  const FieldInfo* ids = p.row_field("--ids");
  p.per_id = ids != nullptr && !ids->matrix();
  if (ids) p.allowed.insert("id");
  if (p.table) p.allowed.insert({"--max-pages", "--fill"});
  if (p.out_parameter) p.allowed.insert("--int32");
  if (p.tail) p.allowed.insert("--out-width");
  return p;
}

Plan plan_of(Route r) {
  return visit_route(r, [](auto spec) { return plan_of<decltype(spec)>(); });
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

// One value of the call: an integer, a flag, or an int32 / int64 array (1-D, or rows x cols).
struct Value {
  ValueKind kind = ValueKind::integer;
  std::int64_t number = 0;
  bool flag = false;
  I64 v64;
  I32 v32;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> shape() const {
    if (kind == ValueKind::mat_i32 || kind == ValueKind::mat_i64) return {rows, cols};
    return {static_cast<std::int64_t>(kind == ValueKind::vec_i32 ? v32.size() : v64.size())};
  }
  I64 values() const { return kind == ValueKind::vec_i32 || kind == ValueKind::mat_i32 ? widen(v32) : v64; }
};

Value number(std::int64_t n) {
  Value x;
  x.number = n;
  return x;
}
Value flag(bool b) {
  Value x;
  x.kind = ValueKind::boolean;
  x.flag = b;
  return x;
}
Value array(const FieldInfo& f, I64 v, std::int64_t rows, std::int64_t cols, const std::string& option) {
  Value x;
  x.rows = rows;
  x.cols = cols;
  if (f.int32) {
    x.kind = f.matrix() ? ValueKind::mat_i32 : ValueKind::vec_i32;
    x.v32 = narrow(v, option);
  } else {
    x.kind = f.matrix() ? ValueKind::mat_i64 : ValueKind::vec_i64;
    x.v64 = std::move(v);
  }
  return x;
}
// An output buffer of `lanes` lanes (rows x cols for a matrix), every lane `init`.
Value buffer(const FieldInfo& f, std::int64_t rows, std::int64_t cols, std::int64_t init, bool int32) {
  Value x;
  x.rows = rows;
  x.cols = cols;
  const auto lanes = static_cast<std::size_t>(f.matrix() ? rows * cols : cols);
  if (int32) {
    x.kind = f.matrix() ? ValueKind::mat_i32 : ValueKind::vec_i32;
    x.v32.assign(lanes, static_cast<std::int32_t>(init));
  } else {
    x.kind = f.matrix() ? ValueKind::mat_i64 : ValueKind::vec_i64;
    x.v64.assign(lanes, init);
  }
  return x;
}

// The call's values by field name; views() hands them to fill_args (fill_args.hpp).
class CallSource {
 public:
  bool has(std::string_view k) const { return values_.find(k) != values_.end(); }
  Value& at(std::string_view k) { return values_.find(k)->second; }
  void set(std::string_view k, Value v) { values_.insert_or_assign(std::string(k), std::move(v)); }
  ViewSource views() {
    ViewSource s;
    for (auto& [k, x] : values_) {
      switch (x.kind) {
        case ValueKind::integer: s.set(k, x.number); break;
        case ValueKind::boolean: s.set(k, x.flag); break;
        case ValueKind::text: break;  // the variant is set on the Args (set_variant)
        case ValueKind::vec_i32: s.set(k, mvec(x.v32)); break;
        case ValueKind::vec_i64: s.set(k, mvec(x.v64)); break;
        case ValueKind::mat_i32: s.set(k, mmat(x.v32, x.rows, x.cols)); break;
        case ValueKind::mat_i64: s.set(k, mmat(x.v64, x.rows, x.cols)); break;
      }
    }
    return s;
  }

 private:
  std::map<std::string, Value, std::less<>> values_;
};

// The parsed ids: --ids (a list, a text file or a 1-D .npy), then the positional ones (eager_funnel's
// one-row table: positional first).
I64 parse_ids(const TranslateOptions& o, bool positional_first) {
  I64 ids = positional_first ? I64{} : load_array(o.ids_list, "--ids", false).values;
  for (const auto& s : o.ids) {
    auto more = parse_int_list(s, "ids");
    ids.insert(ids.end(), more.begin(), more.end());
  }
  if (positional_first) {
    auto more = load_array(o.ids_list, "--ids", false).values;
    ids.insert(ids.end(), more.begin(), more.end());
  }
  return ids;
}

// The route's array inputs from the options, in row order; a needed one is loaded even when not
// given, so that its loader says what is wrong.
void load_arrays(const TranslateOptions& o, const Plan& p, CallSource& src) {
  const auto& rows = option_rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const OptionRow& row = rows[i];
    const FieldInfo* f = p.by_row(i);
    if (!f || !row.text) continue;
    const std::string& text = o.*row.text;
    if (text.empty() && (row.defaulted || !p.needed.contains(f->name))) continue;
    const Array a = load_array(text, row.option, f->matrix());
    src.set(f->name, array(*f, a.values, a.rows(), a.cols(), row.option));
  }
}

// The integer and flag options of the route (their defaults are the argument structs' defaults).
void set_scalars(const TranslateOptions& o, const Plan& p, CallSource& src) {
  const auto& rows = option_rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const FieldInfo* f = p.by_row(i);
    if (!f) continue;
    if (rows[i].number) src.set(f->name, number(o.*rows[i].number));
    if (rows[i].flag) src.set(f->name, flag(o.*rows[i].flag));
  }
}

// Fills the Args from `src`, sets the variant, runs the host route.
template <class Spec>
void run_spec(CallSource& values, Variant variant, bool int32_out) {
  const ViewSource src = values.views();
  if constexpr (has_out_parameter<Spec>) {
    if (int32_out) {
      auto a = fill_args_of<Spec, std::int32_t>(src);
      set_variant(a, variant);
      Spec::template run<std::int32_t>(a);
      return;
    }
    auto a = fill_args_of<Spec, std::int64_t>(src);
    set_variant(a, variant);
    Spec::template run<std::int64_t>(a);
  } else {
    (void)int32_out;
    auto a = fill_args<Spec>(src);
    set_variant(a, variant);
    Spec::run(a);
  }
}

// A per-id route on `ids`: the output has `width` lanes (the tail past the ids included).
template <class Spec>
I64 per_id(const Plan& p, CallSource& src, const TranslateOptions& o, Variant variant, const I64& ids,
           std::int64_t width) {
  const FieldInfo& in = *p.row_field("--ids");
  const FieldInfo& out = *p.outputs().front();
  src.set(in.name, array(in, ids, 0, 0, "--ids"));
  src.set(out.name, buffer(out, 0, width, 0, out.int32 || (p.out_parameter && o.int32_out)));
  run_spec<Spec>(src, variant, o.int32_out);
  return src.at(out.name).values();
}

// A failing per-id call is re-run id by id so that the error names the id the user gave.
template <class Spec>
I64 per_id_naming_the_id(const Plan& p, CallSource& src, const TranslateOptions& o, Variant variant, const I64& ids,
                         std::int64_t width) {
  try {
    return per_id<Spec>(p, src, o, variant, ids, width);
  } catch (const Error& whole) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      try {
        per_id<Spec>(p, src, o, variant, I64{ids[i]}, 1);
      } catch (const Error& one) {
        throw Error(one.kind(), fmt::format("id {} (ids[{}])", ids[i], i), std::to_string(ids[i]), one.what());
      }
    }
    throw;
  }
}

// A route over batch rows, a page-start table (eager_funnel) or a kv_indices buffer: the inputs,
// the CLI's defaults (req_pool_indices 0..B-1, max_pages for the longest sequence, batch_size from
// kv_indptr, the ids as eager_funnel's one-row table), the outputs, one run.
template <class Spec>
std::vector<Output> run_batch(const Plan& p, const TranslateOptions& o, Variant variant) {
  CallSource src;
  load_arrays(o, p, src);
  std::int64_t batch = 0, width = o.max_pages;
  if (const FieldInfo* lens = p.row_field("--seq-lens"); lens && src.has(lens->name)) {
    const I64 l = src.at(lens->name).values();
    batch = std::ssize(l);
    if (const FieldInfo* rows = p.row_field("--rows"); rows && !src.has(rows->name)) {
      I64 r;
      for (std::int64_t b = 0; b < batch; ++b) r.push_back(b);
      src.set(rows->name, array(*rows, r, 0, 0, "--rows"));
    }
    if (width < 0) {  // default: enough pages for the longest sequence
      require(o.page_size >= 1, "--page-size", o.page_size, "must be >= 1");
      std::int64_t longest = 0;
      for (auto s : l) longest = std::max(longest, s);
      width = longest / o.page_size + (longest % o.page_size != 0 ? 1 : 0);
    }
    bounded_lanes(batch, width, "--max-pages");
  }
  if (const FieldInfo* t = p.row_field("--page-table"); t && !src.has(t->name)) {
    const I64 starts = parse_ids(o, true);
    src.set(t->name, array(*t, starts, starts.empty() ? 0 : 1, std::ssize(starts), "--ids"));
  }
  set_scalars(o, p, src);
  if (const FieldInfo* m = p.row_field("--max-pages")) src.set(m->name, number(width));
  if (const FieldInfo* bs = p.row_field("--batch-size"); bs && o.batch_size < 0) {
    const auto indptr = static_cast<std::int64_t>(src.at("kv_indptr").shape()[0]);
    src.set(bs->name, number(std::max<std::int64_t>(0, indptr - 1)));
  }
  const std::int64_t init = p.table ? checked_narrow32(o.fill, "--fill") : 0;
  for (const FieldInfo* f : p.outputs()) {
    if (f->matrix() && !p.table) {  // the shape of the page-start table it translates
      const Value& in = src.at(p.row_field("--page-table")->name);
      src.set(f->name, buffer(*f, in.rows, in.cols, init, f->int32));
    } else {
      src.set(f->name, buffer(*f, batch, f->matrix() ? width : batch + f->lanes_past_batch, init, f->int32));
    }
  }
  run_spec<Spec>(src, variant, false);
  // The tables first, then the 1-D outputs; a single allocated output is "out".
  std::vector<const FieldInfo*> shown;
  if (p.in_place()) shown.push_back(p.in_place());
  for (int pass = 0; pass < 2; ++pass)
    for (const FieldInfo* f : p.outputs())
      if (f->matrix() == (pass == 0)) shown.push_back(f);
  std::vector<Output> outputs;
  for (const FieldInfo* f : shown) {
    const Value& v = src.at(f->name);
    const bool renamed = shown.size() == 1 && f != p.in_place();
    outputs.push_back({renamed ? "out" : std::string(f->name), v.shape(), v.values()});
  }
  return outputs;
}

template <class Spec>
std::vector<Output> run_route(const TranslateOptions& o, Variant variant, const I64& ids) {
  const Plan p = plan_of<Spec>();
  if (!p.per_id) return run_batch<Spec>(p, o, variant);
  require_size(std::ssize(ids) <= kMaxLanes, "ids", std::ssize(ids), "more ids than the lane limit");
  CallSource src;
  load_arrays(o, p, src);
  set_scalars(o, p, src);
  const std::int64_t width = p.tail && o.out_width >= 0 ? o.out_width : std::ssize(ids);
  return {{"out", {width}, per_id_naming_the_id<Spec>(p, src, o, variant, ids, width)}};
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
  const Plan p = plan_of(parse_route(o.route));
  for (const auto& name : given) {
    if (name == "--route" || name == "--variant" || name == "--json" || name == "--quiet") continue;
    if (!p.allowed.contains(name)) {
      throw InvalidArgument(name, "(given)", fmt::format("does not apply to route {}; it reads {}", o.route,
                                                       fmt::join(p.allowed, ", ")));
    }
  }
  // The options of the fields a call must give and the CLI has no default for, in `need` order.
  std::vector<const OptionRow*> needs;
  const auto& rows = option_rows();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].need > 0 && p.by_row(i) && !rows[i].defaulted && p.needed.contains(p.by_row(i)->name))
      needs.push_back(&rows[i]);
  }
  std::sort(needs.begin(), needs.end(), [](const OptionRow* x, const OptionRow* y) { return x->need < y->need; });
  for (const OptionRow* row : needs) {
    const bool present = row->text ? !(o.*row->text).empty()
                                   : std::find(given.begin(), given.end(), row->option) != given.end();
    if (!present) throw InvalidArgument(row->option, "missing", fmt::format("required by route {}", o.route));
  }
}

std::vector<Output> compute_outputs(const TranslateOptions& o, Variant variant, std::vector<std::int64_t>* ids_out,
                                    std::optional<std::int64_t>* fill) {
  const Route route = parse_route(o.route);
  require_variant(route, variant);
  const I64 ids = parse_ids(o, false);
  if (ids_out) *ids_out = ids;
  if (fill) *fill = plan_of(route).table ? std::optional<std::int64_t>(o.fill) : std::nullopt;
  return visit_route(route, [&](auto spec) { return run_route<decltype(spec)>(o, variant, ids); });
}

int run_translate(const TranslateOptions& o, const std::vector<std::string>& given, std::ostream& out) {
  check_translate_options(o, given);
  const bool per_id = plan_of(parse_route(o.route)).per_id;
  I64 ids;
  const auto outputs = compute_outputs(o, parse_variant(o.variant), &ids, nullptr);

  if (o.json) {
    nlohmann::json j;
    j["schema"] = "kvaddr.translate/1";
    j["route"] = o.route;
    j["variant"] = o.variant;
    j["page_size"] = o.page_size;
    j["multiplier"] = o.multiplier;
    if (per_id) j["ids"] = ids;
    j["out"] = outputs.front().values;
    j["shape"] = outputs.front().shape;
    for (const auto& x : outputs) j["outputs"][x.name] = {{"shape", x.shape}, {"values", x.values}};
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (per_id) {
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
  t->add_option("--ids", o.ids_list, "Ids: a comma list (use for negative ids), a text file or a 1-D .npy");
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
