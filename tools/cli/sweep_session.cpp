// sweep_session.cpp — Ctrl-C and the progress line of long sweeps (sweep_session.hpp).
#include "sweep_session.hpp"

#include <unistd.h>

#include <csignal>
#include <iostream>

#include "cli_common.hpp"

namespace tilekit::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_sigint(int) { g_interrupted.store(true); }

}  // namespace

SigintGuard::SigintGuard() {
  g_interrupted.store(false);
  previous_ = std::signal(SIGINT, on_sigint);
}

SigintGuard::~SigintGuard() { std::signal(SIGINT, previous_); }

const std::atomic<bool>* SigintGuard::flag() { return &g_interrupted; }

SweepSession::SweepSession()
    : start_(std::chrono::steady_clock::now()), tty_(::isatty(STDERR_FILENO)) {
  heartbeat_ = std::thread([this] { beat(); });
}

SweepSession::~SweepSession() { stop_heartbeat(); }

std::function<void(int, int, const std::string&)> SweepSession::progress() {
  return [this](int done, int total, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + what;
    print_locked();
  };
}

void SweepSession::clear_progress() {
  stop_heartbeat();
  std::lock_guard<std::mutex> lock(mutex_);
  if (printed_ && tty_) std::cerr << "\r\033[K" << std::flush;
  printed_ = false;
}

int SweepSession::interrupted(size_t finished_rows) {
  std::cerr << "tilekit: interrupted; kept the " << finished_rows << " finished row(s)\n";
  return kExitInterrupted;
}

void SweepSession::print_locked() {
  const auto now = std::chrono::steady_clock::now();
  const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(now - start_);
  if (elapsed < kQuietStart || status_.empty() || stopped_) return;
  if (!tty_ && status_ == last_printed_ && now - last_print_ < kLogHeartbeat) return;
  std::cerr << (tty_ ? "\r\033[K" : "") << status_ << " (" << elapsed.count() << " s)"
            << (tty_ ? "" : "\n") << std::flush;
  printed_ = true;
  last_printed_ = status_;
  last_print_ = now;
}

void SweepSession::beat() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopped_) {
    wake_.wait_for(lock, std::chrono::seconds(1));
    print_locked();
  }
}

void SweepSession::stop_heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

}  // namespace tilekit::cli
