#include "proxy/answer_meter.h"

#include "translate/codec.h"
#include "translate/usage.h"

namespace llmux::proxy {

AnswerMeter::AnswerMeter(Protocol protocol, bool stream, bool success, std::int64_t prompt_tokens)
    : protocol_(protocol), success_(success), prompt_tokens_(prompt_tokens) {
  if (success && stream) stream_.emplace(protocol);
}

void AnswerMeter::feed(std::string_view bytes) {
  if (stream_) {
    stream_->feed(bytes);
  } else if (success_ && !body_too_large_) {
    if (body_.size() + bytes.size() > kMaxMeteredBody) {
      body_too_large_ = true;
      body_ = std::string();
    } else {
      body_.append(bytes);
    }
  }
}

void AnswerMeter::finish() {
  if (stream_) {
    stream_->finish();
  } else if (success_ && !body_too_large_) {
    body_usage_ = translate::answerUsage(protocol_, body_);
    if (!body_usage_) {
      // None reported (rare for a whole answer): decoded once more, for the size of its content.
      if (auto decoded = translate::decodeResponse(protocol_, body_)) {
        body_usage_ = translate::usageOrEstimate(*decoded, prompt_tokens_);
      }
    }
    body_ = std::string();
  }
}

bool AnswerMeter::holding() const {
  return stream_ && !stream_->contentStarted() && !stream_->failureBeforeContent();
}

std::optional<translate::StreamFailure> const& AnswerMeter::failureBeforeContent() const {
  return stream_ ? stream_->failureBeforeContent() : no_failure_;
}

std::optional<TokenUsage> AnswerMeter::usage() const {
  return stream_ ? stream_->usageOrEstimate(prompt_tokens_) : body_usage_;
}

routing::FailurePolicy streamFailurePolicy(translate::UpstreamError const& error) {
  if (error.cls == translate::ErrorClass::ContextOverflow) {
    return {routing::Verdict::Relay, "context_overflow"};
  }
  return routing::policyForStatus(error.status);
}

}  // namespace llmux::proxy
