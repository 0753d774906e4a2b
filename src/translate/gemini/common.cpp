#include "translate/gemini/common.h"

#include <array>
#include <cctype>
#include <cstring>

#include "protocol/json_scan.h"
#include "translate/json_access.h"

namespace llmux::translate::gemini::detail {

namespace json = boost::json;

json::value const* member(json::object const& object, std::string_view camel,
                          std::string_view snake) {
  if (auto const* v = object.if_contains(camel)) return v;
  if (!snake.empty()) return object.if_contains(snake);
  return nullptr;
}

json::object const* objectMember(json::object const& object, std::string_view camel,
                                 std::string_view snake) {
  json::value const* v = member(object, camel, snake);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

json::array const* arrayMember(json::object const& object, std::string_view camel,
                               std::string_view snake) {
  json::value const* v = member(object, camel, snake);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

std::optional<std::string_view> stringMember(json::object const& object, std::string_view camel,
                                             std::string_view snake) {
  json::value const* v = member(object, camel, snake);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}

std::optional<std::int64_t> intMember(json::object const& object, std::string_view camel,
                                      std::string_view snake) {
  json::value const* v = member(object, camel, snake);
  if (!v) return std::nullopt;
  return exactInteger(*v);
}

std::optional<double> numberMember(json::object const& object, std::string_view camel,
                                   std::string_view snake) {
  json::value const* v = member(object, camel, snake);
  if (!v) return std::nullopt;
  if (v->is_double()) return v->get_double();
  if (v->is_int64()) return static_cast<double>(v->get_int64());
  if (v->is_uint64()) return static_cast<double>(v->get_uint64());
  return std::nullopt;
}

std::optional<bool> boolMember(json::object const& object, std::string_view camel,
                               std::string_view snake) {
  json::value const* v = member(object, camel, snake);
  if (!v || !v->is_bool()) return std::nullopt;
  return v->get_bool();
}

namespace {

constexpr std::array<std::string_view, 11> kFilterReasons = {
    "SAFETY",     "RECITATION",         "LANGUAGE",        "BLOCKLIST",
    "PROHIBITED_CONTENT", "SPII",       "IMAGE_SAFETY",    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",   "IMAGE_OTHER", "OTHER"};

constexpr std::array<std::string_view, 9> kOtherReasons = {
    "FINISH_REASON_UNSPECIFIED", "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",       "NO_IMAGE",                "MALFORMED_RESPONSE",
    "MISSING_THOUGHT_SIGNATURE", "STOP",                    "MAX_TOKENS"};

template <std::size_t N>
bool contains(std::array<std::string_view, N> const& values, std::string_view v) {
  for (auto candidate : values) {
    if (candidate == v) return true;
  }
  return false;
}

}  // namespace

StopReason stopFromFinishReason(std::string_view reason, bool has_tool_calls) {
  if (reason == "STOP") return has_tool_calls ? StopReason::ToolUse : StopReason::EndTurn;
  if (reason == "MAX_TOKENS") return StopReason::MaxTokens;
  if (contains(kFilterReasons, reason)) return StopReason::ContentFilter;
  return StopReason::Other;
}

std::string_view finishReasonFor(StopReason stop) {
  switch (stop) {
    case StopReason::EndTurn:
    case StopReason::StopSequence:
    case StopReason::ToolUse:
    case StopReason::PauseTurn:
      return "STOP";
    case StopReason::MaxTokens:
    case StopReason::ContextWindow:
      return "MAX_TOKENS";
    case StopReason::ContentFilter:
      return "SAFETY";
    case StopReason::Other:
      return "OTHER";
  }
  return "STOP";
}

bool isKnownFinishReason(std::string_view reason) {
  return contains(kFilterReasons, reason) || contains(kOtherReasons, reason);
}

std::optional<Usage> usageFromMetadata(json::object const& metadata) {
  auto prompt = intMember(metadata, "promptTokenCount", "prompt_token_count");
  auto tool_prompt = intMember(metadata, "toolUsePromptTokenCount", "tool_use_prompt_token_count");
  auto cached = intMember(metadata, "cachedContentTokenCount", "cached_content_token_count");
  auto candidates = intMember(metadata, "candidatesTokenCount", "candidates_token_count");
  auto thoughts = intMember(metadata, "thoughtsTokenCount", "thoughts_token_count");
  if (!prompt && !tool_prompt && !cached && !candidates && !thoughts) return std::nullopt;
  Usage usage;
  usage.input = prompt.value_or(0) + tool_prompt.value_or(0);
  usage.cache_read = cached.value_or(0);
  usage.reasoning = thoughts.value_or(0);
  usage.output = candidates.value_or(0) + usage.reasoning;
  return usage;
}

void appendUsageMetadata(std::string& out, Usage const& usage) {
  std::int64_t reasoning = usage.reasoning > 0 ? usage.reasoning : 0;
  std::int64_t candidates = usage.output - reasoning;
  if (candidates < 0) candidates = 0;
  std::int64_t input = usage.input > 0 ? usage.input : 0;
  out += "\"usageMetadata\":{\"promptTokenCount\":";
  out += std::to_string(input);
  out += ",\"candidatesTokenCount\":";
  out += std::to_string(candidates);
  out += ",\"totalTokenCount\":";
  out += std::to_string(input + candidates + reasoning);
  if (usage.cache_read > 0) {
    out += ",\"cachedContentTokenCount\":";
    out += std::to_string(usage.cache_read);
  }
  if (reasoning > 0) {
    out += ",\"thoughtsTokenCount\":";
    out += std::to_string(reasoning);
  }
  out += '}';
}

namespace {

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

void appendHex(std::string& out, std::uint64_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out.push_back(kHex[(value >> (i * 4)) & 0xF]);
}

}  // namespace

std::string madeUpCallId(std::string_view seed, std::size_t position, std::string_view name) {
  std::string key(seed);
  key += '\x1f';
  key += std::to_string(position);
  key += '\x1f';
  key += name;
  std::uint64_t a = fnv1a(key, 0xcbf29ce484222325ULL);
  std::uint64_t b = fnv1a(key, 0x84222325cbf29ce4ULL ^ a);
  std::string id = "call_";
  appendHex(id, a, 16);
  appendHex(id, b, 8);
  return id;
}

std::string_view bareModelName(std::string_view model) {
  if (model.starts_with("models/")) model.remove_prefix(7);
  return model;
}

int geminiMajorVersion(std::string_view model) {
  model = bareModelName(model);
  auto at = model.find("gemini-");
  if (at == std::string_view::npos) return 0;
  int major = 0;
  bool any = false;
  for (std::size_t i = at + 7; i < model.size() && std::isdigit(static_cast<unsigned char>(model[i]));
       ++i) {
    major = major * 10 + (model[i] - '0');
    any = true;
    if (major > 1000) break;
  }
  return any ? major : 0;
}

bool usesThinkingLevel(std::string_view model) { return geminiMajorVersion(model) >= 3; }

bool isProModel(std::string_view model) {
  return bareModelName(model).find("-pro") != std::string_view::npos;
}

bool isFlashLiteModel(std::string_view model) {
  return bareModelName(model).find("flash-lite") != std::string_view::npos;
}

namespace {

/// Bytes that cannot appear raw inside a JSON string.
constexpr std::array<bool, 256> kNeedsEscape = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = true;
  table['"'] = true;
  table['\\'] = true;
  return table;
}();

}  // namespace

/// Whether any of the 8 bytes of `w` is a control byte, '"' or '\\' (SWAR: a word at a time).
bool wordNeedsEscape(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  auto zero_byte = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHigh;
  return (below_space | zero_byte(w ^ (kOnes * '"')) | zero_byte(w ^ (kOnes * '\\'))) != 0;
}

void appendJsonText(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    // Skip eight plain bytes at a time.
    while (i + 8 <= s.size()) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (wordNeedsEscape(word)) break;
      i += 8;
    }
    if (i >= s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (!kNeedsEscape[c]) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

std::string compactJson(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      out.push_back(c);
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == '"') in_string = true;
    out.push_back(c);
  }
  return out;
}

std::string argumentsObjectText(std::string_view arguments) {
  protocol::JsonScan scan = protocol::scanJson(arguments);
  if (!scan.ok() || scan.root != protocol::JsonType::Object) return "{}";
  return compactJson(arguments.substr(scan.root_begin, scan.root_end - scan.root_begin));
}

}  // namespace llmux::translate::gemini::detail
