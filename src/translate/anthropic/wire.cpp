#include "translate/anthropic/wire.h"

#include <algorithm>
#include <array>

#include "translate/json_access.h"
#include "translate/signature_tag.h"

namespace llmux::translate::anthropic {

std::string_view stopReasonName(StopReason stop) {
  switch (stop) {
    case StopReason::EndTurn:
      return "end_turn";
    case StopReason::StopSequence:
      return "stop_sequence";
    case StopReason::MaxTokens:
      return "max_tokens";
    case StopReason::ToolUse:
      return "tool_use";
    case StopReason::ContentFilter:
      return "refusal";
    case StopReason::PauseTurn:
      return "pause_turn";
    case StopReason::ContextWindow:
      return "model_context_window_exceeded";
    case StopReason::Other:
      return "end_turn";
  }
  return "end_turn";
}

StopReason parseStopReason(std::string_view name) {
  if (name == "end_turn") return StopReason::EndTurn;
  if (name == "stop_sequence") return StopReason::StopSequence;
  if (name == "max_tokens") return StopReason::MaxTokens;
  if (name == "tool_use") return StopReason::ToolUse;
  if (name == "refusal") return StopReason::ContentFilter;
  if (name == "pause_turn") return StopReason::PauseTurn;
  if (name == "model_context_window_exceeded") return StopReason::ContextWindow;
  return StopReason::Other;
}

StopReason clientStop(StopReason stop, bool any_tool_call, bool stop_sequence_known) {
  if (any_tool_call && (stop == StopReason::EndTurn || stop == StopReason::Other)) {
    return StopReason::ToolUse;
  }
  if (!any_tool_call && stop == StopReason::ToolUse) return StopReason::EndTurn;
  if (stop == StopReason::StopSequence && !stop_sequence_known) return StopReason::EndTurn;
  return stop;
}

namespace {

void mergeField(std::optional<std::int64_t>& field, boost::json::object const& o,
                std::string_view key) {
  if (auto v = intAt(o, key)) field = std::max<std::int64_t>(*v, 0);
}

}  // namespace

void WireUsage::merge(boost::json::object const& usage) {
  mergeField(input_tokens, usage, "input_tokens");
  mergeField(cache_creation_input_tokens, usage, "cache_creation_input_tokens");
  mergeField(cache_read_input_tokens, usage, "cache_read_input_tokens");
  mergeField(output_tokens, usage, "output_tokens");
  if (auto const* details = objectAt(usage, "output_tokens_details")) {
    mergeField(thinking_tokens, *details, "thinking_tokens");
  }
}

bool WireUsage::empty() const {
  return !input_tokens && !cache_creation_input_tokens && !cache_read_input_tokens &&
         !output_tokens && !thinking_tokens;
}

Usage WireUsage::toNeutral() const {
  Usage u;
  u.cache_read = cache_read_input_tokens.value_or(0);
  u.cache_write = cache_creation_input_tokens.value_or(0);
  u.input = input_tokens.value_or(0) + u.cache_read + u.cache_write;
  u.output = output_tokens.value_or(0);
  u.reasoning = std::min(thinking_tokens.value_or(0), u.output);
  return u;
}

void writeUsageFields(JsonOut& out, Usage const& usage) {
  std::int64_t uncached =
      std::max<std::int64_t>(usage.input - usage.cache_read - usage.cache_write, 0);
  out.num("input_tokens", uncached);
  out.num("cache_creation_input_tokens", std::max<std::int64_t>(usage.cache_write, 0));
  out.num("cache_read_input_tokens", std::max<std::int64_t>(usage.cache_read, 0));
  out.num("output_tokens", std::max<std::int64_t>(usage.output, 0));
  if (usage.reasoning > 0) {  // known only when reported: never a 0 that looks like a count
    out.beginObject("output_tokens_details").num("thinking_tokens", usage.reasoning).endObject();
  }
}

int statusForErrorType(std::string_view type) {
  if (type == "invalid_request_error") return 400;
  if (type == "authentication_error") return 401;
  if (type == "billing_error") return 402;
  if (type == "permission_error") return 403;
  if (type == "not_found_error") return 404;
  if (type == "request_too_large") return 413;
  if (type == "rate_limit_error") return 429;
  if (type == "timeout_error") return 504;
  if (type == "overloaded_error") return 529;
  return 500;  // api_error and anything unknown
}

std::string messageId(std::string_view id, std::string_view fallback) {
  if (id.empty()) id = fallback;
  if (id.starts_with("msg_")) return std::string(id);
  if (id.empty()) return "msg_llmux";
  return "msg_" + std::string(id);
}

namespace {

bool idChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

}  // namespace

std::string toolUseId(std::string_view id, std::string_view seed, std::size_t n) {
  if (id.empty()) {
    std::string made = "toolu_";
    for (char c : seed) made.push_back(idChar(c) ? c : '_');
    made += "_" + std::to_string(n);
    return made;
  }
  std::string out(id);
  for (char& c : out) {
    if (!idChar(c)) c = '_';
  }
  return out;
}

std::string clientSignature(std::string_view signature, std::optional<Protocol> origin) {
  if (signature.empty() || !origin) return {};
  if (*origin == Protocol::Anthropic) return std::string(signature);
  return tagSignature(signature, *origin);
}

std::string thinkingSignature(std::string_view signature, std::optional<Protocol> origin,
                              Block const* next) {
  if (!signature.empty()) return clientSignature(signature, origin);
  bool signed_next = next != nullptr && origin == Protocol::Gemini &&
                     (next->type == BlockType::Text || next->type == BlockType::ToolCall) &&
                     next->signature_origin == Protocol::Gemini && !next->signature.empty();
  if (!signed_next) return {};
  return tagSignature(next->signature, Protocol::Gemini, SignatureKind::NextPart);
}

std::string unsignedThinkingSignature(std::optional<Protocol> origin) {
  if (!origin) return {};
  return tagSignature({}, *origin);
}

Signature parseClientSignature(std::string_view signature) {
  CarriedSignature carried = untagSignature(signature, Protocol::Anthropic);
  return Signature{std::move(carried.value), carried.origin,
                   carried.kind == SignatureKind::NextPart};
}

namespace {

constexpr std::string_view kBase64 =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

}  // namespace

std::string base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    auto a = static_cast<unsigned char>(bytes[i]);
    auto b = static_cast<unsigned char>(bytes[i + 1]);
    auto c = static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(kBase64[a >> 2]);
    out.push_back(kBase64[((a & 3) << 4) | (b >> 4)]);
    out.push_back(kBase64[((b & 15) << 2) | (c >> 6)]);
    out.push_back(kBase64[c & 63]);
  }
  if (i + 1 == bytes.size()) {
    auto a = static_cast<unsigned char>(bytes[i]);
    out.push_back(kBase64[a >> 2]);
    out.push_back(kBase64[(a & 3) << 4]);
    out += "==";
  } else if (i + 2 == bytes.size()) {
    auto a = static_cast<unsigned char>(bytes[i]);
    auto b = static_cast<unsigned char>(bytes[i + 1]);
    out.push_back(kBase64[a >> 2]);
    out.push_back(kBase64[((a & 3) << 4) | (b >> 4)]);
    out.push_back(kBase64[(b & 15) << 2]);
    out.push_back('=');
  }
  return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v = base64Value(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

void addDropped(std::vector<std::string>& dropped, std::string_view name) {
  if (std::find(dropped.begin(), dropped.end(), name) == dropped.end()) {
    dropped.emplace_back(name);
  }
}

}  // namespace llmux::translate::anthropic
