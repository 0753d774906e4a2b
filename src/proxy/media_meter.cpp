#include "proxy/media_meter.h"

namespace llmux::proxy {

using protocol::RouteKind;

MediaMeter::MediaMeter(RouteKind route, protocol::MediaAsk const& ask, bool success, bool json)
    : route_(route), ask_(ask), success_(success), metered_(success && json) {}

void MediaMeter::feed(std::string_view bytes) {
  if (!metered_) return;
  if (!truncated_ && body_.size() + bytes.size() <= kMaxKept) {
    body_.append(bytes);
    return;
  }
  // Too large to read whole: keep a sliding tail.
  truncated_ = true;
  if (bytes.size() >= kTailBytes) {
    body_.assign(bytes.substr(bytes.size() - kTailBytes));
    return;
  }
  body_.append(bytes);
  if (body_.size() > kTailBytes) body_.erase(0, body_.size() - kTailBytes);
}

void MediaMeter::finish() {
  if (finished_) return;
  finished_ = true;
  if (metered_) {
    answer_ = truncated_ ? protocol::readMediaAnswerTail(body_) : protocol::readMediaAnswer(body_);
  }
  body_ = std::string();
}

std::optional<TokenUsage> MediaMeter::usage() const { return answer_.usage; }

std::optional<MediaUsage> MediaMeter::mediaUsage() const {
  if (!finished_ || !success_) return std::nullopt;
  switch (route_) {
    case RouteKind::ImageGenerations:
    case RouteKind::ImageEdits:
      return MediaUsage{"images", "images", static_cast<double>(ask_.images)};
    case RouteKind::VideoCreate:
      return MediaUsage{"videos", "seconds", answer_.seconds.value_or(ask_.video_seconds)};
    case RouteKind::Speech:
      return MediaUsage{"speech", "characters", static_cast<double>(ask_.speech_characters)};
    case RouteKind::Transcriptions:
      if (answer_.seconds) return MediaUsage{"transcriptions", "seconds", *answer_.seconds};
      if (answer_.usage) return MediaUsage{"transcriptions", "tokens", static_cast<double>(answer_.usage->total())};
      return std::nullopt;  // a text, srt or vtt answer says nothing
    case RouteKind::Embeddings:
      if (answer_.usage) return MediaUsage{"embeddings", "tokens", static_cast<double>(answer_.usage->input)};
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace llmux::proxy
