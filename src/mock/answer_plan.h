#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::mock {

/// How the request constrains tool use, in provider-neutral terms.
enum class ToolChoice {
  Auto,      ///< the model decides (the mock calls tools when the last turn is not a tool result)
  None,      ///< never call a tool
  Required,  ///< must call some tool
  Named,     ///< must call `forced_tool`
};

/// A function tool offered by the request. Views into the parsed request.
struct ToolOffer {
  std::string_view name;
  boost::json::value const* schema = nullptr;  ///< JSON Schema of the arguments (may be null)
};

/// What the mock needs to know about a request to decide its answer, extracted by each protocol
/// from its own request shape. Views point into the request's parsed JSON.
struct RequestFacts {
  std::string_view model;
  bool stream = false;
  std::string_view last_user_text;  ///< text of the last user turn ("" when none)
  bool last_turn_is_tool_result = false;
  std::vector<ToolOffer> tools;
  ToolChoice tool_choice = ToolChoice::Auto;
  std::string_view forced_tool;
  bool parallel_tool_calls = true;
  bool thinking = false;        ///< reasoning / thinking output requested
  bool cache_marker = false;    ///< the request marks a cacheable prefix
  bool cache_write_1h = false;  ///< Anthropic: some cache_control asks for ttl "1h"
  std::size_t body_bytes = 0;
};

/// Token counts of one answer, before each protocol applies its own conventions.
struct TokenUsage {
  std::int64_t prompt = 0;       ///< every input token, cached ones included
  std::int64_t cache_read = 0;   ///< part of `prompt` read from the cache
  std::int64_t cache_write = 0;  ///< part of `prompt` written to the cache (Anthropic)
  std::int64_t output = 0;       ///< every output token, reasoning included
  std::int64_t reasoning = 0;    ///< part of `output` spent thinking
};

/// One tool call the mock will make.
struct PlannedCall {
  std::string name;
  std::string arguments;  ///< compact JSON object text
};

/// The provider-neutral answer: optional thinking, then text and/or tool calls.
struct AnswerPlan {
  std::string thinking;  ///< empty: no thinking / reasoning block
  std::string text;      ///< empty only when the answer is tool calls
  std::vector<PlannedCall> calls;
  TokenUsage usage;
};

/// Decides what to answer (REFERENCE-independent rules, docs/mock-provider.md "How it answers").
/// `preamble_before_calls`: Anthropic models write a short sentence before their tool calls.
AnswerPlan planAnswer(RequestFacts const& facts, bool preamble_before_calls);

/// Rough token count of `chars` characters (4 characters per token, at least 1).
std::int64_t estimateTokens(std::size_t chars);

/// Splits `text` into streaming deltas at word boundaries (a few words each); never splits a
/// UTF-8 sequence. Returns at least one piece (the empty string for empty text).
std::vector<std::string_view> splitDeltas(std::string_view text, std::size_t target_bytes = 16);

/// Splits `text` into fragments of about `size` bytes without breaking UTF-8 sequences (tool
/// arguments are streamed this way). Returns no fragment for empty text.
std::vector<std::string_view> splitFragments(std::string_view text, std::size_t size);

}  // namespace llmux::mock
