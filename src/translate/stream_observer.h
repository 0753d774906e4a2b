#pragma once

// What the gateway learns from an answer it relays without translating it (passthrough): the
// bytes go to the client unchanged, and a decoder of the upstream's protocol reads them on the
// side for accounting (usage) and for the commit point (has content started; did the stream fail
// before any).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/wire_protocol.h"
#include "translate/codec.h"
#include "translate/usage_tally.h"

namespace llmux::translate {

/// An error event a stream reported in place of content.
struct StreamFailure {
  int status = 502;  ///< the HTTP status the event's error type stands for
  std::string message;
};

class StreamObserver {
 public:
  explicit StreamObserver(Protocol protocol);

  /// Reads the next bytes of the stream, split anywhere.
  void feed(std::string_view bytes);
  /// The body ended.
  void finish();

  bool contentStarted() const { return tally_.contentStarted(); }
  /// The error the stream reported before any content, if it did.
  std::optional<StreamFailure> const& failureBeforeContent() const { return failure_; }
  /// Normalised usage with the zero-completion fallback; nullopt when none was reported.
  std::optional<Usage> usage() const { return tally_.usage(); }
  /// The same, or the estimate from the content when none was reported (UsageTally).
  std::optional<Usage> usageOrEstimate(std::int64_t prompt_tokens) const {
    return tally_.usageOrEstimate(prompt_tokens);
  }

 private:
  void take(std::vector<Event> const& events);

  std::unique_ptr<StreamDecoder> decoder_;
  UsageTally tally_;
  std::optional<StreamFailure> failure_;
  std::vector<Event> events_;  // reused between feeds
};

/// The normalised usage of a complete non-streamed answer of `protocol` (the zero-completion
/// fallback applied); nullopt when it has none or is not an answer.
std::optional<Usage> answerUsage(Protocol protocol, std::string_view body);

}  // namespace llmux::translate
