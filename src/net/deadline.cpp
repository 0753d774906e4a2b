#include "net/deadline.h"


namespace llmux::net {

struct Deadline::State : std::enable_shared_from_this<State> {
  State(asio::io_context& io, std::function<void()> on_expire)
      : timer(io), on_expire(std::move(on_expire)) {}

  Timer timer;
  std::function<void()> on_expire;
  MonoTime deadline = MonoTime::max();
  MonoTime armed_for = MonoTime::max();  ///< when the pending wait completes; max when none
  bool expired = false;
  bool stopped = false;

  void arm(MonoTime when) {
    armed_for = when;
    timer.expires_at(when);  // cancels a pending wait, whose handler then sees operation_aborted
    timer.async_wait([self = shared_from_this(), when](ErrorCode ec) { self->fired(ec, when); });
  }

  void fired(ErrorCode ec, MonoTime armed) {
    if (ec || stopped || armed != armed_for) return;  // superseded or cancelled
    armed_for = MonoTime::max();
    if (deadline == MonoTime::max()) return;
    if (MonoClock::now() < deadline) {
      arm(deadline);  // the deadline moved later while we waited
      return;
    }
    expired = true;
    deadline = MonoTime::max();
    on_expire();
  }
};

Deadline::Deadline(asio::io_context& io, std::function<void()> on_expire)
    : state_(std::make_shared<State>(io, std::move(on_expire))) {}

Deadline::~Deadline() { stop(); }

void Deadline::expireAt(MonoTime when) {
  auto& s = *state_;
  if (s.stopped) return;
  s.expired = false;
  s.deadline = when;
  if (when < s.armed_for) s.arm(when);  // otherwise the armed wait will notice the later deadline
}

void Deadline::clear() { state_->deadline = MonoTime::max(); }

bool Deadline::expired() const { return state_->expired; }

void Deadline::stop() {
  if (!state_ || state_->stopped) return;
  state_->stopped = true;
  state_->on_expire = nullptr;
  state_->timer.cancel();
}

}  // namespace llmux::net
