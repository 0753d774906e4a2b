#pragma once

// Shapes a neutral conversation into the turn structure the Anthropic Messages API accepts
// (REFERENCE.md §3.2, §9.2): alternating user/assistant turns, every tool_use answered by a
// tool_result at the start of the next user turn, nothing Anthropic would reject.

#include <string>
#include <vector>

#include "translate/neutral.h"

namespace llmux::translate::anthropic {

/// One turn as it will be sent: role and the blocks to write, in order.
struct Turn {
  Role role = Role::User;
  std::vector<Block> blocks;
};

/// The conversation rules, applied in order:
///  - blocks Anthropic cannot take are left out: empty text; thinking / redacted thinking whose
///    signature was not minted by Anthropic; images and documents outside user turns; tool calls
///    outside assistant turns, tool results outside user turns; images known only by a file id;
///  - system turns before the first user or assistant turn join `system`; later ones stay
///    `role: "system"` turns (the API accepts them mid-conversation);
///  - empty turns are removed and consecutive turns of the same role merged;
///  - tool_use ids are made valid (toolUseId); a result without an id takes the id of the first
///    unanswered call of the same name;
///  - the user turn after an assistant turn with tool calls starts with one tool_result per call
///    (a missing one is answered with an is_error result saying so; a user turn is inserted when
///    none follows); a system turn in between moves after it;
///  - a tool result that answers no call of the turn before becomes a text block.
/// What is left out is named in `dropped`.
std::vector<Turn> shapeTurns(std::vector<Message> const& messages, std::vector<Block>& system,
                             std::vector<std::string>& dropped);

/// The text an unanswered tool call gets as its (is_error) result.
inline constexpr std::string_view kMissingToolResult = "No result was provided for this tool call.";

}  // namespace llmux::translate::anthropic
