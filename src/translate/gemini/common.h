#pragma once

// Helpers shared by the Gemini codecs: field lookup in either spelling (Gemini accepts camelCase
// and snake_case in requests), finish reasons, usageMetadata, made-up tool-call ids and the model
// families whose thinking controls differ.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "translate/neutral.h"

namespace llmux::translate::gemini::detail {

/// The member spelled `camel` or `snake` (camelCase wins when both are present), or null.
boost::json::value const* member(boost::json::object const& object, std::string_view camel,
                                 std::string_view snake);
boost::json::object const* objectMember(boost::json::object const& object, std::string_view camel,
                                        std::string_view snake);
boost::json::array const* arrayMember(boost::json::object const& object, std::string_view camel,
                                      std::string_view snake);
std::optional<std::string_view> stringMember(boost::json::object const& object,
                                             std::string_view camel, std::string_view snake);
std::optional<std::int64_t> intMember(boost::json::object const& object, std::string_view camel,
                                      std::string_view snake);
std::optional<double> numberMember(boost::json::object const& object, std::string_view camel,
                                   std::string_view snake);
std::optional<bool> boolMember(boost::json::object const& object, std::string_view camel,
                               std::string_view snake);

/// A Gemini finishReason in the neutral model (REFERENCE §7.1): STOP is ToolUse when the answer
/// holds function calls; the safety family is ContentFilter; the tool-call failures and unknown
/// values are Other.
StopReason stopFromFinishReason(std::string_view reason, bool has_tool_calls);

/// The finishReason a Gemini client sees for a neutral stop reason (REFERENCE §7.2/7.3).
std::string_view finishReasonFor(StopReason stop);

/// Whether `reason` is one of the finishReason values Gemini documents.
bool isKnownFinishReason(std::string_view reason);

/// usageMetadata in the canonical record (REFERENCE §8): input = prompt + toolUsePrompt (cached
/// included), output = candidates + thoughts, reasoning = thoughts. nullopt when the object
/// carries no token count at all (Vertex sends `{"trafficType": …}` alone on early chunks).
std::optional<Usage> usageFromMetadata(boost::json::object const& metadata);

/// Appends `"usageMetadata":{…}` for `usage`: candidatesTokenCount = output − reasoning,
/// thoughtsTokenCount = reasoning (when non-zero), cachedContentTokenCount = cache_read (when
/// non-zero), totalTokenCount = input + output (recomputed, never copied).
void appendUsageMetadata(std::string& out, Usage const& usage);

/// A tool-call id for a function call that came without one: "call_" + 24 hex digits derived from
/// `seed` (response id, position, name), so that the same input always gets the same id and ids
/// differ between calls.
std::string madeUpCallId(std::string_view seed, std::size_t position, std::string_view name);

/// The major version in a Gemini model name ("gemini-2.5-flash" → 2, "models/gemini-3-pro" → 3);
/// 0 when the name does not say.
int geminiMajorVersion(std::string_view model);

/// Gemini 3 and later control thinking with thinkingLevel; earlier models with thinkingBudget.
bool usesThinkingLevel(std::string_view model);

/// "pro" models cannot turn thinking off; "flash-lite" has a higher minimum budget.
bool isProModel(std::string_view model);
bool isFlashLiteModel(std::string_view model);

/// The model name without a leading "models/".
std::string_view bareModelName(std::string_view model);

/// Appends `s` as a JSON string literal, like core's appendJsonString, but copying the runs of
/// bytes that need no escape in one go (requests carry hundreds of kilobytes of text).
void appendJsonText(std::string& out, std::string_view s);

/// `json` (already known to be well-formed JSON) without the whitespace between its tokens, so
/// that it fits on one SSE `data:` line. Strings are copied byte for byte.
std::string compactJson(std::string_view json);

/// The JSON text of an arguments object: `arguments` compacted when it is a JSON object, "{}"
/// when it is empty or anything else (Gemini's `args` must be an object).
std::string argumentsObjectText(std::string_view arguments);

}  // namespace llmux::translate::gemini::detail
