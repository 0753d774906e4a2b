#include "e2e/support/scripted_server.h"

#include <algorithm>
#include <stdexcept>

namespace llmux::e2e {
namespace {

constexpr Millis kStopCheck{20};  ///< how often a blocked step looks at the stop flag

MonoTime nextCheck(MonoTime deadline) {
  return std::min(deadline, MonoClock::now() + kStopCheck);
}

}  // namespace

ScriptedServer::ScriptedServer() {
  auto listener = listenLoopback(0);
  if (!listener) throw std::runtime_error("scripted server: " + listener.error().message);
  listener_ = std::move(*listener);
  port_ = localPort(listener_.get());
}

ScriptedServer::~ScriptedServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

ScriptedServer& ScriptedServer::stepTimeout(Millis timeout) {
  step_timeout_ = timeout;
  return *this;
}

ScriptedServer& ScriptedServer::add(Step step) {
  if (thread_.joinable()) throw std::logic_error("scripted server: step added after start()");
  steps_.push_back(std::move(step));
  return *this;
}

ScriptedServer& ScriptedServer::accept() {
  return add({Step::Kind::Accept});
}
ScriptedServer& ScriptedServer::expect(std::string marker) {
  return add({Step::Kind::Expect, std::move(marker)});
}
ScriptedServer& ScriptedServer::expectBytes(std::size_t n) {
  return add({Step::Kind::ExpectBytes, {}, n});
}
ScriptedServer& ScriptedServer::send(std::string bytes) {
  return add({Step::Kind::Send, std::move(bytes)});
}
ScriptedServer& ScriptedServer::pause(Millis duration) {
  return add({Step::Kind::Pause, {}, 0, duration});
}
ScriptedServer& ScriptedServer::close(CloseMode mode) {
  return add({Step::Kind::Close, {}, 0, Millis(0), mode});
}
ScriptedServer& ScriptedServer::expectClose() {
  return add({Step::Kind::ExpectClose});
}
ScriptedServer& ScriptedServer::expectNoConnection(Millis window) {
  return add({Step::Kind::ExpectNoConnection, {}, 0, window});
}

void ScriptedServer::start() {
  thread_ = std::thread([this] { run(); });
}

void ScriptedServer::run() {
  std::string failure;
  for (std::size_t i = 0; i < steps_.size() && failure.empty() && !stop_; ++i) {
    auto result = runStep(steps_[i]);
    if (!result) {
      failure = "step " + std::to_string(i) + ": " + result.error().message;
      break;
    }
    std::lock_guard lock(mutex_);
    steps_done_ = i + 1;
    finished_.notify_all();
  }
  if (stop_ && failure.empty()) failure = "stopped before the end of the script";
  std::lock_guard lock(mutex_);
  done_ = true;
  failure_ = std::move(failure);
  finished_.notify_all();
}

Result<std::size_t> ScriptedServer::readMore(MonoTime deadline) {
  if (sockets_.empty() || !sockets_.back().valid()) {
    return makeError(ErrorKind::Internal, "no open connection to read from");
  }
  for (;;) {
    if (stop_) return makeError(ErrorKind::Cancelled, "stopped");
    std::string got;
    auto n = receiveSome(sockets_.back().get(), got, nextCheck(deadline));
    if (!n && n.error().kind == ErrorKind::Timeout && MonoClock::now() < deadline) continue;
    if (!n) return n;
    pending_.append(got);
    std::lock_guard lock(mutex_);
    received_.back().append(got);
    return n;
  }
}

Result<void> ScriptedServer::runStep(Step const& step) {
  auto deadline = MonoClock::now() + step_timeout_;
  switch (step.kind) {
    case Step::Kind::ExpectNoConnection:
      deadline = MonoClock::now() + step.duration;
      for (;;) {
        if (stop_) return makeError(ErrorKind::Cancelled, "stopped");
        auto fd = acceptOne(listener_.get(), nextCheck(deadline));
        if (fd) {
          sockets_.push_back(std::move(*fd));
          pending_.clear();
          std::lock_guard lock(mutex_);
          received_.emplace_back();
          return makeError(ErrorKind::Internal, "an unexpected connection arrived");
        }
        if (fd.error().kind != ErrorKind::Timeout) return fd.error();
        if (MonoClock::now() >= deadline) return {};
      }
    case Step::Kind::Accept:
      for (;;) {
        if (stop_) return makeError(ErrorKind::Cancelled, "stopped");
        auto fd = acceptOne(listener_.get(), nextCheck(deadline));
        if (!fd && fd.error().kind == ErrorKind::Timeout && MonoClock::now() < deadline) continue;
        if (!fd) return fd.error();
        sockets_.push_back(std::move(*fd));
        pending_.clear();
        std::lock_guard lock(mutex_);
        received_.emplace_back();
        return {};
      }
    case Step::Kind::Expect:
      for (;;) {
        if (auto at = pending_.find(step.bytes); at != std::string::npos) {
          pending_.erase(0, at + step.bytes.size());
          return {};
        }
        auto n = readMore(deadline);
        if (!n) return n.error();
        if (*n == 0)
          return makeError(ErrorKind::Cancelled, "client closed before '" + step.bytes + "'");
      }
    case Step::Kind::ExpectBytes:
      while (pending_.size() < step.count) {
        auto n = readMore(deadline);
        if (!n) return n.error();
        if (*n == 0) return makeError(ErrorKind::Cancelled, "client closed before enough bytes");
      }
      pending_.erase(0, step.count);
      return {};
    case Step::Kind::Send:
      if (sockets_.empty() || !sockets_.back().valid()) {
        return makeError(ErrorKind::Internal, "no open connection to send on");
      }
      return sendAll(sockets_.back().get(), step.bytes, deadline);
    case Step::Kind::Pause:
      for (auto end = MonoClock::now() + step.duration; MonoClock::now() < end && !stop_;) {
        std::this_thread::sleep_for(
            std::min<MonoClock::duration>(kStopCheck, end - MonoClock::now()));
      }
      return {};
    case Step::Kind::Close:
      if (!sockets_.empty()) closeSocket(sockets_.back(), step.mode);
      return {};
    case Step::Kind::ExpectClose:
      for (;;) {
        auto n = readMore(deadline);
        if (!n && n.error().kind == ErrorKind::Cancelled && !stop_) {
          std::lock_guard lock(mutex_);
          client_reset_ = true;
          return {};
        }
        if (!n) return n.error();
        if (*n == 0) {
          std::lock_guard lock(mutex_);
          client_reset_ = false;
          return {};
        }
      }
  }
  return {};
}

Result<void> ScriptedServer::finish(Millis timeout) {
  std::unique_lock lock(mutex_);
  if (!finished_.wait_for(lock, timeout, [&] { return done_; })) {
    return makeError(ErrorKind::Timeout,
                     "script still running after " + std::to_string(timeout.count()) + " ms");
  }
  if (!failure_.empty()) return makeError(ErrorKind::Internal, failure_);
  return {};
}

bool ScriptedServer::waitForSteps(std::size_t steps, Millis timeout) {
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, timeout, [&] { return steps_done_ >= steps || done_; });
  return steps_done_ >= steps;
}

std::string ScriptedServer::received(std::size_t index) const {
  std::lock_guard lock(mutex_);
  return index < received_.size() ? received_[index] : std::string();
}

std::size_t ScriptedServer::connections() const {
  std::lock_guard lock(mutex_);
  return received_.size();
}

bool ScriptedServer::clientReset() const {
  std::lock_guard lock(mutex_);
  return client_reset_;
}

}  // namespace llmux::e2e
