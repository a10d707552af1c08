// pybind11 module `kvaddr._core` (re-exported by the package `kvaddr`, python/kvaddr/__init__.py): kvaddr's reference model and host routes over numpy arrays, so that an
// engine's pytest can assert a production kernel's output in one line:
//
//   np.testing.assert_array_equal(my_table, kvaddr.read_table(req_to_token=..., ..., out=before))
//
// Conventions (docs/python.md):
//   * argument names follow the upstream kernels (req_to_token, req_pool_indices, seq_lens, v2p,
//     page_size, multiplier, max_pages, seq_len_delta, out, ...);
//   * every route writes into `out` in place and returns that very array; with out=None a fresh
//     array is allocated (tables: zeros, flashmla kv_indices: -1, as the backends prefill them);
//   * dtypes follow the route contracts: v2p tables int64, req_to_token / tables / kv_indices
//     int32, id vectors int64 (int32 accepted for index inputs); arrays must be C-contiguous and
//     outputs writeable; anything else raises kvaddr.InvalidArgument naming the argument;
//   * kvaddr's typed C++ errors arrive as kvaddr.Error subclasses with the same message;
//   * a 1-D slice `parent[g:g + n]` of a 1-D array is a view of that parent: a variant loading before
//     the table (b09: v2p[-1]) reads parent[g - 1], as a kernel does; past the end stays OutOfRange.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kvaddr/harness/compare.hpp"
#include "kvaddr/harness/naming.hpp"
#include "kvaddr/kernels/graph_draw.hpp"
#include "kvaddr/model/errors.hpp"
#include "kvaddr/model/formulas.hpp"
#include "kvaddr/model/geometry.hpp"
#include "kvaddr/replay/npy.hpp"
#include "kvaddr/replay/record.hpp"
#include "kvaddr/replay/replay.hpp"
#include "kvaddr/translate/preconditions.hpp"
#include "kvaddr/translate/routes.hpp"
#include "kvaddr/translate/validate.hpp"
#include "arrays.hpp"
#include "adjacent_bindings.hpp"
#include "errors.hpp"
#include "graph_job.hpp"
#include "recipe_bindings.hpp"
#include "shrink_bindings.hpp"
#include "stage_bindings.hpp"
#include "route_bindings.hpp"
#include "naming_bindings.hpp"

namespace py = pybind11;
using std::int32_t;
using std::int64_t;

namespace kvaddr::python {
namespace {

// The two host routes outside the route list (§4.4 read_stream over a built table, §4.13
// envelope_moves), bound by hand.
py::array read_stream(py::handle table_o, py::handle indptr_o, int64_t page_size, py::handle start_o, py::handle out_o) {
  const auto table = input<int32_t>(table_o, "table", 2, 2);
  const auto indptr = input<int32_t>(indptr_o, "indptr", 1, 1);
  const auto start = input<int64_t>(start_o, "kv_start_idx", 1, 1, true, true);
  int64_t n = 0;
  if (out_o.is_none()) {
    require(indptr.size >= 1, "indptr", indptr.size, "needs at least one entry");
    n = std::max<int64_t>(0, indptr.at(indptr.size - 1));
  }
  auto out = output_or_fresh<int32_t>(out_o, "out", {n}, 0, 1, 1, "indptr");
  translate::read_stream({table.mat(), indptr.vec(), start.vec(), page_size, out.vec()});
  return out.arr;
}

// The arguments of decode_metadata that describe its inputs (outputs, Era C / D and SWA left unset).
DecodeMetadataArgs decode_inputs(const In<int64_t>& seq, const In<int32_t>& r2t, const In<int64_t>& rows,
                                 int64_t max_seq_pages, int64_t seq_len_delta, int64_t page_size,
                                 const In<int64_t>& v2p) {
  DecodeMetadataArgs a;
  a.seq_lens = seq.vec();
  a.req_to_token = r2t.mat();
  a.req_pool_indices = rows.vec();
  a.max_seq_pages = max_seq_pages;
  a.seq_len_delta = seq_len_delta;
  a.page_size = page_size;
  a.v2p = v2p.vec();
  return a;
}

py::tuple envelope_moves(py::handle dst_o, py::handle src_o, int64_t page_size) {
  const auto dst = input<int64_t>(dst_o, "dst_tokens", 1, 1, true);
  const auto src = input<int64_t>(src_o, "src_tokens", 1, 1, true);
  require(page_size >= 1, "page_size", page_size, "page size must be >= 1");
  const int64_t runs = dst.size / page_size;
  auto d = output<int64_t>(fresh<int64_t>({runs}, 0, "dst_tokens"), "dst_pages", 1, 1);
  auto s = output<int64_t>(fresh<int64_t>({runs}, 0, "dst_tokens"), "src_pages", 1, 1);
  translate::envelope_moves({dst.vec(), src.vec(), page_size, d.vec(), s.vec()});
  return py::make_tuple(d.arr, s.arr);
}

// Report text to Python; bytes that are not UTF-8 (file names, manifest text) are replaced.
py::str text_to_python(const std::string& t) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(t.data(), static_cast<py::ssize_t>(t.size()), "replace"));
}

// An int32 / int64 array read by replay (values widened to int64) as a numpy array of its dtype.
py::object npy_to_python(const replay::NpyArray& a) {
  // numpy refuses a shape whose dimensions multiply past its size limit even when one is 0 (replay reads such an
  // empty view, (0, 2^62), as nothing): a typed error here, never numpy's ValueError
  int64_t bytes = sizeof(int64_t);
  for (int64_t d : a.shape) {
    if (d < 0 || (d > 0 && __builtin_mul_overflow(bytes, d, &bytes))) {
      std::string shape;
      for (int64_t x : a.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(x);
      throw InvalidArgument("shape", "(" + shape + ")", "not representable as a numpy array");
    }
  }
  py::array_t<int64_t> out(std::vector<py::ssize_t>(a.shape.begin(), a.shape.end()));
  if (!a.values.empty()) std::memcpy(out.mutable_data(), a.values.data(), a.values.size() * sizeof(int64_t));
  if (a.dtype == replay::NpyDtype::int32) return out.attr("astype")("int32");
  return py::object(std::move(out));
}

}  // namespace
// The production preconditions a call of `route` breaks (translate/preconditions.hpp), one text per
// broken one naming its row and numbers: n_pages <= max_pages (canonical_page_table, read_table),
// padding tokens a guard-less kernel turns into a read before v2p, lengths that fit the int32
// outputs (decode_metadata; max_pages is its max_seq_pages there). Other routes have none listed: [].
std::vector<std::string> broken_preconditions_of(const std::string& route_name, py::handle r2t_o, py::handle rows_o,
                                                 py::handle lens_o, int64_t page_size, int64_t max_pages,
                                                 int64_t seq_len_delta, bool kernel_page_table, py::handle v2p_o) {
  const Route route = parse_route(route_name);
  if (route != Route::canonical_page_table && route != Route::read_table && route != Route::decode_metadata) return {};
  const bool decode = route == Route::decode_metadata;
  const auto r2t = input<int32_t>(r2t_o, "req_to_token", 2, 2, false, decode);
  const auto rows = input<int64_t>(rows_o, "req_pool_indices", 1, 1, true, decode);
  const auto lens = input<int64_t>(lens_o, "seq_lens", 1, 1, true);
  const auto v2p = input<int64_t>(v2p_o, "v2p", 1, 1, false, true);
  require(page_size >= 1, "page_size", page_size, "page size must be >= 1");
  check_dim(max_pages, decode ? "max_seq_pages" : "max_pages");
  if (!decode) require(seq_len_delta == 0 || route == Route::read_table, "seq_len_delta", seq_len_delta,
                       "only read_table and decode_metadata take a seq_len_delta");
  if (route == Route::canonical_page_table) {
    return broken_preconditions(CanonicalPageTableArgs{r2t.mat(), rows.vec(), lens.vec(), v2p.vec(), page_size, 1,
                                                       max_pages, {}, Variant::production});
  }
  if (route == Route::read_table) {
    return broken_preconditions(ReadTableArgs{r2t.mat(), rows.vec(), lens.vec(), seq_len_delta, max_pages, v2p.vec(),
                                              page_size, 1, {}, false, Variant::production});
  }
  static const int32_t kpt_marker = 0;  // a kernel_page_table only switches the padding check off
  DecodeMetadataArgs a = decode_inputs(lens, r2t, rows, max_pages, seq_len_delta, page_size, v2p);
  if (kernel_page_table) a.kernel_page_table = {&kpt_marker, 1, 1, 1, 1};
  return broken_preconditions(a);
}


// Graph mode's fast-loop draw on the host (kvaddr/kernels/graph_draw.hpp; the device draws the same values):
// the [rows, cols] int64 values of one job of case k.
py::array_t<int64_t> graph_draw_host(int kind, int tag, const std::vector<int64_t>& params, uint64_t seed, int64_t k,
                                     int64_t rows, int64_t cols) {
  const graph_draw::Job j = graph_job(kind, tag, params);
  require(rows >= 0 && rows <= (int64_t{1} << 31), "rows", rows, "must be in [0, 2^31]");
  require(cols >= 0 && cols <= (int64_t{1} << 31), "cols", cols, "must be in [0, 2^31]");
  require(rows * cols <= (int64_t{1} << 31), "cols", cols, "rows * cols must be <= 2^31");
  require(k >= 0, "k", k, "a case index must be >= 0");
  py::array_t<int64_t> a({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
  auto v = a.mutable_unchecked<2>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) v(r, c) = graph_draw::value(j, seed, k, r, c);
  return a;
}

}  // namespace kvaddr::python

PYBIND11_MODULE(_core, m) {
  using namespace kvaddr;
  using namespace kvaddr::python;
  namespace mdl = kvaddr::model;
  m.doc() = "kvaddr: reference model and host routes of SGLang's unified-memory KV address translation";
  m.attr("__version__") = KVADDR_VERSION;  // CMakeLists.txt project(... VERSION), the one place

  // ---- exceptions ----
  register_exceptions(m);

  // ---- names ----
  m.def("routes", [] {
    std::vector<std::string> v;
    for (Route r : kAllRoutes) v.emplace_back(to_string(r));
    return v;
  }, "The spec §4.1-4.13 route names.");
  m.def("route_fields", [](const std::string& route) { return route_fields(parse_route(route)); }, py::arg("route"),
        "The argument names of the route's field list (translate/include/kvaddr/translate/routes/<route>.hpp).");
  m.def("route_shape", [](const std::string& route) { return route_shape(parse_route(route)); }, py::arg("route"),
        "The route's shape: {'per_id': bool, 'fields': [(name, kind, int32, required, default), ...]} in field "
        "order (kind: int64, bool, variant, vec_in, mat_in, vec_out, mat_out; default: the argument struct's "
        "value of a scalar, else None).");
  m.def("id_model", [](const std::string& route, const std::vector<int64_t>& table, const std::vector<int64_t>& ids,
                       const std::map<std::string, int64_t>& scalars) {
          return id_model_lanes(parse_route(route), table, ids, scalars);
        }, py::arg("route"), py::arg("table"), py::arg("ids"), py::arg("scalars") = std::map<std::string, int64_t>{},
        "The model's lane of every id of a per-id route over `table` (the spec's id_model, model/formulas.hpp); "
        "`scalars` by field name, the others at their defaults.");
  m.def("route_parameters", [](const std::string& route) { return route_parameters(parse_route(route)); },
        py::arg("route"),
        "The Python parameters of the route's binding, in order, as (name, field it fills or None).");
  m.def("variants", [](std::optional<std::string> route) {
    std::vector<std::string> v;
    std::optional<Route> r;
    if (route) r = parse_route(*route);
    for (Variant x : kAllVariants)
      if (!r || route_accepts(*r, x)) v.emplace_back(to_string(x));
    for (Variant x : kEdgeVariants)
      if (!r || route_accepts(*r, x)) v.emplace_back(to_string(x));
    for (Variant x : kInferredVariants)
      if (!r || route_accepts(*r, x)) v.emplace_back(to_string(x));
    for (const NamedComposite& c : kNamedComposites)
      if (!r || *r == c.route) v.emplace_back(c.name);
    return v;
  }, py::arg("route") = py::none(),
     "Variant names (all, or those the route accepts; production first, then the catalogue behaviours, the edge "
     "behaviours, the inferred behaviours (issue 33) and the registered composites). Any '+'-joined set of them is a variant too.");

  // A list of kvaddr/harness/naming.hpp by name: the variants of `route` it holds, without `claimed`.
  const auto named = [](std::vector<Variant> (*list)(Route, Variant)) {
    return [list](const std::string& route, const std::string& claimed) {
      const Route r = parse_route(route);
      std::vector<std::string> v;
      for (Variant x : list(r, parse_variant(claimed))) v.emplace_back(to_string(x, r));
      return v;
    };
  };
  m.def("naming_variants", named(harness::naming_variants), py::arg("route"), py::arg("claimed"),
        "The variants a failing case of `route` may be named by, in order, without `claimed` "
        "(kvaddr/harness/naming.hpp: the list both harnesses try).");
  m.def("crash_variants", named(harness::crash_variants), py::arg("route"), py::arg("claimed"),
        "The variants whose catalogue effect is a crash, for a kernel of `route` that raises, without `claimed` "
        "(kvaddr/harness/naming.hpp).");

  m.def("compare_guarded", [](const std::string& output, py::handle expected, py::handle actual,
                              const std::vector<std::int64_t>& shape, std::optional<std::int64_t> width,
                              std::int64_t guard) {
    if (shape.empty() || shape.size() > 2 || shape[0] < 0 || (shape.size() == 2 && shape[1] < 0))
      throw InvalidArgument("shape", py::str(py::cast(shape)), "must be 1 or 2 sizes >= 0");
    if (guard < 0) throw InvalidArgument("guard", std::to_string(guard), "must be >= 0");
    harness::GuardedLayout l{guard, shape[0], 1, 0, 0};
    if (shape.size() == 2) {
      l = {guard, shape[0] * shape[1], shape[0], shape[1], width.value_or(shape[1])};
      if (l.width < 0 || l.width > shape[1])
        throw InvalidArgument("width", std::to_string(l.width), "must lie in [0, " + std::to_string(shape[1]) + "]");
    } else if (width) {
      throw InvalidArgument("width", std::to_string(*width), "only a 2-D output has a visible width");
    }
    const auto run = [&](const auto& e, const auto& a) {
      if (e.size != a.size || e.size != l.size() + 2 * guard)
        throw InvalidArgument("actual", std::to_string(a.size) + " and " + std::to_string(e.size) + " lanes",
                              "expected and actual must both hold guard + the buffer + guard = " +
                                  std::to_string(l.size() + 2 * guard) + " lanes");
      return harness::compare_guarded(output, e.ptr, a.ptr, e.size, l);
    };
    const bool i32 = is_dtype<std::int32_t>(as_ndarray(expected, "expected")) &&
                     is_dtype<std::int32_t>(as_ndarray(actual, "actual"));
    const harness::Compared c = i32 ? run(input<std::int32_t>(expected, "expected", 1, 1), input<std::int32_t>(actual, "actual", 1, 1))
                                    : run(input<std::int64_t>(expected, "expected", 1, 1, true),
                                          input<std::int64_t>(actual, "actual", 1, 1, true));
    py::list first;
    for (const harness::Lane& x : c.first) {
      const py::tuple index = x.matrix ? py::tuple(py::make_tuple(x.row, x.col)) : py::tuple(py::make_tuple(x.col));
      first.append(py::make_tuple(x.region, index, x.expected, x.actual));
    }
    return py::make_tuple(c.differing, c.outside, first);
  }, py::arg("output"), py::arg("expected"), py::arg("actual"), py::arg("shape"), py::arg("width") = py::none(),
     py::arg("guard"),
     "One output's guarded backing (guard | buffer of `shape` | guard, 1-D int32 / int64) against the expected one "
     "(kvaddr/harness/compare.hpp, the C++ harness's comparison): (lanes differing, whether one lies outside the "
     "visible lanes, the first 8 as (region, index, expected, actual)).");

  m.def("require_variant", [](const std::string& route, const std::string& variant) {
    const Route r = parse_route(route);
    const Variant v = parse_variant(variant);
    require_variant(r, v);
    return std::string(to_string(v, r));
  }, py::arg("route"), py::arg("variant"),
     "The route's spelling of a claimable variant (any '+'-joined set, parameters such as grid_spill@G "
     "included); InvalidArgument naming the claim when it is malformed, has impossible parameters or is not "
     "the route's.");
  m.def("broken_preconditions", &broken_preconditions_of, py::arg("route"), py::kw_only(), py::arg("req_to_token") = py::none(),
        py::arg("req_pool_indices") = py::none(), py::arg("seq_lens"), py::arg("page_size"), py::arg("max_pages"),
        py::arg("seq_len_delta") = 0, py::arg("kernel_page_table") = false, py::arg("v2p") = py::none(),
        "The production preconditions the call breaks, one text per broken one with its row and numbers, e.g. "
        "'row 0: n_pages = 3 > max_pages = 2 (KV length 5, page_size 2)' (canonical_page_table, read_table; "
        "decode_metadata with max_pages = max_seq_pages); [] for the routes without such preconditions.");

  // ---- model formulas (kvaddr.model, with the common ones re-exported at top level) ----
  py::module_ model = m.def_submodule("model", "The independent reference model (spec §2 formulas).");
  model.def("floor_div", &mdl::floor_div, py::arg("a"), py::arg("b"));
  model.def("floor_mod", &mdl::floor_mod, py::arg("a"), py::arg("b"));
  model.def("trunc_div", &mdl::trunc_div, py::arg("a"), py::arg("b"));
  model.def("trunc_mod", &mdl::trunc_mod, py::arg("a"), py::arg("b"));
  model.def("ceil_div", &mdl::ceil_div, py::arg("a"), py::arg("b"));
  model.def("phys", [](py::handle v2p, int64_t page_size, int64_t t) {
    const auto tab = table_arg(v2p, "v2p");
    return mdl::phys(tab, page_size, mdl::VirtualToken(t)).value;
  }, py::arg("v2p"), py::arg("page_size"), py::arg("t"), "phys(t) = max(v2p[t div ps]*ps + t mod ps, 0); t < 0 -> 0.");
  model.def("kernel_id", [](py::handle v2p, int64_t page_size, int64_t multiplier, int64_t t) {
    const auto tab = table_arg(v2p, "v2p");
    return mdl::kernel_id(tab, page_size, multiplier, mdl::VirtualToken(t)).value;
  }, py::arg("v2p"), py::arg("page_size"), py::arg("multiplier"), py::arg("t"),
     "d(t) = max(v2p[t div ps]*ps*M + t mod ps, 0); t < 0 -> 0.");
  model.def("kernel_id_unclamped", [](py::handle v2p, int64_t page_size, int64_t multiplier, int64_t t) {
    const auto tab = table_arg(v2p, "v2p");
    return mdl::kernel_id_unclamped(tab, page_size, multiplier, mdl::VirtualToken(t));
  }, py::arg("v2p"), py::arg("page_size"), py::arg("multiplier"), py::arg("t"));
  model.def("kernel_id_variant", [](py::handle v2p, int64_t page_size, int64_t multiplier, int64_t t,
                                    const std::string& div, StrictBool padding_guard) {
    const auto tab = table_arg(v2p, "v2p");
    mdl::DivKind k = mdl::DivKind::floor;
    if (div == "trunc") k = mdl::DivKind::trunc;
    else if (div != "floor") throw InvalidArgument("div", div, "must be 'floor' or 'trunc'");
    return mdl::kernel_id_variant(tab, page_size, multiplier, mdl::VirtualToken(t), k, padding_guard);
  }, py::arg("v2p"), py::arg("page_size"), py::arg("multiplier"), py::arg("t"), py::arg("div") = "floor",
     py::arg("padding_guard") = true, "Spec I9 division experiments (div 'floor' or 'trunc').");
  model.def("block_entry", [](py::handle v2p, int64_t multiplier, int64_t p) {
    const auto tab = table_arg(v2p, "v2p");
    return mdl::block_entry(tab, multiplier, mdl::VirtualPage(p));
  }, py::arg("v2p"), py::arg("multiplier"), py::arg("p"), "max(v2p[p]*M, 0).");
  model.def("block_entry_unclamped", [](py::handle v2p, int64_t multiplier, int64_t p) {
    const auto tab = table_arg(v2p, "v2p");
    return mdl::block_entry_unclamped(tab, multiplier, mdl::VirtualPage(p));
  }, py::arg("v2p"), py::arg("multiplier"), py::arg("p"), "v2p[p]*M (Era B flashmla: a tombstone gives -M).");
  model.def("token_from_entry", &mdl::token_from_entry, py::arg("entry"), py::arg("o"), py::arg("page_size"));
  model.def("phi", [](int64_t x, int64_t page_size, int64_t multiplier) {
    return mdl::phi(mdl::PhysicalToken(x), page_size, multiplier).value;
  }, py::arg("x"), py::arg("page_size"), py::arg("multiplier"), "phi(x) = (x div ps)*ps*M + x mod ps.");
  model.def("write_loc_owned", [](int64_t loc, int64_t dcp_size, int64_t dcp_rank) {
    return mdl::write_loc_owned(mdl::WidenedWriteLoc(loc), dcp_size, dcp_rank);
  }, py::arg("loc"), py::arg("dcp_size"), py::arg("dcp_rank"));
  model.def("write_loc", [](py::handle v2p, int64_t page_size, int64_t multiplier, int64_t dcp_size, int64_t dcp_rank,
                            int64_t loc) {
    const auto tab = table_arg(v2p, "v2p");
    return mdl::write_loc(tab, page_size, multiplier, dcp_size, dcp_rank, mdl::WidenedWriteLoc(loc)).value;
  }, py::arg("v2p"), py::arg("page_size"), py::arg("multiplier"), py::arg("dcp_size"), py::arg("dcp_rank"),
     py::arg("loc"), "One write-loc lane: d(loc div dcp_size) if loc > 0 and owned, else 0.");
  model.def("write_loc_lanes", [](py::handle v2p, int64_t page_size, int64_t multiplier, int64_t dcp_size,
                                  int64_t dcp_rank, py::handle locs, int64_t out_width) {
    const auto tab = table_arg(v2p, "v2p");
    const auto raw = table_arg(locs, "locs");
    std::vector<mdl::WidenedWriteLoc> w;
    for (int64_t x : raw) w.emplace_back(x);
    const auto lanes = mdl::write_loc_lanes(tab, page_size, multiplier, dcp_size, dcp_rank, w, out_width);
    py::array_t<int64_t> a(static_cast<py::ssize_t>(lanes.size()));
    std::copy(lanes.begin(), lanes.end(), a.mutable_data());
    return a;
  }, py::arg("v2p"), py::arg("page_size"), py::arg("multiplier"), py::arg("dcp_size"), py::arg("dcp_rank"),
     py::arg("locs"), py::arg("out_width"));
  model.def("swa_id", [](py::handle swa_v2p, int64_t page_size, int64_t swa_multiplier, int64_t t) {
    const auto tab = table_arg(swa_v2p, "swa_v2p");
    return mdl::swa_id(tab, page_size, swa_multiplier, mdl::VirtualToken(t)).value;
  }, py::arg("swa_v2p"), py::arg("page_size"), py::arg("swa_multiplier"), py::arg("t"));
  model.def("mamba_slot", [](py::handle v2p, int64_t v, StrictBool clamp) {
    const auto tab = table_arg(v2p, "v2p");
    return mdl::mamba_slot(tab, v, clamp);
  }, py::arg("v2p"), py::arg("v"), py::arg("clamp") = false);
  for (const char* name : {"phys", "kernel_id", "kernel_id_unclamped", "block_entry", "block_entry_unclamped", "phi",
                           "swa_id", "mamba_slot", "token_from_entry", "write_loc_owned", "floor_div", "floor_mod",
                           "trunc_div", "trunc_mod", "ceil_div"}) {
    m.attr(name) = model.attr(name);
  }

  // ---- Geometry ----
  py::class_<mdl::Geometry> geometry(m, "Geometry", "Validated geometry of one sub-pool (spec §0.4, §3).");
  geometry.def(py::init([](int64_t page_size, int64_t multiplier, int64_t num_pages, int64_t num_layers,
                           int64_t row_width, int64_t item_bytes, const std::string& layout) {
                 mdl::LayoutKind k = mdl::LayoutKind::page_major;
                 if (layout == "token_major") k = mdl::LayoutKind::token_major;
                 else if (layout != "page_major") throw InvalidArgument("layout", layout, "must be 'page_major' or 'token_major'");
                 return mdl::Geometry(page_size, multiplier, num_pages, num_layers, row_width, item_bytes, k);
               }),
               py::arg("page_size"), py::arg("multiplier"), py::arg("num_pages"), py::arg("num_layers") = 1,
               py::arg("row_width") = 1, py::arg("item_bytes") = 1, py::arg("layout") = "page_major");
  // The integer read-only properties, each the Geometry accessor of the same name.
  using GeometryValue = std::int64_t (mdl::Geometry::*)() const noexcept;
  const std::pair<const char*, GeometryValue> geometry_values[] = {
      {"page_size", &mdl::Geometry::page_size},     {"multiplier", &mdl::Geometry::multiplier},
      {"num_pages", &mdl::Geometry::num_pages},     {"num_layers", &mdl::Geometry::num_layers},
      {"row_width", &mdl::Geometry::row_width},     {"item_bytes", &mdl::Geometry::item_bytes},
      {"stride", &mdl::Geometry::stride},           {"kernel_rows", &mdl::Geometry::kernel_rows},
      {"num_slots", &mdl::Geometry::num_slots},     {"row_bytes", &mdl::Geometry::row_bytes},
      {"entry_bytes", &mdl::Geometry::entry_bytes}, {"page_bytes", &mdl::Geometry::page_bytes},
      {"total_bytes", &mdl::Geometry::total_bytes}, {"kernel_view_elems", &mdl::Geometry::kernel_view_elems},
  };
  for (const auto& [name, value] : geometry_values) geometry.def_property_readonly(name, value);
  geometry
      .def_property_readonly("layout", [](const mdl::Geometry& g) { return std::string(mdl::to_string(g.layout())); })
      .def("kernel_ids_fit_int32", &mdl::Geometry::kernel_ids_fit_int32)
      .def("kernel_id", [](const mdl::Geometry& g, py::handle v2p, int64_t t) {
        const auto tab = table_arg(v2p, "v2p");
        return mdl::kernel_id(tab, g, mdl::VirtualToken(t)).value;
      }, py::arg("v2p"), py::arg("t"))
      .def(py::self == py::self)
      .def("__repr__", [](const mdl::Geometry& g) {
        return "Geometry(page_size=" + std::to_string(g.page_size()) + ", multiplier=" + std::to_string(g.multiplier()) +
               ", num_pages=" + std::to_string(g.num_pages()) + ", num_layers=" + std::to_string(g.num_layers()) +
               ", row_width=" + std::to_string(g.row_width()) + ", item_bytes=" + std::to_string(g.item_bytes()) +
               ", layout='" + std::string(mdl::to_string(g.layout())) + "')";
      });

  // ---- routes: every route of the list (route_bindings.hpp), then aliases and helpers ----
  def_routes(m);
  def_naming(m);  // naming_bindings.hpp: kvaddr._core.name_case
  const auto none = py::none();
  m.def("translate_kv_loc", [](py::handle loc, py::handle v2p, int64_t page_size, py::handle out) {
    return call_route<Route::token_translate>(loc, v2p, page_size, int64_t{1}, out, std::string("production"));
  }, py::arg("loc"), py::arg("v2p"), py::arg("page_size"), py::arg("out") = none, "Physical translate (M = 1).");
  m.def("translate_kv_loc_for_kernel", [](py::handle loc, py::handle v2p, int64_t page_size,
                                                     int64_t multiplier, py::handle out) {
    return call_route<Route::token_translate>(loc, v2p, page_size, multiplier, out, std::string("production"));
  }, py::arg("loc"), py::arg("v2p"), py::arg("page_size"), py::arg("multiplier"), py::arg("out") = none);
  m.def("translate_v2p", [](py::handle virt, py::handle v2p, int64_t page_size, int64_t page_stride,
                                       py::handle out) {
    require(page_size >= 1, "page_size", page_size, "page size must be >= 1");
    require(page_stride >= page_size && page_stride % page_size == 0, "page_stride", page_stride,
            "must be a positive multiple of page_size = " + std::to_string(page_size));
    return call_route<Route::token_translate>(virt, v2p, page_size, page_stride / page_size, out, std::string("production"));
  }, py::arg("virt"), py::arg("v2p"), py::arg("page_size"), py::arg("page_stride"), py::arg("out") = none,
     "Fused translate_v2p(virt, v2p, page_size, page_stride, out).");
  bind_recipes(m);  // the harness's case drawing (gen/recipe.hpp): draw_recipe, Rng
  bind_shrink(m);   // the harness's shrinking (gen/shrink.hpp): shrink_recipe, shrink_candidates
  bind_adjacent(m);  // adjacent slices of one allocation (kvaddr/harness/adjacent.hpp)
  bind_stage(m);     // the batched eager loop's staging buffer (kvaddr.present.stage)
  m.def("graph_draw", &graph_draw_host, py::arg("kind"), py::arg("tag"), py::arg("params"), py::arg("seed"), py::arg("k"),
        py::arg("rows"), py::arg("cols"),
        "Graph mode's fast-loop draw of one array of case k on the host (int64 [rows, cols]; the device draws the same).");
  m.def("read_stream", &read_stream, py::arg("table"), py::arg("indptr"), py::arg("page_size"),
        py::arg("kv_start_idx") = none, py::arg("out") = none, "§4.4 packed CSR stream over a built table.");
  m.def("write_loc_to_kernel_ids", [](py::handle loc, py::handle v2p, int64_t page_size, int64_t stride,
                                      int64_t dcp_size, int64_t dcp_rank, py::handle out, std::optional<int64_t> w) {
    require(page_size >= 1, "page_size", page_size, "page size must be >= 1");
    require(stride >= page_size && stride % page_size == 0, "stride", stride,
            "must be a positive multiple of page_size = " + std::to_string(page_size));
    return call_route<Route::write_loc>(loc, v2p, page_size, stride / page_size, dcp_size, dcp_rank, out, w,
                                        std::string("production"));
  }, py::arg("loc"), py::arg("v2p"), py::arg("page_size"), py::arg("stride"), py::arg("dcp_size") = 1,
     py::arg("dcp_rank") = 0, py::arg("out") = none, py::arg("out_width") = none);
  m.def("envelope_moves", &envelope_moves, py::arg("dst_tokens"), py::arg("src_tokens"), py::arg("page_size"),
        "§4.13 move_kv_cache: page-major runs -> (dst_pages, src_pages).");

  // ---- replay ----
  // The options of kvaddr.replay / replay_text: confinement and the "behaves like" search's budget.
  const auto replay_options = [](bool allow_outside, int64_t search_budget, double search_seconds) {
    require(search_budget >= 1, "search_budget", search_budget, "must be at least 1 candidate");
    if (!(search_seconds >= 0) || search_seconds > 1e9) {
      throw InvalidArgument("search_seconds", std::to_string(search_seconds), "must be a number of seconds >= 0");
    }
    return replay::ReplayOptions{.allow_outside = allow_outside, .search = {search_budget, search_seconds}};
  };
  m.def("replay", [replay_options](const std::filesystem::path& dir, StrictBool allow_outside, int64_t search_budget,
                                   double search_seconds) {
          return py::module_::import("json").attr("loads")(text_to_python(
              replay::to_json(replay::replay_dir(dir, replay_options(allow_outside, search_budget, search_seconds)))));
        }, py::arg("dir"), py::kw_only(), py::arg("allow_outside") = false,
        py::arg("search_budget") = replay::kDefaultSearchCandidates, py::arg("search_seconds") = replay::kDefaultSearchSeconds,
        "Replay DIR/manifest.json (docs/replay.md); returns the JSON report as a dict. Files outside DIR are "
        "read only with allow_outside=True; the behaves-like search tries at most search_budget variants and "
        "starts none after search_seconds per call.");
  m.def("replay_text", [replay_options](const std::filesystem::path& dir, StrictBool allow_outside, int64_t search_budget,
                                        double search_seconds) {
          return text_to_python(
              replay::to_text(replay::replay_dir(dir, replay_options(allow_outside, search_budget, search_seconds))));
        }, py::arg("dir"), py::kw_only(), py::arg("allow_outside") = false,
        py::arg("search_budget") = replay::kDefaultSearchCandidates, py::arg("search_seconds") = replay::kDefaultSearchSeconds,
        "Replay DIR/manifest.json; returns the human-readable report.");
  // The files of a replay directory read by replay's own readers and confinement (kvaddr.assert_replay).
  m.def("replay_read_manifest", [](const std::filesystem::path& dir, StrictBool allow_outside) {
          return py::module_::import("json").attr("loads")(text_to_python(replay::read_manifest(dir, {.allow_outside = allow_outside, .search = {}})));
        }, py::arg("dir"), py::kw_only(), py::arg("allow_outside") = false,
        "DIR/manifest.json as a dict, read as kvaddr replay reads it (inside DIR unless allow_outside).");
  m.def("replay_read_input", [](const std::filesystem::path& dir, const std::string& entry, StrictBool allow_outside) {
          const replay::NpyArray a = replay::read_dir_input(dir, entry, {.allow_outside = allow_outside, .search = {}});
          return npy_to_python(a);
        }, py::arg("dir"), py::arg("entry"), py::kw_only(), py::arg("allow_outside") = false,
        "One input of a replay manifest (its entry as JSON text: a file, a slice or a strided view) as kvaddr "
        "replay reads it: the values the route sees, int32 or int64.");
  // The one recording writer (kvaddr/replay/record.hpp); kvaddr.record decides each array's entry form.
  m.def("write_recording", [](const std::filesystem::path& dir, const py::object& description, const py::object& arrays) {
          if (!py::isinstance<py::dict>(description)) throw InvalidArgument("description", type_name(description), "expected a dict");
          if (!py::isinstance<py::dict>(arrays)) throw InvalidArgument("arrays", type_name(arrays), "expected a dict {NAME.npy: ndarray}");
          replay::RecordedArrays recorded;
          for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(arrays)) {
            if (!py::isinstance<py::str>(key)) throw InvalidArgument("arrays", type_name(key), "keys are file names (str)");
            const std::string name = py::cast<std::string>(key);
            const std::string arg = "arrays[" + name + "]";
            const py::array a = as_ndarray(value, arg.c_str());
            replay::RecordedArray r;
            r.shape = shape_of(a);
            if (is_dtype<int32_t>(a)) {
              const auto c = py::array_t<int32_t, py::array::c_style>::ensure(a);
              r.dtype = replay::NpyDtype::int32;
              r.values.assign(c.data(), c.data() + c.size());
            } else if (is_dtype<int64_t>(a)) {
              const auto c = py::array_t<int64_t, py::array::c_style>::ensure(a);
              r.values.assign(c.data(), c.data() + c.size());
            } else {
              throw InvalidArgument(arg, dtype_name(a), "must be int32 or int64 (a recording converts no dtype)");
            }
            recorded.emplace(name, std::move(r));
          }
          std::string text;
          try {  // (allow_nan=False: NaN / Infinity are no JSON)
            text = py::cast<std::string>(py::module_::import("json").attr("dumps")(description, py::arg("allow_nan") = false));
          } catch (const py::error_already_set& e) {
            if (!e.matches(PyExc_TypeError) && !e.matches(PyExc_ValueError)) throw;
            throw InvalidArgument("description", type_name(description), std::string("not JSON-serialisable: ") + e.what());
          }
          replay::write_recording(dir, text, recorded);
        }, py::arg("dir"), py::arg("description"), py::arg("arrays"),
        "Write a replay directory: `description` as kvaddr/replay/record.hpp describes it (version, calls, side_files, "
        "clear_npy), `arrays` {NAME.npy: int32 / int64 ndarray}; everything is checked before anything is written.");
  m.def("replay_read_npy", [](const std::filesystem::path& dir, const std::string& name, StrictBool allow_outside) {
          replay::NpyArray a = replay::read_dir_npy(dir, name, {.allow_outside = allow_outside, .search = {}});
          if (a.dtype == replay::NpyDtype::other) throw FormatError(name, a.descr, "not an int32 or int64 array");
          return npy_to_python(a);
        }, py::arg("dir"), py::arg("name"), py::kw_only(), py::arg("allow_outside") = false,
        "The int32 / int64 .npy file NAME of a replay directory, read as kvaddr replay reads it.");
}
