#include "translate/errors.h"

#include <boost/json/parse.hpp>

#include "core/json_text.h"
#include "core/strings.h"
#include "protocol/error_shapes.h"
#include "core/retry_after.h"
#include "translate/overflow_counts.h"

namespace llmux::translate {
namespace {

ErrorClass classForStatus(int status) {
  switch (status) {
    case 400: case 413: case 422: return ErrorClass::InvalidRequest;
    case 401: return ErrorClass::Authentication;
    case 403: return ErrorClass::PermissionDenied;
    case 404: return ErrorClass::NotFound;
    case 408: case 504: return ErrorClass::Timeout;
    case 429: return ErrorClass::RateLimited;
    case 503: case 529: return ErrorClass::Overloaded;
    default: return status >= 500 ? ErrorClass::Server : ErrorClass::InvalidRequest;
  }
}

int statusForClass(ErrorClass cls, Protocol client, int upstream_status) {
  switch (cls) {
    case ErrorClass::ContextOverflow: return 400;  // whatever status a relay chose
    case ErrorClass::InvalidRequest:
      // 402 (billing), 409, 413, 422 keep their meaning; anything else is a plain 400.
      return upstream_status >= 400 && upstream_status < 500 ? upstream_status : 400;
    case ErrorClass::Authentication: return 401;
    case ErrorClass::PermissionDenied: return 403;
    case ErrorClass::NotFound: return 404;
    case ErrorClass::RateLimited: return 429;
    case ErrorClass::Overloaded: return client == Protocol::Anthropic ? 529 : 503;
    case ErrorClass::Timeout: return 504;
    case ErrorClass::Server: return upstream_status >= 500 && upstream_status != 529 ? upstream_status : 500;
  }
  return 500;
}

std::string lower(std::string_view s) { return toLower(s); }

/// A rate limit is never a context overflow, whatever its wording (AWS Bedrock throttles with
/// "Too many tokens, please wait before trying again.").
bool mayBeContextOverflow(int status) { return status != 429; }

/// A protobuf Duration in its JSON form, as Google writes retryDelay: "34s", "34.400s".
std::string durationText(std::chrono::milliseconds delay) {
  auto ms = std::max<std::int64_t>(delay.count(), 0);
  std::string out = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    std::string fraction = std::to_string(ms % 1000);
    out += "." + std::string(3 - fraction.size(), '0') + fraction;
  }
  return out + "s";
}

/// A Gemini error body that says when to retry the way Google does: a google.rpc.RetryInfo
/// detail (the Gemini SDKs and CLI read the delay there, not from a header).
std::string geminiBodyWithRetry(int status, std::string_view message,
                                std::chrono::milliseconds delay) {
  std::string body = "{\"error\":{\"code\":" + std::to_string(status) + ",\"message\":";
  appendJsonString(body, message);
  body += ",\"status\":";
  appendJsonString(body, protocol::geminiStatusName(status));
  body += ",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"";
  body += durationText(delay);
  body += "\"}]}}";
  return body;
}

}  // namespace

bool isContextOverflow(std::string_view code, std::string_view message) {
  if (code == "context_length_exceeded" || code == "model_context_window_exceeded") return true;
  std::string m = lower(message);
  for (std::string_view marker :
       {"prompt is too long", "context_length_exceeded", "maximum context length",
        "context window", "exceed context limit", "input token count", "too many tokens",
        "context length"}) {
    if (m.find(marker) != std::string::npos) {
      // Gemini's wording: "The input token count (N) exceeds the maximum number of tokens allowed".
      if (marker == "input token count" && m.find("exceeds") == std::string::npos) continue;
      return true;
    }
  }
  return false;
}

UpstreamError upstreamError(int status, std::string message) {
  UpstreamError error;
  error.status = status;
  error.cls = mayBeContextOverflow(status) && isContextOverflow({}, message)
                  ? ErrorClass::ContextOverflow
                  : classForStatus(status);
  error.message = std::move(message);
  return error;
}

UpstreamError readUpstreamError(Protocol protocol, int status, std::string_view body,
                                HeaderList const& headers, WallTime now) {
  UpstreamError error;
  error.status = status;
  error.cls = classForStatus(status);
  error.retry_after = parseRetryAfter(headers, now);
  std::string code;
  boost::system::error_code ec;
  auto doc = boost::json::parse(body, ec);
  if (!ec && doc.is_object()) {
    auto const* err = doc.as_object().if_contains("error");
    if (err && err->is_object()) {
      auto const& e = err->as_object();
      if (auto const* m = e.if_contains("message"); m && m->is_string()) error.message = m->as_string();
      if (auto const* c = e.if_contains("code"); c && c->is_string()) code = c->as_string();
      if (auto const* t = e.if_contains("type"); t && t->is_string()) {
        std::string_view type = t->as_string();
        if (type == "overloaded_error") error.cls = ErrorClass::Overloaded;
        if (code.empty()) code = std::string(type);
      }
    } else if (err && err->is_string()) {
      error.message = err->as_string();
    }
  }
  if (error.message.empty()) {
    error.message = body.empty() ? "upstream error " + std::to_string(status)
                                 : std::string(body.substr(0, 500));
  }
  if (!error.retry_after && protocol == Protocol::Gemini) {
    error.retry_after = parseGoogleRetryDelay(body);
  }
  if (mayBeContextOverflow(status) && isContextOverflow(code, error.message)) {
    error.cls = ErrorClass::ContextOverflow;
  }
  return error;
}

ClientError renderForClient(Protocol client, UpstreamError const& error, std::string_view request_id) {
  ClientError out;
  out.status = statusForClass(error.cls, client, error.status);
  out.headers.add("Content-Type", protocol::errorContentType());
  if (error.retry_after) {
    auto seconds = std::chrono::ceil<std::chrono::seconds>(*error.retry_after).count();
    out.headers.add("retry-after", std::to_string(std::max<long long>(seconds, 0)));
  }
  std::string message = error.message;
  if (error.cls == ErrorClass::ContextOverflow) {
    // Each client gets its provider's own sentence, with the counts the upstream stated
    // (REFERENCE.md §6.3; Claude Code looks for "prompt is too long").
    if (client == Protocol::Anthropic) {
      message = anthropicOverflowMessage(readOverflowCounts(message), message);
    }
    if (client == Protocol::Gemini) message = geminiOverflowMessage(readOverflowCounts(message));
    if (client == Protocol::OpenAiChat || client == Protocol::OpenAiResponses) {
      std::string body = "{\"error\":{\"message\":";
      appendJsonString(body, message);
      body += ",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}";
      out.body = std::move(body);
      return out;
    }
  }
  if (client == Protocol::Gemini && error.retry_after) {
    out.body = geminiBodyWithRetry(out.status, message, *error.retry_after);
    return out;
  }
  out.body = protocol::renderErrorBody(client, out.status, message, request_id);
  return out;
}

}  // namespace llmux::translate
