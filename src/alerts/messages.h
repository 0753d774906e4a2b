#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "alerts/evaluator.h"
#include "config/settings.h"

namespace llmux::alerts {

/// One line for humans: "[FIRING] llmux <instance> first_token_p95: <summary>" (or RESOLVED).
std::string messageText(AlertMessage const& message, std::string_view instance);

/// What a webhook receives: the request target (the URL's path and query, a DingTalk
/// signature appended) and the JSON body in the receiver's format (docs/operations.md):
/// - webhook: {"source":"llmux","instance":..,"alert":..,"subject":..,"state":"firing"|"resolved",
///   "summary":..,"value":..,"threshold":..,"at":"<RFC 3339>"}
/// - slack: {"text":..}
/// - feishu: {"msg_type":"text","content":{"text":..}}, led by "timestamp" (seconds) and "sign"
///   when a secret is set
/// - dingtalk, wecom: {"msgtype":"text","text":{"content":..}}; DingTalk with a secret adds
///   `timestamp` (milliseconds) and `sign` to the query
struct WebhookRequest {
  std::string target;  ///< path?query
  std::string body;
};
WebhookRequest renderWebhook(config::Webhook const& hook, AlertMessage const& message,
                             std::string_view instance, WallTime now);

/// DingTalk's signature: base64(HMAC-SHA256(key = secret, timestamp_ms + "\n" + secret)), not
/// yet URL-encoded.
std::string dingTalkSignature(std::string_view secret, std::int64_t timestamp_ms);
/// Feishu's: base64(HMAC-SHA256(key = timestamp_s + "\n" + secret, empty message)).
std::string feishuSignature(std::string_view secret, std::int64_t timestamp_s);

}  // namespace llmux::alerts
