#include "translate/openai_responses/wire.h"

#include "translate/errors.h"
#include "translate/json_access.h"
#include "translate/openai_responses/json_out.h"
#include "translate/signature_tag.h"

namespace llmux::translate::openai_responses {

StatusOut statusFor(StopReason stop) {
  switch (stop) {
    case StopReason::MaxTokens:
    case StopReason::ContextWindow:
      return {"incomplete", "max_output_tokens"};
    case StopReason::ContentFilter:
      return {"incomplete", "content_filter"};
    case StopReason::EndTurn:
    case StopReason::StopSequence:
    case StopReason::ToolUse:
    case StopReason::PauseTurn:
    case StopReason::Other:
      break;
  }
  return {"completed", ""};
}

StopReason stopFor(std::string_view status, std::string_view incomplete_reason, bool called_tools,
                   bool refused) {
  if (status == "incomplete") {
    if (incomplete_reason == "content_filter") return StopReason::ContentFilter;
    if (incomplete_reason == "max_output_tokens") return StopReason::MaxTokens;
    return StopReason::Other;
  }
  if (status == "completed" || status.empty()) {
    if (called_tools) return StopReason::ToolUse;
    if (refused) return StopReason::ContentFilter;
    return StopReason::EndTurn;
  }
  return StopReason::Other;  // cancelled, or a status that is not final
}

Usage usageFrom(boost::json::object const& usage) {
  Usage u;
  u.input = intAt(usage, "input_tokens").value_or(0);
  u.output = intAt(usage, "output_tokens").value_or(0);
  if (auto const* details = objectAt(usage, "input_tokens_details")) {
    u.cache_read = intAt(*details, "cached_tokens").value_or(0);
    u.cache_write = intAt(*details, "cache_write_tokens").value_or(0);
  }
  if (auto const* details = objectAt(usage, "output_tokens_details")) {
    u.reasoning = intAt(*details, "reasoning_tokens").value_or(0);
  }
  return u;
}

void appendUsage(std::string& out, Usage const& usage) {
  out += "{\"input_tokens\":";
  out += std::to_string(usage.input);
  out += ",\"input_tokens_details\":{\"cached_tokens\":";
  out += std::to_string(usage.cache_read);
  if (usage.cache_write > 0) {
    out += ",\"cache_write_tokens\":";
    out += std::to_string(usage.cache_write);
  }
  out += "},\"output_tokens\":";
  out += std::to_string(usage.output);
  out += ",\"output_tokens_details\":{\"reasoning_tokens\":";
  out += std::to_string(usage.reasoning);
  out += "},\"total_tokens\":";
  out += std::to_string(usage.total());
  out += '}';
}

namespace {

std::string idChars(std::string_view id) {
  std::string out;
  out.reserve(id.size());
  for (char c : id) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_';
    if (keep) out.push_back(c);
  }
  return out;
}

}  // namespace

std::string clientEncryptedContent(std::string_view signature, std::optional<Protocol> origin,
                                   bool redacted) {
  if (signature.empty() || !origin) return {};
  if (*origin == Protocol::OpenAiResponses) return std::string(signature);
  return tagSignature(signature, *origin,
                      redacted ? SignatureKind::Redacted : SignatureKind::Reasoning);
}

std::string protocolId(std::string_view prefix, std::string_view id, std::string_view fallback) {
  if (id.starts_with(prefix) && id.size() > prefix.size()) return std::string(id);
  std::string tail = idChars(id);
  if (tail.empty()) tail = idChars(fallback);
  if (tail.empty()) tail = "0";
  return std::string(prefix) + tail;
}

std::optional<DataUrl> parseDataUrl(std::string_view url) {
  if (!url.starts_with("data:")) return std::nullopt;
  auto comma = url.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view meta = url.substr(5, comma - 5);
  constexpr std::string_view kBase64 = ";base64";
  if (!meta.ends_with(kBase64)) return std::nullopt;
  meta.remove_suffix(kBase64.size());
  return DataUrl{meta, url.substr(comma + 1)};
}

void appendDataUrl(std::string& out, std::string_view media_type, std::string_view data) {
  out += "\"data:";
  appendEscaped(out, media_type);
  out += ";base64,";
  appendEscaped(out, data);  // base64 needs no escaping: a plain copy in practice
  out.push_back('"');
}

namespace {

int statusForCode(std::string_view code) {
  if (code == "context_length_exceeded" || code == "invalid_request_error" ||
      code == "invalid_prompt" || code == "invalid_value" || code.starts_with("decimal_") ||
      code.starts_with("integer_") || code == "unsupported_parameter" ||
      code == "missing_required_parameter") {
    return 400;
  }
  if (code == "invalid_api_key" || code == "authentication_error") return 401;
  if (code == "rate_limit_exceeded" || code == "rate_limit_error" || code == "insufficient_quota" ||
      code == "tokens_exceeded") {
    return 429;
  }
  if (code == "server_is_overloaded" || code == "overloaded_error" || code == "slow_down") {
    return 503;
  }
  return 500;
}

}  // namespace

int statusForError(std::string_view code, std::string_view type, std::string_view message) {
  if (isContextOverflow(code, message)) return 400;
  int status = statusForCode(code);
  return status != 500 || code == "server_error" ? status : statusForCode(type);
}

}  // namespace llmux::translate::openai_responses
