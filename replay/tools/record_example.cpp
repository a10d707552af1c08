// kvaddr_replay_record DIR: (re)writes the recorded replay example into DIR.
// The committed copy lives in tests/data/replay/example and is regenerated with
//   build/kvaddr_replay_record tests/data/replay/example
// kvaddr_replay_record --modes DIR writes the recordings of the upstream call modes (write_modes_example;
// committed in tests/data/replay/modes).
// kvaddr_replay_record --inferred DIR writes the recorded example of the inferred behaviours (committed in
// tests/data/replay/inferred).
// kvaddr_replay_record --large ROWS PAGES DIR writes the large read_table recording of
// write_large_example (e.g. 2047 16384 for about 0.4 MB), to time `kvaddr replay DIR` on it.
#include <exception>
#include <iostream>
#include <string>

#include "kvaddr/replay/example.hpp"

int main(int argc, char** argv) {
  const bool large = argc == 5 && std::string(argv[1]) == "--large";
  const bool modes = argc == 3 && std::string(argv[1]) == "--modes";
  const bool inferred = argc == 3 && std::string(argv[1]) == "--inferred";
  if (argc != 2 && !large && !modes && !inferred) {
    std::cerr << "usage: kvaddr_replay_record DIR | kvaddr_replay_record --modes DIR | kvaddr_replay_record --inferred DIR"
                 " | kvaddr_replay_record --large ROWS PAGES DIR\n";
    return 2;
  }
  const char* dir = argv[argc - 1];
  try {
    if (modes) {
      kvaddr::replay::write_modes_example(dir);
    } else if (large) {
      kvaddr::replay::write_large_example(dir, std::stoll(argv[2]), std::stoll(argv[3]));
    } else if (inferred) {
      kvaddr::replay::write_inferred_example(dir);
    } else {
      kvaddr::replay::write_example(dir);
    }
  } catch (const std::exception& e) {
    std::cerr << "kvaddr_replay_record: " << e.what() << "\n";
    return 1;
  }
  std::cout << "wrote " << dir << "/manifest.json\n";
  return 0;
}
