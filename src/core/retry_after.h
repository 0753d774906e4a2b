#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/clock.h"
#include "core/http_headers.h"

namespace llmux {

/// How long an upstream asked us to wait, from its response headers, in the order the official
/// SDKs read them: `retry-after-ms` (milliseconds, integer or decimal), then `retry-after` as
/// seconds (integer or decimal) or an HTTP date (IMF-fixdate, RFC 850 or asctime form, relative
/// to `now`; a date in the past means 0). Malformed or negative values are ignored; nullopt when
/// no header gives a usable value. Values are capped at one year.
std::optional<std::chrono::milliseconds> parseRetryAfter(HeaderList const& headers, WallTime now);

/// Google's wait for a 429, which it gives in the error body only (google.rpc.RetryInfo,
/// `"retryDelay": "34.4s"`); nullopt when the body has none.
std::optional<std::chrono::milliseconds> parseGoogleRetryDelay(std::string_view body);

/// Parses an HTTP date (RFC 9110 §5.6.7: IMF-fixdate, RFC 850, asctime); nullopt when malformed.
std::optional<WallTime> parseHttpDate(std::string_view text);


/// A Go-style duration as OpenAI's rate-limit reset headers send it ("6m0s", "1s", "20ms",
/// "1h2m3s", "0.5s"); a bare number is seconds. nullopt when malformed; capped at a year.
std::optional<std::chrono::milliseconds> parseGoDuration(std::string_view text);

/// An RFC 3339 instant ("2024-05-01T12:00:30Z", "2024-05-01T12:00:30.5+02:00"), as Anthropic's
/// rate-limit reset headers send it. nullopt when malformed.
std::optional<WallTime> parseRfc3339(std::string_view text);

/// One rate limit an upstream reports in its response head: what is left and when it resets.
struct AnnouncedLimit {
  std::optional<std::int64_t> remaining;
  std::optional<WallTime> reset;
};
inline constexpr std::size_t kAnnouncedLimitCount = 6;

/// The limits of OpenAI's `x-ratelimit-remaining-*` / `x-ratelimit-reset-*` (requests, tokens)
/// and Anthropic's `anthropic-ratelimit-*-remaining` / `-reset` (requests, tokens, input and
/// output tokens) headers; an entry the upstream did not send is empty.
std::array<AnnouncedLimit, kAnnouncedLimitCount> announcedLimits(HeaderList const& headers, WallTime now);

}  // namespace llmux
