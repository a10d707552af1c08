#pragma once
// Progress on a terminal: after two seconds, one status line on stderr, rewritten in place once a
// second ("verify: 12 s, grid.read_table"), and erased when the work ends. Silent unless the
// context says stderr is a terminal and --quiet was not given.
#include <chrono>
#include <condition_variable>
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

  void note(const std::string& now);  // what is running now (shown after the elapsed time)
  void stop();                        // erase the line and end the thread (idempotent)
  void tick();                        // draw the status line now (the thread calls it once a second)

 private:
  void loop();

  std::ostream& err_;
  std::string what_;
  std::string note_;
  bool enabled_;
  bool done_ = false;
  bool shown_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
};

}  // namespace kvaddr::cli
