// sweep_session.hpp — what every long `tilekit` sweep (bench, report, accuracy) shares: Ctrl-C
// that stops after the current step, so the rows that finished are kept, and a progress line on
// stderr kept alive by a heartbeat while one long step runs (a CPU reference at a large size
// takes minutes: it must not look hung).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tilekit::cli {

// While alive, SIGINT sets a flag instead of ending the process; the handler found is put back
// when it goes. One at a time: the flag is process-wide, as the signal is.
class SigintGuard {
 public:
  SigintGuard();
  ~SigintGuard();
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

  // Set once Ctrl-C was pressed while a guard is alive; what the harnesses' `cancel` fields
  // take. Process-wide, as the signal is, so it can be named without the guard at hand.
  static const std::atomic<bool>* flag();

 private:
  void (*previous_)(int) = nullptr;
};

class SweepSession {
 public:
  SweepSession();
  ~SweepSession();
  SweepSession(const SweepSession&) = delete;
  SweepSession& operator=(const SweepSession&) = delete;

  // The harnesses' `progress` callback: "[done/total] what" on stderr.
  std::function<void(int, int, const std::string&)> progress();
  const std::atomic<bool>* cancel() const { return sigint_.flag(); }
  // Stops the heartbeat and erases the line on a terminal: call before printing results.
  void clear_progress();
  // Says on stderr that Ctrl-C ended the sweep with `finished_rows` kept; returns exit code 130.
  static int interrupted(size_t finished_rows);

 private:
  // On a terminal the line is rewritten in place every second; in a log a line is added when
  // the step changes or, within one step, every kLogHeartbeat.
  static constexpr std::chrono::seconds kQuietStart{3}, kLogHeartbeat{30};

  void print_locked();
  void beat();
  void stop_heartbeat();

  SigintGuard sigint_;
  std::chrono::steady_clock::time_point start_;
  bool tty_;
  std::mutex mutex_;  // guards everything below and stderr's progress line
  std::condition_variable wake_;
  std::string status_, last_printed_;
  std::chrono::steady_clock::time_point last_print_;
  bool printed_ = false;
  bool stopped_ = false;
  std::thread heartbeat_;
};

}  // namespace tilekit::cli
