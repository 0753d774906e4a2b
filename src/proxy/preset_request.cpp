#include "proxy/preset_request.h"

#include <algorithm>

#include "core/digest.h"
#include "http/server_request.h"

namespace llmux::proxy {
namespace {

/// Whether `query` already has a parameter named like the one `param` ("name=value") sets.
bool hasParam(std::string_view query, std::string_view param) {
  std::string_view name = param.substr(0, param.find('='));
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    if (item.substr(0, item.find('=')) == name) return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

}  // namespace

namespace {

/// What a session id the clients really send is made of (UUIDs, Claude Code's and Codex's ids).
bool isSessionIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("-._:@+~").find(c) != std::string_view::npos;
}

}  // namespace

std::string wireSafeSessionId(std::string_view raw) {
  if (raw.empty()) return {};
  if (raw.size() <= kMaxWireSessionIdBytes &&
      std::all_of(raw.begin(), raw.end(), isSessionIdChar)) {
    return std::string(raw);
  }
  return "sha256-" + sha256Hex(raw, 16);
}

std::string sessionIdOf(RequestContext const& ctx) {
  for (std::string_view name :
       {"x-session-id", "x-claude-code-session-id", "session-id", "session_id"}) {
    std::string_view value = ctx.request.headers.get(name);
    if (!value.empty()) return wireSafeSessionId(value);
  }
  if (ctx.neutral) {
    if (!ctx.neutral->prompt_cache_key.empty()) return wireSafeSessionId(ctx.neutral->prompt_cache_key);
    if (!ctx.neutral->user.empty()) return wireSafeSessionId(ctx.neutral->user);
  }
  return {};
}

std::string joinQuery(std::string query, std::string_view extra) {
  if (extra.empty()) return query;
  if (!query.empty()) query += '&';
  query += extra;
  return query;
}

std::optional<PresetRequest> presetRequestFor(RequestContext const& ctx,
                                              config::Channel const& channel,
                                              std::string const& upstream_model,
                                              std::string_view base_query) {
  std::optional<ClientPreset> preset = channel.presetFor(ctx.profile.model);
  if (!preset) return std::nullopt;
  PresetRequest out{.preset = *preset};
  out.session_id = sessionIdOf(ctx);
  out.model = upstream_model;
  out.stream = ctx.profile.stream;
  out.reasoning_off = ctx.neutral && ctx.neutral->reasoning && !ctx.neutral->reasoning->enabled;
  out.headers = translate::presetHeaders(*preset, out.context());
  std::string_view query = translate::presetQuery(*preset);
  if (!query.empty() && !hasParam(base_query, query)) out.query = std::string(query);
  return out;
}

}  // namespace llmux::proxy
