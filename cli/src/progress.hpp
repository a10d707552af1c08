#pragma once
// Progress on a terminal: after two seconds, one status line on stderr, rewritten in place once a
// second, naming the phase and its share of the work ("verify: proofs 12/138, I3.x (41 s)"), and
// erased when the work ends. Silent unless the context says stderr is a terminal and --quiet was
// not given.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "subcommands.hpp"

namespace kvaddr::cli {

class Heartbeat {
 public:
  Heartbeat(const Context& ctx, std::string what);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // What runs now: a phase, its share done of `total` (total <= 0: no share shown) and the item.
  void step(const std::string& phase, std::int64_t done, std::int64_t total, const std::string& item = "");
  void stop();  // erase the line and end the thread (idempotent)
  void tick();  // draw the status line now (the thread calls it once a second)
  // The status line after `elapsed` seconds, e.g. "verify: proofs 12/138, I3.x (41 s)".
  std::string status(double elapsed);

 private:
  void loop();

  std::ostream& err_;
  std::string what_;
  std::string phase_, item_;
  std::int64_t done_count_ = 0, total_ = 0;
  bool enabled_;
  bool done_ = false;
  bool shown_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
};

}  // namespace kvaddr::cli
