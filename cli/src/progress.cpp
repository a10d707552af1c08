#include "progress.hpp"

#include <fmt/format.h>

namespace kvaddr::cli {

Heartbeat::Heartbeat(const Context& ctx, std::string what)
    : err_(ctx.err), what_(std::move(what)), enabled_(ctx.progress), start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

Heartbeat::~Heartbeat() { stop(); }

void Heartbeat::note(const std::string& now) {
  std::lock_guard lock(mutex_);
  note_ = now;
}

void Heartbeat::stop() {
  {
    std::lock_guard lock(mutex_);
    if (done_) return;
    done_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (shown_) err_ << "\r\033[K" << std::flush;
}

void Heartbeat::loop() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) {
    const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < 2.0) continue;
    lock.unlock();
    tick();
    lock.lock();
  }
}

void Heartbeat::tick() {
  if (!enabled_) return;
  std::string line;
  {
    std::lock_guard lock(mutex_);
    const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    line = fmt::format("{}: {:.0f} s{}{}", what_, elapsed, note_.empty() ? "" : ", ", note_);
    shown_ = true;
  }
  if (line.size() > 100) line = line.substr(0, 97) + "...";
  err_ << "\r\033[K" << line << std::flush;
}

}  // namespace kvaddr::cli
