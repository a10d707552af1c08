// Issue 34 item 2: every random draw of the production code comes from gen/. The SplitMix64
// constants (the golden increment and the two mixer multipliers of gen/rng.hpp) may appear in no
// C++/CUDA source outside gen/ and the test folders (a second copy of the mixer is a second RNG),
// nor may another library's generator.
// The scan reads the source tree of this build (KVADDR_SOURCE_DIR); a planted copy in a temporary
// tree checks that the scanner finds what it is meant to find.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;

// The hex digits of kGolden and of mix()'s multipliers, and the names of the standard library's,
// Thrust's and cuRAND's generators, lower case.
const std::vector<std::string> kConstants = {"9e3779b97f4a7c15", "bf58476d1ce4e5b9", "94d049bb133111eb",
                                             "mt19937",          "minstd_rand",      "default_random_engine",
                                             "random_device",    "<random>",         "thrust/random",
                                             "curand"};
const std::set<std::string> kSourceExtensions = {".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".inc"};

struct Hit {
  std::string file;  // relative to the scanned root
  int line = 0;
  bool operator==(const Hit& o) const { return file == o.file && line == o.line; }
};

// Folders never scanned: gen/ (the one home of the constants), tests, docs and tooling, build trees
// (build*, any folder with a CMakeCache.txt, fetched dependencies), Python environments, hidden folders.
bool skipped_dir(const fs::path& root, const fs::path& rel) {
  const std::string top = rel.begin()->string();
  if (top == "gen" || top == "docs" || top == "scripts" || top == "cmake" || top.rfind("build", 0) == 0) return true;
  if (fs::exists(root / rel / "CMakeCache.txt")) return true;
  for (const auto& part : rel) {
    const std::string p = part.string();
    if (p == "tests" || p == "test" || p == "_deps" || p == "venv" || p == "site-packages" || (!p.empty() && p[0] == '.'))
      return true;
  }
  return false;
}

// Each (file, line) of a production C++/CUDA source under `root` holding one of the constants, in
// any case and with or without digit separators. `scanned` counts the files read.
std::vector<Hit> scan(const fs::path& root, int* scanned) {
  std::vector<Hit> hits;
  *scanned = 0;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), root);
    if (it->is_directory()) {
      if (skipped_dir(root, rel)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || kSourceExtensions.count(it->path().extension().string()) == 0) continue;
    ++*scanned;
    std::ifstream in(it->path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::string flat;
      for (char c : line)
        if (c != '\'') flat.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      if (std::any_of(kConstants.begin(), kConstants.end(),
                      [&](const std::string& k) { return flat.find(k) != std::string::npos; }))
        hits.push_back({rel.generic_string(), n});
    }
  }
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.file != b.file ? a.file < b.file : a.line < b.line; });
  return hits;
}

std::string describe(const std::vector<Hit>& hits) {
  std::string s;
  for (const auto& h : hits) s += "  " + h.file + ":" + std::to_string(h.line) + "\n";
  return s;
}

TEST(RngSources, NoSplitMixConstantOutsideGen) {
  const fs::path root = KVADDR_SOURCE_DIR;
  // The scan covers the production folders (a renamed or missing one would make it vacuous).
  for (const char* dir : {"harness", "kernels", "props", "zoo", "replay", "cli", "translate", "model", "draw", "proofs"})
    ASSERT_TRUE(fs::is_directory(root / dir)) << dir;
  int scanned = 0;
  const auto hits = scan(root, &scanned);
  EXPECT_GT(scanned, 100);
  EXPECT_TRUE(hits.empty()) << "a random source outside gen/ (use kvaddr/gen/rng.hpp: mix, mix_step, nth, "
                               "SplitMix64, kGolden):\n"
                            << describe(hits);
}

// A temporary tree with a planted mixer copy in production folders and the same text where it is
// allowed: the scanner reports exactly the planted lines.
TEST(RngSources, ScannerFindsAPlantedCopy) {
  std::string dir = (fs::temp_directory_path() / "kvaddr_rng_scan_XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  const fs::path root = dir;
  const auto put = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  };
  put("kernels/src/copy.cu", "// a device hash\nz += 0x9E3779B97F4A7C15ull;\nz = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n");
  put("props/src/sep.cpp", "\n\nconstexpr auto m = 0x94D0'49BB'1331'11EBull;\n");
  put("zoo/include/kvaddr/zoo/h.hpp", "int x = 0x9e3779b97f4a7c14;  // one digit off\n");
  put("harness/src/e.cpp", "#include <algorithm>\nstd::mt19937_64 g(1);\n");
  put("gen/include/kvaddr/gen/rng.hpp", "inline constexpr u64 kGolden = 0x9E3779B97F4A7C15ull;\n");
  put("tests/model/t.cpp", "EXPECT_EQ(k, 0x9E3779B97F4A7C15ull);\n");
  put("kernels/tests/t.cpp", "EXPECT_EQ(k, 0x9E3779B97F4A7C15ull);\n");
  put("build/gen/x.cpp", "0x9E3779B97F4A7C15\n");
  put("out/CMakeCache.txt", "\n");  // a build tree of any name
  put("out/_deps/fmt-src/include/fmt/format.h", "0x9e3779b97f4a7c15\n");
  put("zoo/_deps/y.h", "0x9e3779b97f4a7c15\n");
  put("python/venv/lib/x.h", "0x9e3779b97f4a7c15\n");
  put("kernels/notes.md", "0x9E3779B97F4A7C15\n");
  int scanned = 0;
  const auto hits = scan(root, &scanned);
  fs::remove_all(root);
  EXPECT_EQ(scanned, 4);  // copy.cu, sep.cpp, h.hpp, e.cpp
  const std::vector<Hit> want = {
      {"harness/src/e.cpp", 2}, {"kernels/src/copy.cu", 2}, {"kernels/src/copy.cu", 3}, {"props/src/sep.cpp", 3}};
  EXPECT_EQ(hits, want) << describe(hits);
}

}  // namespace
