#include "progress.hpp"

#include <fmt/format.h>

namespace kvaddr::cli {

Heartbeat::Heartbeat(const Context& ctx, std::string what)
    : err_(ctx.err), what_(std::move(what)), enabled_(ctx.progress), start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

Heartbeat::~Heartbeat() { stop(); }

void Heartbeat::step(const std::string& phase, std::int64_t done, std::int64_t total, const std::string& item) {
  std::lock_guard lock(mutex_);
  phase_ = phase;
  done_count_ = done;
  total_ = total;
  item_ = item;
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

std::string Heartbeat::status(double elapsed) {
  std::lock_guard lock(mutex_);
  std::string line = what_ + ":";
  if (!phase_.empty()) line += " " + phase_;
  if (total_ > 0) line += fmt::format(" {}/{}", done_count_, total_);
  if (!item_.empty()) line += (phase_.empty() && total_ <= 0 ? " " : ", ") + item_;
  line += fmt::format(" ({:.0f} s)", elapsed);
  return line;
}

void Heartbeat::tick() {
  if (!enabled_) return;
  const auto elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = status(elapsed);
  if (line.size() > 100) line = line.substr(0, 97) + "...";
  {
    std::lock_guard lock(mutex_);
    shown_ = true;
  }
  err_ << "\r\033[K" << line << std::flush;
}

}  // namespace kvaddr::cli
