#include "proxy/answer_meter.h"

namespace llmux::proxy {

AnswerMeter::AnswerMeter(Protocol protocol, bool stream, bool success)
    : protocol_(protocol), success_(success) {
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
  return stream_ ? stream_->usage() : body_usage_;
}

routing::FailurePolicy streamFailurePolicy(translate::UpstreamError const& error) {
  if (error.cls == translate::ErrorClass::ContextOverflow) {
    return {routing::Verdict::Relay, "context_overflow"};
  }
  return routing::policyForStatus(error.status);
}

}  // namespace llmux::proxy
