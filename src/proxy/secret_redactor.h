#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/http_headers.h"

namespace llmux::proxy {

/// Removes a channel key from what an upstream sends back before it reaches a client, a log or
/// the request log: an error page or a `Location` that echoes the request URL of a `query:`
/// channel quotes the key. The key is matched as configured, percent-encoded (upper- and
/// lower-case hex, as it went into the URL) and with '/' JSON-escaped.
///
/// Keys shorter than kMinRedactedBytes are left alone: no provider issues such keys, and
/// replacing a two-letter test key would garble ordinary words.
class SecretRedactor {
 public:
  static constexpr std::size_t kMinRedactedBytes = 8;
  static constexpr std::string_view kMask = "[redacted]";

  SecretRedactor() = default;
  explicit SecretRedactor(std::string_view secret);

  /// Replaces every form of the key in `text`; true when something was replaced.
  bool redact(std::string& text) const;
  /// `headers` with every form of the key replaced in their values.
  HeaderList redacted(HeaderList const& headers) const;

 private:
  std::vector<std::string> forms_;  ///< distinct spellings of the key, longest first
};

}  // namespace llmux::proxy
