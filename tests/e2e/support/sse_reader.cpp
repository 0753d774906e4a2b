#include "e2e/support/sse_reader.h"

#include <algorithm>

namespace llmux::e2e {

Result<std::optional<TimedSseEvent>> SseReader::next(Millis timeout) {
  auto deadline = MonoClock::now() + timeout;
  std::vector<protocol::SseEvent> parsed;
  while (ready_.empty() && !ended_) {
    auto piece = client_.readBodyPiece(timeLeft(deadline));
    if (!piece) return piece.takeError();
    MonoTime arrived = MonoClock::now();
    if (*piece) {
      arrived = (*piece)->arrived;
      parser_.feed((*piece)->data, parsed);
    } else {
      parser_.finish(parsed);
      ended_ = true;
    }
    for (auto& event : parsed) ready_.push_back(TimedSseEvent{std::move(event), arrived});
    parsed.clear();
  }
  if (ready_.empty()) return std::optional<TimedSseEvent>();
  TimedSseEvent event = std::move(ready_.front());
  ready_.pop_front();
  return std::optional<TimedSseEvent>(std::move(event));
}

Result<std::vector<TimedSseEvent>> SseReader::readAll(Millis timeout) {
  auto deadline = MonoClock::now() + timeout;
  std::vector<TimedSseEvent> events;
  for (;;) {
    auto event = next(timeLeft(deadline));
    if (!event) return event.takeError();
    if (!*event) return events;
    events.push_back(std::move(**event));
  }
}

std::vector<protocol::SseEvent> sseEventsOf(std::string_view body) {
  protocol::SseParser parser;
  std::vector<protocol::SseEvent> events;
  parser.feed(body, events);
  parser.finish(events);
  return events;
}

}  // namespace llmux::e2e
