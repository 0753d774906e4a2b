#include "proxy/translation.h"

#include "http/server_request.h"
#include "telemetry/log.h"
#include "translate/codec.h"
#include "translate/gemini/codec.h"
#include "translate/history_cleaner.h"
#include "translate/presets.h"
#include "translate/tool_names.h"

namespace llmux::proxy {

namespace {

std::string joined(std::vector<std::string> const& names) {
  std::string out;
  for (auto const& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out.empty() ? "-" : out;
}

/// What translation left out, by name only (never values): what the neutral model could not
/// carry from the client's body, and what the target could not take. Once per request: a
/// failover to another candidate would mostly repeat it.
void logDropped(RequestContext& ctx, Protocol target, std::vector<std::string> const& encoder) {
  if (ctx.dropped_logged || !telemetry::logEnabled(telemetry::LogLevel::Debug)) return;
  ctx.dropped_logged = true;
  std::vector<std::string> const& decoder = ctx.neutral->dropped;
  if (decoder.empty() && encoder.empty() && ctx.tool_names.empty()) return;
  telemetry::logDebug(
      "request {}: translated {} -> {}; not carried: {}; left out for {}: {}; tool names "
      "renamed: {}",
      ctx.request_id, protocolName(ctx.protocol), protocolName(target), joined(decoder),
      protocolName(target), joined(encoder), ctx.tool_names.size());
}

}  // namespace

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

Result<void> decodeClientRequest(RequestContext& ctx) {
  if (ctx.neutral) return {};
  auto decoded = translate::decodeRequest(ctx.protocol, ctx.request.body, ctx.profile.model,
                                          ctx.profile.stream);
  if (!decoded) return decoded.error();
  ctx.neutral = std::make_shared<translate::Request const>(std::move(*decoded));
  return {};
}

Result<std::string> translatedBody(RequestContext& ctx, Protocol target,
                                   std::string const& upstream_model,
                                   std::optional<ClientPreset> preset) {
  // Tool names the target rejects are renamed for this attempt only (the relay maps them back),
  // and a preset's defaults apply to this channel only: the next candidate may speak another
  // protocol. The kept neutral request is not touched; it is copied only when something changes.
  ctx.tool_names = translate::planToolNames(*ctx.neutral, target);
  std::optional<translate::Request> changed;
  if (!ctx.tool_names.empty()) {
    changed = *ctx.neutral;
    translate::applyToolNames(*changed, ctx.tool_names);
  }
  if (preset && translate::presetAddsDefaults(*preset, *ctx.neutral)) {
    if (!changed) changed = *ctx.neutral;
    translate::applyPresetDefaults(*preset, *changed);
  }
  auto encoded =
      translate::encodeRequestReporting(target, changed ? *changed : *ctx.neutral, upstream_model);
  if (!encoded) return encoded.error();
  logDropped(ctx, target, encoded->dropped);
  return std::move(encoded->body);
}

PassthroughSource passthroughSource(RequestContext& ctx) {
  if (!ctx.passthrough_checked) {
    ctx.passthrough_checked = true;
    if (auto cleaned = translate::cleanForeignReasoning(ctx.protocol, ctx.request.body)) {
      auto profile = protocol::inspectRequest(ctx.route, *cleaned);
      if (profile) {
        ctx.cleaned = RequestContext::CleanedBody{std::move(*cleaned), std::move(*profile)};
        telemetry::logDebug("request {}: reasoning made up by an earlier translation removed",
                            ctx.request_id);
      }
    }
  }
  if (ctx.cleaned) return {ctx.cleaned->body, ctx.cleaned->profile};
  return {ctx.request.body, ctx.profile};
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
