#pragma once

// Reads a media answer on the side while its bytes go to the client unchanged (docs/media.md):
// what the request used, in tokens and in its modality's unit, and a video job's id. Binary
// answers (audio, a video's bytes) are not kept at all; a JSON answer is kept up to a bound, then
// only its tail (where an image answer's `usage` follows its base64 images).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/request_record.h"
#include "core/token_usage.h"
#include "protocol/media_answer.h"
#include "protocol/media_request.h"
#include "protocol/routes.h"

namespace llmux::proxy {

class MediaMeter {
 public:
  /// `success`: a 2xx answer (nothing else is metered); `json`: its Content-Type is JSON.
  MediaMeter(protocol::RouteKind route, protocol::MediaAsk const& ask, bool success, bool json);

  void feed(std::string_view bytes);
  /// The body ended.
  void finish();

  /// Tokens the answer reported (never estimated: media is billed by its own units).
  std::optional<TokenUsage> usage() const;
  /// The request's usage in its modality's unit; nullopt for a failed or unmetered answer.
  std::optional<MediaUsage> mediaUsage() const;
  /// A created video job's id ("" otherwise).
  std::string const& videoId() const { return answer_.id; }

  /// Kept whole up to this size; past it only the last kTailBytes.
  static constexpr std::size_t kMaxKept = 4u << 20;
  static constexpr std::size_t kTailBytes = 64u << 10;

 private:
  protocol::RouteKind route_;
  protocol::MediaAsk ask_;
  bool success_;
  bool metered_;  ///< a successful JSON answer: its bytes are read
  bool finished_ = false;
  bool truncated_ = false;
  std::string body_;
  protocol::MediaAnswer answer_;
};

}  // namespace llmux::proxy
