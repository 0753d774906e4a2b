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

/// The body to send to an upstream of `target` for this request: the client's body decoded into
/// the neutral model once per request (kept in the context), then encoded for `target` with
/// `upstream_model`; tool names `target` rejects are renamed (`ctx.tool_names`, for the relay to
/// restore), and what was left out is logged at debug level once per request. InvalidRequest when
/// the client's body cannot be translated (the client's error: it gets a 400).
Result<std::string> translatedBody(RequestContext& ctx, Protocol target,
                                   std::string const& upstream_model);

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
