#pragma once
// A case of the C++ harness as it holds it (check.cpp, present.cpp): named int64 / int32 arrays, req_to_token,
// scalars, the outputs' before-buffers, and how the case is presented to the kernel (Layout: the layouts of the
// recipe that the route's Args struct can express, as kvaddr.check lays them out for the same seed and index).
// Private to harness/src.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvaddr/gen/recipe.hpp"
#include "kvaddr/harness/adjacent.hpp"
#include "kvaddr/harness/check.hpp"
#include "memory.hpp"

namespace kvaddr::harness::cases {

using I64s = std::vector<std::int64_t>;

constexpr std::int64_t kGuard = 64;  // guard elements before and after every output (and an adjacent backing)
constexpr std::int64_t kSentinelBase = -0x2A2A0000;
inline std::int64_t sentinel(std::int64_t lane) { return kSentinelBase - lane % 65521; }
// A strided 2-D input (req_to_token, eager_funnel's page_table): rows kStrideWiden elements wider than its
// columns, the extra lanes holding kStridePad (kvaddr.present.spread's STRIDE_PAD and fill).
constexpr std::int64_t kStrideWiden = 3;
constexpr std::int64_t kStridePad = -7777;

struct Output {
  std::string name;
  bool i32 = false;
  std::int64_t rows = 1, stride = 0, width = 0;  // stride 0: a 1-D buffer of `width` lanes; else [rows, stride]
  std::int64_t salt = 0;                         // sentinel offset of this buffer's lanes
  I64s before;
  std::int64_t lanes() const { return stride > 0 ? rows * stride : width; }
  void refill() {  // the sentinel prefill for the current shape
    before.resize(static_cast<std::size_t>(lanes()));
    for (std::size_t i = 0; i < before.size(); ++i) before[i] = sentinel(salt + static_cast<std::int64_t>(i));
  }
};

// A 2-D int64 input whose elements lie in Case::arr under the same name (row-major, row stride >= cols).
struct MatIn {
  std::int64_t rows = 0, cols = 0, stride = 0;
};

// How a case is handed to the kernel, beyond its arrays' values (docs/harness.md "C++", "Layouts").
struct Layout {
  // 1-D inputs the recipe draws strided (kvaddr.check: every other element of a twice-as-long buffer), presented
  // packed here: a Vec has no stride.
  std::vector<std::string> packed;
  std::int64_t r2t_stride = 0;  // req_to_token's row stride: 0 = its columns (packed), else cols + kStrideWiden
  // An input presented as elements [alias_offset, alias_offset + its size) of outs[0] ("" none): offset 0 and the
  // same size is out == input; offset > 0 a partial overlap (validation rejects it).
  std::string alias;
  std::int64_t alias_offset = 0;
  // Arrays (case keys: inputs and outputs, in backing order) presented as consecutive slices of one allocation,
  // each starting `shared` int32 lanes before the previous one's end (kvaddr/harness/adjacent.hpp); empty: none.
  std::vector<std::string> adjacent;
  std::vector<std::string> adjacent_names;  // the same as route argument names (members of the attribution)
  std::int64_t shared = 0;
};

struct Case {
  std::map<std::string, I64s> arr;
  std::map<std::string, MatIn> mats;
  std::map<std::string, std::vector<std::int32_t>> arr32;
  std::vector<std::int32_t> r2t;
  std::int64_t r2t_rows = 0, r2t_cols = 0;
  std::map<std::string, std::int64_t> s;
  std::vector<Output> outs;
  Layout layout;
};

using Bufs = std::vector<I64s>;  // one buffer per output, without guards

inline I64s guarded(const I64s& buf) {
  I64s flat(static_cast<std::size_t>(kGuard), 0);
  for (std::int64_t i = 0; i < kGuard; ++i) flat[static_cast<std::size_t>(i)] = sentinel(40000 + i);
  flat.insert(flat.end(), buf.begin(), buf.end());
  for (std::int64_t i = 0; i < kGuard; ++i) flat.push_back(sentinel(50000 + i));
  return flat;
}

template <class T>
std::vector<T> narrow(const I64s& v) {
  return std::vector<T>(v.begin(), v.end());
}

// The case's name for a route argument (flashmla's page_kernel_lens are the batch's seq_lens), and back.
inline std::string case_key(Route r, std::string_view field) {
  if (r == Route::flashmla_block_table && field == "page_kernel_lens") return "seq_lens";
  return std::string(field);
}
inline std::string field_of(Route r, std::string_view key) {
  if (r == Route::flashmla_block_table && key == "seq_lens") return "page_kernel_lens";
  return std::string(key);
}

// One allocation of a presented case and its contents before the call, in int32 lanes (an int64 element is two,
// little-endian), compared whole after the call.
struct Allocation {
  void* base = nullptr;
  std::vector<std::int32_t> image;
  std::string input;  // the one input it holds ("" for an output's guarded buffer and the adjacent backing)
};

// A case presented in an arena: where each argument lies.
struct Presented {
  std::map<std::string, const std::int64_t*> arr;
  std::map<std::string, const std::int32_t*> arr32;
  const std::int32_t* r2t = nullptr;
  std::vector<void*> outs;            // each output's first element
  std::vector<int> out_alloc;         // the allocation of output j's guarded buffer; -1: in the adjacent backing
  std::vector<Allocation> allocs;
  int group = -1;                     // the adjacent backing's allocation (-1: none)
  std::optional<AdjacentLayoutOf> adjacent;  // its layout
  template <class T>
  T* out(std::size_t k) const { return static_cast<T*>(outs[k]); }
};

// present.cpp ------------------------------------------------------------------------------------------------
// The adjacent layout of a recipe for case `c` of `route` (gen/recipe.hpp adjacent_pool / adjacent_pick, chosen as
// kvaddr.adjacent.draw chooses: none when the recipe aliases or overlaps; the admitted or rejected candidates of
// the route, the first from adjacent_pick on that fits the arrays neither strided in the recipe nor aliased); a
// rejected layout's shared lanes go to the recipe's "overlap" on the routes that declare rejected layouts, as in
// Python. Sets c.layout.adjacent / shared.
void choose_adjacent(Route route, const gen::Recipe& recipe, Case& c);
// The case's arrays in `m` as the kernel gets them (outputs from `befores` when given, else their befores).
// InvalidArgument when the adjacent layout cannot be laid out (the shapes misalign an int64 member).
Presented present(detail::Arena& m, const Case& c, const Bufs* befores = nullptr);
// Graph mode: the contents of case `c` (the shapes `p` was presented for) written into p's allocations (their
// images become c's). InvalidArgument "case" when c's allocations differ in number or size.
void reload(detail::Arena& m, const Case& c, Presented& p);
// Output j of a presented case after the call, without guards (the reference's result).
I64s read_output(detail::Arena& m, const Case& c, const Presented& p, std::size_t j);

// The comparison of a presented case after the call with the expected outputs `exp` (guarded): every lane of
// every output and guard, the adjacent backing whole (kvaddr/harness/adjacent.hpp attribute), every input's
// allocation against its pristine contents.
struct Compared2 {
  Bufs actual;  // each output's guarded buffer as the kernel left it
  std::vector<Lane> first;
  std::int64_t differing = 0;
  bool outside = false;        // a differing lane outside the outputs' visible lanes
  bool grouped_outside = false;  // a lane of the adjacent backing outside its output's own lanes (window, guard)
  std::string neighbours;      // the detail of stores landing in an adjacent input ("" none)
  std::string input_changed;   // the first input the kernel wrote into ("" none)
  std::vector<Lane> input_lanes;  // its first lanes (adjacent inputs; region "input")
  std::vector<std::int32_t> group_after;  // the adjacent allocation as the kernel left it (empty: none)
};
Compared2 compare_presented(detail::Arena& m, const Case& c, const Presented& p, const Bufs& exp);

// The adjacent layout of case `c` (nullopt: none; InvalidArgument when it cannot be laid out) and its allocation's
// contents with outputs `outs` (without guards), as present() lays them out.
std::optional<AdjacentLayoutOf> adjacent_of(const Case& c);
std::vector<std::int32_t> adjacent_image(const Case& c, const Bufs& outs);

}  // namespace kvaddr::harness::cases
