#pragma once
// C++ form of kvaddr.check (docs/harness.md) for kernel authors: a callable over the route's argument
// struct (contracts.hpp) is run on seeded cases, every lane of its output buffer (guard regions before
// and after included) is compared with the host route, the first failure is shrunk and named by the
// catalogue variants that reproduce it. Usable from GoogleTest:
//
//   auto r = kvaddr::harness::check_read_table(
//       [](const kvaddr::ReadTableArgs& a) { my_launch(a, /*stream=*/nullptr); },
//       {.cases = 200, .seed = 1, .memory = kvaddr::harness::Memory::device});
//   EXPECT_TRUE(r.ok) << r.to_text();
//
// With Memory::device the struct's pointers are device pointers (cudaMalloc'ed by the harness) and the
// harness synchronises the device after the call; Memory::host gives host pointers. Device memory
// needs a build with CUDA (otherwise InvalidArgument "memory"). Case i of a seed is built from gen/'s recipe
// of (seed, i) (gen/recipe.hpp), the case kvaddr.check draws with params big_entries and long_rows False, and
// presented in kvaddr.check's layout where the struct expresses it (docs/harness.md "Layouts (C++)").
//
// Launch on stream() (a cudaStream_t): it is the harness's capture stream in graph mode and nullptr (the
// legacy default stream) otherwise, so one launcher serves both modes:
//
//   [](const kvaddr::ReadTableArgs& a) { my_launch(a, static_cast<cudaStream_t>(kvaddr::harness::stream())); }
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kvaddr/translate/contracts.hpp"
#include "kvaddr/translate/route_list.hpp"

namespace kvaddr::harness {

enum class Memory { host, device };

// What happens to a case past an int32 precondition (the claimed host route raises Overflow: a table entry
// v2p[p] * M >= 2^31 stored into an int32 table, prefix sums cu_seqlens_k past 2^31 - 1), on the routes that
// have an int32_wrap variant (read_table, canonical_page_table, flashmla_block_table, decode_metadata, the
// int32 form of token_translate):
//   observe: the kernel runs and is compared with the claimed variant plus int32_wrap (the low 32 bits, what an
//            int32 store keeps); Report::overflow counts how it behaved, and none of these cases is a failure.
//   wrap:    the same comparison, but a differing case is a failure, shrunk and named against the wrap variant.
//   skip:    not run.
// Every such case is counted in Report::rejected and Report::rejections as well.
enum class OverflowPolicy { observe, wrap, skip };

struct Options {
  std::int64_t cases = 100;
  std::uint64_t seed = 0;
  std::int64_t max_lanes = 4096;  // upper bound of a case's output lanes (sizes are log-uniform)
  Variant variant = Variant::production;  // the behaviour the kernel claims
  Memory memory = Memory::host;
  bool shrink = true;
  // The wall time shrinking may spend (gen/shrink.hpp; at most 2000 steps), in [0, 10^9] seconds.
  double shrink_seconds = 30.0;
  // Non-empty: the failing minimal case is written as a replay directory (docs/replay.md) under this root,
  // <root>/<route>-seed<seed>-case<index>/ (created; existing files of that directory are overwritten), readable
  // by `kvaddr replay DIR` and kvaddr::replay::replay_dir. Must not name an existing non-directory.
  std::string replay_dir = {};
  OverflowPolicy overflow = OverflowPolicy::observe;
  // The share of cases drawn past an int32 precondition on the routes with an int32_wrap variant, in [0, 1].
  double overflow_fraction = 0.1;
  // Memory::device only: the kernel is called eagerly once on case 0 (the capture case: no overflow, no alias, no
  // adjacent layout), then captured once into a CUDA graph (stream capture on the harness's stream(), which the kernel
  // must launch on); every later case writes new values at case 0's shapes and scalars into the same device
  // buffers, replays the graph and compares every lane. Not shrunk. Needs CUDA (InvalidArgument "graph").
  bool graph = false;
  // Non-empty: no cases are drawn; the kernel runs on the one case recorded in this replay directory (written
  // by the harness through replay_dir, for the same route and output type) and is compared as in a check.
  std::string from_replay = {};
};

// The cases past an int32 precondition that were run (OverflowPolicy observe / wrap).
struct OverflowSummary {
  std::int64_t cases = 0;
  std::int64_t behaves_like_wrap = 0;  // equal to the claimed variant plus int32_wrap on every lane
  std::int64_t raised = 0;
  std::int64_t differs = 0;
  std::int64_t lanes = 0;  // checked lanes of the cases that wrapped
  std::string variant;     // the wrap variant they were compared with
  std::string first;       // the first case that did not wrap: "case I (reason): kind: detail"
};

struct Lane {
  // the output buffer's name (out, kv_indices, cache_seqlens, cu_seqlens_k, page_table); region "input": the input
  std::string output;
  // "out", "past_width", "guard_before", "guard_after"; in an adjacent layout (one allocation, docs/harness.md) also
  // "neighbour_before" / "neighbour_after" (a lane of the input next to the output; col as for the guards) and
  // "input" (a written lane of an input away from every output)
  std::string region;
  std::int64_t row = 0;
  std::int64_t col = 0;  // the element index for 1-D outputs (guards: offset from the buffer's edge)
  std::int64_t expected = 0;
  std::int64_t actual = 0;
  bool matrix = false;  // a lane of a 2-D output (row, col); else col alone is the index
  // neighbour_*: the input's element the lane is ("page_kernel_lens[0]"); out: the other output it is next to
  std::string neighbour = "";
};

struct Report {
  std::string route;
  bool ok = true;
  std::int64_t cases = 0;
  std::int64_t rejected = 0;  // drawn cases the contract rejects under the claimed variant
  std::int64_t lanes = 0;     // checked lanes (buffers and guards)
  std::string kind;           // "mismatch", "out_of_bounds", "raised", "input_modified" (empty when ok)
  std::string detail;
  std::int64_t case_index = -1;
  std::int64_t differing = 0;
  std::int64_t shrink_steps = 0;
  std::vector<Lane> first;                // up to 8
  std::vector<std::string> behaves_like;  // variants whose host output equals the kernel's
  // When no variant is named: the behaviours replay's inference confirms on the recorded case (one line
  // each, with its parameters and the variant to claim), or why none is ("not explained within the bound").
  std::vector<std::string> inferred;
  std::string not_explained;
  std::string minimal_case;               // the shrunk case, as text
  std::string replay_dir;                 // the directory written for the failure ("" when none)
  std::string snippet;                    // with replay_dir: a GoogleTest case that re-runs a kernel on it
  bool graph = false;                     // the cases ran as replays of one captured CUDA graph
  std::string variant;                    // the variant the failure was compared with (claimed or its wrap)
  // Drawn cases the claimed contract rejects, by reason: the error class and the argument it names
  // ("Overflow(page_table)").
  std::map<std::string, std::int64_t> rejections;
  OverflowSummary overflow;
  std::string to_text() const;
};

// The stream a kernel under check launches on, as a cudaStream_t: the harness's capture stream while a graph
// check calls the kernel (warm-up and capture), nullptr otherwise. Only meaningful inside the callable.
void* stream();

// The kernel type of route R: a callable over its spec's Args struct (the int64-out form where the
// output type is a parameter); Kernel32Of<R> the int32-out form of such a route.
template <Route R>
using KernelOf = std::function<void(const typename RouteSpec<R>::Args&)>;
template <Route R>
using Kernel32Of = std::function<void(const typename RouteSpec<R>::template ArgsOf<std::int32_t>&)>;

using TokenTranslateKernel = KernelOf<Route::token_translate>;
using ReadTableKernel = KernelOf<Route::read_table>;
using WriteLocKernel = KernelOf<Route::write_loc>;
using CanonicalPageTableKernel = KernelOf<Route::canonical_page_table>;
using FlashmlaBlockTableKernel = KernelOf<Route::flashmla_block_table>;
using DecodeMetadataKernel = KernelOf<Route::decode_metadata>;
using KvIndicesInplaceKernel = KernelOf<Route::kv_indices_inplace>;
using SwaTranslateKernel = KernelOf<Route::swa_translate>;
using TokenTranslateKernel32 = Kernel32Of<Route::token_translate>;
using SwaTranslateKernel32 = Kernel32Of<Route::swa_translate>;
using DcpReadTranslateKernel = KernelOf<Route::dcp_read_translate>;
using TransferIdsKernel = KernelOf<Route::transfer_ids>;
using MambaTranslateKernel = KernelOf<Route::mamba_translate>;
using FullPrefillTableKernel = KernelOf<Route::full_prefill_table>;
using EagerFunnelKernel = KernelOf<Route::eager_funnel>;

Report check_token_translate(const TokenTranslateKernel& kernel, const Options& options = {});
Report check_read_table(const ReadTableKernel& kernel, const Options& options = {});
Report check_write_loc(const WriteLocKernel& kernel, const Options& options = {});
// out [rows >= B, stride >= max_pages] (out.cols = max_pages, out.row_stride may be larger).
Report check_canonical_page_table(const CanonicalPageTableKernel& kernel, const Options& options = {});
// kv_indices [B, stride >= W] (kv_indices.cols = W covers every row's pages); kv_start_idx in some cases.
Report check_flashmla_block_table(const FlashmlaBlockTableKernel& kernel, const Options& options = {});
// The fa3 fused decode metadata with the Era-B v2p remap: outputs cache_seqlens [B], cu_seqlens_k [B + 1]
// and page_table [B, stride >= max_seq_pages]; page_size a power of two.
Report check_decode_metadata(const DecodeMetadataKernel& kernel, const Options& options = {});
// kv_indices holds the virtual ids [0, kv_indptr[batch_size]) and a stale tail that must stay untouched;
// kv_indptr may be longer than batch_size + 1 (padded graph rows); src is absent (in place).
Report check_kv_indices_inplace(const KvIndicesInplaceKernel& kernel, const Options& options = {});
// The id routes: ids (slots for mamba) [N] -> out [>= N]; lanes of out past N (a tail in some cases) stay
// untouched. swa_translate: swa_v2p, swa_multiplier, int64 out; dcp_read_translate: ids widened by dcp_size;
// transfer_ids: no multiplier; mamba_translate: int32 out, a raw gather of v2p[slot] (clamp in some cases; no
// padding slots when clamp is false, where padding reads outside the table).
Report check_swa_translate(const SwaTranslateKernel& kernel, const Options& options = {});
Report check_dcp_read_translate(const DcpReadTranslateKernel& kernel, const Options& options = {});
Report check_transfer_ids(const TransferIdsKernel& kernel, const Options& options = {});
Report check_mamba_translate(const MambaTranslateKernel& kernel, const Options& options = {});
// token_translate and swa_translate with int32 out (translate_kv_loc_for_kernel's int32 form): kernel ids
// that fit int32 (no out == ids: the element types differ).
Report check_token_translate_i32(const TokenTranslateKernel32& kernel, const Options& options = {});
Report check_swa_translate_i32(const SwaTranslateKernel32& kernel, const Options& options = {});
// out [rows >= B, stride >= max_pages] (out.cols = max_pages), prefix-only like canonical_page_table.
Report check_full_prefill_table(const FullPrefillTableKernel& kernel, const Options& options = {});
// page_table [rows, cols] of page-start tokens (row stride >= cols) -> out of the same shape (int64,
// out.cols = cols, row stride >= cols).
Report check_eager_funnel(const EagerFunnelKernel& kernel, const Options& options = {});

namespace detail {
// The check of route r over `kernel`, a KernelOf<r> (check<R> below); InvalidArgument("route") for a value
// outside the enum.
Report check_route(Route r, const void* kernel, const Options& options);
// Case `index` of `seed` as the check of route r draws it (before any overflow case is made of it): its input
// arrays by name (req_to_token included), its outputs' contents before the call, its scalars. It is built from
// gen::draw_recipe(r, seed, index, max_lanes, {big_entries 0, long_rows 0}), kvaddr.check's case of the same
// arguments (tests compare them). InvalidArgument for a route outside the enum or index < 0.
// `presented` says how the kernel gets it (the layouts of kvaddr.check's case of the same arguments that the Args
// structs express; python/tests/test_recipes.py compares them): "adjacent" (the members, route argument names in
// backing order, and "shared"), "req_to_token_stride", "alias" (input, offset in the output), "packed" (1-D inputs
// kvaddr.check presents strided, here packed: a Vec has no stride).
struct DrawnCase {
  std::map<std::string, std::vector<std::int64_t>> arrays, befores;
  std::map<std::string, std::int64_t> scalars;
  struct Presented {
    std::vector<std::string> adjacent;  // empty: none
    std::int64_t shared = 0;
    std::int64_t req_to_token_stride = 0;  // 0: no req_to_token
    std::string alias;                     // "" none
    std::int64_t alias_offset = 0;
    std::vector<std::string> packed;
    // A partial overlap: an input inside a longer output (alias_offset > 0) or an adjacent layout whose members
    // share lanes. Every route's validation rejects such a call, so the check counts the case as rejected.
    bool partially_overlaps() const { return alias_offset > 0 || shared > 0; }
  } presented;
};
DrawnCase drawn_case(Route r, std::uint64_t seed, std::int64_t index, std::int64_t max_lanes);
}  // namespace detail

// The check of route R by its enumerator: check<Route::write_loc>(kernel) is check_write_loc(kernel).
// Defined for every route of the route list (a per-id route of the list needs no harness code of its own).
template <Route R>
Report check(const KernelOf<R>& kernel, const Options& options = {}) {
  return detail::check_route(R, &kernel, options);
}

}  // namespace kvaddr::harness
