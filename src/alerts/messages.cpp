#include "alerts/messages.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "core/digest.h"
#include "core/json_text.h"
#include "protocol/percent_encoding.h"
#include "telemetry/time_format.h"

namespace llmux::alerts {
namespace {

std::string hmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<unsigned char const*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<char const*>(digest), length);
}

/// The robots' plain text message: {"<type_key>":"text","<object>":{"<text_key>":...}}.
std::string robotText(std::string_view type_key, std::string_view object, std::string_view text_key,
                      std::string_view text) {
  std::string body = "{";
  appendJsonString(body, type_key);
  body += ":\"text\",";
  appendJsonString(body, object);
  body += ":{";
  appendJsonString(body, text_key);
  body += ':';
  appendJsonString(body, text);
  body += "}}";
  return body;
}

std::string genericBody(AlertMessage const& message, std::string_view instance) {
  std::string body = "{\"source\":\"llmux\",\"instance\":";
  appendJsonString(body, instance);
  body += ",\"alert\":";
  appendJsonString(body, alertNameText(message.alert));
  body += ",\"subject\":";
  appendJsonString(body, message.subject);
  body += message.firing ? ",\"state\":\"firing\"" : ",\"state\":\"resolved\"";
  body += ",\"summary\":";
  appendJsonString(body, message.summary);
  body += fmt::format(",\"value\":{},\"threshold\":{},\"at\":\"", message.value, message.threshold);
  telemetry::appendRfc3339Millis(body, message.at);
  body += "\"}";
  return body;
}

}  // namespace

std::string messageText(AlertMessage const& message, std::string_view instance) {
  return fmt::format("[{}] llmux {} {}{}: {}", message.firing ? "FIRING" : "RESOLVED", instance,
                     alertNameText(message.alert),
                     message.subject.empty() ? std::string() : " (" + message.subject + ")",
                     message.summary);
}

std::string dingTalkSignature(std::string_view secret, std::int64_t timestamp_ms) {
  std::string to_sign = std::to_string(timestamp_ms) + "\n" + std::string(secret);
  return base64(hmacSha256(secret, to_sign));
}

std::string feishuSignature(std::string_view secret, std::int64_t timestamp_s) {
  std::string key = std::to_string(timestamp_s) + "\n" + std::string(secret);
  return base64(hmacSha256(key, ""));
}

WebhookRequest renderWebhook(config::Webhook const& hook, AlertMessage const& message,
                             std::string_view instance, WallTime now) {
  WebhookRequest request;
  request.target = hook.target.path_prefix;
  std::string query = hook.query;
  std::string const text = messageText(message, instance);
  auto since_epoch = now.time_since_epoch();
  switch (hook.kind) {
    case config::WebhookKind::Webhook:
      request.body = genericBody(message, instance);
      break;
    case config::WebhookKind::Slack: {
      request.body = "{\"text\":";
      appendJsonString(request.body, text);
      request.body += "}";
      break;
    }
    case config::WebhookKind::Feishu: {
      std::string content = robotText("msg_type", "content", "text", text);
      if (hook.secret.empty()) {
        request.body = std::move(content);
        break;
      }
      auto timestamp = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
      request.body = "{\"timestamp\":\"" + std::to_string(timestamp) + "\",\"sign\":";
      appendJsonString(request.body, feishuSignature(hook.secret, timestamp));
      request.body += ",";
      request.body.append(content, 1);  // the rest of the object, after its '{'
      break;
    }
    case config::WebhookKind::DingTalk: {
      request.body = robotText("msgtype", "text", "content", text);
      if (!hook.secret.empty()) {
        auto timestamp = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count();
        if (!query.empty()) query += '&';
        query += "timestamp=" + std::to_string(timestamp) + "&sign=" +
                 protocol::percentEncodeSegment(dingTalkSignature(hook.secret, timestamp));
      }
      break;
    }
    case config::WebhookKind::WeCom:
      request.body = robotText("msgtype", "text", "content", text);
      break;
  }
  if (!query.empty()) request.target += "?" + query;
  return request;
}

}  // namespace llmux::alerts
