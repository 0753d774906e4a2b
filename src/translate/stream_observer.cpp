#include "translate/stream_observer.h"

namespace llmux::translate {

StreamObserver::StreamObserver(Protocol protocol) : decoder_(makeStreamDecoder(protocol)) {}

void StreamObserver::feed(std::string_view bytes) {
  events_.clear();
  decoder_->feed(bytes, events_);
  take(events_);
}

void StreamObserver::finish() {
  events_.clear();
  decoder_->finish(events_);
  take(events_);
}

void StreamObserver::take(std::vector<Event> const& events) {
  for (Event const& event : events) {
    if (event.type == EventType::Error && !tally_.contentStarted() && !failure_) {
      failure_ = StreamFailure{event.error_status > 0 ? event.error_status : 502, event.text};
    }
    tally_.observe(event);
  }
}

std::optional<Usage> answerUsage(Protocol protocol, std::string_view body) {
  auto response = decodeResponse(protocol, body);
  if (!response) return std::nullopt;
  return response->usage;
}

}  // namespace llmux::translate
