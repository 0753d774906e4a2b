#include "proxy/running_rows.h"

#include "net/asio_types.h"
#include "proxy/request_context.h"
#include "store/request_log.h"

namespace llmux::proxy {

void RunningRowLink::unlink() {
  if (next_ == nullptr) return;
  prev_->next_ = next_;
  next_->prev_ = prev_;
  prev_ = next_ = nullptr;
  ctx_ = nullptr;
}

struct RunningRows::Timer {
  explicit Timer(boost::asio::io_context& io) : timer(io.get_executor()) {}
  net::Timer timer;
};

RunningRows::RunningRows(boost::asio::io_context& io, store::RequestLogSink& sink,
                         std::chrono::milliseconds open_after)
    : sink_(sink), open_after_(open_after), timer_(std::make_unique<Timer>(io)) {
  head_.prev_ = head_.next_ = &head_;
}

RunningRows::~RunningRows() {
  // What still waits is forgotten, not opened: the requests' own ends write their rows.
  while (head_.next_ != &head_) head_.next_->unlink();
  head_.prev_ = head_.next_ = nullptr;
}

void RunningRows::admitted(RequestContext& ctx, MonoTime now) {
  if (open_after_.count() <= 0) {
    open(ctx);
    return;
  }
  RunningRowLink& link = ctx.running_row;
  link.unlink();
  link.ctx_ = &ctx;
  link.admitted_ = now;
  link.prev_ = head_.prev_;
  link.next_ = &head_;
  head_.prev_->next_ = &link;
  head_.prev_ = &link;
  if (!armed_) arm(now + open_after_);
}

void RunningRows::openDue(MonoTime now) {
  while (head_.next_ != &head_) {
    RunningRowLink* oldest = head_.next_;
    if (now - oldest->admitted_ < open_after_) {
      arm(oldest->admitted_ + open_after_);
      return;
    }
    RequestContext& ctx = *oldest->ctx_;
    oldest->unlink();
    open(ctx);
  }
}

std::size_t RunningRows::waiting() const {
  std::size_t count = 0;
  for (RunningRowLink const* link = head_.next_; link != &head_; link = link->next_) ++count;
  return count;
}

void RunningRows::open(RequestContext& ctx) {
  // The record as it is now: with the attempts made so far (the running one pending); later
  // changes follow as attempt events under the handle.
  ctx.record.log_handle = sink_.opened(ctx.record);
}

void RunningRows::arm(MonoTime at) {
  armed_ = true;
  timer_->timer.expires_at(at);
  timer_->timer.async_wait([this](net::ErrorCode ec) {
    if (ec) return;  // cancelled: `this` may be gone
    armed_ = false;
    openDue(MonoClock::now());
  });
}

}  // namespace llmux::proxy
