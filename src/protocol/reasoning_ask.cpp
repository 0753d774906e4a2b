#include "protocol/reasoning_ask.h"

#include <charconv>

namespace llmux::protocol {
namespace {

std::string_view tokenOf(std::string_view text, JsonMember const& member) {
  return text.substr(member.value_begin, member.value_end - member.value_begin);
}

/// A string member's decoded value.
std::string stringOf(std::string_view text, JsonMember const& member) {
  std::string_view token = tokenOf(text, member);
  return decodeJsonString(token.substr(1, token.size() - 2));
}

/// An integer member's value (a fraction is cut off); nullopt for anything else.
std::optional<std::int64_t> integerOf(std::string_view text, JsonMember const& member) {
  if (member.type != JsonType::Number) return std::nullopt;
  std::string_view token = tokenOf(text, member);
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

/// The members of an object member's value, with offsets into `value` (the value's own text).
struct Inner {
  std::string_view value;
  JsonScan scan;
};
std::optional<Inner> objectOf(std::string_view text, JsonMember const& member) {
  if (member.type != JsonType::Object) return std::nullopt;
  Inner inner{tokenOf(text, member), {}};
  inner.scan = scanJson(inner.value);
  if (!inner.scan.ok()) return std::nullopt;
  return inner;
}

/// An effort named by the client: "none" turns thinking off, any other asks for it.
void noteEffort(std::string effort, ReasoningAsk& ask) {
  if (effort == "none") {
    ask = ReasoningAsk{ReasoningAsk::Mode::Off, {}, {}};
    return;
  }
  ask.mode = ReasoningAsk::Mode::On;
  ask.effort = std::move(effort);
}

void noteResponsesReasoning(std::string_view body, JsonMember const& member, ReasoningAsk& ask) {
  auto inner = objectOf(body, member);
  if (!inner) return;  // null: the model's default
  ask.mode = ReasoningAsk::Mode::On;  // an effort left out means the model's default effort
  for (JsonMember const& field : inner->scan.members) {
    if (field.keyIs("effort") && field.type == JsonType::String) {
      noteEffort(stringOf(inner->value, field), ask);
    }
  }
}

void noteAnthropicThinking(std::string_view body, JsonMember const& member, ReasoningAsk& ask) {
  auto inner = objectOf(body, member);
  if (!inner) return;
  std::string type;
  std::optional<std::int64_t> budget;
  for (JsonMember const& field : inner->scan.members) {
    if (field.keyIs("type") && field.type == JsonType::String) type = stringOf(inner->value, field);
    if (field.keyIs("budget_tokens")) budget = integerOf(inner->value, field);
  }
  if (type == "disabled") {
    ask = ReasoningAsk{ReasoningAsk::Mode::Off, {}, {}};
  } else if (type == "enabled" || type == "adaptive") {
    ask.mode = ReasoningAsk::Mode::On;
    if (type == "enabled") ask.budget_tokens = budget;
  }
}

/// `output_config.effort`: the effort of enabled or adaptive thinking, in whichever order the
/// two members come (the mode is `thinking`'s alone: without it the effort says nothing here).
void noteAnthropicEffort(std::string_view body, JsonMember const& member, ReasoningAsk& ask) {
  auto inner = objectOf(body, member);
  if (!inner) return;
  for (JsonMember const& field : inner->scan.members) {
    if (field.keyIs("effort") && field.type == JsonType::String) {
      ask.effort = stringOf(inner->value, field);
    }
  }
}

void noteGeminiThinkingConfig(std::string_view text, JsonMember const& member, ReasoningAsk& ask) {
  auto inner = objectOf(text, member);
  if (!inner) return;
  std::optional<std::int64_t> budget;
  std::string level;
  bool include_thoughts = false;
  for (JsonMember const& field : inner->scan.members) {
    if (field.keyIs("thinkingBudget") || field.keyIs("thinking_budget")) {
      budget = integerOf(inner->value, field);
    } else if ((field.keyIs("thinkingLevel") || field.keyIs("thinking_level")) &&
               field.type == JsonType::String) {
      level = stringOf(inner->value, field);
    } else if (field.keyIs("includeThoughts") || field.keyIs("include_thoughts")) {
      include_thoughts = field.type == JsonType::True;
    }
  }
  if (budget && *budget == 0) {
    ask = ReasoningAsk{ReasoningAsk::Mode::Off, {}, {}};
    return;
  }
  if (!budget && level.empty() && !include_thoughts) return;
  ask.mode = ReasoningAsk::Mode::On;
  ask.effort = level;
  if (budget && *budget > 0) ask.budget_tokens = budget;  // -1: dynamic, the model decides
}

void noteGeminiGenerationConfig(std::string_view body, JsonMember const& member,
                                ReasoningAsk& ask) {
  auto inner = objectOf(body, member);
  if (!inner) return;
  for (JsonMember const& field : inner->scan.members) {
    if (field.keyIs("thinkingConfig") || field.keyIs("thinking_config")) {
      noteGeminiThinkingConfig(inner->value, field, ask);
    }
  }
}

}  // namespace

void noteReasoningMember(Protocol protocol, std::string_view body, JsonMember const& member,
                         ReasoningAsk& ask) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      if (member.keyIs("reasoning_effort") && member.type == JsonType::String) {
        noteEffort(stringOf(body, member), ask);
      }
      return;
    case Protocol::OpenAiResponses:
      if (member.keyIs("reasoning")) noteResponsesReasoning(body, member, ask);
      return;
    case Protocol::Anthropic:
      if (member.keyIs("thinking")) {
        noteAnthropicThinking(body, member, ask);
      } else if (member.keyIs("output_config")) {
        noteAnthropicEffort(body, member, ask);
      }
      return;
    case Protocol::Gemini:
      if (member.keyIs("generationConfig") || member.keyIs("generation_config")) {
        noteGeminiGenerationConfig(body, member, ask);
      }
      return;
  }
}

}  // namespace llmux::protocol
