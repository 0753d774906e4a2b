#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/http_headers.h"
#include "core/wire_protocol.h"

namespace llmux::protocol {

/// Longest session key kept; longer values are cut (they only need to tell sessions apart).
inline constexpr std::size_t kMaxSessionKeyBytes = 256;

/// What ties a request to the conversation it continues, so the router can keep a session on the
/// same upstream key (prompt caches are per account). The first non-empty of:
///  1. header `x-session-id` (any client may set it explicitly);
///  2. Codex CLI's session header: `session_id` (older releases), `session-id` (0.171, see
///     tests/data/protocol/clients/codex-cli.request.json), then `conversation-id` /
///     `conversation_id`;
///  3. Claude Code's `x-claude-code-session-id` header (tests/data/protocol/clients/
///     claude-cli.request.json);
///  4. Anthropic body `metadata.user_id` (Claude Code puts its session id in it);
///  5. OpenAI Chat / Responses body `prompt_cache_key` (Codex sets it to the session id), then
///     `user`.
/// Gemini bodies carry nothing usable. "" when none; at most kMaxSessionKeyBytes bytes.
std::string sessionKeyOf(Protocol protocol, HeaderList const& headers, std::string_view body);

}  // namespace llmux::protocol
