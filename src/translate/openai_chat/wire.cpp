#include "translate/openai_chat/wire.h"

#include <array>

#include "core/strings.h"
#include "translate/json_access.h"

namespace llmux::translate::openai_chat {

std::string_view finishReasonFor(StopReason stop, bool has_tool_calls) {
  switch (stop) {
    case StopReason::MaxTokens:
    case StopReason::ContextWindow: return "length";
    case StopReason::ContentFilter: return "content_filter";
    case StopReason::ToolUse: return "tool_calls";
    case StopReason::EndTurn:
    case StopReason::StopSequence:
    case StopReason::PauseTurn:
    case StopReason::Other: break;
  }
  return has_tool_calls ? "tool_calls" : "stop";
}

StopReason stopFromFinishReason(std::string_view finish_reason, bool has_tool_calls) {
  if (finish_reason == "length") return StopReason::MaxTokens;
  if (finish_reason == "content_filter") return StopReason::ContentFilter;
  if (finish_reason == "tool_calls" || finish_reason == "function_call") return StopReason::ToolUse;
  if (finish_reason == "stop" || finish_reason.empty()) {
    return has_tool_calls ? StopReason::ToolUse : StopReason::EndTurn;
  }
  return StopReason::Other;
}

Usage readUsage(boost::json::object const& usage) {
  Usage u;
  u.input = intAt(usage, "prompt_tokens").value_or(0);
  u.output = intAt(usage, "completion_tokens").value_or(0);
  if (auto const* details = objectAt(usage, "prompt_tokens_details")) {
    u.cache_read = intAt(*details, "cached_tokens").value_or(0);
    u.cache_write = intAt(*details, "cache_write_tokens").value_or(0);
  }
  if (u.cache_read == 0) u.cache_read = intAt(usage, "prompt_cache_hit_tokens").value_or(0);
  if (auto const* details = objectAt(usage, "completion_tokens_details")) {
    u.reasoning = intAt(*details, "reasoning_tokens").value_or(0);
  }
  // Negative counts are garbage; exclusive counts (a relay that reports prompt_tokens without its
  // cache) are made inclusive so that the canonical record holds.
  auto clamp = [](std::int64_t& v) { v = v < 0 ? 0 : v; };
  clamp(u.input), clamp(u.output), clamp(u.cache_read), clamp(u.cache_write), clamp(u.reasoning);
  if (u.cache_read + u.cache_write > u.input) u.input += u.cache_read + u.cache_write;
  if (u.reasoning > u.output) u.output += u.reasoning;
  return u;
}

void writeUsage(JsonOut& out, Usage const& u) {
  out.beginObject("usage");
  out.num("prompt_tokens", u.input).num("completion_tokens", u.output);
  out.num("total_tokens", u.input + u.output);
  out.beginObject("prompt_tokens_details").num("cached_tokens", u.cache_read);
  if (u.cache_write > 0) out.num("cache_write_tokens", u.cache_write);
  out.endObject();
  // A zero reasoning count may mean "unknown" (Anthropic): only a known count is reported.
  if (u.reasoning > 0) {
    out.beginObject("completion_tokens_details").num("reasoning_tokens", u.reasoning).endObject();
  }
  out.endObject();
}

std::string completionId(std::string_view id, std::string_view fallback) {
  if (id.starts_with("chatcmpl-")) return std::string(id);
  std::string out = "chatcmpl-";
  out.append(id.empty() ? fallback : id);
  return out;
}

std::string inventedCallId(std::string_view seed, std::size_t position) {
  // FNV-1a over the seed and the position: the same response always gets the same ids.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (char c : seed) mix(static_cast<unsigned char>(c));
  for (std::size_t p = position + 1; p != 0; p >>= 8) mix(static_cast<unsigned char>(p & 0xff));
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string out = "call_";
  for (int i = 0; i < 24; ++i) {
    out.push_back(kAlphabet[h % 62]);
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    h ^= h >> 29;
  }
  return out;
}

std::optional<DataUrl> parseDataUrl(std::string_view url) {
  if (!url.starts_with("data:")) return std::nullopt;
  std::size_t comma = url.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view header = url.substr(5, comma - 5);
  if (!header.ends_with(";base64")) return std::nullopt;
  header.remove_suffix(7);
  // Parameters such as ";charset=utf-8" may sit between the type and ";base64".
  std::string_view media_type = header.substr(0, header.find(';'));
  return DataUrl{media_type, url.substr(comma + 1)};
}

std::optional<std::string> decodeBase64(std::string_view text) {
  auto sextet = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t buffer = 0;
  int bits = 0;
  bool padding = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    int v = sextet(c);
    if (v < 0 || padding) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

std::string_view mediaTypeFromName(std::string_view name) {
  name = name.substr(0, name.find_first_of("?#"));
  std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string ext = toLower(name.substr(dot + 1));
  struct Entry {
    std::string_view ext, type;
  };
  static constexpr std::array<Entry, 8> kTypes = {{{"png", "image/png"},
                                                   {"jpg", "image/jpeg"},
                                                   {"jpeg", "image/jpeg"},
                                                   {"gif", "image/gif"},
                                                   {"webp", "image/webp"},
                                                   {"pdf", "application/pdf"},
                                                   {"txt", "text/plain"},
                                                   {"heic", "image/heic"}}};
  for (auto const& e : kTypes) {
    if (e.ext == ext) return e.type;
  }
  return {};
}

}  // namespace llmux::translate::openai_chat
