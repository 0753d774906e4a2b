#pragma once

#include <optional>
#include <string>

#include "config/settings.h"
#include "core/http_headers.h"
#include "proxy/request_context.h"
#include "translate/presets.h"

namespace llmux::proxy {

/// The client preset's share of one attempt's upstream request (translate/presets.h).
struct PresetRequest {
  ClientPreset preset;
  HeaderList headers;
  std::string query;  ///< the preset's query parameters not already in `base_query`
  std::string session_id;
  std::string model;  ///< upstream
  bool stream = false;
  bool reasoning_off = false;

  /// The preset's view of the request (it points into this object).
  translate::PresetContext context() const {
    return {.model = model, .session_id = session_id, .stream = stream,
            .reasoning_off = reasoning_off};
  }
};

/// The preset that applies to this request on `channel`, with its headers for `upstream_model`;
/// nullopt when none applies. `base_query` is the query the attempt sends otherwise.
std::optional<PresetRequest> presetRequestFor(RequestContext const& ctx,
                                              config::Channel const& channel,
                                              std::string const& upstream_model,
                                              std::string_view base_query);

/// Longest session id sent upstream as the client gave it.
inline constexpr std::size_t kMaxWireSessionIdBytes = 128;

/// A session id as it may go upstream (a preset's headers and body fields): the client's value
/// when it is at most kMaxWireSessionIdBytes of letters, digits and `-._:@+~`, else
/// "sha256-<32 hex digits>" of it — the same for the same session, but the client's bytes never
/// reach a header line. "" stays "".
std::string wireSafeSessionId(std::string_view raw);

/// The caller's session, as far as it can be told, made wire-safe: a session header
/// (`X-Session-Id`, Claude Code's, Codex's), else the neutral request's `prompt_cache_key` or
/// `user`. "" when unknown.
std::string sessionIdOf(RequestContext const& ctx);

/// `query` with `extra` appended ("" stays "").
std::string joinQuery(std::string query, std::string_view extra);

}  // namespace llmux::proxy
