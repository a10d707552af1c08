#pragma once
// Pictures of kvaddr's objects, in the spirit of CuTe's print_layout: each as a standalone SVG
// document and as a compact text rendering for terminals. Depends on model/ and translate/ only;
// the inputs are plain values so any command (replay, diff, zoo, prove) can draw what it has.
#include <cstdint>
#include <string>
#include <vector>

namespace kvaddr::draw {

// One sub-pool: virtual pages -> physical pages -> dense rows of every layer view.
struct PoolState {
  std::string name = "pool";
  std::int64_t page_size = 1;
  std::int64_t multiplier = 1;      // M: row blocks per envelope (layer views)
  std::vector<std::int64_t> v2p;    // as stored, the trailing -1 sentinel row included
  std::int64_t num_pages = 0;       // physical pages; 0 = max(v2p) + 1
};

// Validates a state (InvalidArgument naming the field): page_size, multiplier >= 1, v2p entries
// >= -1 and < num_pages, at most kMaxPages rows.
void validate(const PoolState& s);
inline constexpr std::int64_t kMaxPages = 4096;

// Sub-pools side by side; with `after` (same count and names), the second state is drawn beside
// the first and every virtual page whose physical page changed is a compaction move.
std::string pool_svg(const std::vector<PoolState>& before, const std::vector<PoolState>& after = {});
std::string pool_text(const std::vector<PoolState>& before, const std::vector<PoolState>& after = {});

// A route's output beside the reference: `got` and `expected` have shape rows x cols (cols = size
// for a vector). A lane is "untouched" when `before` is given and the reference left it as it was.
struct TableView {
  std::string title;
  std::int64_t rows = 1;
  std::int64_t cols = 0;
  std::vector<std::int64_t> got, expected, before;
  std::vector<std::string> lane_labels;  // optional, one per lane (e.g. "page_table[2, 5]")
  std::string got_label = "route";
  std::string expected_label = "reference";
};
void validate(const TableView& t);
std::string table_svg(const TableView& t);
std::string table_text(const TableView& t);

// A heat map: rows x columns of states. Coloured: "killed" and "no alarm" (good), "survived" and
// "FALSE ALARM" (bad), "n/a", "skipped"; the proofs' "proved", "refuted as expected" (good),
// "UNEXPECTED" (bad), "unknown"; any other text is shown on yellow.
struct Matrix {
  std::string title;
  std::vector<std::string> rows, cols;
  std::vector<std::string> cells;   // rows.size() * cols.size(), row-major
  std::vector<std::string> labels;  // empty, or the text shown in each cell (default: its state)
  std::vector<std::string> tips;    // empty, or each cell's tooltip (default: "row x col: state")
  std::vector<std::string> legend;  // the states the legend shows (empty: those the cells use)
};
void validate(const Matrix& m);
std::string matrix_svg(const Matrix& m);
std::string matrix_text(const Matrix& m);

// The proofs' verdicts. `detail`: the counterexample (refuted) or the query that gave up (unknown).
struct Verdict {
  std::string name, expected, got, detail;
};
// A cell's state: "proved" / "refuted as expected" when got == expected, "unknown" when the
// solver gave up, else "UNEXPECTED".
std::string verdict_state(const Verdict& v);
// The proofs as heat maps. First, routes x obligation kinds: an obligation's row is the first
// dot-separated part of its name that names a route (translate's route names); its kind is the
// rest of the name ("route.read_table.columns" -> "columns", "route.read_table" -> "contract",
// "Q2.unpinned.read_table" -> "Q2.unpinned"). Then the obligations naming no route, by family
// (the first part; lifecycle: the first two), side by side, each cell labelled with its name. An
// obligation whose name extends another's ("route.read_table.b09": a planted bug) shares that
// one's cell ("+k" in the label): the cell shows the worst state (UNEXPECTED, unknown, then the
// statement's own) and its tooltip lists every obligation with its verdict and detail. A matrix
// with no obligation is left out (no verdicts: an empty vector).
std::vector<Matrix> proofs_matrices(const std::string& title, const std::vector<Verdict>& v);
std::string verdicts_svg(const std::string& title, const std::vector<Verdict>& v);  // the matrices
std::string verdicts_text(const std::string& title, const std::vector<Verdict>& v);  // one line each

// XML-escape text for SVG attributes and content.
std::string escape(const std::string& s);

}  // namespace kvaddr::draw
