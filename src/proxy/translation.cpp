#include "proxy/translation.h"

#include "http/server_request.h"
#include "translate/codec.h"
#include "translate/gemini/codec.h"

namespace llmux::proxy {

protocol::Route targetRoute(Protocol target, std::string const& upstream_model, bool stream) {
  protocol::Route route;
  route.protocol = target;
  switch (target) {
    case Protocol::OpenAiChat: route.kind = protocol::RouteKind::ChatCompletions; break;
    case Protocol::OpenAiResponses: route.kind = protocol::RouteKind::Responses; break;
    case Protocol::Anthropic: route.kind = protocol::RouteKind::Messages; break;
    case Protocol::Gemini:
      route.kind = protocol::RouteKind::GeminiGenerate;
      route.gemini_model = upstream_model;
      route.gemini_stream = stream;
      break;
  }
  return route;
}

Result<std::string> translatedBody(RequestContext& ctx, Protocol target,
                                   std::string const& upstream_model) {
  if (!ctx.neutral) {
    auto decoded = translate::decodeRequest(ctx.protocol, ctx.request.body, ctx.profile.model,
                                            ctx.profile.stream);
    if (!decoded) return decoded.error();
    ctx.neutral = std::move(*decoded);
  }
  return translate::encodeRequest(target, *ctx.neutral, upstream_model);
}

namespace {

/// Whether a Gemini client's query asks for SSE (`alt=sse` among its parameters).
bool geminiWantsSse(std::string_view query) {
  while (!query.empty()) {
    auto amp = query.find('&');
    if (query.substr(0, amp) == "alt=sse") return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

bool isGeminiJsonArrayStream(RequestContext const& ctx) {
  return ctx.protocol == Protocol::Gemini && !geminiWantsSse(ctx.request.query());
}

}  // namespace

std::unique_ptr<translate::StreamEncoder> clientStreamEncoder(RequestContext const& ctx,
                                                              translate::EncodeOptions const& options) {
  if (isGeminiJsonArrayStream(ctx)) {
    return translate::gemini::makeStreamEncoder(options, translate::gemini::StreamFraming::JsonArray);
  }
  return translate::makeStreamEncoder(ctx.protocol, options);
}

std::string_view clientStreamContentType(RequestContext const& ctx) {
  return isGeminiJsonArrayStream(ctx) ? "application/json" : "text/event-stream";
}

std::string translatedQuery(Protocol target, bool stream) {
  return target == Protocol::Gemini && stream ? "alt=sse" : "";
}

}  // namespace llmux::proxy
