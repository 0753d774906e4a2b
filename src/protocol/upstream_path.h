#pragma once

#include <string>
#include <string_view>

#include "protocol/routes.h"

namespace llmux::protocol {

/// The upstream request path for `route` on a channel whose base URL path is `path_prefix`:
/// the prefix (trailing slashes dropped) + the protocol's standard path
///   /v1/chat/completions, /v1/responses, /v1/messages, /v1/messages/count_tokens,
///   /v1beta/models/{m}:generateContent | :streamGenerateContent
/// A prefix that already ends with the version segment is not doubled ("/relay/v1" + chat ->
/// "/relay/v1/chat/completions"; a Gemini prefix ending in "/v1" keeps v1). The Gemini model is
/// percent-encoded as one path segment, without a leading "models/". The query string is not
/// part of the result. Routes that are never forwarded (health, metrics, model lists) give "".
std::string upstreamPath(std::string_view path_prefix, Route const& route,
                         std::string_view upstream_model);

}  // namespace llmux::protocol
