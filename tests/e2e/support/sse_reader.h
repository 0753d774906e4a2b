#pragma once

#include <deque>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "e2e/support/http_client.h"
#include "protocol/sse_parser.h"

namespace llmux::e2e {

/// The events of a complete SSE body (a stream read whole).
std::vector<protocol::SseEvent> sseEventsOf(std::string_view body);

/// One Server-Sent Event and when the body piece that completed it was received.
struct TimedSseEvent {
  protocol::SseEvent event;
  MonoTime arrived;
};

/// Reads Server-Sent Events from the body of the response whose head `client` just read, one at
/// a time as they arrive. A per-event timeout makes "this frame reaches the client without
/// waiting for the next one" a direct assertion:
///
///   SseReader sse(*client);
///   auto first = sse.next(Millis(500));  // fails with Timeout if the frame is held back
class SseReader {
 public:
  explicit SseReader(HttpClient& client) : client_(client) {}

  /// The next event; nullopt once the body ended. Timeout error when no event completes in time
  /// (bytes received meanwhile are kept, so calling again continues where this call stopped).
  Result<std::optional<TimedSseEvent>> next(Millis timeout = kDefaultIoTimeout);
  /// Every remaining event until the body ends; `timeout` bounds the whole read.
  Result<std::vector<TimedSseEvent>> readAll(Millis timeout = kDefaultIoTimeout);

 private:
  HttpClient& client_;
  protocol::SseParser parser_;
  std::deque<TimedSseEvent> ready_;
  bool ended_ = false;
};

}  // namespace llmux::e2e
