#pragma once

#include <string>
#include <string_view>

#include "core/wire_protocol.h"
#include "protocol/routes.h"

namespace llmux::protocol {

/// Where a protocol row's requests go: its base URL's path prefix, and the paths the row sets
/// itself (configuration `chat_path`, `models_path`). A path that is set is used exactly as
/// written, as an absolute path on the row's host: the prefix is not put in front of it. An
/// empty one means the protocol's standard path behind the prefix.
struct RowPaths {
  std::string_view prefix;  ///< the base URL's path ("" or "/relay"; trailing slashes ignored)
  std::string_view chat;    ///< the completion endpoint; Gemini's ends with kModelPlaceholder
  std::string_view models;  ///< the model list
  /// A media route's configured path (the channel's `media:` path of the route's modality, its
  /// `edits_path` for image edits); "" = the standard one behind the prefix.
  std::string_view media;
};

/// The upstream request path for `route` on a row with `paths`. Completion routes go to the
/// chat path: OpenAI Chat, Responses and Anthropic Messages to it as it is, Anthropic's
/// count_tokens to it + "/count_tokens", Gemini to it with `{model}` replaced by the upstream
/// model and ":generateContent", ":streamGenerateContent" or ":countTokens" appended.
/// The standard chat paths behind a prefix:
///   /v1/chat/completions, /v1/responses, /v1/messages, /v1beta/models/{model}
/// A prefix that already ends with the version segment is not doubled ("/relay/v1" + chat ->
/// "/relay/v1/chat/completions"; a Gemini prefix ending in "/v1" keeps v1). The Gemini model is
/// percent-encoded as one path segment, without a leading "models/". The query string is not
/// part of the result. Media routes go to the media path, else behind the prefix to
///   /v1/images/generations, /v1/images/edits, /v1/embeddings, /v1/audio/speech,
///   /v1/audio/transcriptions, /v1/videos
/// with a video job's "/{id}" or "/{id}/content" appended.
/// Routes that are never forwarded (health, metrics, model lists) give "".
std::string upstreamPath(RowPaths const& paths, Route const& route,
                         std::string_view upstream_model);

/// The same with the standard paths behind `path_prefix` (no path set on the row).
std::string upstreamPath(std::string_view path_prefix, Route const& route,
                         std::string_view upstream_model);

/// The path of `protocol`'s model list on a row with `paths`: its `models` path, else the
/// standard one behind the prefix (/v1/models; Gemini /v1beta/models, or /v1/models behind a
/// prefix ending in "/v1").
std::string modelsPath(Protocol protocol, RowPaths const& paths);

/// `tail` (such as "/dashboard/billing/usage") under "/v1" behind `prefix`, the version not
/// doubled when the prefix already ends with it.
std::string v1Path(std::string_view prefix, std::string_view tail);

/// The completion endpoint of `protocol` on a row with `paths`, as an operator reads it: the
/// path a request goes to, except that Gemini's keeps `{model}` and shows ":generateContent"
/// (a stream goes to ":streamGenerateContent").
std::string chatPathTemplate(Protocol protocol, RowPaths const& paths);

}  // namespace llmux::protocol
