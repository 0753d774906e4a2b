#include "http/cancellation.h"

#include <algorithm>

namespace llmux::http {

std::string_view cancelReasonName(CancelReason reason) {
  switch (reason) {
    case CancelReason::None: return "none";
    case CancelReason::ClientGone: return "client_gone";
    case CancelReason::Shutdown: return "shutdown";
    case CancelReason::LostRace: return "lost_race";
  }
  return "none";
}

std::size_t Cancellation::add(Callback callback) {
  if (cancelled()) {
    callback(reason_);
    return 0;
  }
  callbacks_.emplace_back(next_id_, std::move(callback));
  return next_id_++;
}

void Cancellation::remove(std::size_t id) {
  std::erase_if(callbacks_, [id](auto const& entry) { return entry.first == id; });
}

void Cancellation::cancel(CancelReason reason) {
  if (cancelled() || reason == CancelReason::None) return;
  reason_ = reason;
  auto callbacks = std::move(callbacks_);
  callbacks_.clear();
  for (auto& [id, cb] : callbacks) cb(reason);
}

void Cancellation::reset() {
  callbacks_.clear();
  reason_ = CancelReason::None;
}

}  // namespace llmux::http
