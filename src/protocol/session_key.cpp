#include "protocol/session_key.h"

#include <array>

#include "protocol/json_scan.h"

namespace llmux::protocol {
namespace {

// What real clients send is recorded in tests/data/protocol/clients/ (captures described in the
// shared protocols notes, CLIENTS.md): Claude Code sends `x-claude-code-session-id` and
// `metadata.user_id` (a JSON text holding device, account and session ids); Codex CLI sends a
// `session-id` header and `prompt_cache_key` equal to it.
constexpr std::array<std::string_view, 6> kSessionHeaders = {
    "x-session-id",    "session_id",      "session-id",
    "conversation-id", "conversation_id", "x-claude-code-session-id"};

std::string capped(std::string value) {
  if (value.size() > kMaxSessionKeyBytes) value.resize(kMaxSessionKeyBytes);
  return value;
}

/// The decoded value of the top-level string member `name`, or "".
std::string stringMember(std::string_view text, JsonScan const& scan, std::string_view name) {
  for (JsonMember const& member : scan.members) {
    if (member.type == JsonType::String && member.keyIs(name)) {
      return decodeJsonString(
          text.substr(member.value_begin + 1, member.value_end - member.value_begin - 2));
    }
  }
  return {};
}

std::string fromBody(Protocol protocol, std::string_view body) {
  if (protocol == Protocol::Gemini) return {};
  JsonScan scan = scanJson(body);
  if (!scan.ok() || scan.root != JsonType::Object) return {};
  if (protocol == Protocol::Anthropic) {
    for (JsonMember const& member : scan.members) {
      if (member.type != JsonType::Object || !member.keyIs("metadata")) continue;
      std::string_view metadata = body.substr(member.value_begin, member.value_end - member.value_begin);
      if (std::string user = stringMember(metadata, scanJson(metadata), "user_id"); !user.empty()) {
        return user;
      }
    }
    return {};
  }
  if (std::string key = stringMember(body, scan, "prompt_cache_key"); !key.empty()) return key;
  return stringMember(body, scan, "user");
}

}  // namespace

std::string sessionKeyOf(Protocol protocol, HeaderList const& headers, std::string_view body) {
  for (std::string_view name : kSessionHeaders) {
    if (auto value = headers.find(name); value && !value->empty()) return capped(std::string(*value));
  }
  return capped(fromBody(protocol, body));
}

}  // namespace llmux::protocol
