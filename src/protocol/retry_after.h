#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "core/clock.h"
#include "core/http_headers.h"

namespace llmux::protocol {

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

}  // namespace llmux::protocol
