#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/token_usage.h"
#include "core/wire_protocol.h"
#include "routing/failure_policy.h"
#include "translate/errors.h"
#include "translate/stream_observer.h"

namespace llmux::proxy {

/// Reads a passthrough answer on the side while its bytes go to the client unchanged: the usage
/// for the request log, and — for a successful stream — whether content has started (the commit
/// point) or an error event came first.
class AnswerMeter {
 public:
  /// `stream`: the answer is a stream of `protocol`; `success`: a 2xx answer (error answers carry
  /// no usage and are not metered); `prompt_tokens`: the gateway's estimate of the request, the
  /// input of an estimated usage.
  AnswerMeter(Protocol protocol, bool stream, bool success, std::int64_t prompt_tokens);

  void feed(std::string_view bytes);
  /// The body ended.
  void finish();

  /// A successful stream that has produced neither content nor an error yet: its bytes are held
  /// back from the client.
  bool holding() const;
  /// A successful stream's first content has arrived (the commit point).
  bool contentStarted() const { return stream_ && stream_->contentStarted(); }
  std::optional<translate::StreamFailure> const& failureBeforeContent() const;
  /// Normalised usage (zero-completion fallback applied). When the upstream reported none for an
  /// answer that produced content (an OpenAI Chat stream without `include_usage`), an estimate:
  /// the prompt estimate in, the content's size out, marked `estimated` — budgets are charged for
  /// what was relayed. nullopt for error answers and when nothing was produced.
  std::optional<TokenUsage> usage() const;

 private:
  /// A non-streamed answer is kept up to this size to read its usage at the end; a larger one
  /// goes unmetered (such answers do not exist in practice; the bound keeps memory flat).
  static constexpr std::size_t kMaxMeteredBody = 4u << 20;

  Protocol protocol_;
  bool success_;
  std::int64_t prompt_tokens_;
  std::optional<translate::StreamObserver> stream_;
  std::string body_;
  bool body_too_large_ = false;
  std::optional<TokenUsage> body_usage_;
  std::optional<translate::StreamFailure> no_failure_;
};

/// What to do with a stream that reported an error before any content: like the same status
/// (a 429 or a 5xx moves on), except that a context overflow is the client's problem whatever the
/// status: it is never retried.
routing::FailurePolicy streamFailurePolicy(translate::UpstreamError const& error);

}  // namespace llmux::proxy
