#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "protocol/routes.h"
#include "proxy/request_context.h"
#include "translate/codec.h"

namespace llmux::proxy {

/// The route a request takes on an upstream of `target` protocol (a generation request; the
/// model only matters for Gemini, whose URL carries it).
protocol::Route targetRoute(Protocol target, std::string const& upstream_model, bool stream);

/// Decodes the client's body into the neutral model, once per request (kept in
/// `ctx.neutral`). InvalidRequest when it cannot be read: the client's error, a 400 whatever
/// candidate would serve it.
Result<void> decodeClientRequest(RequestContext& ctx);

/// The body to send to an upstream of `target` for this request (decodeClientRequest first): the
/// neutral request encoded for `target` with `upstream_model`, a client preset's neutral defaults
/// applied to it; tool names `target` rejects are renamed (`ctx.tool_names`, for the relay to
/// restore), and what was left out is logged at debug level once per request. An error means
/// `target` cannot carry this request (nothing it accepts is left): another candidate may.
Result<std::string> translatedBody(RequestContext& ctx, Protocol target,
                                   std::string const& upstream_model,
                                   std::optional<ClientPreset> preset);

/// The body and profile a passthrough attempt splices its model into: the client's own, or — when
/// it carries reasoning llmux made up while translating an earlier turn, which the upstream
/// would refuse — a cleaned copy (computed once per request).
struct PassthroughSource {
  std::string_view body;
  protocol::RequestProfile const& profile;
};
PassthroughSource passthroughSource(RequestContext& ctx);

/// The query string sent upstream on a translated request (the client's query belongs to its
/// own protocol): `alt=sse` for a streamed Gemini request, else nothing.
std::string translatedQuery(Protocol target, bool stream);

/// The encoder of the client's stream. A Gemini client gets SSE when it asked with `alt=sse`
/// (what the SDKs and the CLI do), else one JSON array sent element by element.
std::unique_ptr<translate::StreamEncoder> clientStreamEncoder(RequestContext const& ctx,
                                                              translate::EncodeOptions const& options);

/// The Content-Type of the client's stream: "application/json" for a Gemini JSON-array stream,
/// else "text/event-stream".
std::string_view clientStreamContentType(RequestContext const& ctx);

}  // namespace llmux::proxy
