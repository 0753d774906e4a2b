#include "mock/mock_errors.h"

#include <string>

#include "mock/json_writer.h"

namespace llmux::mock {
namespace {

constexpr std::string_view kOpenAiContentType = "application/json; charset=utf-8";
constexpr std::string_view kAnthropicContentType = "application/json";
constexpr std::string_view kGoogleContentType = "application/json; charset=UTF-8";

MockReply anthropicError(IdSource& ids, int status, std::string_view type,
                         std::string_view message) {
  MockReply reply;
  std::string request_id = addRequestId(reply, Vendor::Anthropic, ids);
  std::string body;
  JsonWriter w(body);
  w.beginObject().str("type", "error").beginObject("error");
  w.str("type", type).str("message", message).endObject();
  w.str("request_id", request_id).endObject();
  setJsonBody(reply, status, std::move(body), kAnthropicContentType);
  return reply;
}

/// `details` writes the entries of the details array (nothing when empty).
template <class Details>
MockReply googleError(int status, std::string_view status_name, std::string_view message,
                      Details&& details) {
  MockReply reply;
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().beginObject("error");
  w.num("code", std::int64_t{status}).str("message", message).str("status", status_name);
  details(w);
  w.endObject().endObject();
  body.push_back('\n');
  setJsonBody(reply, status, std::move(body), kGoogleContentType);
  return reply;
}

MockReply googleError(int status, std::string_view status_name, std::string_view message) {
  return googleError(status, status_name, message, [](JsonWriter&) {});
}

// The mock keeps its own status tables rather than calling the gateway's (protocol/error_shapes):
// it stands in for the providers, so a mistake in the gateway's mapping must not be mirrored by
// the upstream the tests check it against.
std::string_view googleStatusName(int status) {
  switch (status) {
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
    case 503:
    case 529:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status < 500 ? "FAILED_PRECONDITION" : "INTERNAL";
  }
}

std::string_view anthropicTypeFor(int status) {
  switch (status) {
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
    case 504:
      return "timeout_error";
    case 529:
      return "overloaded_error";
    default:
      return status < 500 ? "invalid_request_error" : "api_error";
  }
}

}  // namespace

MockReply openAiError(IdSource& ids, int status, std::string_view message, std::string_view type,
                      std::string_view param, std::string_view code) {
  MockReply reply;
  addRequestId(reply, Vendor::OpenAi, ids);
  std::string body;
  JsonWriter w(body, JsonStyle::Indent4);
  w.beginObject().beginObject("error");
  w.str("message", message).str("type", type);
  if (param.empty())
    w.null("param");
  else
    w.str("param", param);
  if (code.empty())
    w.null("code");
  else
    w.str("code", code);
  w.endObject().endObject();
  body.push_back('\n');
  setJsonBody(reply, status, std::move(body), kOpenAiContentType);
  return reply;
}

MockReply missingKeyError(Vendor vendor, IdSource& ids) {
  switch (vendor) {
    case Vendor::OpenAi:
      return openAiError(ids, 401,
                         "You didn't provide an API key. You need to provide your API key in an "
                         "Authorization header using Bearer auth (i.e. Authorization: Bearer "
                         "YOUR_KEY), or as the password field (with blank username) if you're "
                         "accessing the API from your browser and are prompted for a username and "
                         "password. You can obtain an API key from "
                         "https://platform.openai.com/account/api-keys.",
                         "invalid_request_error", {}, {});
    case Vendor::Anthropic:
      return anthropicError(ids, 401, "authentication_error", "x-api-key header is required");
    case Vendor::Google:
      return googleError(403, "PERMISSION_DENIED",
                         "Method doesn't allow unregistered callers (callers without established "
                         "identity). Please use API Key or other form of API consumer identity to "
                         "call this API.");
  }
  return {};
}

MockReply invalidKeyError(Vendor vendor, IdSource& ids) {
  switch (vendor) {
    case Vendor::OpenAi:
      // OpenAI echoes a masked key; the mock masks all of it (secrets never go into errors).
      return openAiError(ids, 401,
                         "Incorrect API key provided: sk-****. You can find your API key at "
                         "https://platform.openai.com/account/api-keys.",
                         "invalid_request_error", {}, "invalid_api_key");
    case Vendor::Anthropic:
      return anthropicError(ids, 401, "authentication_error", "invalid x-api-key");
    case Vendor::Google:
      return googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
                         [](JsonWriter& w) {
                           w.beginArray("details").beginObject();
                           w.str("@type", "type.googleapis.com/google.rpc.ErrorInfo");
                           w.str("reason", "API_KEY_INVALID").str("domain", "googleapis.com");
                           w.beginObject("metadata")
                               .str("service", "generativelanguage.googleapis.com")
                               .endObject();
                           w.endObject().beginObject();
                           w.str("@type", "type.googleapis.com/google.rpc.LocalizedMessage");
                           w.str("locale", "en-US");
                           w.str("message", "API key not valid. Please pass a valid API key.");
                           w.endObject().endArray();
                         });
  }
  return {};
}

MockReply forbiddenKeyError(Vendor vendor, IdSource& ids) {
  switch (vendor) {
    case Vendor::OpenAi:
      return openAiError(ids, 403, "Country, region, or territory not supported",
                         "request_forbidden", {}, "unsupported_country_region_territory");
    case Vendor::Anthropic:
      return anthropicError(ids, 403, "permission_error",
                            "Your API key does not have permission to use the specified "
                            "resource.");
    case Vendor::Google:
      return googleError(403, "PERMISSION_DENIED", "The caller does not have permission");
  }
  return {};
}

MockReply rateLimitedError(Vendor vendor, IdSource& ids, int retry_after_s,
                           std::string_view model) {
  std::string seconds = std::to_string(retry_after_s);
  MockReply reply;
  switch (vendor) {
    case Vendor::OpenAi: {
      std::string message = "Rate limit reached for ";
      message.append(model.empty() ? std::string_view("this model") : model);
      message +=
          " in organization org-mock on requests per min (RPM): Limit 500, Used 500, "
          "Requested 1. Please try again in " +
          seconds + "s. Visit https://platform.openai.com/account/rate-limits to learn more.";
      reply = openAiError(ids, 429, message, "requests", {}, "rate_limit_exceeded");
      break;
    }
    case Vendor::Anthropic:
      reply = anthropicError(ids, 429, "rate_limit_error",
                             "Number of requests has exceeded your per-minute rate limit "
                             "(https://docs.claude.com/en/api/rate-limits); see the response "
                             "headers for current usage. Please reduce the number of requests or "
                             "try again later.");
      break;
    case Vendor::Google:
      return googleError(429, "RESOURCE_EXHAUSTED",
                         "You exceeded your current quota, please check your plan and billing "
                         "details. For more information on this error, head to: "
                         "https://ai.google.dev/gemini-api/docs/rate-limits.",
                         [&](JsonWriter& w) {
                           w.beginArray("details").beginObject();
                           w.str("@type", "type.googleapis.com/google.rpc.QuotaFailure");
                           w.beginArray("violations").beginObject();
                           w.str("quotaMetric",
                                 "generativelanguage.googleapis.com/generate_content_requests");
                           w.str("quotaId", "GenerateRequestsPerMinutePerProjectPerModel");
                           w.endObject().endArray().endObject().beginObject();
                           w.str("@type", "type.googleapis.com/google.rpc.RetryInfo");
                           w.str("retryDelay", seconds + "s");
                           w.endObject().endArray();
                         });
  }
  reply.headers.add("retry-after", seconds);
  addRateLimitHeaders(reply, vendor, true, retry_after_s);
  return reply;
}

MockReply statusError(Vendor vendor, IdSource& ids, int status, std::string_view model) {
  switch (status) {
    case 401:
      return invalidKeyError(vendor, ids);
    case 403:
      return forbiddenKeyError(vendor, ids);
    case 429:
      return rateLimitedError(vendor, ids, 1, model);
    default:
      break;
  }
  switch (vendor) {
    case Vendor::OpenAi:
      switch (status) {
        case 500:
          return openAiError(ids, status,
                             "The server had an error while processing your request. Sorry about "
                             "that!",
                             "server_error", {}, {});
        case 502:
          return openAiError(ids, status, "Bad gateway.", "server_error", {}, {});
        case 503:
        case 529:
          return openAiError(ids, status, "The server is overloaded or not ready yet.",
                             "server_error", {}, {});
        case 504:
          return openAiError(ids, status, "Gateway timeout.", "server_error", {}, {});
        default:
          return openAiError(ids, status,
                             "Request failed with status " + std::to_string(status) + ".",
                             status < 500 ? "invalid_request_error" : "server_error", {}, {});
      }
    case Vendor::Anthropic: {
      std::string_view type = anthropicTypeFor(status);
      std::string message = status == 529   ? "Overloaded"
                            : status == 500 ? "Internal server error"
                            : status == 503 ? "Service unavailable"
                            : status == 504
                                ? "Request timed out"
                                : "Request failed with status " + std::to_string(status);
      return anthropicError(ids, status, type, message);
    }
    case Vendor::Google: {
      std::string message =
          status == 500 ? "An internal error has occurred. Please retry or report in "
                          "https://developers.generativeai.google/guide/troubleshooting"
          : status == 503 || status == 529 ? "The model is overloaded. Please try again later."
          : status == 504                  ? "Deadline expired before operation could complete."
                          : "Request failed with status " + std::to_string(status) + ".";
      return googleError(status, googleStatusName(status), message);
    }
  }
  return {};
}

MockReply invalidJsonError(Vendor vendor, IdSource& ids) {
  switch (vendor) {
    case Vendor::OpenAi:
      return openAiError(ids, 400,
                         "We could not parse the JSON body of your request. (HINT: This likely "
                         "means you aren't using your HTTP library correctly. The OpenAI API "
                         "expects a JSON payload, but what was sent was not valid JSON. If you "
                         "have trouble figuring out how to fix this, please contact us through our "
                         "help center at help.openai.com.)",
                         "invalid_request_error", {}, {});
    case Vendor::Anthropic:
      return anthropicError(ids, 400, "invalid_request_error",
                            "There was an error parsing the body of your request: invalid JSON");
    case Vendor::Google:
      return googleError(400, "INVALID_ARGUMENT",
                         "Invalid JSON payload received. Unexpected token.");
  }
  return {};
}

MockReply missingFieldError(Vendor vendor, IdSource& ids, std::string_view field) {
  std::string name(field);
  switch (vendor) {
    case Vendor::OpenAi:
      return openAiError(ids, 400, "Missing required parameter: '" + name + "'.",
                         "invalid_request_error", field, "missing_required_parameter");
    case Vendor::Anthropic:
      return anthropicError(ids, 400, "invalid_request_error", name + ": Field required");
    case Vendor::Google:
      return googleError(400, "INVALID_ARGUMENT",
                         "* GenerateContentRequest." + name + ": " + name + " is not specified\n");
  }
  return {};
}

MockReply invalidRequestError(Vendor vendor, IdSource& ids, std::string_view message,
                              std::string_view param, std::string_view code) {
  switch (vendor) {
    case Vendor::OpenAi:
      return openAiError(ids, 400, message, "invalid_request_error", param, code);
    case Vendor::Anthropic:
      return anthropicError(ids, 400, "invalid_request_error", message);
    case Vendor::Google:
      return googleError(400, "INVALID_ARGUMENT", message);
  }
  return {};
}

MockReply contextOverflowError(Protocol protocol, IdSource& ids, std::int64_t tokens) {
  switch (protocol) {
    case Protocol::OpenAiChat: {
      std::int64_t limit = 128000;
      return openAiError(ids, 400,
                         "This model's maximum context length is " + std::to_string(limit) +
                             " tokens. However, your messages resulted in " +
                             std::to_string(limit + tokens) +
                             " tokens. Please reduce the length of the messages.",
                         "invalid_request_error", "messages", "context_length_exceeded");
    }
    case Protocol::OpenAiResponses:
      return openAiError(ids, 400,
                         "Your input exceeds the context window of this model. Please adjust your "
                         "input and try again.",
                         "invalid_request_error", "input", "context_length_exceeded");
    case Protocol::Anthropic: {
      std::int64_t limit = 200000;
      return anthropicError(ids, 400, "invalid_request_error",
                            "prompt is too long: " + std::to_string(limit + tokens) + " tokens > " +
                                std::to_string(limit) + " maximum");
    }
    case Protocol::Gemini: {
      std::int64_t limit = 1048576;
      return googleError(400, "INVALID_ARGUMENT",
                         "The input token count (" + std::to_string(limit + tokens) +
                             ") exceeds the maximum number of tokens allowed (" +
                             std::to_string(limit) + ").");
    }
  }
  return {};
}

MockReply routeNotFoundError(Vendor vendor, IdSource& ids, std::string_view method,
                             std::string_view path) {
  std::string where(method);
  where.push_back(' ');
  where.append(path);
  switch (vendor) {
    case Vendor::OpenAi:
      return openAiError(ids, 404, "Invalid URL (" + where + ")", "invalid_request_error", {}, {});
    case Vendor::Anthropic:
      return anthropicError(ids, 404, "not_found_error", "Not Found");
    case Vendor::Google:
      return googleError(404, "NOT_FOUND", "Method not found: " + where);
  }
  return {};
}

}  // namespace llmux::mock
