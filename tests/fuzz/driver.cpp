// A bounded mutational fuzz driver for compilers without libFuzzer. It takes libFuzzer's command
// line subset: -runs=N (inputs to try), -max_total_time=S (seconds; stops early), -seed=N,
// -max_len=N, and corpus directories. Every seed file is run once, then mutants of the seeds
// (bit flips, byte sets, interesting values, inserts, deletes, duplicated ranges, splices) until
// the run or time budget is spent. Prints "stat::number_of_executed_units: N" as libFuzzer does.
// A crash, a sanitizer report or an uncaught exception ends the process with a failure.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kvaddr/gen/rng.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

// The shared SplitMix64 stream (gen/rng.hpp) with draws in [0, n) by reduction modulo n (0 for n = 0).
struct Rng {
  kvaddr::gen::SplitMix64 stream;
  std::uint64_t next() { return stream.next(); }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

void run_one(const std::string& input) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

void mutate(std::string& s, const std::vector<std::string>& seeds, Rng& rng, std::size_t max_len) {
  static const unsigned char kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, '0', '9', '-', ',', '(', ')', '{', '}',
                                               '[', ']', '"', '\'', ':', '\n', '\\'};
  const std::size_t steps = 1 + rng.below(4);
  for (std::size_t k = 0; k < steps; ++k) {
    switch (rng.below(7)) {
      case 0:
        if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1u << rng.below(8));
        break;
      case 1:
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.next());
        break;
      case 2:
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(kInteresting[rng.below(sizeof kInteresting)]);
        break;
      case 3:
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(rng.below(s.size() + 1)),
                 static_cast<char>(kInteresting[rng.below(sizeof kInteresting)]));
        break;
      case 4:
        if (!s.empty()) {
          const std::size_t at = rng.below(s.size());
          s.erase(at, 1 + rng.below(std::min<std::size_t>(16, s.size() - at)));
        }
        break;
      case 5:
        if (!s.empty()) {
          const std::size_t at = rng.below(s.size());
          const std::size_t n = 1 + rng.below(std::min<std::size_t>(32, s.size() - at));
          s.insert(rng.below(s.size() + 1), s.substr(at, n));
        }
        break;
      default: {
        const std::string& other = seeds[rng.below(seeds.size())];
        if (other.empty()) break;
        const std::size_t at = rng.below(other.size());
        s = s.substr(0, rng.below(s.size() + 1)) + other.substr(at);
        break;
      }
    }
  }
  if (s.size() > max_len) s.resize(max_len);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t runs = 100000, seed = 1;
  double seconds = 60;
  std::size_t max_len = 4096;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return a.rfind(key, 0) == 0 ? a.substr(std::string(key).size()) : std::string(); };
    if (!value("-runs=").empty()) {
      runs = std::stoull(value("-runs="));
    } else if (!value("-max_total_time=").empty()) {
      seconds = std::stod(value("-max_total_time="));
    } else if (!value("-seed=").empty()) {
      seed = std::stoull(value("-seed="));
    } else if (!value("-max_len=").empty()) {
      max_len = std::stoull(value("-max_len="));
    } else if (!a.empty() && a[0] == '-') {
      continue;  // other libFuzzer flags are ignored
    } else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path(), std::ios::binary);
        seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
    }
  }
  if (seeds.empty()) seeds.emplace_back();
  const auto start = std::chrono::steady_clock::now();
  Rng rng{kvaddr::gen::SplitMix64(seed)};
  std::uint64_t done = 0;
  for (const auto& s : seeds) {
    run_one(s);
    ++done;
  }
  while (done < runs) {
    std::string s = seeds[rng.below(seeds.size())];
    mutate(s, seeds, rng, max_len);
    run_one(s);
    ++done;
    if ((done & 255) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      break;
    }
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("stat::number_of_executed_units: %llu\nstat::seconds: %.1f\n", static_cast<unsigned long long>(done), took);
  return 0;
}
