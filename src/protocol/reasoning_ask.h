#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/wire_protocol.h"
#include "protocol/json_scan.h"

namespace llmux::protocol {

/// What a request asks of the model's reasoning, in its protocol's words: read during
/// inspection, so a request that asks nothing costs nothing more than a key compare per
/// top-level member.
struct ReasoningAsk {
  enum class Mode : std::uint8_t {
    Unstated,  ///< the request says nothing: the model's default
    Off,       ///< thinking turned off (`reasoning_effort: "none"`, `thinking: disabled`, budget 0)
    On,        ///< thinking asked for, with `effort` and/or `budget_tokens` when stated
  };
  Mode mode = Mode::Unstated;
  std::string effort;                         ///< as named ("low", "high", ...); "" when none
  std::optional<std::int64_t> budget_tokens;  ///< a thinking budget in tokens, when given

  bool operator==(ReasoningAsk const&) const = default;
};

/// How much thinking a request asks for, in the tiers the first-token clocks and the racing
/// floors share.
enum class ReasoningTier : std::uint8_t {
  None,    ///< nothing asked, or thinking turned off
  Low,     ///< effort minimal or low (or a small thinking budget)
  Medium,  ///< effort medium, thinking on without an effort, an unknown effort
  High,    ///< effort high, xhigh, max (or a large thinking budget)
};

/// Notes what one top-level member of a `protocol` request body says about reasoning into
/// `ask` (members that say nothing leave it as it is):
///  - OpenAI Chat `reasoning_effort`; OpenAI Responses `reasoning: {effort}` (an object without
///    an effort asks for the model's default effort); "none" is Off;
///  - Anthropic `thinking: {type: enabled, budget_tokens} | {type: adaptive} | {type: disabled}`,
///    and `output_config: {effort}` for the effort of enabled or adaptive thinking;
///  - Gemini `generationConfig.thinkingConfig`: `thinkingBudget` (0 off, -1 dynamic),
///    `thinkingLevel`, `includeThoughts: true` (snake_case spellings too).
/// Only the member's own small value is scanned. `body` is the whole document scanJson accepted.
void noteReasoningMember(Protocol protocol, std::string_view body, JsonMember const& member,
                         ReasoningAsk& ask);

}  // namespace llmux::protocol
