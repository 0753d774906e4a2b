#include "protocol/media_answer.h"

#include <charconv>
#include <cmath>

#include "protocol/json_scan.h"

namespace llmux::protocol {
namespace {

std::string_view valueOf(std::string_view text, JsonMember const& member) {
  return text.substr(member.value_begin, member.value_end - member.value_begin);
}

std::optional<double> numberIn(std::string_view token) {
  if (token.size() >= 2 && token.front() == '"') token = token.substr(1, token.size() - 2);  // "4"
  double value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(value) || value < 0) {
    return std::nullopt;
  }
  return value;
}

/// `usage`: tokens under OpenAI's two spellings, or seconds for duration-billed audio.
void readUsage(std::string_view object, MediaAnswer& out) {
  JsonScan scan = scanJson(object);
  if (!scan.ok() || scan.root != JsonType::Object) return;
  TokenUsage usage;
  bool tokens = false;
  for (JsonMember const& member : scan.members) {
    auto value = member.type == JsonType::Number ? numberIn(valueOf(object, member)) : std::nullopt;
    if (!value) continue;
    if (member.keyIs("input_tokens") || member.keyIs("prompt_tokens")) {
      usage.input = static_cast<std::int64_t>(*value);
      tokens = true;
    } else if (member.keyIs("output_tokens") || member.keyIs("completion_tokens")) {
      usage.output = static_cast<std::int64_t>(*value);
      tokens = true;
    } else if (member.keyIs("seconds")) {
      out.seconds = *value;
    }
  }
  if (tokens) out.usage = usage;
}

/// The end of the JSON object that starts at `text[0]` ('{'), strings and escapes respected;
/// npos when it does not end within `text`.
std::size_t objectEnd(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

MediaAnswer readMediaAnswer(std::string_view body) {
  MediaAnswer out;
  JsonScan scan = scanJson(body);
  if (!scan.ok() || scan.root != JsonType::Object) return out;
  for (JsonMember const& member : scan.members) {
    std::string_view value = valueOf(body, member);
    if (member.keyIs("usage") && member.type == JsonType::Object) {
      readUsage(value, out);
    } else if (member.keyIs("id") && member.type == JsonType::String) {
      out.id = decodeJsonString(value.substr(1, value.size() - 2));
    } else if (member.keyIs("seconds") && !out.seconds) {
      out.seconds = numberIn(value);
    }
  }
  return out;
}

MediaAnswer readMediaAnswerTail(std::string_view tail) {
  MediaAnswer out;
  auto at = tail.rfind("\"usage\"");
  if (at == std::string_view::npos) return out;
  auto open = tail.find_first_not_of(": \t\r\n", at + 7);
  if (open == std::string_view::npos || tail[open] != '{') return out;
  std::string_view rest = tail.substr(open);
  auto end = objectEnd(rest);
  if (end != std::string_view::npos) readUsage(rest.substr(0, end), out);
  return out;
}

}  // namespace llmux::protocol
