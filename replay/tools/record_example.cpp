// kvaddr_replay_record DIR: (re)writes the recorded replay example into DIR.
// The committed copy lives in tests/data/replay/example and is regenerated with
//   build/kvaddr_replay_record tests/data/replay/example
#include <exception>
#include <iostream>

#include "kvaddr/replay/example.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: kvaddr_replay_record DIR\n";
    return 2;
  }
  try {
    kvaddr::replay::write_example(argv[1]);
  } catch (const std::exception& e) {
    std::cerr << "kvaddr_replay_record: " << e.what() << "\n";
    return 1;
  }
  std::cout << "wrote " << argv[1] << "/manifest.json\n";
  return 0;
}
