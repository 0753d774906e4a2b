#pragma once

// Tool names each protocol accepts differ: OpenAI (Chat and Responses) `^[a-zA-Z0-9_-]{1,64}$`,
// Anthropic `^[a-zA-Z0-9_-]{1,128}$`, Gemini `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$` (the stricter
// reading of the Gemini API and Vertex rules). A Gemini client's `github.search_issues`, or a
// Claude Code MCP tool name longer than 64 characters, would make an OpenAI upstream answer 400.
// Such names are replaced for the upstream by a valid, deterministic and collision-free name
// (REFERENCE §9.6: a sanitised prefix + "_" + 8 hex digits of a hash), everywhere the request
// names tools, and mapped back in everything returned to the client.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/wire_protocol.h"
#include "translate/neutral.h"

namespace llmux::translate {

/// The renamed tools of one translated request: client name ↔ name sent upstream.
class ToolNameMap {
 public:
  bool empty() const { return renames_.empty(); }
  std::size_t size() const { return renames_.size(); }

  /// The name sent upstream for the client's `name` (`name` itself when it is not renamed).
  std::string_view upstream(std::string_view name) const;
  /// The client's name for a name the upstream used (`name` itself when it is not a rename).
  std::string_view original(std::string_view name) const;

  void add(std::string original, std::string upstream);

 private:
  std::vector<std::pair<std::string, std::string>> renames_;  ///< (original, upstream)
};

/// Whether an upstream of `target` accepts `name` as a function name.
bool validToolName(std::string_view name, Protocol target);

/// The renames `request` needs for `target`: one per distinct non-empty name (in tools,
/// tool_choice, history tool calls and results) that `target` rejects. Empty (and cheap) when
/// every name is valid. The same request always gets the same names.
ToolNameMap planToolNames(Request const& request, Protocol target);

/// Applies `map` to every tool name in `request`: tools, tool_choice, tool calls and results.
void applyToolNames(Request& request, ToolNameMap const& map);

/// planToolNames + applyToolNames: `request` made valid for `target`, and the way back.
ToolNameMap rewriteToolNames(Request& request, Protocol target);

/// The client's names back on an upstream answer's tool calls.
void restoreToolNames(Response& response, ToolNameMap const& map);
/// The same for one stream event (a tool call's BlockStart carries its name).
void restoreToolNames(Event& event, ToolNameMap const& map);

}  // namespace llmux::translate
