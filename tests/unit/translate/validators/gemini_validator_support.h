#pragma once

// What the Gemini validators share (gemini_validator.cpp: answers and streams;
// gemini_request_validator.cpp: requests): small JSON accessors and the part checks.

#include <boost/json/value.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::translate::validators::gemini::detail {

namespace json = boost::json;

using Problems = std::vector<std::string>;

constexpr std::string_view kFinishReasons[] = {
    "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE",
    "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION", "IMAGE_OTHER", "NO_IMAGE", "MALFORMED_RESPONSE",
    "MISSING_THOUGHT_SIGNATURE"};

template <std::size_t N>
inline bool oneOf(std::string_view const (&values)[N], std::string_view v) {
  return std::find(std::begin(values), std::end(values), v) != std::end(values);
}

inline bool isInt(json::value const* v) { return v && (v->is_int64() || v->is_uint64()); }
inline bool isNumber(json::value const* v) { return v && (isInt(v) || v->is_double()); }

inline std::int64_t intOf(json::value const* v) {
  if (v == nullptr) return 0;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
  return 0;
}

inline double numberOf(json::value const* v) {
  if (v == nullptr) return 0;
  if (v->is_double()) return v->get_double();
  return static_cast<double>(intOf(v));
}

inline std::string_view strOf(json::value const* v) {
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

inline bool isBase64(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '/' || c == '=' || c == '-' || c == '_';
  });
}

/// Gemini's function-name rule: a letter or underscore, then letters, digits, _ . : -, ≤ 64.
inline bool isFunctionName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  char first = s.front();
  if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') || first == '_')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == ':' || c == '-';
  });
}

// ---------------------------------------------------------------------------------------------
// Parts

enum class PartContext { Response, UserTurn, ModelTurn, System };

constexpr std::string_view kDataKinds[] = {"text",         "inlineData",    "fileData",
                                           "functionCall", "functionResponse", "executableCode",
                                           "codeExecutionResult"};
constexpr std::string_view kPartExtras[] = {"thought", "thoughtSignature", "videoMetadata",
                                            "partMetadata", "mediaResolution"};

inline void checkPart(json::value const& value, std::string const& where, PartContext context,
               Problems& problems) {
  if (!value.is_object()) {
    problems.push_back(where + ": a part must be an object");
    return;
  }
  json::object const& part = value.get_object();
  int kinds = 0;
  for (auto const& entry : part) {
    std::string_view key = entry.key();
    if (oneOf(kDataKinds, key)) {
      ++kinds;
    } else if (!oneOf(kPartExtras, key)) {
      problems.push_back(where + ": unknown part member \"" + std::string(key) + "\"");
    }
  }
  if (kinds != 1) {
    problems.push_back(where + ": a part must hold exactly one of text, inlineData, fileData, "
                               "functionCall, functionResponse, … (found " +
                       std::to_string(kinds) + ")");
  }
  if (auto const* thought = part.if_contains("thought"); thought && !thought->is_bool()) {
    problems.push_back(where + ": thought must be a boolean");
  }
  if (auto const* signature = part.if_contains("thoughtSignature")) {
    if (!isBase64(strOf(signature))) {
      problems.push_back(where + ": thoughtSignature must be a non-empty base64 string");
    }
  }
  if (auto const* text = part.if_contains("text"); text && !text->is_string()) {
    problems.push_back(where + ": text must be a string");
  }
  if (auto const* media = part.if_contains("inlineData")) {
    json::object const* o = media->if_object();
    if (!o || strOf(o->if_contains("mimeType")).empty() || !isBase64(strOf(o->if_contains("data")))) {
      problems.push_back(where + ": inlineData needs a mimeType and base64 data");
    }
  }
  if (auto const* file = part.if_contains("fileData")) {
    json::object const* o = file->if_object();
    if (!o || strOf(o->if_contains("fileUri")).empty() ||
        strOf(o->if_contains("mimeType")).empty()) {
      problems.push_back(where + ": fileData needs a mimeType and a fileUri");
    }
  }
  if (auto const* call = part.if_contains("functionCall")) {
    json::object const* o = call->if_object();
    if (!o) {
      problems.push_back(where + ": functionCall must be an object");
    } else {
      if (!isFunctionName(strOf(o->if_contains("name")))) {
        problems.push_back(where + ": functionCall.name \"" + std::string(strOf(o->if_contains("name"))) +
                           "\" is not a valid Gemini function name");
      }
      if (auto const* args = o->if_contains("args"); args && !args->is_object()) {
        problems.push_back(where + ": functionCall.args must be a complete JSON object");
      }
      if (auto const* id = o->if_contains("id"); id && strOf(id).empty()) {
        problems.push_back(where + ": functionCall.id must be a non-empty string");
      }
      for (auto const& entry : *o) {
        std::string_view key = entry.key();
        if (key != "name" && key != "args" && key != "id") {
          problems.push_back(where + ": unexpected functionCall member \"" + std::string(key) + "\"");
        }
      }
    }
    if (context == PartContext::UserTurn || context == PartContext::System) {
      problems.push_back(where + ": a functionCall belongs in a model turn");
    }
  }
  if (auto const* response = part.if_contains("functionResponse")) {
    json::object const* o = response->if_object();
    if (!o) {
      problems.push_back(where + ": functionResponse must be an object");
    } else {
      if (strOf(o->if_contains("name")).empty()) {
        problems.push_back(where + ": functionResponse.name is required");
      }
      auto const* r = o->if_contains("response");
      if (!r || !r->is_object()) {
        problems.push_back(where + ": functionResponse.response must be a JSON object");
      }
    }
    if (context != PartContext::UserTurn) {
      problems.push_back(where + ": a functionResponse belongs in a user turn");
    }
  }
  if (context == PartContext::System && !part.contains("text")) {
    problems.push_back(where + ": systemInstruction parts must be text");
  }
}

// ---------------------------------------------------------------------------------------------
// Responses and stream chunks

constexpr std::string_view kChunkMembers[] = {"candidates", "usageMetadata", "modelVersion",
                                              "responseId", "promptFeedback", "createTime"};
constexpr std::string_view kCandidateMembers[] = {
    "content",     "finishReason",      "index",        "safetyRatings",   "citationMetadata",
    "groundingMetadata", "finishMessage", "avgLogprobs", "logprobsResult", "tokenCount",
    "urlContextMetadata"};
constexpr std::string_view kUsageCounts[] = {
    "promptTokenCount", "cachedContentTokenCount", "candidatesTokenCount",
    "toolUsePromptTokenCount", "thoughtsTokenCount", "totalTokenCount"};
constexpr std::string_view kUsageDetails[] = {"promptTokensDetails", "cacheTokensDetails",
                                              "candidatesTokensDetails",
                                              "toolUsePromptTokensDetails", "trafficType",
                                              "serviceTier"};

}  // namespace llmux::translate::validators::gemini::detail
