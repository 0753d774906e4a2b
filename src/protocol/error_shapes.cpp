#include "protocol/error_shapes.h"

#include "core/json_text.h"

namespace llmux::protocol {
namespace {

void appendOpenAiError(std::string& out, int http_status, std::string_view message) {
  OpenAiErrorClass cls = openAiErrorClass(http_status);
  out += "{\"message\":";
  appendJsonString(out, message);
  out += ",\"type\":";
  appendJsonString(out, cls.type);
  out += ",\"param\":null,\"code\":";
  if (cls.code.empty()) {
    out += "null";
  } else {
    appendJsonString(out, cls.code);
  }
  out += '}';
}

void appendAnthropicError(std::string& out, int http_status, std::string_view message) {
  out += "{\"type\":";
  appendJsonString(out, anthropicErrorType(http_status));
  out += ",\"message\":";
  appendJsonString(out, message);
  out += '}';
}

void appendGeminiError(std::string& out, int http_status, std::string_view message) {
  out += "{\"error\":{\"code\":";
  out += std::to_string(http_status);
  out += ",\"message\":";
  appendJsonString(out, message);
  out += ",\"status\":";
  appendJsonString(out, geminiStatusName(http_status));
  out += "}}";
}

void appendResponsesStreamError(std::string& out, int http_status, std::string_view message,
                                StreamErrorContext const& ctx) {
  OpenAiErrorClass cls = openAiErrorClass(http_status);
  // response.error.code is a required string; fall back to the type when OpenAI has no code.
  std::string_view code = cls.code.empty() ? cls.type : cls.code;

  // The SDK types put code/message/param at the top of the error event while the API nests them
  // under "error" (recorded traffic); carrying both satisfies either reader.
  out += "event: error\ndata: {\"type\":\"error\",\"code\":";
  appendJsonString(out, code);
  out += ",\"message\":";
  appendJsonString(out, message);
  out += ",\"param\":null,\"error\":{\"type\":";
  appendJsonString(out, cls.type);
  out += ",\"code\":";
  appendJsonString(out, code);
  out += ",\"message\":";
  appendJsonString(out, message);
  out += ",\"param\":null}}\n\n";

  out += "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":";
  appendJsonString(out, ctx.response_id.empty() ? std::string_view("resp_error") : ctx.response_id);
  out += ",\"object\":\"response\",\"created_at\":";
  out += std::to_string(ctx.created_at);
  out += ",\"status\":\"failed\",\"error\":{\"code\":";
  appendJsonString(out, code);
  out += ",\"message\":";
  appendJsonString(out, message);
  out += "},\"incomplete_details\":null,\"model\":";
  appendJsonString(out, ctx.model.empty() ? std::string_view("unknown") : ctx.model);
  out += ",\"output\":[],\"usage\":null}}\n\n";
}

}  // namespace

OpenAiErrorClass openAiErrorClass(int http_status) {
  switch (http_status) {
    case 400:
      return {"invalid_request_error", ""};
    case 401:
      return {"invalid_request_error", "invalid_api_key"};
    // What api.openai.com answers for a forbidden request (e.g. an unsupported region).
    case 403:
      return {"request_forbidden", ""};
    case 404:
      return {"invalid_request_error", "model_not_found"};
    case 413:
      return {"invalid_request_error", "request_too_large"};
    case 429:
      return {"rate_limit_error", "rate_limit_exceeded"};
    case 431:
      return {"invalid_request_error", "request_headers_too_large"};
    case 503:
      return {"server_error", "service_unavailable"};
    case 504:
      return {"server_error", "timeout"};
    case 529:
      return {"server_error", "server_is_overloaded"};
    default:
      break;
  }
  if (http_status >= 500) return {"server_error", ""};
  return {"invalid_request_error", ""};
}

std::string_view anthropicErrorType(int http_status) {
  switch (http_status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    case 408:
    case 504:
      return "timeout_error";
    default:
      break;
  }
  if (http_status >= 500) return "api_error";
  return "invalid_request_error";
}

std::string_view geminiStatusName(int http_status) {
  switch (http_status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 499:
      return "CANCELLED";
    case 501:
      return "UNIMPLEMENTED";
    case 502:
    case 503:
    case 529:
      return "UNAVAILABLE";
    case 408:
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      break;
  }
  if (http_status >= 500) return "INTERNAL";
  return http_status >= 400 ? "INVALID_ARGUMENT" : "UNKNOWN";
}

std::string renderErrorBody(Protocol protocol, int http_status, std::string_view message,
                            std::string_view request_id) {
  std::string out;
  out.reserve(message.size() + 128);
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses:
      out += "{\"error\":";
      appendOpenAiError(out, http_status, message);
      out += '}';
      break;
    case Protocol::Anthropic:
      out += "{\"type\":\"error\",\"error\":";
      appendAnthropicError(out, http_status, message);
      if (!request_id.empty()) {
        out += ",\"request_id\":";
        appendJsonString(out, request_id);
      }
      out += '}';
      break;
    case Protocol::Gemini:
      appendGeminiError(out, http_status, message);
      break;
  }
  return out;
}

std::string_view errorContentType() {
  return "application/json";
}

std::string renderStreamError(Protocol protocol, int http_status, std::string_view message,
                              StreamErrorContext const& ctx) {
  std::string out;
  out.reserve(message.size() * 2 + 256);
  switch (protocol) {
    case Protocol::OpenAiChat:
      out += "data: {\"error\":";
      appendOpenAiError(out, http_status, message);
      out += "}\n\n";
      break;
    case Protocol::OpenAiResponses:
      appendResponsesStreamError(out, http_status, message, ctx);
      break;
    case Protocol::Anthropic:
      out += "event: error\ndata: {\"type\":\"error\",\"error\":";
      appendAnthropicError(out, http_status, message);
      out += "}\n\n";
      break;
    case Protocol::Gemini:
      out += "data: ";
      appendGeminiError(out, http_status, message);
      out += "\r\n\r\n";
      break;
  }
  return out;
}

}  // namespace llmux::protocol
